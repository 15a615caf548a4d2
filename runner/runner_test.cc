#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ops/reduction.h"
#include "ref/error.h"
#include "ref/testing.h"
#include "runner/compare.h"
#include "runner/data.h"
#include "runner/derived.h"
#include "runner/json.h"

namespace nnref {

TEST_CASE("JSON keeps member order and number text") {
  const Value v = ParseJson(R"({"b": 1, "a": 0.1, "c": [1e-45, "x"]})", "t");
  REQUIRE(v.members().size() == 3);
  CHECK(v.members()[0].first == "b");
  CHECK(v.members()[1].second.number().text == "0.1");
  CHECK(v.Find("c")->items()[0].number().text == "1e-45");
}

TEST_CASE("malformed JSON names source, line and column") {
  try {
    ParseJson("{\n  \"a\": [1, 2,,]\n}", "cases/x.json");
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("cases/x.json") != std::string::npos);
    CHECK(m.find("line 2") != std::string::npos);
  }
}

TEST_CASE("float16 from decimal rounds once") {
  // 2049 is the midpoint of 2048 and 2050: ties to even (2048 = 0x6800).
  CHECK(Float16FromDecimal("2049").bits == 0x6800);
  // Slightly above the midpoint must round up even though the nearest double is close.
  CHECK(Float16FromDecimal("2049.0000000000000000001").bits == 0x6801);
  CHECK(Float16FromDecimal("2048.9999999999999999999").bits == 0x6800);
  CHECK(Float16FromDecimal("65520").bits == 0x7c00);  // rounds to infinity
  CHECK(Float16FromDecimal("5.960464477539063e-8").bits == 0x0001);
}

TEST_CASE("data forms decode, with errors naming the field") {
  const Value arr = ParseJson(R"([1, "NaN", "-0", "Infinity", "0x7f800001", 1e-45])", "t");
  const Tensor t = DecodeTensorData(arr, DataType::kFloat32, {6}, "f.data", "");
  CHECK(t.base<float>()[0] == 1.0f);
  CHECK(std::isnan(t.base<float>()[1]));
  CHECK(std::signbit(t.base<float>()[2]));
  CHECK(std::isinf(t.base<float>()[3]));
  CHECK(std::isnan(t.base<float>()[4]));
  CHECK(t.base<float>()[5] == std::nextafter(0.0f, 1.0f));
  const Value big = ParseJson(R"(["-9223372036854775808", "18446744073709551615n"])", "t");
  CHECK_THROWS_AS(DecodeTensorData(big, DataType::kInt64, {2}, "w", ""), InputError);  // 2^64-1
  const Tensor i64 = DecodeTensorData(ParseJson(R"(["-9223372036854775808"])", "t"),
                                      DataType::kInt64, {1}, "w", "");
  CHECK(i64.base<int64_t>()[0] == INT64_MIN);
  CHECK_THROWS_AS(DecodeTensorData(big, DataType::kUint64, {2}, "w", ""), InputError);  // negative
  const Tensor u64 = DecodeTensorData(ParseJson(R"(["18446744073709551615n"])", "t"),
                                      DataType::kUint64, {1}, "w", "");
  CHECK(u64.base<uint64_t>()[0] == UINT64_MAX);
  try {
    DecodeTensorData(ParseJson("[1, 2, 3]", "t"), DataType::kInt8, {2}, "case 'x': data", "");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("case 'x': data") != std::string::npos);
  }
  try {
    DecodeTensorData(ParseJson("[300]", "t"), DataType::kInt8, {1}, "d", "");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("out of range") != std::string::npos);
  }
}

TEST_CASE("range and fill generators") {
  const Tensor r = DecodeTensorData(ParseJson(R"({"range": {"start": -1, "step": 0.5}})", "t"),
                                    DataType::kFloat32, {4}, "d", "");
  CHECK(r.base<float>()[3] == 0.5f);
  const Tensor f =
      DecodeTensorData(ParseJson(R"({"fill": 7})", "t"), DataType::kUint8, {3}, "d", "");
  CHECK(f.base<uint8_t>()[2] == 7);
}

// Writes a version-1 npy file with the header dictionary `dict` and `payload` (header padded to
// a multiple of 64 bytes, as the npy format description asks; the bytes are written by hand, not
// by the reader under test).
static void WriteNpy(const std::filesystem::path& path, std::string header,
                     const std::string& payload) {
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff),
                       static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
}

