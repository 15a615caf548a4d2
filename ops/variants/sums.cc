// Variants and mutants of the operators whose result is a sum (issue: verdicts with evidence):
// matmul, gemm, linear, conv2d, convTranspose2d, averagePool2d, l2Pool2d, the sum reductions and
// cumulativeSum here; the normalizations and softmax in normalization_variants.cc. The shared
// machinery (operand-type arithmetic emulated in double, Dot over an order and an accumulator,
// the Alternative wrapper) is in sum_engine.cc, declared in sums_internal.h.
//
// Variants model the accumulation orders and accumulators of real kernels: sequential loops with
// or without FMA (BLAS micro-kernels, direct convolutions), interleaved SIMD lanes (8: AVX2
// float32; 16: AVX-512), trees (GPU workgroup reductions), split-K (a K range cut in two and the
// partial results added), float16 accumulated in float16 (GPU half kernels) or in float32 (most
// CPU half kernels). Mutants compute in double with compensated sums (Prec::kExact) so that only
// the modelled bug separates them from the reference.
#include <algorithm>
#include <cmath>
#include <limits>

#include "numerics/cast.h"
#include "ops/arg_cumulative.h"
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/exact_round.h"
#include "ops/matmul_gemm.h"
#include "ops/pool2d.h"
#include "ops/reduction.h"
#include "ops/variants/sums_internal.h"

