// matmul (§api-mlgraphbuilder-matmul), gemm (§api-mlgraphbuilder-gemm) and
// linear (§api-mlgraphbuilder-linear).
//
// Numerics. Float types only (the limits tables allow float32 and float16).
//  - matmul: each output element is a dot product of length K. Every product of two float32 (or
//    float16) values is exact in double; the products are summed in a double accumulator `dot`
//    in ascending k (starting from -0, so all -0 products give -0) and the sum is rounded once to
//    the output type.
//  - gemm: the emulation is matmul(alpha*A, B) + beta*C, and nnref evaluates it in that order in
//    double: each alpha*a (exact in double) times b, summed as for matmul, plus beta*c when c
//    exists, rounded once; alpha and beta are first cast to a's data type (steps 5-6). Keeping
//    the emulation's order keeps its signed zeros and special values (alpha = 0 with an infinite
//    a gives NaN). Without c the emulation returns the product alone, so nothing is added.
//  - linear: alpha*x + beta (alpha, beta cast to the input type by steps 4-5), correctly rounded
//    once: alpha*x is exact in double (two float32 significands need at most 48 bits), and the sum
//    is rounded to double to odd (SumToOdd, ops/exact_round.h) before the one rounding to the
//    output type, so no double rounding can occur.
// NaN and infinities follow IEEE arithmetic in double (0*Inf = NaN, Inf-Inf = NaN). Intermediate
// values never overflow double (float32 magnitudes are below 2^128).
#include "ops/matmul_gemm.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ops/elementwise.h"
#include "ops/exact_round.h"
#include "ops/float_dispatch.h"
#include "ref/parallel/parallel.h"

