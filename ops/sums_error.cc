// Error models of the operators whose results are sums (ops/error_model.h): matrix products,
// convolutions, pools, reductions, cumulativeSum, softmax and the normalizations.
//
// A sum of n terms may be computed in any order, in the operand type or wider, with or without
// FMA: ErrorArith::Sum bounds it from the exact sum S, M = sum of |terms| and the terms' own
// bounds. For the bilinear operators (matmul, gemm, conv2d, convTranspose2d) and the linear ones
// (averagePool2d, cumulativeSum, resample2d's linear interpolation) S, M and the propagated
// input bounds come from the operator's own reference kernel run in float32 on the values'
// magnitudes and on the input bounds: |a b| = |a| |b|, so nothing cancels in M, and the error of
// a product of bounded inputs is |a| e_b + e_a |b| + e_a e_b. The reductions, softmax and the
// normalizations follow the spec's emulation steps group by group.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "numerics/cast.h"
#include "ops/arg_cumulative.h"
#include "ops/error_model_internal.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/conv_common.h"
#include "ops/pool2d.h"
#include "ops/reduction.h"
#include "ops/resample2d.h"
#include "ops/softmax.h"

namespace nnref::error_model {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// M and the propagated bounds come from float32 kernels that round once: enlarge by 2^-20.
constexpr double kMargin = 1 + 0x1p-20;

std::vector<double> Abs(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  return v;
}

std::vector<double> Plus(std::vector<double> a, const std::vector<double>& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

Tensor Magnitude(const Tensor& t) {
  return MapToFloat32(t, [](double x) { return std::fabs(x); });
}
Tensor Zeros(const Tensor& t) {
  return MapToFloat32(t, [](double) { return 0.0; });
}

// The exact results (to float32's precision, which cannot overflow where float16 does): the
// kernel run in float32 on the inputs themselves.
std::vector<double> ExactValues(const ErrorModelArgs& a) {
  std::vector<Tensor> in;
  for (const OperandValue* v : a.inputs) {
    in.push_back(IsFloat(v->data.dtype()) ? MapToFloat32(v->data, [](double x) { return x; })
                                          : v->data);
  }
  return Values(RunFloat32(a, in)[0]);
}

// Records the arithmetic's overflow flag for element i of output 0 (ErrorModelArgs::overflow).
void NoteOverflow(const ErrorModelArgs& a, const ErrorArith& m, size_t count, size_t i) {
  const bool o = m.TakeOverflow();
  if (a.overflow == nullptr) return;
  if (a.overflow->empty()) a.overflow->assign(1, std::vector<uint8_t>(count, 0));
  if (o) (*a.overflow)[0][i] = 1;
}

// The squared partial sums of a sum of `n` terms whose order the model does not follow (the
// convolutions and pools run their kernel on magnitudes): S the sum, Q the sum of the squared
// terms. Over a random order of the terms the expected sum of the squared partial sums is
// n (S^2 / 3 + Q / 6) (sampling without replacement); four times that, plus Q for the products'
// own roundings, leaves room for orders that follow the data (ramps, sorted rows). A heuristic
// where PartialSquares is exact: the audit's sequential, blocked, pairwise and split variants on
// the corpus are its evidence (docs/numerics.md, "Sums").
double EstimatedSquares(double s, double q, double n) {
  if (n < 1) return q;
  return 4 * n * (s * s / 3 + q / 6) + q;
}

// Bilinear operators out = f(x, w) (+ c): inputs 0 and 1 are the factors, an input 2 is added.
// `c_scale` is |beta| for gemm (the kernel multiplies c by beta), 1 otherwise.
Bounds Bilinear(const ErrorModelArgs& a, double roundings) {
  const ErrorArith arith = ArithFor(a);
  const size_t n_in = a.inputs.size();
  const Tensor& x = a.inputs[0]->data;
  const Tensor& w = a.inputs[1]->data;
  std::vector<Tensor> mag = {Magnitude(x), Magnitude(w)};
  std::vector<Tensor> zero_c;
  if (n_in > 2) {
    mag.push_back(Magnitude(a.inputs[2]->data));
    zero_c.push_back(Zeros(a.inputs[2]->data));
  }
  // |f(|x|, |w|)| (gemm's alpha and beta may be negative: its kernel then gives -M in parts, so
  // the factor part and the added part run apart).
  std::vector<double> m;
  if (n_in > 2) {
    std::vector<Tensor> ab = {mag[0], mag[1], zero_c[0]};
    std::vector<Tensor> c = {Zeros(x), Zeros(w), mag[2]};
    m = Plus(Abs(Values(RunFloat32(a, ab)[0])), Abs(Values(RunFloat32(a, c)[0])));
  } else {
    m = Abs(Values(RunFloat32(a, mag)[0]));
  }
  std::vector<double> prop(m.size(), 0.0);
  if (AnyInputBound(a)) {
    const Tensor ex = BoundTensor(InputBound(a, 0), x.shape());
    const Tensor ew = BoundTensor(InputBound(a, 1), w.shape());
    // e_x |w| + (|x| + e_x) e_w (+ the added input's bound).
    const Tensor x_plus = MapToFloat32(x, [](double v) { return std::fabs(v); });
    std::vector<double> xe = Values(ex);
    std::vector<double> xv = Values(x_plus);
    const Tensor xpe = BoundTensor(Plus(xv, xe), x.shape());
    std::vector<Tensor> t1 = {ex, mag[1]}, t2 = {xpe, ew};
    if (n_in > 2) {
      t1.push_back(zero_c[0]);
      t2.push_back(zero_c[0]);
    }
    prop = Plus(Abs(Values(RunFloat32(a, t1)[0])), Abs(Values(RunFloat32(a, t2)[0])));
    if (n_in > 2) {
      std::vector<Tensor> t3 = {Zeros(x), Zeros(w),
                                BoundTensor(InputBound(a, 2), a.inputs[2]->data.shape())};
      prop = Plus(prop, Abs(Values(RunFloat32(a, t3)[0])));
    }
  }
  // Q = sum of squared terms, the same kernel on the squares ((x w)^2 = x^2 w^2).
  std::vector<Tensor> sq = {MapToFloat32(x, [](double v) { return v * v; }),
                            MapToFloat32(w, [](double v) { return v * v; })};
  if (n_in > 2) sq.push_back(MapToFloat32(a.inputs[2]->data, [](double v) { return v * v; }));
  const std::vector<double> q = Abs(Values(RunFloat32(a, sq)[0]));
  const std::vector<double> s = ExactValues(a);
  const std::vector<double> ref = Values(a.outputs[0].data);
  const double terms = static_cast<double>(a.graph.operators()[a.index].tolerance.size) +
                       (n_in > 2 ? 1.0 : 0.0);
  Bounds out(1);
  out[0].resize(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    // The squares are formed in float32 (x^2, w^2 and their sums) and underflow for small
    // operands (subnormal inputs: docs/fuzzing.md, finding 2), while Q >= M^2 / n always holds
    // (Cauchy-Schwarz): a smaller q lost its dominant terms, and Q <= M^2 replaces it.
    const double qi = q[i] < 0.5 * m[i] * m[i] / std::max(terms, 1.0) ? m[i] * m[i] : q[i];
    // Half the roundings are of products, which may underflow.
    const Bounded r = arith.Sum(s[i], m[i] * kMargin, prop[i] * kMargin, roundings, roundings / 2,
                                EstimatedSquares(s[i], qi, terms));
    out[0][i] = arith.Judge(r, ref[i]);
    NoteOverflow(a, arith, s.size(), i);
  }
  return out;
}

// matmul and gemm (§api-mlgraphbuilder-matmul, -gemm): the dot products element by element, so
// that the partial sums of the sequential orders are known (PartialSquares): for random data they
// are a random walk far below M, and the probabilistic bound follows them. gemm's terms are
// alpha a_k b_k, then beta c.
Bounds MatrixProduct(const ErrorModelArgs& a, bool gemm) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const ErrorArith arith = ArithFor(a);
  const Shape& shape = a.outputs[0].data.shape();
  const size_t rank = shape.size();
  const uint64_t rows = shape[rank - 2], cols = shape[rank - 1];
  double alpha = 1, beta = 1;
  bool at = false, bt = false;
  if (gemm) {
    const auto* g = node.Attributes<GemmAttributes>();
    alpha = g->alpha;
    beta = g->beta;
    at = g->aTranspose;
    bt = g->bTranspose;
  }
  // A as [batch..., rows, depth] and B as [batch..., depth, cols], dense, with their bounds.
  const auto dense = [&](size_t k, bool transpose, uint64_t r, uint64_t c) {
    Tensor t = a.inputs[k]->data;
    Tensor e = BoundTensor(InputBound(a, k), t.shape());
    if (transpose) {
      t = t.Permute({1, 0});
      e = e.Permute({1, 0});
    }
    Shape target(shape.begin(), shape.end() - 2);
    target.push_back(r);
    target.push_back(c);
    return std::pair{Values(t.BroadcastTo(target).Contiguous()),
                     Values(e.BroadcastTo(target).Contiguous())};
  };
  const uint64_t depth = at ? a.inputs[0]->data.shape()[0]
                            : a.inputs[0]->data.shape()[a.inputs[0]->data.rank() - 1];
  const auto [av, ae] = dense(0, at, rows, depth);
  const auto [bv, be] = dense(1, bt, depth, cols);
  std::vector<double> cv, ce;
  if (gemm && a.inputs.size() > 2) {
    cv = Values(a.inputs[2]->data.BroadcastTo(shape).Contiguous());
    ce = Values(BoundTensor(InputBound(a, 2), a.inputs[2]->data.shape()).BroadcastTo(shape));
  }
  const std::vector<double> ref = Values(a.outputs[0].data);
  const uint64_t batches = ElementCount(shape) / std::max<uint64_t>(1, rows * cols);
  const bool scaled = std::fabs(alpha) != 1;
  const double underflow = 0.5 * arith.eta();
  Bounds out(1);
  out[0].resize(ref.size());
  arith.TakeOverflow();
  for (uint64_t bi = 0; bi < batches; ++bi) {
    for (uint64_t m = 0; m < rows; ++m) {
      for (uint64_t n = 0; n < cols; ++n) {
        PartialSquares squares;
        CompensatedSum sum;
        double mag = 0, prop = 0;
        for (uint64_t k = 0; k < depth; ++k) {
          const uint64_t ia = (bi * rows + m) * depth + k, ib = (bi * depth + k) * cols + n;
          const double t = alpha * av[ia] * bv[ib];
          sum += t;
          mag += std::fabs(t);
          prop += std::fabs(alpha) * (std::fabs(av[ia]) * be[ib] + ae[ia] * std::fabs(bv[ib]) +
                                      ae[ia] * be[ib]);
          // alpha scaled into one factor first (the spec's emulation: alpha * A, then the
          // product), whose rounding may underflow by half a subnormal, which the other factor
          // then scales (docs/fuzzing.md, finding 2); or alpha applied to the product last.
          if (scaled) {
            prop += underflow * std::max({std::fabs(av[ia]), std::fabs(bv[ib]), std::fabs(alpha)});
          }
          squares.Add(t);
        }
        const uint64_t o = (bi * rows + m) * cols + n;
        // A product and an addition per term, and alpha's product when it is not +-1.
        double roundings = (scaled ? 3.0 : 2.0) * static_cast<double>(depth);
        if (!cv.empty()) {
          const double t = beta * cv[o];
          sum += t;
          mag += std::fabs(t);
          prop += std::fabs(beta) * ce[o];
          squares.Add(t);
          roundings += 3;  // alpha * (A B), beta * C and their sum
        }
        const Bounded r = arith.Sum(sum.Value(), mag, prop, roundings,
                                    static_cast<double>(depth), squares.Value());
        out[0][o] = arith.Judge(r, ref[o]);
        NoteOverflow(a, arith, ref.size(), o);
      }
    }
  }
  return out;
}

// Linear operators out = f(x) with nonnegative weights (averagePool2d, cumulativeSum,
// resample2d linear): M = f(|x|), the propagated bound f(e_x).
Bounds Linear(const ErrorModelArgs& a, double roundings, double extra_relative = 0,
              double terms = 0) {
  const ErrorArith arith = ArithFor(a);
  const Tensor& x = a.inputs[0]->data;
  std::vector<Tensor> in = {Magnitude(x)};
  for (size_t k = 1; k < a.inputs.size(); ++k) in.push_back(a.inputs[k]->data);
  const std::vector<double> m = Abs(Values(RunFloat32(a, in)[0]));
  std::vector<double> prop(m.size(), 0.0);
  if (AnyInputBound(a)) {
    in[0] = BoundTensor(InputBound(a, 0), x.shape());
    prop = Abs(Values(RunFloat32(a, in)[0]));
  }
  const std::vector<double> s = ExactValues(a);
  const std::vector<double> ref = Values(a.outputs[0].data);
  // With `terms` > 0 (averagePool2d: the kernel averages `terms` elements), the partial sums are
  // estimated from the squares: the kernel on x^2 gives Q / terms, in the output's units
  // (x / terms)^2 summed: Q / terms^2.
  std::vector<double> q;
  if (terms > 0) {
    in[0] = MapToFloat32(x, [](double v) { return v * v; });
    q = Abs(Values(RunFloat32(a, in)[0]));
  }
  Bounds out(1);
  out[0].resize(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const double p = prop[i] * kMargin + extra_relative * m[i];
    // In the output's units the squares sum to at least m^2 / terms and at most m^2; a smaller
    // q / terms underflowed in float32 (as in Bilinear).
    double qt = terms > 0 ? q[i] / terms : 0;
    if (terms > 0 && qt < 0.5 * m[i] * m[i] / terms) qt = m[i] * m[i];
    const double squares = terms > 0 ? EstimatedSquares(s[i], qt, terms) : -1;
    out[0][i] = arith.Judge(arith.Sum(s[i], m[i] * kMargin, p, roundings, 0, squares), ref[i]);
    NoteOverflow(a, arith, s.size(), i);
  }
  return out;
}

// For every element of `shape` (row-major), sum over axes d of coordinate[d] * stride[d].
std::vector<uint64_t> StridedIndexOf(const Shape& shape, const std::vector<uint64_t>& stride) {
  const size_t rank = shape.size();
  const uint64_t n = ElementCount(shape);
  std::vector<uint64_t> out(n);
  std::vector<uint64_t> idx(rank, 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t id = 0;
    for (size_t d = 0; d < rank; ++d) id += idx[d] * stride[d];
    out[i] = id;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// The group (row-major index over the axes not reduced) of every element of `shape`.
std::vector<uint64_t> GroupOf(const Shape& shape, const std::vector<bool>& reduced,
                              uint64_t* groups) {
  std::vector<uint64_t> stride(shape.size(), 0);
  uint64_t g = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (!reduced[d]) {
      stride[d] = g;
      g *= shape[d];
    }
  }
  *groups = g;
  return StridedIndexOf(shape, stride);
}

// Row-major index into a tensor over `axes` of `shape` (the scale/bias/mean/variance operands
// of the normalizations: their axis k is input axis axes[k]) of every element of `shape`.
std::vector<uint64_t> ParamIndexOf(const Shape& shape, const std::vector<size_t>& axes) {
  std::vector<uint64_t> stride(shape.size(), 0);
  uint64_t s = 1;
  for (size_t k = axes.size(); k-- > 0;) {
    stride[axes[k]] = s;
    s *= shape[axes[k]];
  }
  return StridedIndexOf(shape, stride);
}

// The mean sum / n. n is a constant of the graph: implementations multiply by 1 / n folded at
// build time (rounded once, then the product rounds) or divide (correctly rounded on CPUs); by a
// power of two both are exact. (GPU division's 2.5 ULP allowance is for divisions by data.)
Bounded Mean(const ErrorArith& m, Bounded sum, double n) {
  int exponent = 0;
  if (std::frexp(n, &exponent) == 0.5) {
    // n = 2^k: exact, unless the quotient falls below the normal range, where it rounds to the
    // subnormal grid (half a subnormal; a group of subnormal values: docs/fuzzing.md, finding 2).
    const double v = sum.v / n, min_normal = m.eta() / (2 * m.u());
    return {v, sum.e / n + (std::fabs(v) < min_normal ? 0.5 * m.eta() : 0.0)};
  }
  return m.Mul(sum, m.Constant(1 / n));
}

// Inputs as Bounded values, row-major over their own shapes.
std::vector<Bounded> BoundedInput(const ErrorModelArgs& a, size_t k) {
  const std::vector<double> v = Values(a.inputs[k]->data);
  const std::vector<double> e = InputBound(a, k);
  std::vector<Bounded> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = {v[i], e[i]};
  return b;
}

// averagePool2d and l2Pool2d (§api-mlgraphbuilder-pool2d): window by window in the kernel's
// order (rows, then columns, padding left out), so that the partial sums are known
// (PartialSquares). averagePool2d: the sum, then the division by the count; l2Pool2d: the sum of
// squares, then the square root.
Bounds PoolWindows(const ErrorModelArgs& a, bool l2) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const auto* g = node.Attributes<Pool2dAttributes>();
  const ErrorArith m = ArithFor(a);
  const Shape& in = a.inputs[0]->data.shape();
  const Shape& out_shape = a.outputs[0].data.shape();
  const std::vector<Bounded> x = BoundedInput(a, 0);
  const std::vector<double> ref = Values(a.outputs[0].data);
  const Strides is = ContiguousStrides(in), os = ContiguousStrides(out_shape);
  const ImageAxes& ax = g->image;
  Bounds out(1);
  out[0].resize(ref.size());
  m.TakeOverflow();
  for (uint64_t o = 0; o < ref.size(); ++o) {
    // The output's coordinates on the image axes.
    uint64_t rest = o;
    std::vector<uint64_t> c(out_shape.size());
    for (size_t d = 0; d < out_shape.size(); ++d) {
      c[d] = rest / static_cast<uint64_t>(os[d]);
      rest %= static_cast<uint64_t>(os[d]);
    }
    const int64_t base = static_cast<int64_t>(c[ax.batch]) * is[ax.batch] +
                         static_cast<int64_t>(c[ax.channel]) * is[ax.channel];
    const int64_t y0 = static_cast<int64_t>(c[ax.height]) * g->stride_height - g->pad_top;
    const int64_t x0 = static_cast<int64_t>(c[ax.width]) * g->stride_width - g->pad_left;
    PartialSquares squares;
    CompensatedSum sum;
    double mag = 0, te = 0, n = 0;
    for (int64_t ky = 0; ky < g->window_height; ++ky) {
      const int64_t iy = y0 + ky * g->dilation_height;
      if (iy < 0 || iy >= static_cast<int64_t>(in[ax.height])) continue;
      for (int64_t kx = 0; kx < g->window_width; ++kx) {
        const int64_t ix = x0 + kx * g->dilation_width;
        if (ix < 0 || ix >= static_cast<int64_t>(in[ax.width])) continue;
        Bounded t = x[static_cast<size_t>(base + iy * is[ax.height] + ix * is[ax.width])];
        if (l2) t = m.Mul(t, t);
        sum += t.v;
        mag += std::fabs(t.v);
        te += t.e;
        n += 1;
        squares.Add(t.v);
      }
    }
    const Bounded total = m.Sum(sum.Value(), mag, te, std::max(0.0, n - 1), 0, squares.Value());
    const Bounded r = l2 ? m.Sqrt(total) : m.Div(total, {n, 0});
    out[0][o] = m.Judge(r, ref[o]);
    NoteOverflow(a, m, ref.size(), o);
  }
  return out;
}

// reduceX (§api-mlgraphbuilder-reduce): group by group, the spec's definitions.
// reduceLogSumExp (§api-mlgraphbuilder-reduce): log(sum(exp(x))) is 1-Lipschitz in the largest
// input change, so the inputs' bounds add at most their largest in the group, and each form
// below is evaluated on the exact inputs: the spec's steps literally, where the sum of the
// exponentials stays within the double range, and the max-shifted form log(sum(exp(x - max))) +
// max that libraries use (the literal steps underflow to log(0) = -Infinity or overflow far
// inside the type's range, e.g. at x = -5700; docs/fuzzing.md, finding 6). A legitimate value is
// within either form's bound.
Bounds LogSumExp(const ErrorModelArgs& a, const ErrorArith& m, const std::vector<Bounded>& x,
                 const std::vector<uint64_t>& group, uint64_t groups) {
  std::vector<double> mx(groups, -kInf), emax(groups, 0);
  for (size_t i = 0; i < x.size(); ++i) {
    mx[group[i]] = std::max(mx[group[i]], x[i].v);
    emax[group[i]] = std::max(emax[group[i]], x[i].e);
  }
  std::vector<double> s(groups, 0), mag(groups, 0), te(groups, 0), n(groups, 0);
  std::vector<double> ss(groups, 0), ste(groups, 0);
  std::vector<PartialSquares> squares(groups), shifted_squares(groups);
  std::vector<uint8_t> overflowed(groups, 0);
  for (size_t i = 0; i < x.size(); ++i) {
    const uint64_t g = group[i];
    const Bounded t = m.Exp(ErrorArith::Exact(x[i].v));
    if (m.TakeOverflow()) overflowed[g] = 1;  // the literal steps overflow the type here
    s[g] += t.v;
    mag[g] += std::fabs(t.v);
    te[g] += t.e;
    n[g] += 1;
    squares[g].Add(t.v);
    // x - max: exact when within a factor of two (Sterbenz), else one rounding.
    const Bounded d = m.Sub(ErrorArith::Exact(x[i].v), ErrorArith::Exact(mx[g]));
    const Bounded u = std::isfinite(mx[g]) ? m.Exp(d) : Bounded{0, 0};
    ss[g] += u.v;
    ste[g] += u.e;
    shifted_squares[g].Add(u.v);
  }
  const std::vector<double> ref = Values(a.outputs[0].data);
  Bounds out(1);
  out[0].resize(groups);
  for (uint64_t g = 0; g < groups; ++g) {
    const double roundings = std::max(0.0, n[g] - 1);
    const Bounded shifted = m.Add(
        m.Log(m.Sum(ss[g], ss[g], ste[g], roundings, 0, shifted_squares[g].Value())),
        ErrorArith::Exact(mx[g]));
    double e = shifted.e;
    if (s[g] > 0 && std::isfinite(s[g])) {
      const Bounded literal = m.Log(m.Sum(s[g], mag[g], te[g], roundings, 0, squares[g].Value()));
      if (std::isfinite(literal.e)) e = std::max(e, literal.e);
    }
    // The exact value: the shifted form in double (the sum of exp(x - max) is at least 1).
    const double v = std::isfinite(mx[g]) ? mx[g] + std::log(ss[g]) : mx[g];
    out[0][g] = m.Judge({v, e + emax[g]}, ref[g]);
    NoteOverflow(a, m, groups, g);
    if (overflowed[g] && a.overflow != nullptr) (*a.overflow)[0][g] = 1;
  }
  return out;
}

Bounds Reduce(const ErrorModelArgs& a) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const auto* attr = node.Attributes<ReduceAttributes>();
  const ErrorArith m = ArithFor(a);
  const Tensor& in = a.inputs[0]->data;
  uint64_t groups = 0;
  const std::vector<uint64_t> group = GroupOf(in.shape(), attr->reduced, &groups);
  const std::vector<Bounded> x = BoundedInput(a, 0);
  const ReduceOp op = attr->op;
  if (op == ReduceOp::kLogSumExp) return LogSumExp(a, m, x, group, groups);
  // Per group: S, M, the terms' bounds, the count; reduceProduct: the product and its bound.
  std::vector<CompensatedSum> s(groups);
  std::vector<double> mag(groups, 0), te(groups, 0), n(groups, 0);
  std::vector<double> prod(groups, 1), prod_hi(groups, 1);
  // reduceProduct: the smallest partial product over all orders (the factors below 1 first).
  std::vector<double> smallest(groups, 1);
  std::vector<PartialSquares> squares(groups);
  for (size_t i = 0; i < x.size(); ++i) {
    const uint64_t g = group[i];
    Bounded t = x[i];
    switch (op) {
      case ReduceOp::kL1:
        t = ErrorArith::Abs(t);
        break;
      case ReduceOp::kSumSquare:
      case ReduceOp::kL2:
        t = m.Mul(t, t);
        break;
      case ReduceOp::kLogSumExp:
        t = m.Exp(t);
        break;
      case ReduceOp::kProduct:
        prod[g] *= t.v;
        prod_hi[g] *= std::fabs(t.v) + t.e;
        if (std::fabs(t.v) < 1) smallest[g] *= std::fabs(t.v);
        break;
      default:
        break;
    }
    s[g] += t.v;
    mag[g] += std::fabs(t.v);
    te[g] += t.e;
    n[g] += 1;
    squares[g].Add(t.v);
  }
  const std::vector<double> ref = Values(a.outputs[0].data);
  Bounds out(1);
  out[0].resize(groups);
  for (uint64_t g = 0; g < groups; ++g) {
    Bounded r;
    // Additions are n - 1 roundings; a product term adds its own (counted in t.e for squares
    // and exponentials).
    const Bounded sum =
        m.Sum(s[g].Value(), mag[g], te[g], std::max(0.0, n[g] - 1), 0, squares[g].Value());
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kL1:
      case ReduceOp::kSumSquare:
        r = sum;
        break;
      case ReduceOp::kMean:
        r = Mean(m, sum, n[g]);
        break;
      case ReduceOp::kL2:
        r = m.Sqrt(sum);
        break;
      case ReduceOp::kLogSum:
      case ReduceOp::kLogSumExp:
        r = m.Log(sum);
        break;
      case ReduceOp::kProduct: {
        const double rel = std::pow(1 + m.u(), std::max(0.0, n[g] - 1)) - 1;
        const double prop = prod_hi[g] - std::fabs(prod[g]);
        r = {prod[g], prop + (std::fabs(prod[g]) + prop) * rel + n[g] * m.eta()};
        // A partial product below the normal range rounds by up to half a subnormal, a relative
        // error of eta / (2 |P|) that the remaining factors carry to the result: in float32,
        // in an order that meets the small factors first, a normal product of 36 factors with
        // one subnormal comes out 96 ULP off (docs/fuzzing.md, finding 2).
        if (const double min_normal = m.eta() / (2 * m.u()); smallest[g] < min_normal) {
          const double relative = (n[g] - 1) * m.eta() / (2 * smallest[g]);
          r.e += (std::fabs(prod[g]) + prop) * std::min(1.0, relative);
        }
        break;
      }
      default:
        r = {ref[g], 0};
        break;
    }
    out[0][g] = m.Judge(r, ref[g]);
    NoteOverflow(a, m, groups, g);
  }
  return out;
}

