// NNEF-specific kernels; see kernels.h for the numerics. Formulas cite NNEF 1.0.2 chapter 4.
#include "runner/nnef/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "numerics/cast.h"
#include "ops/conv_common.h"
#include "ops/elementwise.h"
#include "runner/nnef/error.h"

namespace nnref::nnef {

namespace {

using Index = std::vector<int64_t>;

// Row-major odometer over `extents`; false after the last index.
bool Next(Index& idx, const Index& extents) {
  for (size_t k = idx.size(); k-- > 0;) {
    if (++idx[k] < extents[k]) return true;
    idx[k] = 0;
  }
  return false;
}

Index ToIndex(const Shape& s) { return Index(s.begin(), s.end()); }

int64_t Volume(const Index& extents) {
  int64_t v = 1;
  for (int64_t e : extents) v *= e;
  return v;
}

Index DenseStrides(const Index& extents) {
  Index st(extents.size(), 1);
  for (size_t k = extents.size(); k-- > 1;) st[k - 1] = st[k] * extents[k];
  return st;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

// floor(v + 0.5): the NNEF round primitive on doubles.
double RoundHalfUp(double v) {
  const double f = std::floor(v);
  return v - f >= 0.5 ? f + 1 : f;
}

// A dense float32 copy of a scalar tensor and its data pointer.
struct Floats {
  Tensor t;
  const float* p;
  explicit Floats(const Tensor& x) : t(x.Contiguous()), p(t.base<float>()) {}
  double operator[](int64_t i) const { return static_cast<double>(p[i]); }
};

struct Ints {
  Tensor t;
  const int64_t* p;
  explicit Ints(const Tensor& x) : t(x.Contiguous()), p(t.base<int64_t>()) {}
};

OperandValue NewOutput(const OperandDescriptor& d) {
  return OperandValue{Tensor::Allocate(d.dataType, d.shape), Tensor()};
}

// Adds v * w to a compensated sum with the product split exactly.
void AddProduct(WindowSum& acc, double v, double w) {
  const double p = v * w;
  acc.Add(p);
  if (std::isfinite(p)) {
    const double e = std::fma(v, w, -p);
    if (e != 0) acc.Add(e);
  }
}

float Finish(const WindowSum& acc, double divisor = 1) {
  return RoundTo<float>(acc.QuotientToOdd(divisor));
}

[[noreturn]] void ExecuteError(const std::string& message) {
  throw NnefError(Stage::kExecute, {}, message, "NNEF 1.0.2 chapter 4");
}

// For each output position o of one axis and each kernel tap j: the input index read (>= 0),
// -1 for a constant or ignored border position, -2 when the tap does not contribute (a reverse
// operation's position not divisible by the stride).
std::vector<int64_t> TapTable(const WindowAxis& a, int64_t out_extent, int64_t in_extent,
                              bool reverse, Border border) {
  std::vector<int64_t> t(static_cast<size_t>(out_extent * a.size));
  for (int64_t o = 0; o < out_extent; ++o) {
    for (int64_t j = 0; j < a.size; ++j) {
      int64_t pos;
      if (!reverse) {
        pos = o * a.stride + j * a.dilation - a.pad_front;  // i * s + j * d - p
      } else {
        const int64_t v = o + a.pad_front - j * a.dilation;  // (i + p - j * d) / s
        if (v - FloorDiv(v, a.stride) * a.stride != 0) {
          t[static_cast<size_t>(o * a.size + j)] = -2;
          continue;
        }
        pos = FloorDiv(v, a.stride);
      }
      t[static_cast<size_t>(o * a.size + j)] = BorderIndex(pos, in_extent, border);
    }
  }
  return t;
}

// The tap tables of a window's axes (TapTable per axis) and the walk over one output position's
// taps. The windowed axes are those from `first` on of the output and input shapes.
class WindowTaps {
 public:
  WindowTaps(const std::vector<WindowAxis>& axes, const Index& out, const Index& in, size_t first,
             bool reverse, Border border)
      : first_(first), tables_(axes.size()), kernel_(axes.size()) {
    for (size_t k = 0; k < axes.size(); ++k) {
      tables_[k] = TapTable(axes[k], out[k + first], in[k + first], reverse, border);
      kernel_[k] = axes[k].size;
    }
  }

  // The window's extent per axis.
  const Index& kernel() const { return kernel_; }

  // Adds to `off` the input offset (dense strides `strides`) of tap j at output position o, and
  // sets `border` when the tap is a border position. False when the tap does not contribute
  // (-2: a reverse operation's position not divisible by the stride).
  bool Offset(const Index& o, const Index& j, const Index& strides, int64_t& off,
              bool& border) const {
    for (size_t k = 0; k < tables_.size(); ++k) {
      const int64_t t = tables_[k][static_cast<size_t>(o[k] * kernel_[k] + j[k])];
      if (t == -2) return false;
      if (t < 0) border = true;
      off += t * strides[k + first_];
    }
    return true;
  }

 private:
  size_t first_;
  std::vector<std::vector<int64_t>> tables_;
  Index kernel_;
};

// ---------------------------------------------------------------------------------------------
// conv / deconv (4.3.1)

class ConvKernel final : public Kernel {
 public:
  ConvKernel(bool deconv, std::vector<WindowAxis> spatial, Border border, int64_t groups)
      : deconv_(deconv), axes_(std::move(spatial)), border_(border), groups_(groups) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Floats w(in[1]->data);
    const Floats bias(in[2]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ws = ToIndex(in[1]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t m = axes_.size();
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    const Index xst = DenseStrides(xs), wst = DenseStrides(ws);
    // Tap tables per spatial axis (output position x kernel tap -> input index).
    const WindowTaps taps(axes_, ys, xs, 2, deconv_, border_);
    const Index out_sp(ys.begin() + 2, ys.end());
    const Index ker_sp(ws.begin() + 2, ws.end());
    const int64_t out_channels = ys[1];
    // conv: filter (c_out, C_in / G, f...); deconv: filter (c_in, C_out / G, f...).
    const int64_t in_per_group = deconv_ ? xs[1] / groups_ : ws[1];
    const int64_t out_per_group = out_channels / groups_;
    const bool bias_per_channel = bias.t.element_count() > 1;
    int64_t yo = 0;
    for (int64_t b = 0; b < ys[0]; ++b) {
      for (int64_t oc = 0; oc < out_channels; ++oc) {
        const int64_t g = oc / out_per_group;
        Index o(m, 0);
        do {
          WindowSum acc;
          for (int64_t icg = 0; icg < in_per_group; ++icg) {
            const int64_t ic = g * in_per_group + icg;
            const int64_t xbase = b * xst[0] + ic * xst[1];
            const int64_t wbase =
                deconv_ ? ic * wst[0] + (oc % out_per_group) * wst[1] : oc * wst[0] + icg * wst[1];
            Index j(m, 0);
            do {
              bool zero = false;
              int64_t xoff = xbase, woff = wbase;
              if (!taps.Offset(o, j, xst, xoff, zero)) continue;
              for (size_t k = 0; k < m; ++k) woff += j[k] * wst[k + 2];
              // The extended input is 0 at constant border positions; the term 0 * w is kept as
              // the formula has it.
              AddProduct(acc, zero ? 0.0 : x[xoff], w[woff]);
            } while (Next(j, ker_sp));
          }
          acc.Add(bias[bias_per_channel ? oc : 0]);
          y[yo++] = Finish(acc);
        } while (Next(o, out_sp));
      }
    }
    return {std::move(result)};
  }

 private:
  bool deconv_;
  std::vector<WindowAxis> axes_;
  Border border_;
  int64_t groups_;
};

// ---------------------------------------------------------------------------------------------
// box / debox (4.3.2)

class BoxKernel final : public Kernel {
 public:
  BoxKernel(bool debox, std::vector<WindowAxis> axes, Border border, bool normalize)
      : debox_(debox), axes_(std::move(axes)), border_(border), normalize_(normalize) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t n = axes_.size();
    const Index xst = DenseStrides(xs);
    const WindowTaps taps(axes_, ys, xs, 0, debox_, border_);
    const Index& ker = taps.kernel();
    double volume = 1;
    for (size_t k = 0; k < n; ++k) volume *= static_cast<double>(axes_[k].size);
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    Tensor lat;
    int64_t yo = 0;
    Index o(n, 0);
    do {
      WindowSum acc;
      int64_t count = 0;
      Index j(n, 0);
      do {
        bool border = false;
        int64_t off = 0;
        if (!taps.Offset(o, j, xst, off, border)) continue;
        if (border && border_ == Border::kIgnore) continue;
        ++count;
        if (!border) acc.Add(x[off]);  // constant border: + 0
      } while (Next(j, ker));
      if (!normalize_) {
        y[yo] = Finish(acc);
      } else if (border_ == Border::kIgnore) {
        if (count == 0) {
          // The average of no value: not defined by the spec.
          if (!lat.valid()) lat = NewLatitude(out[0].shape);
          lat.base<uint8_t>()[yo] = static_cast<uint8_t>(Latitude::kAny);
          y[yo] = 0;
        } else {
          y[yo] = Finish(acc, static_cast<double>(count));
        }
      } else {
        y[yo] = Finish(acc, volume);
      }
      ++yo;
    } while (Next(o, ys));
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

 private:
  bool debox_;
  std::vector<WindowAxis> axes_;
  Border border_;
  bool normalize_;
};

// ---------------------------------------------------------------------------------------------
// argmax_pool, sample, desample (4.3.3)

class ArgmaxPoolKernel final : public Kernel {
 public:
  ArgmaxPoolKernel(std::vector<WindowAxis> axes, Border border)
      : axes_(std::move(axes)), border_(border) {}

  // The input is tensor<> (any type): values compare in their own type, exactly.
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return DispatchDataType(in[0]->data.dtype(), [&]<typename T>() { return Run<T>(in, out); });
  }

 private:
  template <typename T>
  std::vector<OperandValue> Run(std::span<const OperandValue* const> in,
                                std::span<const OperandDescriptor> out) const {
    const Tensor xt = in[0]->data.Contiguous();
    const T* x = xt.base<T>();
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t n = axes_.size();
    const Index xst = DenseStrides(xs);
    const WindowTaps taps(axes_, ys, xs, 0, false, border_);
    const Index& ker = taps.kernel();
    OperandValue result = NewOutput(out[0]);
    int64_t* y = result.data.base<int64_t>();
    Tensor lat;
    int64_t yo = 0;
    Index o(n, 0);
    do {
      bool have = false, open = false;
      ElementAcc<T> best{};
      int64_t best_j = 0, jl = 0;
      Index j(n, 0);
      do {
        bool border = false;
        int64_t off = 0;
        taps.Offset(o, j, xst, off, border);  // never -2: not a reverse operation
        if (!(border && border_ == Border::kIgnore)) {
          const ElementAcc<T> v = border ? ElementAcc<T>{} : Widen(x[off]);
          if constexpr (kIsFloatStorage<T>) {
            if (std::isnan(v)) open = true;  // the maximum of a NaN is not defined
          }
          if (!have || v > best) {
            best = v;
            best_j = jl;
            have = true;
          }
        }
        ++jl;
      } while (Next(j, ker));
      if (!have) open = true;  // every position ignored: no maximum
      if (open) {
        if (!lat.valid()) lat = NewLatitude(out[0].shape);
        lat.base<uint8_t>()[yo] = static_cast<uint8_t>(Latitude::kAny);
      }
      y[yo++] = best_j;
    } while (Next(o, ys));
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

  std::vector<WindowAxis> axes_;
  Border border_;
};

// Per-element latitude of an output that reads one element of `source` per output element.
void CopyLatitude(const OperandValue& source, int64_t src, int64_t dst, Tensor& lat,
                  const Shape& shape) {
  if (!source.latitude.valid()) return;
  const uint8_t v = source.latitude.At<uint8_t>(static_cast<uint64_t>(src));
  if (v == 0) return;
  if (!lat.valid()) lat = NewLatitude(shape);
  uint8_t& d = lat.base<uint8_t>()[dst];
  if (d != static_cast<uint8_t>(Latitude::kAny)) d = v;
}

class SampleKernel final : public Kernel {
 public:
  SampleKernel(std::vector<WindowAxis> axes, Border border)
      : axes_(std::move(axes)), border_(border) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Ints index(in[1]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t n = axes_.size();
    const Index xst = DenseStrides(xs);
    Index ker(n);
    for (size_t k = 0; k < n; ++k) ker[k] = axes_[k].size;
    const Index kst = DenseStrides(ker);
    const int64_t volume = Volume(ker);
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    Tensor lat;
    int64_t yo = 0;
    Index o(n, 0);
    do {
      const int64_t jl = index.p[yo];
      if (jl < 0 || jl >= volume) {
        ExecuteError("sample: index " + std::to_string(jl) + " at element " + std::to_string(yo) +
                     " is outside the window of " + std::to_string(volume) + " positions");
      }
      bool border = false;
      int64_t off = 0;
      for (size_t k = 0; k < n; ++k) {
        const int64_t j = (jl / kst[k]) % ker[k];
        const WindowAxis& a = axes_[k];
        const int64_t t = BorderIndex(o[k] * a.stride + j * a.dilation - a.pad_front, xs[k],
                                      border_);  // i * s + index * d - p
        if (t < 0) border = true;
        off += t * xst[k];
      }
      y[yo] = border ? 0.0f : x.p[off];
      CopyLatitude(*in[1], yo, yo, lat, out[0].shape);
      if (!border) CopyLatitude(*in[0], off, yo, lat, out[0].shape);
      ++yo;
    } while (Next(o, ys));
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

 private:
  std::vector<WindowAxis> axes_;
  Border border_;
};

class DesampleKernel final : public Kernel {
 public:
  explicit DesampleKernel(std::vector<WindowAxis> axes) : axes_(std::move(axes)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Ints index(in[1]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t n = axes_.size();
    const Index yst = DenseStrides(ys);
    Index ker(n);
    for (size_t k = 0; k < n; ++k) ker[k] = axes_[k].size;
    const Index kst = DenseStrides(ker);
    const int64_t volume = Volume(ker);
    // output[i] = sum of input[k] over the down-scaled positions k whose index points at i:
    // i = k * s + index[k] * d - p (the formula's condition index[(i + p - j d) / s] = j).
    std::vector<WindowSum> acc(static_cast<size_t>(Volume(ys)));
    int64_t ko = 0;
    Index k(n, 0);
    do {
      const int64_t jl = index.p[ko];
      if (jl < 0 || jl >= volume) {
        ExecuteError("desample: index " + std::to_string(jl) + " at element " + std::to_string(ko) +
                     " is outside the window of " + std::to_string(volume) + " positions");
      }
      bool inside = true;
      int64_t off = 0;
      for (size_t a = 0; a < n; ++a) {
        const int64_t j = (jl / kst[a]) % ker[a];
        const int64_t i = k[a] * axes_[a].stride + j * axes_[a].dilation - axes_[a].pad_front;
        if (i < 0 || i >= ys[a]) {
          inside = false;
          break;
        }
        off += i * yst[a];
      }
      if (inside) acc[static_cast<size_t>(off)].Add(x[ko]);
      ++ko;
    } while (Next(k, xs));
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    for (size_t i = 0; i < acc.size(); ++i) y[i] = Finish(acc[i]);
    return {std::move(result)};
  }

 private:
  std::vector<WindowAxis> axes_;
};

// ---------------------------------------------------------------------------------------------
// multilinear_upsample (4.3.4)

// One axis of the interpolation: output i reads input j0 with weight (den - num) / den and j0 + 1
// with weight num / den.
struct Tap2 {
  int64_t j0;
  int64_t num, den;
};

Tap2 UpsampleTap(int64_t i, int64_t factor, int64_t extent, UpsampleMethod method) {
  int64_t n = 0, d = 1;
  switch (method) {
    case UpsampleMethod::kAsymmetric:  // j = floor(i / f), u = frac(i / f)
      n = i;
      d = factor;
      break;
    case UpsampleMethod::kSymmetric:  // (i - (f - 1) / 2) / f = (2 i - f + 1) / (2 f)
      n = 2 * i - factor + 1;
      d = 2 * factor;
      break;
    case UpsampleMethod::kAligned:  // i / g, g = (x f - 1) / (x - 1)
      if (extent == 1) {
        n = 0;
        d = 1;
      } else {
        n = i * (extent - 1);
        d = extent * factor - 1;
      }
      break;
  }
  const int64_t j0 = FloorDiv(n, d);
  return {j0, n - j0 * d, d};
}

class UpsampleKernel final : public Kernel {
 public:
  UpsampleKernel(std::vector<int64_t> factors, UpsampleMethod method, Border border)
      : factors_(std::move(factors)), method_(method), border_(border) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t m = factors_.size();
    const Index xst = DenseStrides(xs);
    std::vector<std::vector<Tap2>> taps(m);
    double den = 1;
    for (size_t k = 0; k < m; ++k) {
      for (int64_t i = 0; i < ys[k + 2]; ++i) {
        taps[k].push_back(UpsampleTap(i, factors_[k], xs[k + 2], method_));
      }
      den *= static_cast<double>(taps[k].empty() ? 1 : taps[k][0].den);
    }
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    int64_t yo = 0;
    Index o(ys.size(), 0);
    const Index corners(m, 2);
    do {
      WindowSum acc;
      Index c(m, 0);
      do {
        double weight = 1;  // an integer: the product of the per-axis numerators
        bool border = false;
        int64_t off = o[0] * xst[0] + o[1] * xst[1];
        for (size_t k = 0; k < m && weight != 0; ++k) {
          const Tap2& t = taps[k][static_cast<size_t>(o[k + 2])];
          weight *= static_cast<double>(c[k] == 0 ? t.den - t.num : t.num);
          const int64_t idx = BorderIndex(t.j0 + c[k], xs[k + 2], border_);
          if (idx < 0) border = true;
          off += idx * xst[k + 2];
        }
        // A zero weight leaves its term out; a constant border position contributes 0.
        if (weight != 0 && !border) AddProduct(acc, x[off], weight);
      } while (Next(c, corners));
      y[yo++] = Finish(acc, den);
    } while (Next(o, ys));
    return {std::move(result)};
  }

 private:
  std::vector<int64_t> factors_;
  UpsampleMethod method_;
  Border border_;
};

// ---------------------------------------------------------------------------------------------
// argmax_reduce, argmin_reduce, all_reduce, any_reduce (4.4)

// Calls fn(output linear index, input offsets of the reduced sub-volume in row-major order).
template <typename Fn>
void ForEachReduction(const Index& xs, const std::vector<size_t>& axes, Fn&& fn) {
  const Index xst = DenseStrides(xs);
  Index outer = xs, inner(axes.size());
  for (size_t k = 0; k < axes.size(); ++k) {
    inner[k] = xs[axes[k]];
    outer[axes[k]] = 1;
  }
  std::vector<int64_t> offsets;
  int64_t yo = 0;
  Index o(outer.size(), 0);
  do {
    int64_t base = 0;
    for (size_t k = 0; k < o.size(); ++k) base += o[k] * xst[k];
    offsets.clear();
    Index r(axes.size(), 0);
    do {
      int64_t off = base;
      for (size_t k = 0; k < axes.size(); ++k) off += r[k] * xst[axes[k]];
      offsets.push_back(off);
    } while (!axes.empty() && Next(r, inner));
    fn(yo++, offsets);
  } while (!o.empty() && Next(o, outer));
}

class ArgReduceKernel final : public Kernel {
 public:
  ArgReduceKernel(ArgReduce op, std::vector<size_t> axes) : op_(op), axes_(std::move(axes)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    OperandValue result = NewOutput(out[0]);
    int64_t* y = result.data.base<int64_t>();
    Tensor lat;
    ForEachReduction(ToIndex(in[0]->data.shape()), axes_,
                     [&](int64_t yo, const std::vector<int64_t>& offs) {
                       int64_t best = 0;
                       bool nan = false;
                       for (size_t k = 0; k < offs.size(); ++k) {
                         const double v = x[offs[k]];
                         const double b = x[offs[static_cast<size_t>(best)]];
                         nan = nan || std::isnan(v);
                         if (op_ == ArgReduce::kArgmax ? v > b : v < b) {
                           best = static_cast<int64_t>(k);
                         }
                       }
                       y[yo] = best;
                       if (nan) {
                         if (!lat.valid()) lat = NewLatitude(out[0].shape);
                         lat.base<uint8_t>()[yo] = static_cast<uint8_t>(Latitude::kAny);
                       }
                     });
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

 private:
  ArgReduce op_;
  std::vector<size_t> axes_;
};

class LogicalReduceKernel final : public Kernel {
 public:
  LogicalReduceKernel(LogicalReduce op, std::vector<size_t> axes)
      : op_(op), axes_(std::move(axes)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const uint8_t* p = x.base<uint8_t>();
    OperandValue result = NewOutput(out[0]);
    uint8_t* y = result.data.base<uint8_t>();
    ForEachReduction(ToIndex(x.shape()), axes_, [&](int64_t yo, const std::vector<int64_t>& offs) {
      bool v = op_ == LogicalReduce::kAll;
      for (int64_t off : offs) {
        if (op_ == LogicalReduce::kAll) {
          v = v && p[off] != 0;
        } else {
          v = v || p[off] != 0;
        }
      }
      y[yo] = v ? 1 : 0;
    });
    return {std::move(result)};
  }

 private:
  LogicalReduce op_;
  std::vector<size_t> axes_;
};

// ---------------------------------------------------------------------------------------------
// RoI operations (4.6)

// A RoI coordinate as a double, checked to be finite and within the range any tensor extent has.
double RoiCoordinate(double v, int64_t roi, size_t k) {
  if (!std::isfinite(v) || std::fabs(v) > 9.0e15) {
    ExecuteError("RoI " + std::to_string(roi) + ": coordinate " + std::to_string(k) + " (" +
                 std::to_string(v) + ") is not a finite value in range");
  }
  return v;
}

int64_t BatchIndexOf(const Ints& bi, int64_t roi, int64_t batch) {
  const int64_t b = bi.p[roi];
  if (b < 0 || b >= batch) {
    ExecuteError("RoI " + std::to_string(roi) + ": batch_index " + std::to_string(b) +
                 " is outside the batch of " + std::to_string(batch));
  }
  return b;
}

class RoiPoolKernel final : public Kernel {
 public:
  RoiPoolKernel(bool max, std::vector<int64_t> output_size)
      : max_(max), size_(std::move(output_size)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Floats rois(in[1]->data);
    const Ints bi(in[2]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t m = size_.size();
    const Index xst = DenseStrides(xs);
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    Tensor lat;
    int64_t yo = 0;
    for (int64_t r = 0; r < ys[0]; ++r) {
      const int64_t b = BatchIndexOf(bi, r, xs[0]);
      // Coordinates rounded to the nearest integer (round = floor(x + 0.5)); cell extent
      // ceil(r / p), cell stride floor(r / p); cell i covers [start + i * s, start + i * s + c).
      Index start(m), cell(m), step(m);
      for (size_t k = 0; k < m; ++k) {
        const auto lo = static_cast<int64_t>(RoundHalfUp(
            RoiCoordinate(rois[r * 2 * static_cast<int64_t>(m) + static_cast<int64_t>(k)], r, k)));
        const auto hi = static_cast<int64_t>(RoundHalfUp(RoiCoordinate(
            rois[r * 2 * static_cast<int64_t>(m) + static_cast<int64_t>(m + k)], r, m + k)));
        start[k] = lo;
        cell[k] = CeilDiv(hi - lo, size_[k]);
        step[k] = FloorDiv(hi - lo, size_[k]);
      }
      const bool empty = std::any_of(cell.begin(), cell.end(), [](int64_t c) { return c <= 0; });
      double volume = 1;  // may exceed 64 bits for hostile coordinates
      for (int64_t c : cell) volume *= static_cast<double>(c);
      for (int64_t c = 0; c < ys[1]; ++c) {
        const int64_t base = b * xst[0] + c * xst[1];
        Index o(m, 0);
        const Index out_sp(ys.begin() + 2, ys.end());
        do {
          // The cell clipped to the input: positions outside read the constant border 0, which
          // adds nothing to the sum and is one more candidate for the maximum.
          Index lo(m), extent(m);
          bool outside = false, inside = !empty;
          for (size_t k = 0; k < m && inside; ++k) {
            const int64_t first = start[k] + o[k] * step[k];
            lo[k] = std::max<int64_t>(first, 0);
            const int64_t hi = std::min<int64_t>(first + cell[k], xs[k + 2]);
            extent[k] = hi - lo[k];
            if (extent[k] <= 0) inside = false;
            if (lo[k] != first || hi != first + cell[k]) outside = true;
          }
          bool open = empty;
          double best = 0;
          bool have = outside || !inside;  // the border's 0 is a candidate
          WindowSum acc;
          if (inside) {
            Index t(m, 0);
            do {
              int64_t off = base;
              for (size_t k = 0; k < m; ++k) off += (lo[k] + t[k]) * xst[k + 2];
              const double v = x[off];
              if (max_) {
                if (std::isnan(v)) open = true;
                if (!have || v > best) best = v;
                have = true;
              } else {
                acc.Add(v);
              }
            } while (Next(t, extent));
          }
          if (open) {
            if (!lat.valid()) lat = NewLatitude(out[0].shape);
            lat.base<uint8_t>()[yo] = static_cast<uint8_t>(Latitude::kAny);
          }
          if (empty) {
            y[yo] = 0;
          } else if (max_) {
            y[yo] = static_cast<float>(best);  // a float32 value or 0: exact
          } else {
            y[yo] = Finish(acc, volume);
          }
          ++yo;
        } while (Next(o, out_sp));
      }
    }
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

 private:
  bool max_;
  std::vector<int64_t> size_;
};

class RoiResampleKernel final : public Kernel {
 public:
  RoiResampleKernel(std::vector<int64_t> output_size, UpsampleMethod method)
      : size_(std::move(output_size)), method_(method) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Floats rois(in[1]->data);
    const Ints bi(in[2]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t m = size_.size();
    const auto mi = static_cast<int64_t>(m);
    const Index xst = DenseStrides(xs);
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    int64_t yo = 0;
    const Index corners(m, 2);
    const Index out_sp(ys.begin() + 2, ys.end());
    for (int64_t r = 0; r < ys[0]; ++r) {
      const int64_t b = BatchIndexOf(bi, r, xs[0]);
      // Per axis and output position: the two input indices (clamped: replicate border) and
      // their weights, from the sampling coordinate of the method (see docs/nnef-execution.md).
      std::vector<std::vector<std::array<double, 4>>> taps(m);
      for (size_t k = 0; k < m; ++k) {
        const double lo = RoiCoordinate(rois[r * 2 * mi + static_cast<int64_t>(k)], r, k);
        const double hi = RoiCoordinate(rois[r * 2 * mi + static_cast<int64_t>(m + k)], r, m + k);
        const double extent = hi - lo;
        const auto h = static_cast<double>(size_[k]);
        for (int64_t i = 0; i < size_[k]; ++i) {
          const auto di = static_cast<double>(i);
          double c = lo;
          switch (method_) {
            case UpsampleMethod::kSymmetric:
              c = lo + (di + 0.5) * extent / h - 0.5;
              break;
            case UpsampleMethod::kAsymmetric:
              c = lo + di * extent / h;
              break;
            case UpsampleMethod::kAligned:
              c = size_[k] > 1 ? lo + di * (extent - 1) / (h - 1) : lo;
              break;
          }
          const double j0 = std::floor(c);
          const double u = c - j0;
          const auto last = static_cast<double>(xs[k + 2] - 1);
          taps[k].push_back({std::clamp(j0, 0.0, last), 1 - u, std::clamp(j0 + 1, 0.0, last), u});
        }
      }
      for (int64_t c = 0; c < ys[1]; ++c) {
        Index o(m, 0);
        do {
          WindowSum acc;
          Index cr(m, 0);
          do {
            double weight = 1;
            int64_t off = b * xst[0] + c * xst[1];
            for (size_t k = 0; k < m; ++k) {
              const std::array<double, 4>& t = taps[k][static_cast<size_t>(o[k])];
              weight *= t[cr[k] == 0 ? 1 : 3];
              off += static_cast<int64_t>(t[cr[k] == 0 ? 0 : 2]) * xst[k + 2];
            }
            if (weight != 0) AddProduct(acc, x[off], weight);
          } while (Next(cr, corners));
          y[yo++] = Finish(acc);
        } while (Next(o, out_sp));
      }
    }
    return {std::move(result)};
  }

 private:
  std::vector<int64_t> size_;
  UpsampleMethod method_;
};

// ---------------------------------------------------------------------------------------------
// Shape operations (4.5): views of data and latitude where possible.

Tensor MapLatitude(const Tensor& lat, const std::function<Tensor(const Tensor&)>& f) {
  return lat.valid() ? f(lat) : Tensor();
}

class ViewKernel final : public Kernel {
 public:
  explicit ViewKernel(std::function<Tensor(const Tensor&)> f) : f_(std::move(f)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor>) const override {
    return {OperandValue{f_(in[0]->data), MapLatitude(in[0]->latitude, f_)}};
  }

 private:
  std::function<Tensor(const Tensor&)> f_;
};

// Copies `src` (any strides) into the view `dst` of the same shape and type.
void CopyInto(const Tensor& dst, const Tensor& src) {
  const size_t es = ElementSize(src.dtype());
  std::byte* d = dst.buffer()->data() + static_cast<size_t>(dst.offset()) * es;
  const std::byte* s = src.buffer()->data();
  ForEachOffsets<2>(src.shape(), {&dst.strides(), &src.strides()},
                    [&](const std::array<int64_t, 2>& o) {
                      std::memcpy(d + o[0] * static_cast<int64_t>(es),
                                  s + (src.offset() + o[1]) * static_cast<int64_t>(es), es);
                    });
}

class ConcatKernel final : public Kernel {
 public:
  explicit ConcatKernel(size_t axis) : axis_(axis) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    OperandValue result = NewOutput(out[0]);
    bool any_lat = false;
    for (const OperandValue* v : in) any_lat = any_lat || v->latitude.valid();
    if (any_lat) result.latitude = NewLatitude(out[0].shape);
    const size_t rank = out[0].shape.size();
    uint64_t at = 0;
    for (const OperandValue* v : in) {
      std::vector<uint64_t> begin(rank, 0), steps(rank, 1);
      begin[axis_] = at;
      const Shape& s = v->data.shape();
      CopyInto(result.data.Slice(begin, s, steps), v->data);
      if (v->latitude.valid()) CopyInto(result.latitude.Slice(begin, s, steps), v->latitude);
      at += s[axis_];
    }
    return {std::move(result)};
  }

 private:
  size_t axis_;
};

class SplitKernel final : public Kernel {
 public:
  SplitKernel(size_t axis, std::vector<uint64_t> sizes) : axis_(axis), sizes_(std::move(sizes)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor>) const override {
    std::vector<OperandValue> outs;
    const Shape& s = in[0]->data.shape();
    uint64_t at = 0;
    for (uint64_t size : sizes_) {
      std::vector<uint64_t> begin(s.size(), 0), sz = s, steps(s.size(), 1);
      begin[axis_] = at;
      sz[axis_] = size;
      const auto f = [&](const Tensor& t) { return t.Slice(begin, sz, steps); };
      outs.push_back(OperandValue{f(in[0]->data), MapLatitude(in[0]->latitude, f)});
      at += size;
    }
    return outs;
  }

 private:
  size_t axis_;
  std::vector<uint64_t> sizes_;
};

class PadKernel final : public Kernel {
 public:
  PadKernel(std::vector<std::pair<int64_t, int64_t>> padding, Border border, float value)
      : padding_(std::move(padding)), border_(border), value_(value) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const Index xst = DenseStrides(xs);
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    Tensor lat;
    int64_t yo = 0;
    Index o(ys.size(), 0);
    do {
      bool border = false;
      int64_t off = 0;
      for (size_t k = 0; k < ys.size(); ++k) {
        const int64_t p = k < padding_.size() ? padding_[k].first : 0;
        const int64_t t = BorderIndex(o[k] - p, xs[k], border_);
        if (t < 0) border = true;
        off += t * xst[k];
      }
      y[yo] = border ? value_ : x.p[off];
      if (!border) CopyLatitude(*in[0], off, yo, lat, out[0].shape);
      ++yo;
    } while (!ys.empty() && Next(o, ys));
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

 private:
  std::vector<std::pair<int64_t, int64_t>> padding_;
  Border border_;
  float value_;
};

// tile: output[..., i, ...] = input[..., i mod x, ...], as a dense copy of the broadcast view
// (r0, x0, r1, x1, ...) with stride 0 on the repeat axes.
Tensor Tile(const Tensor& t, const std::vector<uint64_t>& repeats) {
  Shape shape, out;
  Strides strides;
  for (size_t k = 0; k < t.rank(); ++k) {
    shape.push_back(repeats[k]);
    strides.push_back(0);
    shape.push_back(t.shape()[k]);
    strides.push_back(t.strides()[k]);
    out.push_back(repeats[k] * t.shape()[k]);
  }
  return Tensor(t.dtype(), shape, strides, t.offset(), t.buffer()).Contiguous().WithShape(out);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::optional<Border> ParseBorder(std::string_view name) {
  if (name == "ignore") return Border::kIgnore;
  if (name == "constant") return Border::kConstant;
  if (name == "replicate") return Border::kReplicate;
  if (name == "reflect") return Border::kReflect;
  if (name == "reflect-even") return Border::kReflectEven;
  return std::nullopt;
}

std::string_view BorderName(Border b) {
  switch (b) {
    case Border::kIgnore:
      return "ignore";
    case Border::kConstant:
      return "constant";
    case Border::kReplicate:
      return "replicate";
    case Border::kReflect:
      return "reflect";
    case Border::kReflectEven:
      return "reflect-even";
  }
  return "?";
}

int64_t BorderIndex(int64_t i, int64_t extent, Border border) {
  if (i >= 0 && i < extent) return i;
  switch (border) {
    case Border::kIgnore:
    case Border::kConstant:
      return -1;
    case Border::kReplicate:
      return i < 0 ? 0 : extent - 1;
    case Border::kReflect: {
      // input[-i] for i < 0, input[z - 1 - (i - z + 1)] for i >= z; period 2 (z - 1).
      if (extent == 1) return 0;
      const int64_t period = 2 * (extent - 1);
      const int64_t r = i - FloorDiv(i, period) * period;
      return r < extent ? r : period - r;
    }
    case Border::kReflectEven: {
      // input[-i - 1] for i < 0, input[z - 1 - (i - z)] for i >= z; period 2 z.
      const int64_t period = 2 * extent;
      const int64_t r = i - FloorDiv(i, period) * period;
      return r < extent ? r : period - 1 - r;
    }
  }
  return -1;
}

std::optional<int64_t> DownscaledExtent(int64_t up, const WindowAxis& a) {
  const int64_t num = a.pad_front + up + a.pad_back - a.DilatedSize();
  if (num < 0) return std::nullopt;
  return num / a.stride + 1;
}

int64_t UpscaledExtent(int64_t down, const WindowAxis& a) {
  return (down - 1) * a.stride + a.DilatedSize() - (a.pad_front + a.pad_back);
}

void AutoPad(WindowAxis& a, int64_t up) {
  const int64_t down = CeilDiv(up, a.stride);
  const int64_t total = std::max<int64_t>((down - 1) * a.stride + a.DilatedSize() - up, 0);
  a.pad_front = total / 2;
  a.pad_back = total - total / 2;
}

std::optional<UpsampleMethod> ParseUpsampleMethod(std::string_view name) {
  if (name == "symmetric") return UpsampleMethod::kSymmetric;
  if (name == "asymmetric") return UpsampleMethod::kAsymmetric;
  if (name == "aligned") return UpsampleMethod::kAligned;
  return std::nullopt;
}

std::shared_ptr<Kernel> MakeConvKernel(bool deconv, std::vector<WindowAxis> spatial, Border border,
                                       int64_t groups) {
  return std::make_shared<ConvKernel>(deconv, std::move(spatial), border, groups);
}

std::shared_ptr<Kernel> MakeBoxKernel(bool debox, std::vector<WindowAxis> axes, Border border,
                                      bool normalize) {
  return std::make_shared<BoxKernel>(debox, std::move(axes), border, normalize);
}

std::shared_ptr<Kernel> MakeArgmaxPoolKernel(std::vector<WindowAxis> axes, Border border) {
  return std::make_shared<ArgmaxPoolKernel>(std::move(axes), border);
}

std::shared_ptr<Kernel> MakeSampleKernel(std::vector<WindowAxis> axes, Border border) {
  return std::make_shared<SampleKernel>(std::move(axes), border);
}

std::shared_ptr<Kernel> MakeDesampleKernel(std::vector<WindowAxis> axes) {
  return std::make_shared<DesampleKernel>(std::move(axes));
}

std::shared_ptr<Kernel> MakeMultilinearUpsampleKernel(std::vector<int64_t> factors,
                                                      UpsampleMethod method, Border border) {
  return std::make_shared<UpsampleKernel>(std::move(factors), method, border);
}

std::shared_ptr<Kernel> MakeArgReduceKernel(ArgReduce op, std::vector<size_t> axes) {
  return std::make_shared<ArgReduceKernel>(op, std::move(axes));
}

std::shared_ptr<Kernel> MakeLogicalReduceKernel(LogicalReduce op, std::vector<size_t> axes) {
  return std::make_shared<LogicalReduceKernel>(op, std::move(axes));
}

std::shared_ptr<Kernel> MakeRoiPoolKernel(bool max, std::vector<int64_t> output_size) {
  return std::make_shared<RoiPoolKernel>(max, std::move(output_size));
}

std::shared_ptr<Kernel> MakeRoiResampleKernel(std::vector<int64_t> output_size,
                                              UpsampleMethod method) {
  return std::make_shared<RoiResampleKernel>(std::move(output_size), method);
}

std::shared_ptr<Kernel> MakeCopyKernel() {
  return std::make_shared<ViewKernel>([](const Tensor& t) { return t; });
}

std::shared_ptr<Kernel> MakeReshapeKernel(Shape shape) {
  return std::make_shared<ViewKernel>([shape](const Tensor& t) { return t.Reshape(shape); });
}

std::shared_ptr<Kernel> MakeTransposeKernel(std::vector<uint32_t> perm) {
  return std::make_shared<ViewKernel>([perm](const Tensor& t) { return t.Permute(perm); });
}

std::shared_ptr<Kernel> MakeSliceKernel(std::vector<uint64_t> begin, std::vector<uint64_t> size) {
  return std::make_shared<ViewKernel>([begin, size](const Tensor& t) {
    return t.Slice(begin, size, std::vector<uint64_t>(begin.size(), 1));
  });
}

std::shared_ptr<Kernel> MakeConcatKernel(size_t axis) {
  return std::make_shared<ConcatKernel>(axis);
}

std::shared_ptr<Kernel> MakeSplitKernel(size_t axis, std::vector<uint64_t> sizes) {
  return std::make_shared<SplitKernel>(axis, std::move(sizes));
}

std::shared_ptr<Kernel> MakeTileKernel(std::vector<uint64_t> repeats) {
  return std::make_shared<ViewKernel>([repeats](const Tensor& t) { return Tile(t, repeats); });
}

std::shared_ptr<Kernel> MakePadKernel(std::vector<std::pair<int64_t, int64_t>> padding,
                                      Border border, float value) {
  return std::make_shared<PadKernel>(std::move(padding), border, value);
}

namespace {

class MapKernel final : public Kernel {
 public:
  explicit MapKernel(std::function<float(float)> f) : f_(std::move(f)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {MapElements<float, float>(out[0], {in[0]}, [&](float x, Latitude&) { return f_(x); })};
  }

 private:
  std::function<float(float)> f_;
};

}  // namespace

std::shared_ptr<Kernel> MakeRoundKernel() {
  return std::make_shared<MapKernel>(
      [](float x) { return static_cast<float>(RoundHalfUp(static_cast<double>(x))); });
}

std::shared_ptr<Kernel> MakeEluKernel() {
  return std::make_shared<MapKernel>([](float x) {
    // expm1 in double (relative accuracy near 0, where exp(x) - 1 cancels), rounded once.
    return x < 0 ? static_cast<float>(std::expm1(static_cast<double>(x))) : x;
  });
}

std::shared_ptr<Kernel> MakeQuantizeKernel(Quantizer q) {
  return std::make_shared<MapKernel>([q](float x) { return q.Apply(x); });
}

}  // namespace nnref::nnef