namespace nnref {

// §tensor-limits-matmul
const OpLimits kMatmulLimits = {{{"a", kFloatTypes, "", 2, kMaxRankAny},
                                 {"b", {}, "a", 2, kMaxRankAny},
                                 {"output", {}, "a", 2, kMaxRankAny}}};
// §tensor-limits-gemm
const OpLimits kGemmLimits = {{{"a", kFloatTypes, "", 2, 2},
                               {"b", {}, "a", 2, 2},
                               {"c", {}, "a", 0, 2},
                               {"output", {}, "a", 2, 2}}};
// §tensor-limits-linear
const OpLimits kLinearLimits = {
    {{"input", kFloatTypes, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};

namespace {

std::string TypeName(DataType t) { return std::string(DataTypeName(t)); }

// "same as a": the operand's data type must equal a's.
void CheckSameType(const std::string& name, const char* operand, DataType type, const char* other,
                   DataType other_type) {
  if (type != other_type) {
    ThrowTypeError(name + ": " + operand + " is " + TypeName(type) +
                   " but must have the data type of " + other + " (" + TypeName(other_type) + ")");
  }
}

// A scalar option cast to the operand data type (the spec's "cast" algorithm), widened back to
// double for the kernel.
double CastOptionTo(DataType type, double v) {
  return DispatchFloatType(
      type, [&]<typename T>() { return ToDouble(CastNumber<T>(MLNumber::FromDouble(v))); });
}

// Matrix products over the trailing two axes. `a` is viewed as batch + [rows, depth], `b` as
// batch + [depth, cols] (both already broadcast to the output's batch shape, strides arbitrary).
// Each a element is first multiplied by `a_scale` (gemm's alpha; 1 for matmul), which is exact
// in double. finish(dot, m, n) turns the double accumulator of output element (m, n) into the
// stored value.
template <typename T, typename Finish>
Tensor MatrixProduct(const Tensor& a, const Tensor& b, const Shape& out_shape, double a_scale,
                     Finish&& finish) {
  const size_t rank = out_shape.size();
  const auto rows = static_cast<int64_t>(out_shape[rank - 2]);
  const auto cols = static_cast<int64_t>(out_shape[rank - 1]);
  const auto depth = static_cast<int64_t>(a.shape()[rank - 1]);
  const Shape batch(out_shape.begin(), out_shape.end() - 2);
  Tensor out = Tensor::Allocate(DataTypeOf<T>(), out_shape);
  const Strides out_strides = ContiguousStrides(out_shape);
  const Strides out_batch(out_strides.begin(), out_strides.end() - 2);
  const Strides a_batch(a.strides().begin(), a.strides().end() - 2);
  const Strides b_batch(b.strides().begin(), b.strides().end() - 2);
  const int64_t a_row_stride = a.strides()[rank - 2], a_depth_stride = a.strides()[rank - 1];
  const int64_t b_depth_stride = b.strides()[rank - 2], b_col_stride = b.strides()[rank - 1];
  const T* pa = a.base<T>();
  const T* pb = b.base<T>();
  T* po = out.base<T>();
  std::vector<std::array<int64_t, 3>> batches;  // (out, a, b) offsets of each matrix
  ForEachOffsets<3>(batch, {&out_batch, &a_batch, &b_batch},
                    [&](const std::array<int64_t, 3>& off) { batches.push_back(off); });
  // Rows are computed in blocks of kRowBlock on the reference's threads. Within a block the
  // loop nest runs k outside n, so that each b row is read once for the block; every output
  // element still gets exactly its own sequence of operations: dot = -0, then for k ascending
  // dot += (a_scale * a[m][k]) * b[k][n], then finish.
  constexpr int64_t kRowBlock = 4;
  const int64_t row_blocks = (rows + kRowBlock - 1) / kRowBlock;
  const auto tasks = static_cast<size_t>(static_cast<int64_t>(batches.size()) * row_blocks);
  const size_t grain = static_cast<size_t>(
      std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, cols * depth * kRowBlock)));
  ParallelFor(tasks, grain, [&](size_t begin, size_t end) {
    std::vector<double> dots(static_cast<size_t>(kRowBlock * cols));
    for (size_t task = begin; task < end; ++task) {
      const std::array<int64_t, 3>& off = batches[task / static_cast<size_t>(row_blocks)];
      const int64_t m0 = static_cast<int64_t>(task % static_cast<size_t>(row_blocks)) * kRowBlock;
      const int64_t m1 = std::min(rows, m0 + kRowBlock);
      // The accumulators start at -0, the identity of IEEE addition, so that a sum of -0
      // products stays -0 as it would in the operand type.
      std::fill(dots.begin(), dots.end(), -0.0);
      for (int64_t k = 0; k < depth; ++k) {
        const T* b_row = pb + off[2] + k * b_depth_stride;
        for (int64_t m = m0; m < m1; ++m) {
          const double scaled_a =
              a_scale * ToDouble(pa[off[1] + m * a_row_stride + k * a_depth_stride]);  // exact
          double* dot = dots.data() + (m - m0) * cols;
          if (b_col_stride == 1) {
            for (int64_t n = 0; n < cols; ++n) dot[n] += scaled_a * ToDouble(b_row[n]);
          } else {
            for (int64_t n = 0; n < cols; ++n) {
              dot[n] += scaled_a * ToDouble(b_row[n * b_col_stride]);
            }
          }
        }
      }
      for (int64_t m = m0; m < m1; ++m) {
        const double* dot = dots.data() + (m - m0) * cols;
        for (int64_t n = 0; n < cols; ++n) po[off[0] + m * cols + n] = finish(dot[n], m, n);
      }
    }
  });
  return out;
}

class MatmulKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;
    const Shape batch(shape.begin(), shape.end() - 2);
    Shape a_shape = batch, b_shape = batch;
    const Shape& a_in = in[0]->data.shape();
    const Shape& b_in = in[1]->data.shape();
    a_shape.insert(a_shape.end(), a_in.end() - 2, a_in.end());
    b_shape.insert(b_shape.end(), b_in.end() - 2, b_in.end());
    const Tensor a = in[0]->data.BroadcastTo(a_shape);
    const Tensor b = in[1]->data.BroadcastTo(b_shape);
    return {DispatchFloatType(out[0].dataType, [&]<typename T>() {
      return OperandValue{
          MatrixProduct<T>(a, b, shape, 1.0,
                           [](double dot, int64_t, int64_t) { return RoundTo<T>(dot); }),
          {}};
    })};
  }
};

class GemmKernel final : public Kernel {
 public:
  GemmKernel(double alpha, double beta, bool a_transpose, bool b_transpose, bool has_c)
      : alpha_(alpha),
        beta_(beta),
        a_transpose_(a_transpose),
        b_transpose_(b_transpose),
        has_c_(has_c) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;  // [M, N]
    const Tensor a = MaybeTranspose(in[0]->data, a_transpose_);
    const Tensor b = MaybeTranspose(in[1]->data, b_transpose_);
    const Tensor c = has_c_ ? in[2]->data.BroadcastTo(shape) : Tensor();
    const double alpha = alpha_, beta = beta_;
    const bool has_c = has_c_;
    return {DispatchFloatType(out[0].dataType, [&]<typename T>() {
      const T* pc = has_c ? c.base<T>() : nullptr;
      const int64_t c_row_stride = has_c ? c.strides()[0] : 0;
      const int64_t c_col_stride = has_c ? c.strides()[1] : 0;
      return OperandValue{
          MatrixProduct<T>(a, b, shape, alpha,
                           [&](double dot, int64_t m, int64_t n) {
                             double v = dot;
                             if (has_c) {
                               v += beta * ToDouble(pc[m * c_row_stride + n * c_col_stride]);
                             }
                             return RoundTo<T>(v);
                           }),
          {}};
    })};
  }

 private:
  static Tensor MaybeTranspose(const Tensor& t, bool transpose) {
    if (!transpose) return t;
    return Tensor(t.dtype(), {t.shape()[1], t.shape()[0]}, {t.strides()[1], t.strides()[0]},
                  t.offset(), t.buffer());
  }
  double alpha_, beta_;
  bool a_transpose_, b_transpose_, has_c_;
};