TEST_CASE("npy: byte types accept either order character; a bad descr is an input error") {
  namespace fs = std::filesystem;
  const fs::path path =
      fs::temp_directory_path() / ("nnref_npy_descr_" + std::to_string(::getpid()) + ".npy");
  WriteNpy(path, "{'descr': '<u1', 'fortran_order': False, 'shape': (2,), }", "\x07\x09");
  const Value form = ParseJson("{\"npy\": \"" + path.string() + "\"}", "t");
  const Tensor t = DecodeTensorData(form, DataType::kUint8, {2}, "d", "/");
  CHECK(t.base<uint8_t>()[0] == 7);
  CHECK(t.base<uint8_t>()[1] == 9);
  // An empty descr (npy_fuzzer's crash: std::out_of_range escaped the reader) and a one-letter
  // one are refused with the file named.
  for (const char* descr : {"", "'u'", "'|u12'"}) {
    WriteNpy(path, std::string("{'descr': ") + descr + ", 'fortran_order': False, 'shape': (2,), }",
             "\x07\x09");
    CHECK_THROWS_WITH_AS(DecodeTensorData(form, DataType::kUint8, {2}, "d", "/"),
                         doctest::Contains("expected |u1"), InputError);
  }
  fs::remove(path);
}

// Writes a version-1 npy file of float32 `values`.
static void WriteNpyFloat32(const std::filesystem::path& path, const std::vector<float>& values) {
  std::string payload(values.size() * 4, '\0');
  std::memcpy(payload.data(), values.data(), payload.size());  // little-endian, as '<f4' says
  WriteNpy(path,
           "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) +
               ",), }",
           payload);
}

TEST_CASE("npy paths: absolute as given, relative to the case file's directory") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("nnref_npy_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  WriteNpyFloat32(dir / "sub" / "x.npy", {1.5f, -2.0f});
  // An absolute path is used as it is, whatever the case file's directory (issue 14: it was
  // read as DIR//abs/path.npy).
  const std::string abs = (dir / "sub" / "x.npy").string();
  const Value a = ParseJson("{\"npy\": \"" + abs + "\"}", "t");
  const Tensor ta = DecodeTensorData(a, DataType::kFloat32, {2}, "d", "/nonexistent/case/dir");
  CHECK(ta.base<float>()[0] == 1.5f);
  CHECK(ta.base<float>()[1] == -2.0f);
  // A relative path stays relative to the case file's directory.
  const Tensor tr = DecodeTensorData(ParseJson(R"({"npy": "sub/x.npy"})", "t"), DataType::kFloat32,
                                     {2}, "d", dir.string());
  CHECK(tr.base<float>()[1] == -2.0f);
  CHECK_THROWS_AS(DecodeTensorData(ParseJson(R"({"npy": "sub/x.npy"})", "t"), DataType::kFloat32,
                                   {2}, "d", "/nonexistent/case/dir"),
                  InputError);
  fs::remove_all(dir);
}

TEST_CASE("splitmix64 matches its published first outputs for seed 0") {
  // Reference values of SplitMix64 seeded with 0 (from the algorithm's reference C code).
  SplitMix64 g(0);
  CHECK(g.Next() == 0xe220a8397b1dcdafull);
  CHECK(g.Next() == 0x6e789e6aa1b965f4ull);
}

TEST_CASE("canonical output is the shortest round-tripping decimal") {
  Tensor t = Tensor::Allocate(DataType::kFloat32, {3});
  t.base<float>()[0] = 0.1f;
  t.base<float>()[1] = -0.0f;
  t.base<float>()[2] = NAN;
  CHECK(ElementText(t, 0) == "0.1");
  CHECK(ElementText(t, 1) == "-0");
  CHECK(ElementText(t, 2) == "NaN");
  Tensor h = Tensor::Allocate(DataType::kFloat16, {1});
  h.base<Float16>()[0] = Float16{0x3555};  // 0.333251953125
  CHECK(ElementText(h, 0) == "0.3333");
  h.base<Float16>()[0] = Float16{0x7bff};  // 65504: "65500" reads back as 65504
  CHECK(ElementText(h, 0) == "65500");
  h.base<Float16>()[0] = Float16{0x0001};  // 2^-24
  CHECK(ElementText(h, 0) == "6e-08");
}