namespace nnref {
namespace sums {
namespace {

// Dot products (matmul, gemm, conv2d, convTranspose2d).
const std::vector<SumVariant> kDotVariants = {
    {Acc::kF32, kSeq},       {Acc::kF32, kFmaSeq},     {Acc::kF32, kFmaBlk8}, {Acc::kF32, kPair},
    {Acc::kF32, kFmaSplit},  {Acc::kF16, kSeq},        {Acc::kF16, kFmaSeq},  {Acc::kF16, kPair},
    {Acc::kF16F32, kFmaSeq}, {Acc::kF16F32, kFmaBlk8},
};
// Plain sums (reductions, pools).
const std::vector<SumVariant> kSumVariants = {
    {Acc::kF32, kSeq}, {Acc::kF32, kRev},  {Acc::kF32, kPair},   {Acc::kF32, kBlk8},
    {Acc::kF16, kSeq}, {Acc::kF16, kPair}, {Acc::kF16F32, kSeq}, {Acc::kF16F32, kBlk16},
};

// ---------------------------------------------------------------------------------------------
// matmul and gemm.

struct MatmulMutation {
  bool drop_last = false;    // the last product of every dot product left out
  bool transpose_b = false;  // B's last two axes swapped (square B only)
};

Values1 MatmulBody(const Context& c, const SumSpec& s, MatmulMutation m) {
  const size_t rank = c.out.size();
  const Shape batch(c.out.begin(), c.out.end() - 2);
  Shape a_shape = batch, b_shape = batch;
  const Shape& a_in = c.In(0).shape();
  const Shape& b_in = c.In(1).shape();
  a_shape.insert(a_shape.end(), a_in.end() - 2, a_in.end());
  b_shape.insert(b_shape.end(), b_in.end() - 2, b_in.end());
  const uint64_t rows = c.out[rank - 2], cols = c.out[rank - 1], depth = a_shape[rank - 1];
  if (m.transpose_b && depth != cols) return std::nullopt;
  if (m.drop_last && depth < 2) return std::nullopt;
  const std::vector<double> a = Values(c.In(0).BroadcastTo(a_shape));
  const std::vector<double> b = Values(c.In(1).BroadcastTo(b_shape));
  const uint64_t used = m.drop_last ? depth - 1 : depth;
  std::vector<double> out(ElementCount(c.out)), row(depth), col(depth);
  for (uint64_t bi = 0; bi < ElementCount(batch); ++bi) {
    const double* pa = a.data() + bi * rows * depth;
    const double* pb = b.data() + bi * depth * cols;
    for (uint64_t i = 0; i < rows; ++i) {
      for (uint64_t j = 0; j < cols; ++j) {
        for (uint64_t k = 0; k < depth; ++k) {
          row[k] = pa[i * depth + k];
          col[k] = m.transpose_b ? pb[j * cols + k] : pb[k * cols + j];
        }
        out[(bi * rows + i) * cols + j] =
            Dot(std::span(row).first(used), std::span(col).first(used), s);
      }
    }
  }
  return out;
}

struct GemmMutation {
  bool drop_last = false;
  bool ignore_alpha = false, ignore_beta = false, ignore_c = false;
  bool invert_a_transpose = false, invert_b_transpose = false;  // square operands only
};

// alpha_first: the spec's emulation, matmul(alpha * A, B) + beta * C; otherwise the BLAS order
// alpha * (A B) + beta * C (fused into one fma when s.fma).
Values1 GemmBody(const Context& c, const SumSpec& s, bool alpha_first, GemmMutation m) {
  const auto* g = c.Attributes<GemmAttributes>();
  if (!g) return std::nullopt;
  const Shape& sa = c.In(0).shape();
  const Shape& sb = c.In(1).shape();
  if ((m.invert_a_transpose && sa[0] != sa[1]) || (m.invert_b_transpose && sb[0] != sb[1])) {
    return std::nullopt;
  }
  const bool has_c = c.inputs.size() > 2;
  if ((m.ignore_alpha && g->alpha == 1) || (m.ignore_beta && (!has_c || g->beta == 1)) ||
      (m.ignore_c && !has_c)) {
    return std::nullopt;
  }
  const bool at = g->aTranspose != m.invert_a_transpose;
  const bool bt = g->bTranspose != m.invert_b_transpose;
  const uint64_t rows = c.out[0], cols = c.out[1], depth = at ? sa[0] : sa[1];
  if (m.drop_last && depth < 2) return std::nullopt;
  const std::vector<double> a = Values(c.In(0)), b = Values(c.In(1));
  const std::vector<double> cv = has_c ? Values(c.In(2).BroadcastTo(c.out)) : std::vector<double>{};
  const double alpha = m.ignore_alpha ? 1 : g->alpha, beta = m.ignore_beta ? 1 : g->beta;
  const bool use_c = has_c && !m.ignore_c;
  const Prec p = s.p;
  const uint64_t used = m.drop_last ? depth - 1 : depth;
  std::vector<double> out(rows * cols), row(depth), col(depth);
  for (uint64_t i = 0; i < rows; ++i) {
    for (uint64_t j = 0; j < cols; ++j) {
      for (uint64_t k = 0; k < depth; ++k) {
        const double av = at ? a[k * sa[1] + i] : a[i * sa[1] + k];
        row[k] = alpha_first ? Mul(p, alpha, av) : av;
        col[k] = bt ? b[j * sb[1] + k] : b[k * sb[1] + j];
      }
      const double dot = Dot(std::span(row).first(used), std::span(col).first(used), s);
      double v = alpha_first ? dot : Mul(p, alpha, dot);
      if (use_c) {
        const double bc = Mul(p, beta, cv[i * cols + j]);
        v = !alpha_first && s.fma ? Fma(p, alpha, dot, bc) : Add(p, v, bc);
      }
      out[i * cols + j] = v;
    }
  }
  return out;
}

// linear: alpha * x + beta.
Values1 LinearBody(const Context& c, Prec p, bool fused, bool ignore_alpha) {
  const auto* g = c.Attributes<LinearAttributes>();
  if (!g || (ignore_alpha && g->alpha == 1)) return std::nullopt;
  const double alpha = ignore_alpha ? 1 : g->alpha, beta = g->beta;
  std::vector<double> v = Values(c.In(0));
  for (double& x : v) {
    if (p == Prec::kExact) {
      x = SumToOdd(alpha * x, beta);  // alpha * x is exact
    } else {
      x = fused ? Fma(p, alpha, x, beta) : Add(p, Mul(p, alpha, x), beta);
    }
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// conv2d and convTranspose2d.

struct ConvMutation {
  bool drop_last = false;    // the last product of every output element left out
  bool flip = false;         // the filter flipped spatially (rotated 180 degrees)
  bool ignore_bias = false;  // the bias left out
};

struct ConvOrder {
  bool spatial_outer = false;  // terms in (filter y, filter x, channel) order: NHWC im2col
  bool bias_first = false;     // the accumulator starts at the bias instead of adding it last
  bool col2im = false;         // convTranspose2d: one dot product over the channels per filter
                               // position, the positions' partial results then added in order
};

// The dot products of a convolution-like operator: out(i) = sum of x * w over the pairs of one
// output element, then the bias (inputs: input, filter[, bias]). gather(i, xs, ws, positions)
// fills the pairs of output element i in its term order and, for col2im, the index in xs where
// each filter position's run of terms starts.
using Gather =
    std::function<void(uint64_t, std::vector<double>&, std::vector<double>&, std::vector<size_t>&)>;

Values1 ConvSums(const Context& c, const SumSpec& s, ConvOrder o, ConvMutation m,
                 const Gather& gather, const std::vector<uint64_t>& bias_channel) {
  const bool has_bias = c.inputs.size() > 2;
  if (m.ignore_bias && !has_bias) return std::nullopt;
  const std::vector<double> bias =
      has_bias && !m.ignore_bias ? Values(c.In(2)) : std::vector<double>{};
  const Prec p = s.p;
  std::vector<double> out(ElementCount(c.out)), xs, ws, partial;
  std::vector<size_t> starts;
  for (uint64_t i = 0; i < out.size(); ++i) {
    xs.clear();
    ws.clear();
    starts.clear();
    gather(i, xs, ws, starts);
    size_t n = xs.size();
    if (m.drop_last && n > 0) --n;
    const std::span<const double> x = std::span(xs).first(n), w = std::span(ws).first(n);
    const bool with_bias = !bias.empty();
    const double b = with_bias ? bias[bias_channel[i]] : 0.0;
    const bool bias_in_sum = with_bias && (o.bias_first || p == Prec::kExact);
    double v;
    if (o.col2im && p != Prec::kExact) {
      partial.clear();
      for (size_t r = 0; r < starts.size(); ++r) {
        const size_t begin = std::min(starts[r], n);
        const size_t end = r + 1 < starts.size() ? std::min(starts[r + 1], n) : n;
        if (begin >= end) continue;
        partial.push_back(Dot(x.subspan(begin, end - begin), w.subspan(begin, end - begin), s));
      }
      v = Dot(partial, {}, SumSpec{p, Order::kSequential, false, 8}, bias_in_sum ? b : -0.0);
    } else {
      v = Dot(x, w, s, bias_in_sum ? b : -0.0);
    }
    if (with_bias && !bias_in_sum) v = Add(p, v, b);
    out[i] = v;
  }
  return out;
}

// Coordinates of output element i of a 4-D tensor of `shape` in `axes`' logical order.
struct Coord {
  uint64_t batch, channel, y, x;
};
Coord CoordOf(uint64_t i, const Shape& shape, const ImageAxes& axes) {
  uint64_t idx[4];
  for (size_t a = 4; a-- > 0;) {
    idx[a] = i % shape[a];
    i /= shape[a];
  }
  return {idx[axes.batch], idx[axes.channel], idx[axes.height], idx[axes.width]};
}

std::vector<uint64_t> ChannelOfEach(const Shape& shape, const ImageAxes& axes) {
  std::vector<uint64_t> ch(ElementCount(shape));
  for (uint64_t i = 0; i < ch.size(); ++i) ch[i] = CoordOf(i, shape, axes).channel;
  return ch;
}

Values1 Conv2dBody(const Context& c, const SumSpec& s, ConvOrder o, ConvMutation m) {
  const auto* g = c.Attributes<Conv2dAttributes>();
  if (!g) return std::nullopt;
  const ImageAxes& ia = g->image;
  const Conv2dFilterAxes& fa = g->filter;
  const Shape& xshape = c.In(0).shape();
  const Shape& wshape = c.In(1).shape();
  const auto fh = static_cast<int64_t>(wshape[fa.height]);
  const auto fw = static_cast<int64_t>(wshape[fa.width]);
  if (m.flip && fh * fw == 1) return std::nullopt;
  const std::vector<double> x = Values(c.In(0)), w = Values(c.In(1));
  const Strides xst = ContiguousStrides(xshape), wst = ContiguousStrides(wshape);
  const auto ih = static_cast<int64_t>(xshape[ia.height]);
  const auto iw = static_cast<int64_t>(xshape[ia.width]);
  const auto fc = static_cast<int64_t>(wshape[fa.in]);
  const auto per_group = static_cast<int64_t>(wshape[fa.out]) / g->groups;
  const Gather gather = [&](uint64_t i, std::vector<double>& xs, std::vector<double>& ws,
                            std::vector<size_t>&) {
    const Coord at = CoordOf(i, c.out, ia);
    const auto oc = static_cast<int64_t>(at.channel);
    const int64_t group = oc / per_group;
    const int64_t y0 = static_cast<int64_t>(at.y) * g->stride_height - g->pad_top;
    const int64_t x0 = static_cast<int64_t>(at.x) * g->stride_width - g->pad_left;
    const auto add = [&](int64_t ch, int64_t ky, int64_t kx) {
      const int64_t iy = y0 + ky * g->dilation_height, ix = x0 + kx * g->dilation_width;
      if (iy < 0 || iy >= ih || ix < 0 || ix >= iw) return;
      xs.push_back(x[static_cast<size_t>(static_cast<int64_t>(at.batch) * xst[ia.batch] +
                                         (group * fc + ch) * xst[ia.channel] + iy * xst[ia.height] +
                                         ix * xst[ia.width])]);
      const int64_t wy = m.flip ? fh - 1 - ky : ky, wx = m.flip ? fw - 1 - kx : kx;
      ws.push_back(w[static_cast<size_t>(oc * wst[fa.out] + ch * wst[fa.in] + wy * wst[fa.height] +
                                         wx * wst[fa.width])]);
    };
    if (o.spatial_outer) {
      for (int64_t ky = 0; ky < fh; ++ky)
        for (int64_t kx = 0; kx < fw; ++kx)
          for (int64_t ch = 0; ch < fc; ++ch) add(ch, ky, kx);
    } else {
      for (int64_t ch = 0; ch < fc; ++ch)
        for (int64_t ky = 0; ky < fh; ++ky)
          for (int64_t kx = 0; kx < fw; ++kx) add(ch, ky, kx);
    }
  };
  return ConvSums(c, s, o, m, gather, ChannelOfEach(c.out, ia));
}

Values1 ConvTranspose2dBody(const Context& c, const SumSpec& s, ConvOrder o, ConvMutation m) {
  const auto* g = c.Attributes<ConvTranspose2dAttributes>();
  if (!g) return std::nullopt;
  const ImageAxes& ia = g->image;
  const ConvTranspose2dFilterAxes& fa = g->filter;
  const Shape& xshape = c.In(0).shape();
  const Shape& wshape = c.In(1).shape();
  const auto fh = static_cast<int64_t>(wshape[fa.height]);
  const auto fw = static_cast<int64_t>(wshape[fa.width]);
  if (m.flip && fh * fw == 1) return std::nullopt;
  const std::vector<double> x = Values(c.In(0)), w = Values(c.In(1));
  const Strides xst = ContiguousStrides(xshape), wst = ContiguousStrides(wshape);
  const auto ih = static_cast<int64_t>(xshape[ia.height]);
  const auto iw = static_cast<int64_t>(xshape[ia.width]);
  const auto per_group = static_cast<int64_t>(xshape[ia.channel]) / g->groups;
  const auto filter_out = static_cast<int64_t>(wshape[fa.out]);
  const Gather gather = [&](uint64_t i, std::vector<double>& xs, std::vector<double>& ws,
                            std::vector<size_t>& starts) {
    const Coord at = CoordOf(i, c.out, ia);
    const auto oc = static_cast<int64_t>(at.channel);
    const int64_t group = oc / filter_out, foc = oc % filter_out;
    const auto add = [&](int64_t gc, int64_t ky, int64_t kx) {
      const int64_t sy = static_cast<int64_t>(at.y) + g->pad_top - ky * g->dilation_height;
      const int64_t sx = static_cast<int64_t>(at.x) + g->pad_left - kx * g->dilation_width;
      if (sy < 0 || sy % g->stride_height != 0 || sx < 0 || sx % g->stride_width != 0) return;
      const int64_t iy = sy / g->stride_height, ix = sx / g->stride_width;
      if (iy >= ih || ix >= iw) return;
      const int64_t ic = group * per_group + gc;
      xs.push_back(
          x[static_cast<size_t>(static_cast<int64_t>(at.batch) * xst[ia.batch] +
                                ic * xst[ia.channel] + iy * xst[ia.height] + ix * xst[ia.width])]);
      const int64_t wy = m.flip ? fh - 1 - ky : ky, wx = m.flip ? fw - 1 - kx : kx;
      ws.push_back(w[static_cast<size_t>(ic * wst[fa.in] + foc * wst[fa.out] + wy * wst[fa.height] +
                                         wx * wst[fa.width])]);
    };
    if (o.col2im || o.spatial_outer) {  // position-major
      for (int64_t ky = 0; ky < fh; ++ky) {
        for (int64_t kx = 0; kx < fw; ++kx) {
          starts.push_back(xs.size());
          for (int64_t gc = 0; gc < per_group; ++gc) add(gc, ky, kx);
        }
      }
    } else {
      for (int64_t gc = 0; gc < per_group; ++gc)
        for (int64_t ky = 0; ky < fh; ++ky)
          for (int64_t kx = 0; kx < fw; ++kx) add(gc, ky, kx);
    }
  };
  return ConvSums(c, s, o, m, gather, ChannelOfEach(c.out, ia));
}

// ---------------------------------------------------------------------------------------------
// averagePool2d and l2Pool2d.

struct PoolMutation {
  bool drop_last = false;
  bool count_padding = false;  // averagePool2d: divides by the full window size
  bool no_sqrt = false;        // l2Pool2d: the sum of squares without its square root
  int gpu_sqrt = 0;            // l2Pool2d: the square root 4 ULP above (+1) or below (-1)
};

// `r` moved by `steps` representable values of the precision (a GPU square root within its
// stated 4.5 ULP).
double StepUlps(Prec p, double r, int steps) {
  const float inf = std::numeric_limits<float>::infinity();
  for (int k = 0; k < std::abs(steps); ++k) {
    if (p == Prec::kF16) {
      const double up = steps > 0 ? r * (1 + 0x1p-11) : r * (1 - 0x1p-11);
      const double next = Round(p, up);
      r = next == r ? Round(p, steps > 0 ? r + std::ldexp(1.0, std::ilogb(r) - 10)
                                         : r - std::ldexp(1.0, std::ilogb(r) - 11))
                    : next;
    } else {
      r = double{std::nextafter(static_cast<float>(r), steps > 0 ? inf : -inf)};
    }
  }
  return r;
}

Values1 PoolBody(const Context& c, const SumSpec& s, bool reciprocal, PoolMutation m) {
  const auto* g = c.Attributes<Pool2dAttributes>();
  if (!g || g->op == PoolOp::kMax) return std::nullopt;
  const bool l2 = g->op == PoolOp::kL2;
  const ImageAxes& ia = g->image;
  const Shape& xshape = c.In(0).shape();
  const std::vector<double> x = Values(c.In(0));
  const Strides xst = ContiguousStrides(xshape);
  const auto ih = static_cast<int64_t>(xshape[ia.height]);
  const auto iw = static_cast<int64_t>(xshape[ia.width]);
  const Prec p = s.p;
  std::vector<double> out(ElementCount(c.out)), window;
  for (uint64_t i = 0; i < out.size(); ++i) {
    const Coord at = CoordOf(i, c.out, ia);
    const int64_t base = static_cast<int64_t>(at.batch) * xst[ia.batch] +
                         static_cast<int64_t>(at.channel) * xst[ia.channel];
    const int64_t y0 = static_cast<int64_t>(at.y) * g->stride_height - g->pad_top;
    const int64_t x0 = static_cast<int64_t>(at.x) * g->stride_width - g->pad_left;
    window.clear();
    for (int64_t ky = 0; ky < g->window_height; ++ky) {
      const int64_t iy = y0 + ky * g->dilation_height;
      if (iy < 0 || iy >= ih) continue;
      for (int64_t kx = 0; kx < g->window_width; ++kx) {
        const int64_t ix = x0 + kx * g->dilation_width;
        if (ix < 0 || ix >= iw) continue;
        window.push_back(x[static_cast<size_t>(base + iy * xst[ia.height] + ix * xst[ia.width])]);
      }
    }
    const size_t count = window.size();
    const std::span<const double> terms =
        std::span(window).first(m.drop_last && count > 0 ? count - 1 : count);
    if (l2) {
      const double sum = Dot(terms, terms, s);
      out[i] = m.no_sqrt ? sum : Sqrt(p, sum);
      if (m.gpu_sqrt != 0 && out[i] > 0 && std::isfinite(out[i])) {
        out[i] = StepUlps(p, out[i], 4 * m.gpu_sqrt);
      }
      continue;
    }
    if (count == 0) {  // the average of nothing: open (the reference gives NaN)
      out[i] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const double divisor = static_cast<double>(
        m.count_padding ? static_cast<uint64_t>(g->window_height * g->window_width) : count);
    const double sum = Sum(terms, s);
    out[i] = reciprocal ? Mul(p, sum, Round(p, 1 / divisor)) : Div(p, sum, divisor);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reductions.

struct ReduceMutation {
  bool drop_last = false;
  bool n_minus_1 = false;  // reduceMean divides by n - 1
  bool no_sqrt = false;    // reduceL2 without the square root
  bool no_abs = false;     // reduceL1 sums the signed values
  bool no_max = false;     // reduceLogSumExp: log(sum(exp(x))) without subtracting the max
};

Values1 ReduceBody(const Context& c, const SumSpec& s, bool reciprocal, ReduceMutation m) {
  const auto* g = c.Attributes<ReduceAttributes>();
  if (!g) return std::nullopt;
  const std::vector<double> x = Values(c.In(0));
  const Prec p = s.p;
  std::vector<double> out, terms;
  bool applies = true, overflowed = false;
  ForEachGroup(c.In(0).shape(), g->reduced, [&](std::span<const int64_t> group) {
    terms.clear();
    for (int64_t k : group) terms.push_back(x[static_cast<size_t>(k)]);
    const size_t n = terms.size();
    if (m.n_minus_1 && n < 2) applies = false;
    std::span<const double> t = std::span(terms).first(m.drop_last && n > 0 ? n - 1 : n);
    double v = 0;
    switch (g->op) {
      case ReduceOp::kSum:
        v = Sum(t, s);
        break;
      case ReduceOp::kL1:
        if (!m.no_abs) {
          for (double& e : terms) e = std::fabs(e);
        }
        v = Sum(t, s);
        break;
      case ReduceOp::kSumSquare:
        v = Dot(t, t, s);
        break;
      case ReduceOp::kL2:
        v = Dot(t, t, s);
        if (!m.no_sqrt) v = Sqrt(p, v);
        break;
      case ReduceOp::kMean: {
        const double divisor = static_cast<double>(m.n_minus_1 ? n - 1 : n);
        v = reciprocal ? Mul(p, Sum(t, s), Round(p, 1 / divisor)) : Div(p, Sum(t, s), divisor);
        break;
      }
      case ReduceOp::kLogSum:
        v = Log(p, Sum(t, s));
        break;
      case ReduceOp::kLogSumExp: {
        double mx = -kInfinity;
        bool nan = false;
        for (double e : terms) {
          nan = nan || std::isnan(e);
          mx = std::max(mx, e);
        }
        if (nan || std::isinf(mx)) {  // NaN, +Inf, or log(0) = -Inf: as the reference
          v = nan ? std::numeric_limits<double>::quiet_NaN() : mx;
          break;
        }
        for (double& e : terms) {
          e = Exp(p, m.no_max ? e : Sub(p, e, mx));
          overflowed = overflowed || std::isinf(e);
        }
        const double sum = Sum(t, s);
        overflowed = overflowed || std::isinf(sum) || sum == 0;
        v = m.no_max ? Log(p, sum) : Add(p, mx, Log(p, sum));
        break;
      }
      default:
        applies = false;
    }
    out.push_back(v);
  });
  // Without overflow or total underflow, log(sum(exp(x))) is a legitimate evaluation.
  if (!applies || (m.no_max && !overflowed)) return std::nullopt;
  return out;
}

// ---------------------------------------------------------------------------------------------
// cumulativeSum.

enum class Scan : uint8_t {
  kSequential,    // a running sum
  kHillisSteele,  // log2(n) passes: y[i] += y[i - d] for d = 1, 2, 4, ... (GPU scans)
  kBlocked8,      // blocks of 8 scanned apart, each offset by the running sum of the blocks before
};

std::vector<double> InclusiveScan(std::span<const double> v, Prec p, Scan scan) {
  const size_t n = v.size();
  std::vector<double> y(v.begin(), v.end());
  if (p == Prec::kExact) {
    WindowSum acc;
    for (size_t i = 0; i < n; ++i) {
      acc.Add(v[i]);
      y[i] = acc.QuotientToOdd();
    }
    return y;
  }
  switch (scan) {
    case Scan::kSequential:
      for (size_t i = 1; i < n; ++i) y[i] = Add(p, y[i - 1], v[i]);
      break;
    case Scan::kHillisSteele:
      for (size_t d = 1; d < n; d *= 2) {
        std::vector<double> next = y;
        for (size_t i = d; i < n; ++i) next[i] = Add(p, y[i - d], y[i]);
        y = std::move(next);
      }
      break;
    case Scan::kBlocked8: {
      double carry = 0;  // the sum of the blocks before
      for (size_t b = 0; b < n; b += 8) {
        const size_t e = std::min(n, b + 8);
        for (size_t i = b + 1; i < e; ++i) y[i] = Add(p, y[i - 1], v[i]);
        const double total = y[e - 1];
        if (b > 0) {
          for (size_t i = b; i < e; ++i) y[i] = Add(p, carry, y[i]);
        }
        carry = b == 0 ? total : Add(p, carry, total);
      }
      break;
    }
  }
  return y;
}

Values1 CumulativeSumBody(const Context& c, Prec p, Scan scan, bool invert_exclusive,
                          bool invert_reversed) {
  const auto* g = c.Attributes<CumulativeSumAttributes>();
  if (!g) return std::nullopt;
  const bool exclusive = g->exclusive != invert_exclusive;
  const bool reversed = g->reversed != invert_reversed;
  const Shape& shape = c.In(0).shape();
  const std::vector<double> x = Values(c.In(0));
  std::vector<bool> inner(shape.size(), false);
  inner[g->axis] = true;
  std::vector<double> out(x.size()), line;
  std::vector<int64_t> order;
  ForEachGroup(shape, inner, [&](std::span<const int64_t> group) {
    order.assign(group.begin(), group.end());
    if (reversed) std::reverse(order.begin(), order.end());
    line.clear();
    for (int64_t k : order) line.push_back(x[static_cast<size_t>(k)]);
    const std::vector<double> y = InclusiveScan(line, p, scan);
    for (size_t i = 0; i < order.size(); ++i) {
      out[static_cast<size_t>(order[i])] = exclusive ? (i == 0 ? 0.0 : y[i - 1]) : y[i];
    }
  });
  return out;
}

}  // namespace

}  // namespace sums

void AddSumAlternatives(std::vector<Alternative>& out) {
  using namespace sums;
  const auto add = [&](std::string op, std::string name, bool legitimate, std::string what, Acc acc,
                       Body body) {
    out.push_back(
        Make(std::move(op), std::move(name), legitimate, std::move(what), acc, std::move(body)));
  };

  // matmul
  for (const SumVariant& v : kDotVariants) {
    add("matmul", Name(v.acc, v.Suffix()), true, "each dot product: " + v.Text(), v.acc,
        [s = v.spec](const Context& c, Prec p) { return MatmulBody(c, With(s, p), {}); });
  }
  add("matmul", "dropped-last-term", false, "the last product of every dot product left out",
      Acc::kExact, [](const Context& c, Prec p) {
        return MatmulBody(c, With(kExactSum, p), {.drop_last = true});
      });
  add("matmul", "transposed-b", false, "B's last two axes swapped (square B)", Acc::kExact,
      [](const Context& c, Prec p) {
        return MatmulBody(c, With(kExactSum, p), {.transpose_b = true});
      });

  // gemm
  for (const SumVariant& v : kDotVariants) {
    add("gemm", Name(v.acc, v.Suffix()), true,
        "alpha * (A B) + beta * C, each dot product: " + v.Text(), v.acc,
        [s = v.spec](const Context& c, Prec p) { return GemmBody(c, With(s, p), false, {}); });
  }
  for (Acc acc : {Acc::kF32, Acc::kF16}) {
    add("gemm", Name(acc, "emulation-sequential"), true,
        "the spec's emulation matmul(alpha * A, B) + beta * C step by step in " + AccText(acc), acc,
        [](const Context& c, Prec p) { return GemmBody(c, With(kSeq, p), true, {}); });
  }
  const auto gemm_mutant = [&](const char* name, const char* what, GemmMutation m) {
    add("gemm", name, false, what, Acc::kExact,
        [m](const Context& c, Prec p) { return GemmBody(c, With(kExactSum, p), true, m); });
  };
  gemm_mutant("dropped-last-term", "the last product of every dot product left out",
              {.drop_last = true});
  gemm_mutant("ignored-alpha", "alpha taken as 1", {.ignore_alpha = true});
  gemm_mutant("ignored-beta", "beta taken as 1", {.ignore_beta = true});
  gemm_mutant("ignored-c", "C left out", {.ignore_c = true});
  gemm_mutant("inverted-a-transpose", "aTranspose inverted (square A)",
              {.invert_a_transpose = true});
  gemm_mutant("inverted-b-transpose", "bTranspose inverted (square B): transposed weights",
              {.invert_b_transpose = true});

  // linear (the element-wise family registers its emulation "mul-then-add" and "ignores-beta")
  for (Acc acc : {Acc::kF32, Acc::kF16}) {
    add("linear", Name(acc, "fma"), true, "fma(alpha, x, beta) in " + AccText(acc), acc,
        [](const Context& c, Prec p) { return LinearBody(c, p, true, false); });
  }
  add("linear", "ignored-alpha", false, "alpha taken as 1", Acc::kExact,
      [](const Context& c, Prec p) { return LinearBody(c, p, false, true); });

  // conv2d and convTranspose2d
  struct ConvVariant {
    Acc acc;
    SumSpec spec;
    ConvOrder order;
    const char* suffix;
    const char* what;
  };
  const std::vector<ConvVariant> conv_variants = {
      {Acc::kF32, kFmaSeq, {}, "fma-sequential", "direct loop, channel-major terms, bias last"},
      {Acc::kF32, kSeq, {}, "sequential", "direct loop without fma, bias last"},
      {Acc::kF32,
       kFmaSeq,
       {true, true, false},
       "fma-hwc-bias-first",
       "NHWC im2col order (filter y, x, then channel), accumulator initialised to the bias"},
      {Acc::kF32, kFmaBlk8, {}, "fma-blocked8", "8 SIMD lanes over the terms, bias last"},
      {Acc::kF32, kPair, {}, "pairwise", "tree sum of the products, bias last"},
      {Acc::kF16, kFmaSeq, {}, "fma-sequential", "direct loop, bias last"},
      {Acc::kF16, kPair, {}, "pairwise", "tree sum of the products, bias last"},
      {Acc::kF16F32, kFmaSeq, {}, "fma-sequential", "direct loop, bias last"},
      {Acc::kF16F32,
       kFmaSeq,
       {true, true, false},
       "fma-hwc-bias-first",
       "NHWC im2col order, accumulator initialised to the bias"},
  };
  for (const ConvVariant& v : conv_variants) {
    add("conv2d", Name(v.acc, v.suffix), true, AccText(v.acc) + "; " + v.what, v.acc,
        [v](const Context& c, Prec p) { return Conv2dBody(c, With(v.spec, p), v.order, {}); });
    // convTranspose2d: the same orders over its gathered terms (spatial_outer: filter
    // position-major, channel inner).
    add("convTranspose2d", Name(v.acc, v.suffix), true, AccText(v.acc) + "; " + v.what, v.acc,
        [v](const Context& c, Prec p) {
          return ConvTranspose2dBody(c, With(v.spec, p), v.order, {});
        });
  }
  for (Acc acc : {Acc::kF32, Acc::kF16, Acc::kF16F32}) {
    add("convTranspose2d", Name(acc, "col2im"), true,
        AccText(acc) +
            "; GEMM + col2im: per filter position an fma dot product over the channels, the "
            "positions' results added in order, bias last",
        acc, [](const Context& c, Prec p) {
          return ConvTranspose2dBody(c, With(kFmaSeq, p), {false, false, true}, {});
        });
  }
  for (const char* op : {"conv2d", "convTranspose2d"}) {
    const bool t = std::string(op) == "convTranspose2d";
    const auto body = [t](ConvMutation m) {
      return [t, m](const Context& c, Prec p) {
        return t ? ConvTranspose2dBody(c, With(kExactSum, p), {}, m)
                 : Conv2dBody(c, With(kExactSum, p), {}, m);
      };
    };
    add(op, "dropped-last-term", false, "the last product of every output element left out",
        Acc::kExact, body({.drop_last = true}));
    add(op, "flipped-filter", false, "the filter flipped spatially (rotated 180 degrees)",
        Acc::kExact, body({.flip = true}));
    add(op, "ignored-bias", false, "the bias left out", Acc::kExact, body({.ignore_bias = true}));
  }

  // averagePool2d and l2Pool2d
  for (const SumVariant& v : kSumVariants) {
    add("averagePool2d", Name(v.acc, v.Suffix()), true,
        "window sum: " + v.Text() + "; then divided by the count", v.acc,
        [s = v.spec](const Context& c, Prec p) { return PoolBody(c, With(s, p), false, {}); });
  }
  for (Acc acc : {Acc::kF32, Acc::kF16, Acc::kF16F32}) {
    add("averagePool2d", Name(acc, "sequential-reciprocal"), true,
        AccText(acc) + "; sequential window sum times 1/count", acc,
        [](const Context& c, Prec p) { return PoolBody(c, With(kSeq, p), true, {}); });
  }
  for (const SumVariant& v :
       {SumVariant{Acc::kF32, kSeq}, SumVariant{Acc::kF32, kFmaSeq}, SumVariant{Acc::kF32, kPair},
        SumVariant{Acc::kF32, kFmaBlk8}, SumVariant{Acc::kF16, kSeq},
        SumVariant{Acc::kF16, kFmaSeq}, SumVariant{Acc::kF16F32, kFmaSeq}}) {
    add("l2Pool2d", Name(v.acc, v.Suffix()), true,
        "window sum of squares: " + v.Text() + "; then its square root", v.acc,
        [s = v.spec](const Context& c, Prec p) { return PoolBody(c, With(s, p), false, {}); });
  }
  for (const int sign : {1, -1}) {
    for (Acc acc : {Acc::kF32, Acc::kF16}) {
      add("l2Pool2d", Name(acc, sign > 0 ? "sequential-gpu-sqrt-adverse-plus" : "sequential-gpu-sqrt-adverse-minus"),
          true,
          AccText(acc) + "; sequential window sum of squares, then a GPU square root 4 ULP " +
              (sign > 0 ? "above" : "below") + " (Vulkan: 1 / inversesqrt, 4.5 ULP)",
          acc, [sign](const Context& c, Prec p) {
            return PoolBody(c, With(kSeq, p), false, {.gpu_sqrt = sign});
          });
    }
  }
  for (const char* op : {"averagePool2d", "l2Pool2d"}) {
    add(op, "dropped-last-term", false, "the last element of every window left out", Acc::kExact,
        [](const Context& c, Prec p) {
          return PoolBody(c, With(kExactSum, p), false, {.drop_last = true});
        });
  }
  add("averagePool2d", "padding-counted", false,
      "padding counted in the average (divides by the full window size)", Acc::kExact,
      [](const Context& c, Prec p) {
        return PoolBody(c, With(kExactSum, p), false, {.count_padding = true});
      });
  add("l2Pool2d", "ignored-sqrt", false, "the sum of squares without its square root", Acc::kExact,
      [](const Context& c, Prec p) {
        return PoolBody(c, With(kExactSum, p), false, {.no_sqrt = true});
      });

  // Reductions
  for (const char* op : {"reduceSum", "reduceMean", "reduceL1", "reduceL2", "reduceSumSquare",
                         "reduceLogSum", "reduceLogSumExp"}) {
    const std::string o = op;
    const bool squares = o == "reduceL2" || o == "reduceSumSquare";
    std::vector<SumVariant> variants = kSumVariants;
    if (squares) {
      variants.push_back({Acc::kF32, kFmaSeq});
      variants.push_back({Acc::kF32, kFmaBlk8});
      variants.push_back({Acc::kF16, kFmaSeq});
    }
    const std::string what = o == "reduceLogSumExp" ? "max + log(sum(exp(x - max))), the sum: "
                                                    : (squares ? "sum of squares: " : "sum: ");
    for (const SumVariant& v : variants) {
      add(op, Name(v.acc, v.Suffix()), true, what + v.Text(), v.acc,
          [s = v.spec](const Context& c, Prec p) { return ReduceBody(c, With(s, p), false, {}); });
    }
    add(op, "dropped-last-term", false, "the last term of every sum left out", Acc::kExact,
        [](const Context& c, Prec p) {
          return ReduceBody(c, With(kExactSum, p), false, {.drop_last = true});
        });
  }
  for (Acc acc : {Acc::kF32, Acc::kF16, Acc::kF16F32}) {
    add("reduceMean", Name(acc, "blocked8-reciprocal"), true,
        AccText(acc) + "; 8 SIMD lanes, then times 1/n", acc,
        [](const Context& c, Prec p) { return ReduceBody(c, With(kBlk8, p), true, {}); });
  }
  add("reduceMean", "divides-by-n-minus-1", false, "the sum divided by n - 1", Acc::kExact,
      [](const Context& c, Prec p) {
        return ReduceBody(c, With(kExactSum, p), false, {.n_minus_1 = true});
      });
  add("reduceL2", "ignored-sqrt", false, "the sum of squares without its square root", Acc::kExact,
      [](const Context& c, Prec p) {
        return ReduceBody(c, With(kExactSum, p), false, {.no_sqrt = true});
      });
  add("reduceL1", "ignored-abs", false, "the signed values summed", Acc::kExact,
      [](const Context& c, Prec p) {
        return ReduceBody(c, With(kExactSum, p), false, {.no_abs = true});
      });
  add("reduceLogSumExp", "no-max-subtraction", false,
      "log(sum(exp(x))) in the operand type; applies only where an exp overflows or every term "
      "underflows (elsewhere it is a legitimate evaluation)",
      Acc::kOperand, [](const Context& c, Prec p) {
        return ReduceBody(c, With(kSeq, p), false, {.no_max = true});
      });

  // cumulativeSum
  struct ScanVariant {
    Acc acc;
    Scan scan;
    const char* suffix;
    const char* what;
  };
  for (const ScanVariant& v :
       {ScanVariant{Acc::kF32, Scan::kSequential, "sequential", "a running sum"},
        ScanVariant{Acc::kF32, Scan::kHillisSteele, "hillis-steele",
                    "log2(n) passes y[i] += y[i - d], d = 1, 2, 4, ... (GPU scan)"},
        ScanVariant{Acc::kF32, Scan::kBlocked8, "blocked8-scan",
                    "blocks of 8 scanned apart, offset by the running sum of the blocks before"},
        ScanVariant{Acc::kF16, Scan::kSequential, "sequential", "a running sum"},
        ScanVariant{Acc::kF16, Scan::kHillisSteele, "hillis-steele",
                    "log2(n) passes y[i] += y[i - d], d = 1, 2, 4, ... (GPU scan)"},
        ScanVariant{Acc::kF16F32, Scan::kSequential, "sequential", "a running sum"},
        ScanVariant{Acc::kF16F32, Scan::kBlocked8, "blocked8-scan",
                    "blocks of 8 scanned apart, offset by the running sum of the blocks before"}}) {
    add("cumulativeSum", Name(v.acc, v.suffix), true, AccText(v.acc) + "; " + v.what, v.acc,
        [v](const Context& c, Prec p) { return CumulativeSumBody(c, p, v.scan, false, false); });
  }
  add("cumulativeSum", "inverted-exclusive", false,
      "exclusive instead of inclusive (or the reverse)", Acc::kExact, [](const Context& c, Prec p) {
        return CumulativeSumBody(c, p, Scan::kSequential, true, false);
      });
  add("cumulativeSum", "inverted-reversed", false,
      "summed in the other direction (the reversed flag ignored or misread)", Acc::kExact,
      [](const Context& c, Prec p) {
        return CumulativeSumBody(c, p, Scan::kSequential, false, true);
      });

  AddNormalizationAlternatives(out);
}

}  // namespace nnref