// softmax (§api-mlgraphbuilder-softmax-method): the emulation's steps along the axis: the max
// (exact), exp(x - max), their sum, the division.
Bounds Softmax(const ErrorModelArgs& a) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const auto* attr = node.Attributes<SoftmaxAttributes>();
  const ErrorArith m = ArithFor(a);
  const Shape& shape = a.inputs[0]->data.shape();
  std::vector<bool> reduced(shape.size(), false);
  reduced[attr->axis] = true;
  uint64_t groups = 0;
  const std::vector<uint64_t> group = GroupOf(shape, reduced, &groups);
  const std::vector<Bounded> x = BoundedInput(a, 0);
  std::vector<Bounded> mx(groups, {-kInf, 0});
  for (size_t i = 0; i < x.size(); ++i) mx[group[i]] = ErrorArith::Max(mx[group[i]], x[i]);
  std::vector<Bounded> t(x.size());
  std::vector<double> s(groups, 0), te(groups, 0), n(groups, 0);
  std::vector<PartialSquares> squares(groups);
  for (size_t i = 0; i < x.size(); ++i) {
    t[i] = m.Exp(m.Sub(x[i], mx[group[i]]));
    s[group[i]] += t[i].v;
    te[group[i]] += t[i].e;
    n[group[i]] += 1;
    squares[group[i]].Add(t[i].v);
  }
  const std::vector<double> ref = Values(a.outputs[0].data);
  Bounds out(1);
  out[0].resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const uint64_t g = group[i];
    const Bounded sum =
        m.Sum(s[g], s[g], te[g], std::max(0.0, n[g] - 1), 0, squares[g].Value());
    const Bounded y = m.Div(t[i], sum);
    out[0][i] = m.Judge(y, ref[i]);
    NoteOverflow(a, m, x.size(), i);
  }
  return out;
}