class LinearKernel final : public Kernel {
 public:
  LinearKernel(double alpha, double beta) : alpha_(alpha), beta_(beta) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const double alpha = alpha_, beta = beta_;
    return {DispatchFloatType(out[0].dataType, [&]<typename T>() {
      return MapElements<T, T>(out[0], {in[0]}, [alpha, beta](T x, Latitude&) {
        const double product = alpha * ToDouble(x);  // exact
        return RoundTo<T>(SumToOdd(product, beta));
      });
    })};
  }

 private:
  double alpha_, beta_;
};

}  // namespace

Operand Matmul(GraphBuilder& builder, const Operand& a, const Operand& b,
               const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("matmul", options);
  builder.CheckCanBuild(name);            // step 1
  builder.ValidateOperand(name, "a", a);  // step 2
  builder.ValidateOperand(name, "b", b);
  const OperandDescriptor& da = builder.Desc(a);
  const OperandDescriptor& db = builder.Desc(b);
  CheckDataType(name, "a", da.dataType, kMatmulLimits.Find("a")->types);  // step 3
  CheckSameType(name, "b", db.dataType, "a", da.dataType);
  // Step 4: calculate the output shape.
  const Shape& shape_a = da.shape;
  const Shape& shape_b = db.shape;
  const size_t rank_a = shape_a.size(), rank_b = shape_b.size();
  if (rank_a < 2 || rank_b < 2) {  // step 4.5
    ThrowTypeError(name + ": a has rank " + std::to_string(rank_a) + " and b has rank " +
                   std::to_string(rank_b) + "; both must be at least 2");
  }
  const uint64_t cols_a = shape_a[rank_a - 1], rows_a = shape_a[rank_a - 2];
  const uint64_t cols_b = shape_b[rank_b - 1], rows_b = shape_b[rank_b - 2];
  if (cols_a != rows_b) {  // step 4.10
    ThrowTypeError(name + ": a " + ShapeToString(shape_a) + " has " + std::to_string(cols_a) +
                   " columns but b " + ShapeToString(shape_b) + " has " + std::to_string(rows_b) +
                   " rows");
  }
  const Shape batch_a(shape_a.begin(), shape_a.end() - 2);                      // step 4.11
  const Shape batch_b(shape_b.begin(), shape_b.end() - 2);                      // step 4.12
  const std::optional<Shape> batch = BroadcastBidirectional(batch_a, batch_b);  // step 4.13
  if (!batch) {
    ThrowTypeError(name + ": batch shapes " + ShapeToString(batch_a) + " and " +
                   ShapeToString(batch_b) + " are not bidirectionally broadcastable");
  }
  Shape output_shape = *batch;
  output_shape.push_back(rows_a);  // step 4.14
  output_shape.push_back(cols_b);
  OperatorNode node{OpId::matmul,
                    options.label,
                    {a.id, b.id},
                    {},
                    std::make_shared<MatmulKernel>(),
                    {OpId::matmul, da.dataType, cols_a}};  // 2*K roundings: the row's per_size is 2
  return builder.AddOperator(std::move(node), {{da.dataType, output_shape}})[0];  // steps 5-6
}

