// NNEF quantization files (chapter 5.3): syntax, errors with line:column, the algorithm checks,
// and the pseudo-quantization formulas of chapter 4.9.5 on hand-computed values.
#include "runner/nnef/quant_file.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

namespace nnref::nnef {

namespace {

template <typename F>
std::string QuantErrorText(F&& f) {
  try {
    f();
  } catch (const NnefError& e) {
    CHECK(e.stage() == Stage::kQuantFile);
    return e.what();
  }
  return "";
}

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

Quantizer Q(const std::string& algorithm) {
  const QuantFile f = ParseQuantFile("'t': " + algorithm + ";", "graph.quant");
  return MakeQuantizer(f.entries.at(0).algorithm);
}

double F(float v) { return static_cast<double>(v); }

}  // namespace

TEST_CASE("nnef quant file: entries, quotes, comments, literals") {
  const QuantFile f = ParseQuantFile(
      "# activations\n"
      "\"input\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n"
      "'filter1': linear_quantize(min = -1.0, max = 1e0, bits = 8); 'b': "
      "logarithmic_quantize(max = +4.0, bits = 5);  # two on one line\n"
      "\"z\": zero_point_linear_quantize(zero_point = -3, scale = 0.5, bits = 8, signed = true, "
      "symmetric = false);\n",
      "graph.quant");
  REQUIRE(f.entries.size() == 4);
  CHECK(f.entries[0].tensor == "input");
  CHECK(f.entries[0].pos.line == 2);
  CHECK(f.entries[0].pos.column == 1);
  CHECK(f.entries[1].tensor == "filter1");
  CHECK(f.entries[1].algorithm.name == "linear_quantize");
  CHECK(f.entries[1].algorithm.Arg("min")->kind == ArgValue::Kind::kScalar);
  CHECK(f.entries[1].algorithm.Arg("min")->s == -1.0);
  CHECK(f.entries[1].algorithm.Arg("bits")->kind == ArgValue::Kind::kInteger);
  CHECK(f.entries[1].algorithm.Arg("bits")->i == 8);
  CHECK(f.entries[2].tensor == "b");
  CHECK(f.entries[2].algorithm.pos.line == 3);
  CHECK(f.entries[3].algorithm.Arg("zero_point")->i == -3);
  CHECK(f.entries[3].algorithm.Arg("signed")->b);
  CHECK(f.Find("b") == &f.entries[2]);
  CHECK(f.Find("c") == nullptr);
  CHECK(ParseQuantFile("", "graph.quant").entries.empty());
  CHECK(ParseQuantFile("# nothing\n\n", "graph.quant").entries.empty());
}

TEST_CASE("nnef quant file: syntax errors carry line:column") {
  CHECK(Has(QuantErrorText([] { ParseQuantFile("x: linear_quantize(bits = 8);", "q"); }),
            "q:1:1: quant-file error: expected a quoted tensor identifier"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x' linear_quantize(bits = 8);", "q"); }),
            "q:1:5: quant-file error: expected ':'"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x': linear_quantize(bits = 8)\n", "q"); }),
            "q:2:1: quant-file error: expected ';', found the end of the file"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x': f(x, bits = 8);", "q"); }),
            "1:8: quant-file error: expected a named argument"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x': f(max = y);", "q"); }),
            "1:14: quant-file error: 'y' is not a literal"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x': f(bits = 8, bits = 9);", "q"); }),
            "1:18: quant-file error: argument 'bits' given more than once"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x': f(a = 1);\n'x': f(a = 2);", "q"); }),
            "2:1: quant-file error: tensor 'x' is given a quantization more than once"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x: f(a = 1);", "q"); }),
            "1:1: quant-file error: unterminated string literal"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x': f(a = 1e);", "q"); }),
            "exponent without digits"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x': f(a = 99999999999999999999);", "q"); }),
            "does not fit 64 bits"));
  CHECK(Has(QuantErrorText([] { ParseQuantFile("'x': f(a = 1) @", "q"); }),
            "1:15: quant-file error: unexpected character '@'"));
}

TEST_CASE("nnef quant file: algorithm checks") {
  const auto err = [](const std::string& a) { return QuantErrorText([&] { Q(a); }); };
  CHECK(Has(err("linear_quantize(min = 0.0, max = 1.0)"), "missing argument 'bits'"));
  CHECK(Has(err("linear_quantize(min = 0.0, max = 1.0, bits = 8, scale = 1.0)"),
            "unknown argument 'scale'"));
  CHECK(Has(err("linear_quantize(min = 1.0, max = 1.0, bits = 8)"), "finite min < max"));
  CHECK(Has(err("linear_quantize(min = 0.0, max = 1.0, bits = 0)"), "bits = 0 is outside 1..32"));
  CHECK(Has(err("linear_quantize(min = 0.0, max = 1.0, bits = 8.0)"),
            "argument 'bits' must be an integer"));
  CHECK(Has(err("linear_quantize(min = 'a', max = 1.0, bits = 8)"),
            "argument 'min' must be a scalar"));
  CHECK(Has(err("logarithmic_quantize(max = -1.0, bits = 8)"), "max must be positive"));
  CHECK(Has(err("zero_point_linear_quantize(zero_point = 0, scale = 0.0, bits = 8, "
                "signed = false, symmetric = false)"),
            "scale must be positive"));
  CHECK(Has(err("zero_point_linear_quantize(zero_point = 0, scale = 1.0, bits = 8, "
                "signed = 1, symmetric = false)"),
            "'signed' must be true or false"));
  CHECK(Has(err("cubic_quantize(bits = 8)"), "unknown quantization algorithm 'cubic_quantize'"));
  // An integer literal is accepted for a scalar parameter (converted exactly).
  CHECK(Q("linear_quantize(min = 0, max = 2, bits = 8)").max == 2.0);
}

TEST_CASE("nnef quant file: linear_quantize") {
  // min 0, max 1, 8 bits: r = 255. 0.5 * 255 = 127.5 rounds up (floor(v + 0.5)) to 128.
  const Quantizer q = Q("linear_quantize(min = 0.0, max = 1.0, bits = 8)");
  CHECK(F(q.Apply(0.5f)) == F(static_cast<float>(128.0 / 255.0)));
  CHECK(F(q.Apply(2.0f)) == 1.0);   // clamped to max
  CHECK(F(q.Apply(-1.0f)) == 0.0);  // clamped to min
  CHECK(F(q.Apply(1.0f / 255.0f)) == F(static_cast<float>(1.0 / 255.0)));
  // NaN: clamp = max(min(x, b), a) with select semantics gives b, so NaN -> max.
  CHECK(F(q.Apply(std::numeric_limits<float>::quiet_NaN())) == 1.0);
  // 1 bit (r = 1): exactly 0.5 rounds up; the float below 0.5 rounds down.
  const Quantizer one = Q("linear_quantize(min = 0.0, max = 1.0, bits = 1)");
  CHECK(F(one.Apply(0.5f)) == 1.0);
  CHECK(F(one.Apply(std::nextafter(0.5f, 0.0f))) == 0.0);
  // min -1, max 2, bits 2 (r = 3): x = 0.5 -> (1.5 / 3) * 3 = 1.5 -> 2 -> 2/3 * 3 - 1 = 1.
  const Quantizer q3 = Q("linear_quantize(min = -1.0, max = 2.0, bits = 2)");
  CHECK(F(q3.Apply(0.5f)) == 1.0);
  // An exact halfway case with an inexact max: min 0, max 0.1 (float32 0.100000001490116...),
  // r = 255, x = max / 2 (exact in float32): v = 127.5 exactly -> 128.
  const Quantizer qt = Q("linear_quantize(min = 0.0, max = 0.1, bits = 8)");
  const float half = 0.1f / 2;  // exact (power-of-two scaling)
  CHECK(F(qt.Apply(half)) == F(static_cast<float>(128.0 / 255.0 * F(0.1f))));
  // Codes of linear_quantize: q / r * (max - min) + min for q in [0, r].
  CHECK(F(*q3.DecodeCode(3)) == 2.0);
  CHECK(!q3.DecodeCode(4).has_value());
  CHECK(!q3.DecodeCode(-1).has_value());
}

TEST_CASE("nnef quant file: logarithmic_quantize") {
  // max 5: m = ceil(log2 5) = 3; bits 3: r = 7, exponents clamped to [-4, 3].
  const Quantizer q = Q("logarithmic_quantize(max = 5.0, bits = 3)");
  CHECK(F(q.Apply(3.0f)) == 4.0);        // log2 3 = 1.58 -> 2
  CHECK(F(q.Apply(2.5f)) == 2.0);        // log2 2.5 = 1.32 -> 1
  CHECK(F(q.Apply(0.01f)) == 1.0 / 16);  // -6.6 clamped to -4
  CHECK(F(q.Apply(100.0f)) == 8.0);      // clamped to m = 3
  CHECK(F(q.Apply(-3.0f)) == -4.0);      // sign(x) * 2^q
  CHECK(F(q.Apply(0.0f)) == 0.0);
  // max = 4 exactly: m = 2.
  CHECK(F(Q("logarithmic_quantize(max = 4.0, bits = 3)").Apply(100.0f)) == 4.0);
  CHECK(!q.DecodeCode(0).has_value());
}

TEST_CASE("nnef quant file: zero_point_linear_quantize and min_max_linear_quantize") {
  const Quantizer u =
      Q("zero_point_linear_quantize(zero_point = 10, scale = 0.5, bits = 8, signed = false, "
        "symmetric = false)");
  CHECK(F(u.Apply(1.25f)) == 1.5);      // 2.5 -> 3, +10 = 13 -> (13 - 10) * 0.5
  CHECK(F(u.Apply(-100.0f)) == -5.0);   // -200 + 10 clamped to 0 -> -10 * 0.5
  CHECK(F(u.Apply(1000.0f)) == 122.5);  // clamped to 255 -> 245 * 0.5
  CHECK(F(*u.DecodeCode(0)) == -5.0);
  CHECK(!u.DecodeCode(256).has_value());
  const Quantizer s =
      Q("zero_point_linear_quantize(zero_point = 0, scale = 1.0, bits = 8, signed = true, "
        "symmetric = true)");
  CHECK(F(s.Apply(-200.0f)) == -127.0);
  CHECK(F(s.Apply(200.0f)) == 127.0);
  CHECK(!s.DecodeCode(-128).has_value());
  // min_max, signed symmetric, 8 bits: r = 254, codes -127..127 map to k = code + 127.
  const Quantizer m =
      Q("min_max_linear_quantize(min = -1.0, max = 1.0, bits = 8, signed = true, "
        "symmetric = true)");
  CHECK(F(*m.DecodeCode(-127)) == -1.0);
  CHECK(F(*m.DecodeCode(127)) == 1.0);
  CHECK(F(*m.DecodeCode(0)) == 0.0);
  CHECK(F(m.Apply(0.003f)) == 0.0);  // 1.003 / 2 * 254 = 127.38 -> k = 127 -> 0
  CHECK(F(m.Apply(0.004f)) == F(static_cast<float>(2.0 / 254.0)));  // 127.51 -> k = 128
}

}  // namespace nnref::nnef