// batchNormalization, instanceNormalization, layerNormalization (§api-mlgraphbuilder-batchnorm,
// -instancenorm, -layernorm): the emulations' steps, scale * ((x - mean) / sqrt(variance +
// epsilon)) + bias, with the mean and the population variance as reduceMean steps (two passes)
// where the operator computes them.
Bounds Normalization(const ErrorModelArgs& a, bool given_moments) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const auto* attr = node.Attributes<NormalizationAttributes>();
  const ErrorArith m = ArithFor(a);
  const Shape& shape = a.inputs[0]->data.shape();
  const std::vector<Bounded> x = BoundedInput(a, 0);
  const std::vector<uint64_t> param = ParamIndexOf(shape, attr->param_axes);
  const std::vector<Bounded> scale =
      attr->scale_input >= 0 ? BoundedInput(a, static_cast<size_t>(attr->scale_input))
                             : std::vector<Bounded>{};
  const std::vector<Bounded> bias =
      attr->bias_input >= 0 ? BoundedInput(a, static_cast<size_t>(attr->bias_input))
                            : std::vector<Bounded>{};
  const Bounded eps{attr->epsilon, 0};
  std::vector<Bounded> mean, var;
  std::vector<uint64_t> group;
  std::vector<uint8_t> group_overflow;
  if (given_moments) {
    mean = BoundedInput(a, 1);
    var = BoundedInput(a, 2);
    group = param;
  } else {
    std::vector<bool> reduced(shape.size(), false);
    for (size_t ax : attr->reduce_axes) reduced[ax] = true;
    uint64_t groups = 0;
    group = GroupOf(shape, reduced, &groups);
    std::vector<CompensatedSum> s(groups);
    std::vector<double> mag(groups, 0), te(groups, 0), n(groups, 0);
    std::vector<PartialSquares> squares(groups), dev_squares(groups);
    for (size_t i = 0; i < x.size(); ++i) {
      s[group[i]] += x[i].v;
      mag[group[i]] += std::fabs(x[i].v);
      te[group[i]] += x[i].e;
      n[group[i]] += 1;
      squares[group[i]].Add(x[i].v);
    }
    mean.resize(groups);
    group_overflow.assign(groups, 0);
    m.TakeOverflow();
    for (uint64_t g = 0; g < groups; ++g) {
      mean[g] = Mean(m,
                     m.Sum(s[g].Value(), mag[g], te[g], std::max(0.0, n[g] - 1), 0,
                           squares[g].Value()),
                     n[g]);
      if (m.TakeOverflow()) group_overflow[g] = 1;
    }
    std::vector<double> sq(groups, 0), sqe(groups, 0);
    for (size_t i = 0; i < x.size(); ++i) {
      // The mean's own error moves every deviation of the group by the same amount, and the
      // deviations sum to 0: its first-order effect on the variance cancels, leaving the square
      // of the error (added below). So the deviations here carry the subtraction's rounding only.
      const Bounded d = m.Sub(x[i], {mean[group[i]].v, 0});
      const Bounded d2 = m.Mul(d, d);
      sq[group[i]] += d2.v;
      sqe[group[i]] += d2.e;
      dev_squares[group[i]].Add(d2.v);
      if (m.TakeOverflow()) group_overflow[group[i]] = 1;
    }
    var.resize(groups);
    for (uint64_t g = 0; g < groups; ++g) {
      const double shift = mean[g].e * mean[g].e * n[g];  // sum of (d - delta)^2 - sum of d^2
      var[g] = Mean(m,
                    m.Sum(sq[g], sq[g], sqe[g] + shift, std::max(0.0, n[g] - 1), 0,
                          dev_squares[g].Value()),
                    n[g]);
      if (m.TakeOverflow()) group_overflow[g] = 1;
    }
  }
  const std::vector<double> ref = Values(a.outputs[0].data);
  Bounds out(1);
  out[0].resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const uint64_t g = group[i];
    const Bounded d = m.Sub(x[i], mean[g]);
    const Bounded inv = m.Div({1, 0}, m.Sqrt(m.Add(var[g], eps)));
    Bounded y = m.Div(d, m.Sqrt(m.Add(var[g], eps)));
    if (!scale.empty()) y = m.Mul(scale[param[i]], y);
    if (!bias.empty()) y = m.Add(y, bias[param[i]]);
    if (given_moments) {
      // batchNormalization's mean and variance are operands (constants at inference), so
      // implementations fold the steps into x * a + (bias - mean * a) with a = scale /
      // sqrt(variance + epsilon) (oneDNN, ONNX Runtime, TFLite): three more roundings of terms
      // as large as |x a|, |mean a| and |bias|, which cancel where x is near the mean.
      const double a_mag =
          std::fabs(inv.v) * (scale.empty() ? 1.0 : std::fabs(scale[param[i]].v));
      const double folded = std::fabs(x[i].v) * a_mag + std::fabs(mean[g].v) * a_mag +
                            (bias.empty() ? 0.0 : std::fabs(bias[param[i]].v));
      y.e += m.Sum(y.v, folded, 0, 3).e;
    }
    out[0][i] = m.Judge(y, ref[i]);
    NoteOverflow(a, m, x.size(), i);
    if (a.overflow != nullptr && !group_overflow.empty() && group_overflow[g]) {
      (*a.overflow)[0][i] = 1;
    }
  }
  return out;
}

}  // namespace