Operand Gemm(GraphBuilder& builder, const Operand& a, const Operand& b,
             const MLGemmOptions& options) {
  const std::string name = OperatorDisplayName("gemm", options);
  builder.CheckCanBuild(name);            // step 1
  builder.ValidateOperand(name, "a", a);  // step 2
  builder.ValidateOperand(name, "b", b);
  // Step 2 names only a and b; c is validated here too, since reading a foreign operand's
  // descriptor in step 12 would be meaningless (docs/deviations.md).
  if (options.c) builder.ValidateOperand(name, "c", *options.c);
  const OperandDescriptor& da = builder.Desc(a);
  const OperandDescriptor& db = builder.Desc(b);
  CheckDataType(name, "a", da.dataType, kGemmLimits.Find("a")->types);  // step 3
  CheckSameType(name, "b", db.dataType, "a", da.dataType);
  if (da.shape.size() != 2 || db.shape.size() != 2) {  // step 4
    ThrowTypeError(name + ": a has rank " + std::to_string(da.shape.size()) + " and b has rank " +
                   std::to_string(db.shape.size()) + "; both must be 2");
  }
  const double alpha = CastOptionTo(da.dataType, options.alpha);  // step 5
  const double beta = CastOptionTo(da.dataType, options.beta);    // step 6
  Shape shape_a = da.shape;                                       // step 7
  Shape shape_b = db.shape;                                       // step 8
  if (options.aTranspose) std::swap(shape_a[0], shape_a[1]);      // step 9
  if (options.bTranspose) std::swap(shape_b[0], shape_b[1]);      // step 10
  if (shape_a[1] != shape_b[0]) {                                 // step 11
    ThrowTypeError(name + ": a (" + ShapeToString(shape_a) + " after aTranspose) has " +
                   std::to_string(shape_a[1]) + " columns but b (" + ShapeToString(shape_b) +
                   " after bTranspose) has " + std::to_string(shape_b[0]) + " rows");
  }
  const Shape output_shape{shape_a[0], shape_b[1]};
  std::vector<OperandId> inputs{a.id, b.id};
  if (options.c) {  // step 12
    const OperandDescriptor& dc = builder.Desc(*options.c);
    if (!BroadcastUnidirectional(dc.shape, output_shape)) {  // step 12.1
      ThrowTypeError(name + ": c " + ShapeToString(dc.shape) +
                     " is not unidirectionally broadcastable to " + ShapeToString(output_shape));
    }
    CheckSameType(name, "c", dc.dataType, "a", da.dataType);  // step 12.2
    inputs.push_back(options.c->id);
  }
  // Tolerance size: the roundings of an implementation that follows the emulation in the operand
  // type: 2K for the dot product, +1 for alpha*A when alpha != 1, +1 for the add of c, +1 for
  // beta*C when beta != 1 (the gemm row has per_size 1).
  const uint64_t roundings =
      2 * shape_a[1] + (alpha != 1 ? 1 : 0) + (options.c ? 1 + (beta != 1 ? 1 : 0) : 0);
  OperatorNode node{OpId::gemm,
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<GemmKernel>(alpha, beta, options.aTranspose,
                                                 options.bTranspose, options.c.has_value()),
                    {OpId::gemm, da.dataType, roundings}};
  auto attributes = std::make_shared<GemmAttributes>();
  attributes->alpha = alpha;
  attributes->beta = beta;
  attributes->aTranspose = options.aTranspose;
  attributes->bTranspose = options.bTranspose;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{da.dataType, output_shape}})[0];  // steps 13-15
}

Operand Linear(GraphBuilder& builder, const Operand& input, const MLLinearOptions& options) {
  const std::string name = OperatorDisplayName("linear", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor& d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType, kLinearLimits.Find("input")->types);  // step 3
  const double alpha = CastOptionTo(d.dataType, options.alpha);                  // step 4
  const double beta = CastOptionTo(d.dataType, options.beta);                    // step 5
  OperatorNode node{OpId::linear,
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<LinearKernel>(alpha, beta),
                    {OpId::linear, d.dataType, 0}};
  auto attributes = std::make_shared<LinearAttributes>();
  attributes->alpha = alpha;
  attributes->beta = beta;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {d})[0];  // steps 6-7
}

namespace {

// A WebIDL `double` (not unrestricted): a non-finite value is a TypeError at conversion.
std::optional<double> FiniteDoubleOption(const OpCall& call, const Value& o, const char* member) {
  const std::optional<double> v = call.GetDoubleOption(o, member);
  if (v && !std::isfinite(*v)) {
    ThrowTypeError(call.op() + ": options." + member + " is not a finite double");
  }
  return v;
}

}  // namespace

std::vector<Operand> CallMatmul(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand a = call.GetOperand(0, "a");
  const Operand b = call.GetOperand(1, "b");
  return {Matmul(call.builder(), a, b, call.GetOperatorOptions(call.GetOptions(2)))};
}

std::vector<Operand> CallGemm(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand a = call.GetOperand(0, "a");
  const Operand b = call.GetOperand(1, "b");
  const Value& o = call.GetOptions(2);
  MLGemmOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.c = call.GetOperandOption(o, "c");
  options.alpha = FiniteDoubleOption(call, o, "alpha").value_or(1.0);
  options.beta = FiniteDoubleOption(call, o, "beta").value_or(1.0);
  options.aTranspose = call.GetBoolOption(o, "aTranspose").value_or(false);
  options.bTranspose = call.GetBoolOption(o, "bTranspose").value_or(false);
  return {Gemm(call.builder(), a, b, options)};
}

std::vector<Operand> CallLinear(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLLinearOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.alpha = FiniteDoubleOption(call, o, "alpha").value_or(1.0);
  options.beta = FiniteDoubleOption(call, o, "beta").value_or(0.0);
  return {Linear(call.builder(), input, options)};
}

}  // namespace nnref
