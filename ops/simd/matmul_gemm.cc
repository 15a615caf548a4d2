// The simd backend's matmul (§api-mlgraphbuilder-matmul), gemm (§api-mlgraphbuilder-gemm) and
// linear (§api-mlgraphbuilder-linear), as in the reference's ops/matmul_gemm.cc.
//
// Every product runs through the one GEMM core (gemm.h, gemm_hwy.cc): float32 operands (float16
// widened exactly) accumulated in float32 as hardware does, then any bias or c term added in
// double and the result rounded once to the output type. Where the terms cancel, the float32
// sums leave the per-size ULP tolerances (the corpus's cancellation and some random cases) and
// are judged by the sum bound (docs/numerics.md, "The sum bound"); an earlier double-accumulating
// core passed the ULP tolerances everywhere at half the SIMD width.
//  - constant weights (matmul's b when it is one matrix for the whole batch, gemm's b) are packed
//    into the core's panels once, when the graph is compiled (gemm.h, PackedOperand);
//  - matmul: one GEMM per output batch element (the batch dimensions broadcast, as step 4.13
//    computed them: broadcast operands are views with stride 0, nothing is copied); a batch that
//    shares b is one GEMM of batch * M rows.
//  - gemm: (alpha * A) x B with alpha * a rounded to float32, then + beta * C in double.
//  - linear: alpha * x + beta element-wise in double (alpha * x exact, no float32 overflow).
// Work splits over output blocks only (GEMM tiles or rows), so the results are bit-identical for
// any thread count.
#include "ops/matmul_gemm.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "ops/simd/gemm.h"
#include "ops/simd/products.h"

namespace nnref::simd {

namespace {

// The panels of a constant b, packed when the kernel is made; used while the kernel's input is
// that constant (checked per call), ignored otherwise.
struct PackedWeights {
  Tensor source;  // the constant as the graph holds it
  std::shared_ptr<const PackedOperand> panels;
  const PackedOperand* For(const Tensor& input) const {
    return panels && SameView(input, source) ? panels.get() : nullptr;
  }
};

class MatmulKernel final : public Kernel {
 public:
  MatmulKernel(Config config, PackedWeights b) : config_(std::move(config)), b_(std::move(b)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;
    const size_t rank = shape.size();
    const Shape batch(shape.begin(), shape.end() - 2);
    const Tensor a32 = AsFloat32(in[0]->data), b32 = AsFloat32(in[1]->data);
    Shape a_shape = batch, b_shape = batch;
    a_shape.insert(a_shape.end(), a32.shape().end() - 2, a32.shape().end());
    b_shape.insert(b_shape.end(), b32.shape().end() - 2, b32.shape().end());
    const Tensor a = a32.BroadcastTo(a_shape), b = b32.BroadcastTo(b_shape);
    const size_t m = static_cast<size_t>(shape[rank - 2]), n = static_cast<size_t>(shape[rank - 1]);
    const size_t k = static_cast<size_t>(a_shape[rank - 1]);
    GemmOutput result(out[0]);
    const Strides out_strides = ContiguousStrides(shape);
    const Strides out_batch(out_strides.begin(), out_strides.end() - 2);
    const Strides a_batch(a.strides().begin(), a.strides().end() - 2);
    const Strides b_batch(b.strides().begin(), b.strides().end() - 2);
    const PackedOperand* packed_b = b_.For(in[1]->data);
    // When b is the same matrix for every batch element and a's rows run evenly through the
    // batch dimensions (e.g. [B, M, K] x [K, N]), the batch is one product of B * M rows.
    bool fold = true;
    int64_t row_run = a.strides()[rank - 2] * static_cast<int64_t>(m);
    for (size_t d = rank - 2; d-- > 0;) {
      if (shape[d] == 1) continue;
      if (b.strides()[d] != 0 || a.strides()[d] != row_run) {
        fold = false;
        break;
      }
      row_run *= static_cast<int64_t>(shape[d]);
    }
    if (fold) {
      const GemmOperands problem{{a.base<float>(), a.strides()[rank - 2], a.strides()[rank - 1]},
                                 {b.base<float>(), b.strides()[rank - 2], b.strides()[rank - 1]},
                                 result.data(),
                                 static_cast<int64_t>(n),
                                 nullptr,
                                 nullptr,
                                 packed_b};
      Gemm(m * static_cast<size_t>(ElementCount(batch)), n, k, std::span(&problem, 1), 1.0,
           *config_.pool);
      return result.Finish(config_);
    }
    std::vector<GemmOperands> problems;
    ForEachOffsets<3>(
        batch, {&out_batch, &a_batch, &b_batch}, [&](const std::array<int64_t, 3>& off) {
          problems.push_back(
              {{a.base<float>() + off[1], a.strides()[rank - 2], a.strides()[rank - 1]},
               {b.base<float>() + off[2], b.strides()[rank - 2], b.strides()[rank - 1]},
               result.data() + off[0],
               static_cast<int64_t>(n),
               nullptr,
               nullptr,
               packed_b});
        });
    Gemm(m, n, k, problems, 1.0, *config_.pool);
    return result.Finish(config_);
  }

