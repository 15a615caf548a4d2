// NNEF sliding-window operators; see nnef_window.h. Formulas cite NNEF 1.0.2 chapter 4.
#include "ops/nnef_window.h"

#include <algorithm>
#include <cstring>

#include "ops/elementwise.h"
#include "ops/nnef_common.h"

namespace nnref::nnef {

// ---------------------------------------------------------------------------------------------
// Borders and geometry (4.3)

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

std::optional<MLPaddingMode> WebnnPaddingMode(Border border) {
  switch (border) {
    case Border::kIgnore:
    case Border::kConstant:
      return MLPaddingMode::kConstant;
    case Border::kReplicate:
      return MLPaddingMode::kEdge;
    case Border::kReflect:
      return MLPaddingMode::kReflection;
    case Border::kReflectEven:
      return std::nullopt;
  }
  return std::nullopt;
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

OpId NnefToleranceRow(OpId op) {
  switch (op) {
#define NNREF_NNEF_OP(name, row, ...) \
  case OpId::nnef_##name:             \
    return OpId::row;
#include "ops/nnef_op_list.inc"
#undef NNREF_NNEF_OP
    default:
      return op;
  }
}

std::vector<Operand> AddNnefNode(GraphBuilder& builder, OpId op, const std::vector<Operand>& inputs,
                                 std::shared_ptr<const Kernel> kernel,
                                 std::shared_ptr<const OpAttributes> attributes,
                                 std::vector<OperandDescriptor> outputs, uint64_t size) {
  OperatorNode n;
  n.op = op;
  for (const Operand& o : inputs) n.inputs.push_back(o.id);
  n.kernel = std::move(kernel);
  n.attributes = std::move(attributes);
  n.tolerance = ToleranceQuery{NnefToleranceRow(op),
                               outputs.empty() ? DataType::kFloat32 : outputs[0].dataType, size};
  return builder.AddOperator(std::move(n), std::move(outputs));
}

namespace {

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

  const Index& kernel() const { return kernel_; }  // the window's extent per axis

  // Adds to `off` the input offset (dense strides `strides`) of tap j at output position o, and
  // sets `border` when the tap is a border position. False when the tap does not contribute.
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

// conv / deconv (4.3.1)
class ConvKernel final : public Kernel {
 public:
  explicit ConvKernel(std::shared_ptr<const ConvAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Floats w(in[1]->data);
    const Floats bias(in[2]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ws = ToIndex(in[1]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t m = a_->axes.size();
    const int64_t groups = a_->groups;
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    const Index xst = DenseStrides(xs), wst = DenseStrides(ws);
    const WindowTaps taps(a_->axes, ys, xs, 2, a_->deconv, a_->border);
    const Index out_sp(ys.begin() + 2, ys.end());
    const Index ker_sp(ws.begin() + 2, ws.end());
    const int64_t out_channels = ys[1];
    // conv: filter (c_out, C_in / G, f...); deconv: filter (c_in, C_out / G, f...).
    const int64_t in_per_group = a_->deconv ? xs[1] / groups : ws[1];
    const int64_t out_per_group = out_channels / groups;
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
            const int64_t wbase = a_->deconv ? ic * wst[0] + (oc % out_per_group) * wst[1]
                                             : oc * wst[0] + icg * wst[1];
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
  std::shared_ptr<const ConvAttributes> a_;
};

// box / debox (4.3.2)
class BoxKernel final : public Kernel {
 public:
  explicit BoxKernel(std::shared_ptr<const BoxAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t n = a_->axes.size();
    const Index xst = DenseStrides(xs);
    const WindowTaps taps(a_->axes, ys, xs, 0, a_->debox, a_->border);
    const Index& ker = taps.kernel();
    double volume = 1;
    for (size_t k = 0; k < n; ++k) volume *= static_cast<double>(a_->axes[k].size);
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
        if (border && a_->border == Border::kIgnore) continue;
        ++count;
        if (!border) acc.Add(x[off]);  // constant border: + 0
      } while (Next(j, ker));
      if (!a_->normalize) {
        y[yo] = Finish(acc);
      } else if (a_->border == Border::kIgnore) {
        if (count == 0) {
          MarkOpen(lat, out[0].shape, yo);  // the average of no value: not defined by the spec
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
  std::shared_ptr<const BoxAttributes> a_;
};

// argmax_pool (4.3.3)
class ArgmaxPoolKernel final : public Kernel {
 public:
  explicit ArgmaxPoolKernel(std::shared_ptr<const WindowAttributes> a) : a_(std::move(a)) {}

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
    const size_t n = a_->axes.size();
    const Index xst = DenseStrides(xs);
    const WindowTaps taps(a_->axes, ys, xs, 0, false, a_->border);
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
        if (!(border && a_->border == Border::kIgnore)) {
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
      if (open) MarkOpen(lat, out[0].shape, yo);
      y[yo++] = best_j;
    } while (Next(o, ys));
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

  std::shared_ptr<const WindowAttributes> a_;
};

// sample (4.3.3)
class SampleKernel final : public Kernel {
 public:
  explicit SampleKernel(std::shared_ptr<const WindowAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Ints index(in[1]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t n = a_->axes.size();
    const Index xst = DenseStrides(xs);
    Index ker(n);
    for (size_t k = 0; k < n; ++k) ker[k] = a_->axes[k].size;
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
        ComputeError("sample: index " + std::to_string(jl) + " at element " + std::to_string(yo) +
                     " is outside the window of " + std::to_string(volume) + " positions");
      }
      bool border = false;
      int64_t off = 0;
      for (size_t k = 0; k < n; ++k) {
        const int64_t j = (jl / kst[k]) % ker[k];
        const WindowAxis& a = a_->axes[k];
        const int64_t t = BorderIndex(o[k] * a.stride + j * a.dilation - a.pad_front, xs[k],
                                      a_->border);  // i * s + index * d - p
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
  std::shared_ptr<const WindowAttributes> a_;
};

// desample (4.3.3)
class DesampleKernel final : public Kernel {
 public:
  explicit DesampleKernel(std::shared_ptr<const WindowAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Ints index(in[1]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const std::vector<WindowAxis>& axes = a_->axes;
    const size_t n = axes.size();
    const Index yst = DenseStrides(ys);
    Index ker(n);
    for (size_t k = 0; k < n; ++k) ker[k] = axes[k].size;
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
        ComputeError("desample: index " + std::to_string(jl) + " at element " + std::to_string(ko) +
                     " is outside the window of " + std::to_string(volume) + " positions");
      }
      bool inside = true;
      int64_t off = 0;
      for (size_t a = 0; a < n; ++a) {
        const int64_t j = (jl / kst[a]) % ker[a];
        const int64_t i = k[a] * axes[a].stride + j * axes[a].dilation - axes[a].pad_front;
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
  std::shared_ptr<const WindowAttributes> a_;
};

// pad (4.5.5) with NNEF borders.
class PadKernel final : public Kernel {
 public:
  explicit PadKernel(std::shared_ptr<const NnefPadAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const Index xst = DenseStrides(xs);
    const Border mode = a_->border == Border::kIgnore ? Border::kConstant : a_->border;
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    Tensor lat;
    int64_t yo = 0;
    Index o(ys.size(), 0);
    do {
      bool border = false;
      int64_t off = 0;
      for (size_t k = 0; k < ys.size(); ++k) {
        const int64_t t = BorderIndex(o[k] - a_->padding[k].first, xs[k], mode);
        if (t < 0) border = true;
        off += t * xst[k];
      }
      y[yo] = border ? a_->value : x.p[off];
      if (!border) CopyLatitude(*in[0], off, yo, lat, out[0].shape);
      ++yo;
    } while (!ys.empty() && Next(o, ys));
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

 private:
  std::shared_ptr<const NnefPadAttributes> a_;
};

// ---------------------------------------------------------------------------------------------
// Builders: the operands must agree with the resolved attributes.

void Require(bool ok, const std::string& op, const std::string& what) {
  if (!ok) ThrowTypeError(op + ": " + what);
}

void CheckAxes(const std::string& op, const std::vector<WindowAxis>& axes) {
  for (const WindowAxis& a : axes) {
    Require(a.size > 0 && a.stride > 0 && a.dilation > 0, op,
            "window sizes, strides and dilations must be positive");
  }
}

// The extents of a basic operation's output over the windowed axes [first, ...).
Shape DownscaledShape(const std::string& op, const Shape& in, size_t first,
                      const std::vector<WindowAxis>& axes) {
  Require(in.size() == first + axes.size(), op, "one window axis per input axis expected");
  Shape out = in;
  for (size_t k = 0; k < axes.size(); ++k) {
    const std::optional<int64_t> x = DownscaledExtent(static_cast<int64_t>(in[first + k]), axes[k]);
    Require(x.has_value(), op,
            "axis " + std::to_string(first + k) + ": the padded extent is smaller than the window");
    out[first + k] = static_cast<uint64_t>(*x);
  }
  return out;
}

// A reverse operation's output: `up` (the windowed axes) must down-scale to the input.
Shape UpscaledShape(const std::string& op, const Shape& in, size_t first,
                    const std::vector<WindowAxis>& axes, const std::vector<uint64_t>& up) {
  Require(in.size() == first + axes.size() && up.size() == axes.size(), op,
          "one window axis and output extent per input axis expected");
  Shape out = in;
  for (size_t k = 0; k < axes.size(); ++k) {
    Require(up[k] > 0 && DownscaledExtent(static_cast<int64_t>(up[k]), axes[k]) ==
                             static_cast<int64_t>(in[first + k]),
            op,
            "axis " + std::to_string(first + k) + ": the output extent " + std::to_string(up[k]) +
                " does not down-scale to the input extent");
    out[first + k] = up[k];
  }
  return out;
}

const OperandDescriptor& Desc(const GraphBuilder& b, const Operand& o) { return b.Desc(o); }

}  // namespace

Operand NnefConv(GraphBuilder& builder, const Operand& input, const Operand& filter,
                 const Operand& bias, const ConvAttributes& attributes,
                 const std::vector<uint64_t>& deconv_spatial_out) {
  const std::string op = attributes.deconv ? "deconv" : "conv";
  const Shape& xs = Desc(builder, input).shape;
  const Shape& ws = Desc(builder, filter).shape;
  for (const Operand& o : {input, filter, bias}) {
    Require(Desc(builder, o).dataType == DataType::kFloat32, op, "operands must be float32");
  }
  Require(xs.size() >= 3 && ws.size() == xs.size(), op,
          "input and filter must have the same rank, at least 3");
  CheckAxes(op, attributes.axes);
  const auto groups = static_cast<uint64_t>(attributes.groups);
  Require(attributes.groups > 0, op, "groups must be resolved (> 0)");
  uint64_t out_channels;
  Shape out;
  if (!attributes.deconv) {
    Require(ws[1] * groups == xs[1] && ws[0] % groups == 0, op,
            "the filter's channels times groups must equal the input channels");
    out_channels = ws[0];
    out = DownscaledShape(op, xs, 2, attributes.axes);
  } else {
    Require(ws[0] == xs[1] && xs[1] % groups == 0, op,
            "the filter's batch extent must equal the input channels, a multiple of groups");
    out_channels = ws[1] * groups;
    out = UpscaledShape(op, xs, 2, attributes.axes, deconv_spatial_out);
  }
  for (size_t k = 0; k < attributes.axes.size(); ++k) {
    Require(static_cast<int64_t>(ws[k + 2]) == attributes.axes[k].size, op,
            "the window sizes must be the filter's spatial extents");
  }
  out[1] = out_channels;
  const uint64_t bias_count = Desc(builder, bias).ElementCount();
  Require(bias_count == 1 || bias_count == out_channels, op,
          "bias must hold one value or one per output channel");
  auto a = std::make_shared<const ConvAttributes>(attributes);
  return AddNnefNode(builder, attributes.deconv ? OpId::nnef_deconv : OpId::nnef_conv,
                     {input, filter, bias}, std::make_shared<ConvKernel>(a), a,
                     {{DataType::kFloat32, out}}, ElementCount(ws) / ws[0])[0];
}

Operand NnefBox(GraphBuilder& builder, const Operand& input, const BoxAttributes& attributes,
                const std::vector<uint64_t>& debox_out) {
  const std::string op = attributes.debox ? "debox" : "box";
  const OperandDescriptor& d = Desc(builder, input);
  Require(d.dataType == DataType::kFloat32, op, "the input must be float32");
  CheckAxes(op, attributes.axes);
  const Shape out = attributes.debox ? UpscaledShape(op, d.shape, 0, attributes.axes, debox_out)
                                     : DownscaledShape(op, d.shape, 0, attributes.axes);
  uint64_t volume = 1;
  for (const WindowAxis& w : attributes.axes) volume *= static_cast<uint64_t>(w.size);
  auto a = std::make_shared<const BoxAttributes>(attributes);
  return AddNnefNode(builder, attributes.debox ? OpId::nnef_debox : OpId::nnef_box, {input},
                     std::make_shared<BoxKernel>(a), a, {{DataType::kFloat32, out}}, volume)[0];
}

Operand NnefArgmaxPool(GraphBuilder& builder, const Operand& input,
                       const WindowAttributes& attributes) {
  CheckAxes("argmax_pool", attributes.axes);
  const Shape out = DownscaledShape("argmax_pool", Desc(builder, input).shape, 0, attributes.axes);
  auto a = std::make_shared<const WindowAttributes>(attributes);
  return AddNnefNode(builder, OpId::nnef_argmax_pool, {input},
                     std::make_shared<ArgmaxPoolKernel>(a), a, {{DataType::kInt64, out}})[0];
}

Operand NnefSample(GraphBuilder& builder, const Operand& input, const Operand& index,
                   const WindowAttributes& attributes) {
  CheckAxes("sample", attributes.axes);
  const OperandDescriptor& d = Desc(builder, input);
  Require(d.dataType == DataType::kFloat32, "sample", "the input must be float32");
  const Shape out = DownscaledShape("sample", d.shape, 0, attributes.axes);
  Require(Desc(builder, index).dataType == DataType::kInt64 && Desc(builder, index).shape == out,
          "sample", "index must be an int64 tensor of the output shape");
  auto a = std::make_shared<const WindowAttributes>(attributes);
  return AddNnefNode(builder, OpId::nnef_sample, {input, index}, std::make_shared<SampleKernel>(a),
                     a, {{DataType::kFloat32, out}})[0];
}

Operand NnefDesample(GraphBuilder& builder, const Operand& input, const Operand& index,
                     const WindowAttributes& attributes, const std::vector<uint64_t>& up) {
  CheckAxes("desample", attributes.axes);
  const OperandDescriptor& d = Desc(builder, input);
  Require(d.dataType == DataType::kFloat32, "desample", "the input must be float32");
  Require(
      Desc(builder, index).dataType == DataType::kInt64 && Desc(builder, index).shape == d.shape,
      "desample", "index must be an int64 tensor of the input shape");
  const Shape out = UpscaledShape("desample", d.shape, 0, attributes.axes, up);
  auto a = std::make_shared<const WindowAttributes>(attributes);
  return AddNnefNode(builder, OpId::nnef_desample, {input, index},
                     std::make_shared<DesampleKernel>(a), a, {{DataType::kFloat32, out}})[0];
}

Operand NnefPad(GraphBuilder& builder, const Operand& input, const NnefPadAttributes& attributes) {
  const OperandDescriptor& d = Desc(builder, input);
  Require(d.dataType == DataType::kFloat32, "pad", "the input must be float32");
  Require(attributes.padding.size() == d.shape.size(), "pad", "one padding pair per axis expected");
  Shape out;
  for (size_t k = 0; k < d.shape.size(); ++k) {
    const int64_t e = static_cast<int64_t>(d.shape[k]) + attributes.padding[k].first +
                      attributes.padding[k].second;
    Require(e > 0, "pad", "axis " + std::to_string(k) + " would have extent " + std::to_string(e));
    out.push_back(static_cast<uint64_t>(e));
  }
  auto a = std::make_shared<const NnefPadAttributes>(attributes);
  return AddNnefNode(builder, OpId::nnef_pad, {input}, std::make_shared<PadKernel>(a), a,
                     {{DataType::kFloat32, out}})[0];
}

}  // namespace nnref::nnef
