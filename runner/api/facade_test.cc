// The typed GraphBuilder covers every operator of the registry (ops/op_list.inc) and every
// MLGraphBuilder method of the spec (ops/spec_methods.txt): each entry below calls one facade
// method on valid operands, and the test checks that the operator it added is the one named.
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <set>

#include "ops/registry.h"
#include "runner/api/webnn.h"

namespace nnref::webnn {

namespace {

using F = DataType;

struct Fixture {
  Context context = Context::Create().get();
  GraphBuilder b{context};
  int next = 0;
  Operand In(DataType t, const Shape& s) {
    std::string name = std::to_string(next++);
    name.insert(0, 1, 'i');  // (operator+ here trips a GCC 12 -Wrestrict false positive)
    return b.Input(name, {t, s});
  }
  Operand X() { return In(F::kFloat32, {2, 3}); }
  Operand Image() { return In(F::kFloat32, {1, 1, 4, 4}); }
};

using Call = std::function<void(Fixture&)>;

// One call per spec method (builder-core methods aside), by method name.
const std::map<std::string, Call>& Calls() {
  static const std::map<std::string, Call> calls = {
      {"abs", [](Fixture& f) { f.b.Abs(f.X()); }},
      {"add", [](Fixture& f) { f.b.Add(f.X(), f.X()); }},
      {"argMax", [](Fixture& f) { f.b.ArgMax(f.X(), 1); }},
      {"argMin", [](Fixture& f) { f.b.ArgMin(f.X(), 0); }},
      {"averagePool2d", [](Fixture& f) { f.b.AveragePool2d(f.Image()); }},
      {"batchNormalization",
       [](Fixture& f) {
         f.b.BatchNormalization(f.Image(), f.In(F::kFloat32, {1}), f.In(F::kFloat32, {1}));
       }},
      {"cast", [](Fixture& f) { f.b.Cast(f.X(), F::kInt32); }},
      {"ceil", [](Fixture& f) { f.b.Ceil(f.X()); }},
      {"clamp", [](Fixture& f) { f.b.Clamp(f.X()); }},
      {"concat",
       [](Fixture& f) {
         f.b.Concat({f.X(), f.X()}, 0);
       }},
      {"conv2d",
       [](Fixture& f) {
         f.b.Conv2d(f.Image(), f.In(F::kFloat32, {1, 1, 2, 2}));
       }},
      {"convTranspose2d",
       [](Fixture& f) {
         f.b.ConvTranspose2d(f.Image(), f.In(F::kFloat32, {1, 1, 2, 2}));
       }},
      {"cos", [](Fixture& f) { f.b.Cos(f.X()); }},
      {"cumulativeSum", [](Fixture& f) { f.b.CumulativeSum(f.X(), 1); }},
      {"dequantizeLinear",
       [](Fixture& f) {
         f.b.DequantizeLinear(f.In(F::kUint8, {2}), f.In(F::kFloat32, {2}), f.In(F::kUint8, {2}));
       }},
      {"div", [](Fixture& f) { f.b.Div(f.X(), f.X()); }},
      {"elu", [](Fixture& f) { f.b.Elu(f.X()); }},
      {"equal", [](Fixture& f) { f.b.Equal(f.X(), f.X()); }},
      {"erf", [](Fixture& f) { f.b.Erf(f.X()); }},
      {"exp", [](Fixture& f) { f.b.Exp(f.X()); }},
      {"expand",
       [](Fixture& f) {
         f.b.Expand(f.In(F::kFloat32, {1, 3}), {2, 3});
       }},
      {"floor", [](Fixture& f) { f.b.Floor(f.X()); }},
      {"gather", [](Fixture& f) { f.b.Gather(f.X(), f.In(F::kInt32, {2})); }},
      {"gatherElements",
       [](Fixture& f) {
         f.b.GatherElements(f.X(), f.In(F::kInt32, {2, 3}));
       }},
      {"gatherND",
       [](Fixture& f) {
         f.b.GatherND(f.X(), f.In(F::kInt32, {1, 2}));
       }},
      {"gelu", [](Fixture& f) { f.b.Gelu(f.X()); }},
      {"gemm",
       [](Fixture& f) {
         f.b.Gemm(f.X(), f.In(F::kFloat32, {3, 4}));
       }},
      {"greater", [](Fixture& f) { f.b.Greater(f.X(), f.X()); }},
      {"greaterOrEqual", [](Fixture& f) { f.b.GreaterOrEqual(f.X(), f.X()); }},
      {"gru",
       [](Fixture& f) {
         f.b.Gru(f.In(F::kFloat32, {2, 1, 3}), f.In(F::kFloat32, {1, 12, 3}),
                 f.In(F::kFloat32, {1, 12, 4}), 2, 4);
       }},
      {"gruCell",
       [](Fixture& f) {
         f.b.GruCell(f.In(F::kFloat32, {1, 3}), f.In(F::kFloat32, {12, 3}),
                     f.In(F::kFloat32, {12, 4}), f.In(F::kFloat32, {1, 4}), 4);
       }},
      {"hardSigmoid", [](Fixture& f) { f.b.HardSigmoid(f.X()); }},
      {"hardSwish", [](Fixture& f) { f.b.HardSwish(f.X()); }},
      {"identity", [](Fixture& f) { f.b.Identity(f.X()); }},
      {"instanceNormalization", [](Fixture& f) { f.b.InstanceNormalization(f.Image()); }},
      {"isInfinite", [](Fixture& f) { f.b.IsInfinite(f.X()); }},
      {"isNaN", [](Fixture& f) { f.b.IsNaN(f.X()); }},
      {"l2Pool2d", [](Fixture& f) { f.b.L2Pool2d(f.Image()); }},
      {"layerNormalization", [](Fixture& f) { f.b.LayerNormalization(f.X()); }},
      {"leakyRelu", [](Fixture& f) { f.b.LeakyRelu(f.X()); }},
      {"lesser", [](Fixture& f) { f.b.Lesser(f.X(), f.X()); }},
      {"lesserOrEqual", [](Fixture& f) { f.b.LesserOrEqual(f.X(), f.X()); }},
      {"linear", [](Fixture& f) { f.b.Linear(f.X()); }},
      {"log", [](Fixture& f) { f.b.Log(f.X()); }},
      {"logicalAnd",
       [](Fixture& f) { f.b.LogicalAnd(f.In(F::kUint8, {2}), f.In(F::kUint8, {2})); }},
      {"logicalNot", [](Fixture& f) { f.b.LogicalNot(f.In(F::kUint8, {2})); }},
      {"logicalOr", [](Fixture& f) { f.b.LogicalOr(f.In(F::kUint8, {2}), f.In(F::kUint8, {2})); }},
      {"logicalXor",
       [](Fixture& f) { f.b.LogicalXor(f.In(F::kUint8, {2}), f.In(F::kUint8, {2})); }},
      {"lstm",
       [](Fixture& f) {
         f.b.Lstm(f.In(F::kFloat32, {2, 1, 3}), f.In(F::kFloat32, {1, 16, 3}),
                  f.In(F::kFloat32, {1, 16, 4}), 2, 4);
       }},
      {"lstmCell",
       [](Fixture& f) {
         f.b.LstmCell(f.In(F::kFloat32, {1, 3}), f.In(F::kFloat32, {16, 3}),
                      f.In(F::kFloat32, {16, 4}), f.In(F::kFloat32, {1, 4}),
                      f.In(F::kFloat32, {1, 4}), 4);
       }},
      {"matmul",
       [](Fixture& f) {
         f.b.Matmul(f.X(), f.In(F::kFloat32, {3, 4}));
       }},
      {"max", [](Fixture& f) { f.b.Max(f.X(), f.X()); }},
      {"maxPool2d", [](Fixture& f) { f.b.MaxPool2d(f.Image()); }},
      {"min", [](Fixture& f) { f.b.Min(f.X(), f.X()); }},
      {"mul", [](Fixture& f) { f.b.Mul(f.X(), f.X()); }},
      {"neg", [](Fixture& f) { f.b.Neg(f.X()); }},
      {"notEqual", [](Fixture& f) { f.b.NotEqual(f.X(), f.X()); }},
      {"pad",
       [](Fixture& f) {
         f.b.Pad(f.X(), {1, 0}, {0, 1});
       }},
      {"pow", [](Fixture& f) { f.b.Pow(f.X(), f.X()); }},
      {"prelu", [](Fixture& f) { f.b.Prelu(f.X(), f.X()); }},
      {"quantizeLinear",
       [](Fixture& f) {
         f.b.QuantizeLinear(f.In(F::kFloat32, {2}), f.In(F::kFloat32, {2}), f.In(F::kUint8, {2}));
       }},
      {"reciprocal", [](Fixture& f) { f.b.Reciprocal(f.X()); }},
      {"reduceL1", [](Fixture& f) { f.b.ReduceL1(f.X()); }},
      {"reduceL2", [](Fixture& f) { f.b.ReduceL2(f.X()); }},
      {"reduceLogSum", [](Fixture& f) { f.b.ReduceLogSum(f.X()); }},
      {"reduceLogSumExp", [](Fixture& f) { f.b.ReduceLogSumExp(f.X()); }},
      {"reduceMax", [](Fixture& f) { f.b.ReduceMax(f.X()); }},
      {"reduceMean", [](Fixture& f) { f.b.ReduceMean(f.X()); }},
      {"reduceMin", [](Fixture& f) { f.b.ReduceMin(f.X()); }},
      {"reduceProduct", [](Fixture& f) { f.b.ReduceProduct(f.X()); }},
      {"reduceSum", [](Fixture& f) { f.b.ReduceSum(f.X()); }},
      {"reduceSumSquare", [](Fixture& f) { f.b.ReduceSumSquare(f.X()); }},
      {"relu", [](Fixture& f) { f.b.Relu(f.X()); }},
      {"resample2d", [](Fixture& f) { f.b.Resample2d(f.Image()); }},
      {"reshape",
       [](Fixture& f) {
         f.b.Reshape(f.X(), {3, 2});
       }},
      {"reverse", [](Fixture& f) { f.b.Reverse(f.X()); }},
      {"roundEven", [](Fixture& f) { f.b.RoundEven(f.X()); }},
      {"scatterElements",
       [](Fixture& f) {
         f.b.ScatterElements(f.X(), f.In(F::kInt32, {2, 3}), f.X());
       }},
      {"scatterND",
       [](Fixture& f) {
         f.b.ScatterND(f.X(), f.In(F::kInt32, {1, 2}), f.In(F::kFloat32, {1}));
       }},
      {"sigmoid", [](Fixture& f) { f.b.Sigmoid(f.X()); }},
      {"sign", [](Fixture& f) { f.b.Sign(f.X()); }},
      {"sin", [](Fixture& f) { f.b.Sin(f.X()); }},
      {"slice",
       [](Fixture& f) {
         f.b.Slice(f.X(), {0, 1}, {2, 2});
       }},
      {"softmax", [](Fixture& f) { f.b.Softmax(f.X(), 1); }},
      {"softplus", [](Fixture& f) { f.b.Softplus(f.X()); }},
      {"softsign", [](Fixture& f) { f.b.Softsign(f.X()); }},
      {"split", [](Fixture& f) { f.b.Split(f.X(), 2); }},
      {"sqrt", [](Fixture& f) { f.b.Sqrt(f.X()); }},
      {"sub", [](Fixture& f) { f.b.Sub(f.X(), f.X()); }},
      {"tan", [](Fixture& f) { f.b.Tan(f.X()); }},
      {"tanh", [](Fixture& f) { f.b.Tanh(f.X()); }},
      {"tile",
       [](Fixture& f) {
         f.b.Tile(f.X(), {2, 1});
       }},
      {"transpose", [](Fixture& f) { f.b.Transpose(f.X()); }},
      {"triangular", [](Fixture& f) { f.b.Triangular(f.X()); }},
      {"where",
       [](Fixture& f) {
         f.b.Where(f.In(F::kUint8, {2, 3}), f.X(), f.X());
       }},
  };
  return calls;
}

std::set<std::string> SpecMethods() {
  std::ifstream in(NNREF_SOURCE_DIR "/ops/spec_methods.txt");
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') names.insert(line);
  }
  return names;
}

}  // namespace