TEST_CASE("comparison: tolerance, NaN, signed zero, and latitude") {
  Tensor e = Tensor::Allocate(DataType::kFloat32, {4});
  Tensor a = Tensor::Allocate(DataType::kFloat32, {4});
  const float one_up = std::nextafter(1.0f, 2.0f);
  float ev[] = {1.0f, NAN, 0.0f, 5.0f};
  float av[] = {one_up, NAN, -0.0f, 6.0f};
  for (int i = 0; i < 4; ++i) {
    e.base<float>()[i] = ev[i];
    a.base<float>()[i] = av[i];
  }
  Comparison c = CompareTensors(e, a, Tensor(), Tolerance::Ulp(1));
  CHECK(c.mismatches == 1);  // only 5 vs 6
  CHECK(c.first[0].index == 3);
  Tensor lat = Tensor::Allocate(DataType::kUint8, {4});
  lat.base<uint8_t>()[3] = 1;  // implementation-defined
  c = CompareTensors(e, a, lat, Tolerance::Ulp(0));
  CHECK(c.mismatches == 1);  // 1 vs nextafter(1) now fails with 0 ULP
  CHECK(c.implementation_defined == 1);
}

TEST_CASE("a subnormal against zero is counted as a flushed subnormal, either way round") {
  // float32: 2^-130 is subnormal (below 2^-126), 2^-120 is normal; float16: 2^-20 is subnormal
  // (below 2^-14).
  Tensor e = Tensor::Allocate(DataType::kFloat32, {4});
  Tensor a = Tensor::Allocate(DataType::kFloat32, {4});
  const float ev[] = {0x1p-130f, 0.0f, 0x1p-120f, -0x1p-149f};
  const float av[] = {0.0f, 0x1p-140f, 0.0f, -0.0f};
  for (int i = 0; i < 4; ++i) {
    e.base<float>()[i] = ev[i];
    a.base<float>()[i] = av[i];
  }
  const Comparison c = CompareTensors(e, a, Tensor(), Tolerance::Ulp(0));
  CHECK(c.mismatches == 4);
  CHECK(c.flushed_subnormals == 3);  // [0], [1] and [3]; [2] is a normal number against 0
  REQUIRE(c.first.size() == 4);
  CHECK(c.first[0].flushed_subnormal);
  CHECK(!c.first[2].flushed_subnormal);
  Tensor e16 = Tensor::Allocate(DataType::kFloat16, {2});
  Tensor a16 = Tensor::Allocate(DataType::kFloat16, {2});
  e16.base<Float16>()[0] = Float16::FromDouble(0x1p-20);  // subnormal
  e16.base<Float16>()[1] = Float16::FromDouble(0x1p-13);  // normal
  a16.base<Float16>()[0] = Float16::FromDouble(0.0);
  a16.base<Float16>()[1] = Float16::FromDouble(0.0);
  CHECK(CompareTensors(e16, a16, Tensor(), Tolerance::Ulp(0)).flushed_subnormals == 1);
}

