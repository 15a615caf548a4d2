#include "ops/op_call.h"

#include <doctest/doctest.h>

namespace nnref {

namespace {
Value Num(double d, std::string text) {
  Number n;
  n.d = d;
  n.text = std::move(text);
  if (std::trunc(d) == d && std::fabs(d) < 1e18) {
    n.i = static_cast<int64_t>(d);
    if (d >= 0) n.u = static_cast<uint64_t>(d);
  }
  return Value::Num(n);
}
ErrorType ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const WebnnError& e) {
    return e.type();
  } catch (const InputError&) {
    return ErrorType::kUnknownError;  // malformed input, not a spec error
  }
  return ErrorType::kAbortError;  // no error at all
}
}  // namespace

TEST_CASE("argument readers: EnforceRange and enum conversion are TypeErrors") {
  GraphBuilder b;
  const Value axis = Num(2, "2");
  const Value neg = Num(-1, "-1");
  const Value frac = Num(1.5, "1.5");
  const Value list = Value::Array({Num(1, "1"), Num(3, "3")});
  const Value options = Value::Object({{"axis", Num(4294967296.0, "4294967296")},
                                       {"layout", Value::Str("nhwc")},
                                       {"bad", Value::Str("nwhc")},
                                       {"keep", Value::Bool(true)},
                                       {"eps", Num(1e-5, "1e-5")},
                                       {"bias", Value::Str("x")}});
  const Operand x = b.Input("x", {DataType::kFloat32, {1}});
  OpCall call(b, "op", {{"a", &axis}, {"b", &neg}, {"c", &frac}, {"d", &list}, {"o", &options}},
              [&](const std::string& n) -> std::optional<Operand> {
                if (n == "x") return x;
                return std::nullopt;
              });
  CHECK(call.GetUint32(0, "a") == 2u);
  CHECK(ErrorOf([&] { call.GetUint32(1, "b"); }) == ErrorType::kTypeError);
  // WebIDL ConvertToInt: [EnforceRange] drops a fraction (1.5 -> 1) and rejects only NaN,
  // infinities and integer parts out of range; without it, -1 is taken modulo 2^32.
  CHECK(call.GetUint32(2, "c") == 1u);
  CHECK(call.GetUint32(1, "b", /*enforce_range=*/false) == 4294967295u);
  CHECK(call.GetUint32(2, "c", /*enforce_range=*/false) == 1u);
  CHECK(call.GetUint32List(3, "d") == std::vector<uint32_t>{1, 3});
  CHECK(ErrorOf([&] { call.GetUint32List(0, "a"); }) == ErrorType::kUnknownError);  // not a list
  const Value& o = call.GetOptions(4);
  CHECK(ErrorOf([&] { call.GetUint32Option(o, "axis"); }) == ErrorType::kTypeError);  // > 2^32-1
  const Value big = Value::Array({Num(4294967298.0, "4294967298"), Num(-2.5, "-2.5")});
  OpCall wrap(b, "op", {{"r", &big}}, [](const std::string&) { return std::nullopt; });
  CHECK(wrap.GetUint32List(0, "r", /*enforce_range=*/false) == std::vector<uint32_t>{2, 4294967294u});
  CHECK(ErrorOf([&] { wrap.GetUint32List(0, "r"); }) == ErrorType::kTypeError);
  CHECK(call.GetEnumOption(o, "layout", {"nchw", "nhwc"}) == "nhwc");
  CHECK(ErrorOf([&] { call.GetEnumOption(o, "bad", {"nchw", "nhwc"}); }) == ErrorType::kTypeError);
  CHECK(call.GetBoolOption(o, "keep") == true);
  CHECK(call.GetDoubleOption(o, "eps") == doctest::Approx(1e-5));
  CHECK_FALSE(call.GetDoubleOption(o, "absent"));
  CHECK(call.GetOperandOption(o, "bias")->id == x.id);
  CHECK(ErrorOf([&] { call.GetOperandOption(o, "layout"); }) == ErrorType::kUnknownError);
  CHECK(ErrorOf([&] { call.GetUint32(7, "missing"); }) == ErrorType::kUnknownError);
}

}  // namespace nnref