TEST_CASE("the GraphBuilder facade has a method for every registered operator") {
  REQUIRE(Registry().size() > 80);
  for (const OpInfo& op : Registry()) {
    const std::string name(op.name);
    const auto it = Calls().find(name);
    REQUIRE_MESSAGE(it != Calls().end(), "no facade method exercised for " << name);
    Fixture f;
    CHECK_NOTHROW(it->second(f));
    const auto& ops = f.b.core().operators();
    REQUIRE_MESSAGE(!ops.empty(), name);
    CHECK_MESSAGE(ops.back().op == op.id,
                  "the facade method for " << name << " added " << OpName(ops.back().op));
  }
}

TEST_CASE("the facade covers every MLGraphBuilder method of the spec") {
  const std::set<std::string> spec = SpecMethods();
  REQUIRE(spec.size() > 90);
  for (const std::string& name : spec) {
    if (name == "input" || name == "constant" || name == "build") continue;  // builder core
    CHECK_MESSAGE(Calls().count(name), "no facade method for the spec method " << name);
  }
  for (const auto& [name, call] : Calls()) CHECK_MESSAGE(spec.count(name), name);
}

TEST_CASE("facade methods run the method steps: errors and the lost context") {
  Fixture f;
  const Operand x = f.X();
  CHECK_THROWS_AS(f.b.Add(x, f.In(F::kInt32, {2, 3})), WebnnError);  // data types differ
  Fixture other;
  try {
    f.b.Add(x, other.X());  // an operand of another builder
    FAIL("no error");
  } catch (const WebnnError& e) {
    CHECK(e.type() == ErrorType::kTypeError);
  }
  f.context.Destroy();
  try {
    f.b.Relu(x);
    FAIL("no error");
  } catch (const WebnnError& e) {
    CHECK(e.type() == ErrorType::kInvalidStateError);
  }
}

}  // namespace nnref::webnn