bool HasSumModel(OpId op) {
  static constexpr OpId kOps[] = {
      OpId::matmul,          OpId::gemm,          OpId::conv2d,           OpId::convTranspose2d,
      OpId::averagePool2d,   OpId::l2Pool2d,      OpId::cumulativeSum,    OpId::resample2d,
      OpId::reduceSum,       OpId::reduceMean,    OpId::reduceL1,         OpId::reduceL2,
      OpId::reduceSumSquare, OpId::reduceLogSum,  OpId::reduceLogSumExp,  OpId::reduceProduct,
      OpId::softmax,         OpId::batchNormalization, OpId::instanceNormalization,
      OpId::layerNormalization};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

std::optional<Bounds> SumBounds(const ErrorModelArgs& a) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const OpId op = node.op;
  if (!FloatOutput(a)) return Bounds(node.outputs.size());
  const double size = static_cast<double>(node.tolerance.size);
  if (op == OpId::matmul || op == OpId::gemm) return MatrixProduct(a, op == OpId::gemm);
  if (op == OpId::conv2d || op == OpId::convTranspose2d) {
    // size: the products per output element; each product and each addition rounds once.
    return Bilinear(a, 2 * size + 1);
  }
  if (op == OpId::averagePool2d) return Linear(a, size + 3, 0, size);  // window sum, then division
  if (op == OpId::cumulativeSum) {
    // A prefix of at most the axis length of terms.
    const auto* attr = node.Attributes<CumulativeSumAttributes>();
    return Linear(a, static_cast<double>(a.inputs[0]->data.shape()[attr->axis]) + 1);
  }
  if (op == OpId::resample2d) {
    const auto* attr = node.Attributes<Resample2dAttributes>();
    const Shape& shape = a.inputs[0]->data.shape();
    if (attr->mode == MLInterpolationMode::kNearestNeighbor) {
      // A copy of an input element: the element's own bound.
      if (!AnyInputBound(a)) return Bounds{std::vector<double>(a.outputs[0].data.element_count())};
      return Bounds{Values(RunFloat32(a, {BoundTensor(InputBound(a, 0), shape)})[0])};
    }
    // Per axis the source coordinate (x + 0.5) / scale - 0.5 is off by a few roundings of its
    // magnitude, which moves the weights by as much: 3 u |coordinate| per axis, each weight
    // multiplying a term at most M. Coordinates and weights come from sizes, not data: every
    // implementation computes them in float32 (or wider), whatever the data type.
    const double coord = static_cast<double>(std::max(shape[attr->axis_y], shape[attr->axis_x]));
    return Linear(a, 12, 2 * 3 * 0x1p-24 * coord);
  }
  if (op == OpId::averagePool2d || op == OpId::l2Pool2d) return PoolWindows(a, op == OpId::l2Pool2d);
  if (op == OpId::l2Pool2d) {
    // sqrt(sum of squares): the sum of squares (all terms >= 0, so M = S^2) bounded from the
    // window's L2 norm of the input bounds (sum |x| e <= |x|_2 |e|_2), then the square root.
    const ErrorArith m = ArithFor(a);
    const std::vector<double> s = Values(a.outputs[0].data);
    std::vector<double> le(s.size(), 0.0);
    if (AnyInputBound(a)) {
      le = Values(RunFloat32(a, {BoundTensor(InputBound(a, 0), a.inputs[0]->data.shape())})[0]);
    }
    // The squared terms x^4: the kernel on x^2 gives sqrt(sum x^4).
    const std::vector<double> q4 = Values(RunFloat32(
        a, {MapToFloat32(a.inputs[0]->data, [](double v) { return v * v; })})[0]);
    Bounds out(1);
    out[0].resize(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      const double s2 = s[i] * s[i] * kMargin;
      const Bounded sum = m.Sum(s2, s2, 2 * s[i] * le[i] + le[i] * le[i], 2 * size, size,
                                EstimatedSquares(s2, q4[i] * q4[i], size));
      out[0][i] = m.Judge(m.Sqrt(sum), s[i]);
    }
    return out;
  }
  if (op == OpId::softmax) return Softmax(a);
  if (op == OpId::batchNormalization) return Normalization(a, true);
  if (op == OpId::instanceNormalization || op == OpId::layerNormalization) {
    return Normalization(a, false);
  }
  if (node.Attributes<ReduceAttributes>() != nullptr) return Reduce(a);
  return std::nullopt;
}

}  // namespace nnref::error_model