TEST_CASE("an infinity where the spec's steps overflow the type is counted as such") {
  // reduceL2 of [3e30, 4e30] in float32: the sum of squares, 2.5e61, is beyond float32's largest
  // value (3.4e38), the result 5e30 is not. The derived policy flags the element and keeps a
  // finite bound (docs/numerics.md: an intermediate overflow is a stated rejection); an
  // implementation that sums the squares in float32 gives +Infinity there.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2}});
  const auto graph = b.Build({{"out", ReduceL2(b, x)}});
  std::map<uint32_t, OperandValue> values;
  graph->Compute({{"x", F32({2}, {3e30f, 4e30f})}},
                 [&](OperandId id, const OperandValue& v) { values[id.value] = v; });
  const OperatorNode& node = graph->operators()[0];
  const OperandValue* in[] = {&values.at(node.inputs[0].value)};
  const OperandValue out[] = {values.at(node.outputs[0].value)};
  const Judgement j = OperatorJudgement(TolerancePolicy::kDerived, *graph, 0, 0, in, out);
  REQUIRE(j.overflow.size() == 1);
  CHECK(j.overflow[0] == 1);
  CHECK(out[0].data.At<float>(0) == doctest::Approx(5e30).epsilon(1e-6));
  REQUIRE(j.bounds.size() == 1);
  CHECK(std::isfinite(j.bounds[0]));

  Tensor inf = Tensor::Allocate(DataType::kFloat32, out[0].data.shape());
  inf.base<float>()[0] = std::numeric_limits<float>::infinity();
  const Comparison c = CompareTensors(out[0].data, inf, Tensor(), j.tolerance, 5, nullptr,
                                      ReferenceSide::kExpected, j.bounds, j.overflow);
  CHECK(c.mismatches == 1);  // still a failure: WebNN's result is the finite one
  CHECK(c.step_overflows == 1);
  REQUIRE(c.first.size() == 1);
  CHECK(c.first[0].step_overflow);
  // Unflagged, or a finite wrong value: not marked.
  const std::vector<uint8_t> none = {0};
  CHECK(CompareTensors(out[0].data, inf, Tensor(), j.tolerance, 5, nullptr,
                       ReferenceSide::kExpected, j.bounds, none)
            .step_overflows == 0);
  Tensor wrong = Tensor::Allocate(DataType::kFloat32, out[0].data.shape());
  wrong.base<float>()[0] = 6e30f;
  const Comparison finite = CompareTensors(out[0].data, wrong, Tensor(), j.tolerance, 5, nullptr,
                                           ReferenceSide::kExpected, j.bounds, j.overflow);
  CHECK(finite.mismatches == 1);
  CHECK(finite.step_overflows == 0);
}

TEST_CASE("value-or-NaN: NaN is accepted on the side that is not the reference's") {
  // The reference gives 1 (pow(1, NaN) in C) and marks it value-or-NaN; the other side is NaN
  // (Math.pow). In `check` the reference is `expected`, in `run` it is `actual`.
  Tensor ref = Tensor::Allocate(DataType::kFloat32, {2});
  Tensor other = Tensor::Allocate(DataType::kFloat32, {2});
  ref.base<float>()[0] = 1.0f;
  other.base<float>()[0] = NAN;
  ref.base<float>()[1] = NAN;  // a NaN reference value, marked: only NaN passes
  other.base<float>()[1] = 5.0f;
  Tensor lat = Tensor::Allocate(DataType::kUint8, {2});
  lat.base<uint8_t>()[0] = static_cast<uint8_t>(Latitude::kValueOrNaN);
  lat.base<uint8_t>()[1] = static_cast<uint8_t>(Latitude::kValueOrNaN);
  const Tolerance t = Tolerance::Ulp(0);
  Comparison c = CompareTensors(ref, other, lat, t);  // check: reference expected
  CHECK(c.nan_accepted == 1);
  CHECK(c.mismatches == 1);
  CHECK(c.first[0].index == 1);
  c = CompareTensors(other, ref, lat, t, 5, nullptr, ReferenceSide::kActual);  // run
  CHECK(c.nan_accepted == 1);
  CHECK(c.mismatches == 1);
  CHECK(c.first[0].index == 1);
}

TEST_CASE("sign-exact zeros: +0 vs -0 fails whatever the bound; other elements keep their bounds") {
  Tensor e = Tensor::Allocate(DataType::kFloat32, {2});
  Tensor a = Tensor::Allocate(DataType::kFloat32, {2});
  e.base<float>()[0] = 0.0f;
  a.base<float>()[0] = -0.0f;
  e.base<float>()[1] = 0.2f;
  a.base<float>()[1] = 0.2001f;  // within ATOL 0.001
  Tolerance t = Tolerance::Atol(0.001);
  CHECK(CompareTensors(e, a, Tensor(), t).mismatches == 0);  // zeros equal by default
  t.sign_exact = true;
  const Comparison c = CompareTensors(e, a, Tensor(), t);
  CHECK(c.mismatches == 1);
  CHECK(c.first[0].index == 0);
  Tolerance u = Tolerance::Ulp(5);
  u.sign_exact = true;
  CHECK(CompareTensors(e, e, Tensor(), u).mismatches == 0);
  CHECK(CompareTensors(e, a, Tensor(), u).first[0].index == 0);
}

}  // namespace nnref