 private:
  Config config_;
  PackedWeights b_;
};

class GemmKernel final : public Kernel {
 public:
  GemmKernel(const GemmAttributes& attributes, Config config, PackedWeights b)
      : alpha_(attributes.alpha),
        beta_(attributes.beta),
        a_transpose_(attributes.aTranspose),
        b_transpose_(attributes.bTranspose),
        config_(std::move(config)),
        b_(std::move(b)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;  // [M, N]
    const size_t m = static_cast<size_t>(shape[0]), n = static_cast<size_t>(shape[1]);
    const Tensor a = AsFloat32(in[0]->data), b = AsFloat32(in[1]->data);
    const MatrixView av = View(a, a_transpose_), bv = View(b, b_transpose_);
    const size_t k = static_cast<size_t>(a.shape()[a_transpose_ ? 0 : 1]);
    GemmOutput result(out[0]);
    const GemmOperands problem{
        av, bv, result.data(), static_cast<int64_t>(n), nullptr, nullptr, b_.For(in[1]->data)};
    Gemm(m, n, k, std::span(&problem, 1), alpha_, *config_.pool);
    if (in.size() > 2) {  // + beta * C (C broadcast to [M, N]); beta * c is exact in double
      const Tensor c = AsFloat32(in[2]->data).BroadcastTo(shape);
      const float* pc = c.base<float>();
      const int64_t rs = c.strides()[0], cs = c.strides()[1];
      const double beta = beta_;
      return result.Finish(config_, m, n, [&](size_t i, size_t j) {
        return beta * static_cast<double>(
                          pc[static_cast<int64_t>(i) * rs + static_cast<int64_t>(j) * cs]);
      });
    }
    return result.Finish(config_);
  }

  // The view of b as the product reads it (also for packing a constant b).
  static MatrixView View(const Tensor& t, bool transpose) {
    const Strides& s = t.strides();
    return transpose ? MatrixView{t.base<float>(), s[1], s[0]}
                     : MatrixView{t.base<float>(), s[0], s[1]};
  }

 private:
  double alpha_, beta_;  // cast to a's data type by the builder
  bool a_transpose_, b_transpose_;
  Config config_;
  PackedWeights b_;
};

class LinearKernel final : public Kernel {
 public:
  LinearKernel(const LinearAttributes& attributes, Config config)
      : alpha_(attributes.alpha), beta_(attributes.beta), config_(std::move(config)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    // alpha * x is exact in double and cannot overflow there; the sum rounds once to double
    // before the rounding to the output type.
    const double alpha = alpha_, beta = beta_;
    OperandValue v;
    v.data =
        FloatMap<1>({&in[0]->data}, out[0], config_,
                    [alpha, beta](const auto& rows, const auto& steps, float* o, size_t n) {
                      const float* x = rows[0];
                      const size_t step = steps[0];
                      for (size_t i = 0; i < n; ++i) {
                        o[i] = static_cast<float>(alpha * static_cast<double>(x[i * step]) + beta);
                      }
                    });
    std::vector<OperandValue> result;
    result.push_back(std::move(v));
    return result;
  }

 private:
  double alpha_, beta_;  // cast to the input's data type by the builder
  Config config_;
};

// ---- the family ----------------------------------------------------------------------------

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (!(op == OpId::matmul || op == OpId::gemm || op == OpId::linear)) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  switch (node.op) {
    case OpId::matmul: {
      // b packed when it is a constant matrix shared by the whole batch ([K, N], [1, K, N], ...).
      PackedWeights packed;
      const Tensor b = ConstantInput(graph, index, 1);
      if (b.valid() && b.rank() >= 2 && b.element_count() > 0 &&
          b.element_count() == b.shape()[b.rank() - 2] * b.shape()[b.rank() - 1]) {
        const Tensor b32 = AsFloat32(b);
        const Shape& s = b32.shape();
        const Strides& st = b32.strides();
        const size_t r = b32.rank();
        packed.source = b;
        packed.panels = std::make_shared<const PackedOperand>(
            PackGemmB({b32.base<float>(), st[r - 2], st[r - 1]}, static_cast<size_t>(s[r - 2]),
                      static_cast<size_t>(s[r - 1])));
      }
      return std::make_shared<MatmulKernel>(config, std::move(packed));
    }
    case OpId::gemm:
      if (const auto* a = node.Attributes<GemmAttributes>()) {
        PackedWeights packed;
        const Tensor b = ConstantInput(graph, index, 1);
        if (b.valid() && b.element_count() > 0) {
          const Tensor b32 = AsFloat32(b);
          const size_t k = static_cast<size_t>(b32.shape()[a->bTranspose ? 1 : 0]);
          const size_t n = static_cast<size_t>(b32.shape()[a->bTranspose ? 0 : 1]);
          packed.source = b;
          packed.panels = std::make_shared<const PackedOperand>(
              PackGemmB(GemmKernel::View(b32, a->bTranspose), k, n));
        }
        return std::make_shared<GemmKernel>(*a, config, std::move(packed));
      }
      break;
    case OpId::linear:
      if (const auto* a = node.Attributes<LinearAttributes>()) {
        return std::make_shared<LinearKernel>(*a, config);
      }
      break;
    default:
      break;
  }
  why = "no attributes";
  return nullptr;
}

}  // namespace

const Family kMatmulGemmFamily = {Unsupported, Make};

}  // namespace nnref::simd
