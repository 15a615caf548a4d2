// Lowering of the sliding-window operations (NNEF 1.0.2 4.3) and the region-of-interest
// operations (4.6). The window geometry is the one shape propagation used (ResolveWindowAxis,
// shapes.h). Where a WebNN operator computes the same thing — conv/deconv of rank 4 with a zero
// border, box as avg_pool over two trailing axes, symmetric replicate upsampling of rank 4 — its
// builder is called with the NNEF attributes translated; everything else is the NNEF operator
// group (ops/nnef_window.h, ops/nnef_resample.h).
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/nnef_resample.h"
#include "ops/pool2d.h"
#include "ops/resample2d.h"
#include "runner/nnef/lower.h"
#include "runner/nnef/shapes.h"

namespace nnref::nnef {

namespace {

uint32_t U32(int64_t v) { return static_cast<uint32_t>(v); }

// WebNN's [beginningHeight, endingHeight, beginningWidth, endingWidth] and the stride and
// dilation lists of two window axes.
std::vector<uint32_t> Padding2d(const WindowAxis& h, const WindowAxis& w) {
  return {U32(h.pad_front), U32(h.pad_back), U32(w.pad_front), U32(w.pad_back)};
}

}  // namespace

void Executor::Impl::CheckWork(const Shape& out, const std::vector<WindowAxis>& axes,
                               uint64_t extra) {
  unsigned __int128 terms = ElementCount(out);
  terms *= extra;
  for (const WindowAxis& a : axes) {
    terms *= static_cast<uint64_t>(a.size);
    if (terms > options.max_window_terms) break;
  }
  if (terms > options.max_window_terms) {
    Invalid("the window sums more than " + std::to_string(options.max_window_terms) +
            " terms (output " + ShapeToString(out) + "), beyond what the reference computes");
  }
}

// A `size` shorter than the windowed rank applies to the trailing axes (the reading that makes
// the spec's avg_roi_align/max_roi_align compounds valid); the leading axes get a trivial window.
std::vector<WindowAxis> Executor::Impl::Window(const Shape& in, size_t first,
                                               const std::vector<int64_t>& size, bool reverse,
                                               const std::vector<int64_t>& output_shape,
                                               std::vector<uint64_t>& out) {
  const size_t rank = in.size() - first;
  if (size.empty() || size.size() > rank) {
    Invalid("size has " + std::to_string(size.size()) + " items for a tensor of rank " +
            std::to_string(rank));
  }
  const std::vector<int64_t> stride = Ints("stride"), dilation = Ints("dilation");
  const std::vector<std::pair<int64_t, int64_t>> padding = Pairs("padding");
  const size_t n = size.size(), lead = rank - n;
  const auto check_len = [&](size_t len, const char* what) {
    if (len != 0 && len != n) {
      Invalid(std::string(what) + " has " + std::to_string(len) + " items; expected 0 or " +
              std::to_string(n));
    }
  };
  check_len(stride.size(), "stride");
  check_len(dilation.size(), "dilation");
  check_len(padding.size(), "padding");
  std::vector<WindowAxis> axes(rank);
  out.assign(rank, 0);
  for (size_t k = 0; k < rank; ++k) {
    int64_t f = 1, s = 1, d = 1;
    std::optional<std::pair<int64_t, int64_t>> pad;
    if (k >= lead) {
      const size_t i = k - lead;
      f = size[i];
      if (!stride.empty()) s = stride[i];
      if (!dilation.empty()) d = dilation[i];
      if (!padding.empty()) pad = padding[i];
      if (f <= 0) Invalid("size items must be positive");
      if (s <= 0) Invalid("stride items must be positive");
      if (d <= 0) Invalid("dilation items must be positive");
    } else if (!padding.empty()) {
      pad = std::pair<int64_t, int64_t>{0, 0};
    }
    std::optional<int64_t> extent;
    if (!output_shape.empty()) extent = output_shape[first + k];
    try {
      const ResolvedWindowAxis r =
          ResolveWindowAxis(static_cast<int64_t>(in[first + k]), f, s, d, pad, reverse, extent);
      axes[k] = r.window;
      out[k] = static_cast<uint64_t>(reverse ? r.up : r.down);
    } catch (const ArgumentError& e) {
      Invalid("axis " + std::to_string(first + k) + ": " + e.message);
    }
  }
  return axes;
}

// 4.3.1
void Executor::Impl::Conv(bool deconv) {
  const Value x = Arg("input"), w = Arg("filter"), bias = Arg("bias");
  const Shape& xs = S(x);
  const Shape& ws = S(w);
  const size_t rank = xs.size();
  if (rank < 3) Invalid("the input has rank " + std::to_string(rank) + "; at least 3 needed");
  if (ws.size() != rank) {
    Invalid("the filter rank " + std::to_string(ws.size()) + " differs from the input rank " +
            std::to_string(rank));
  }
  ConvAttributes attr;
  attr.deconv = deconv;
  attr.border =
      BorderArg({Border::kConstant, Border::kReplicate, Border::kReflect, Border::kReflectEven});
  const int64_t groups_arg = Int("groups");
  if (groups_arg < 0) Invalid("groups must be non-negative");
  const auto in_channels = static_cast<int64_t>(xs[1]);
  attr.groups = groups_arg == 0 ? in_channels : groups_arg;  // 0: depth-wise
  const int64_t groups = attr.groups;
  const std::vector<int64_t> size(ws.begin() + 2, ws.end());
  int64_t out_channels;
  std::vector<uint64_t> spatial_out;
  if (!deconv) {
    if (static_cast<int64_t>(ws[1]) * groups != in_channels) {
      Invalid("the filter's channel extent " + std::to_string(ws[1]) + " times groups " +
              std::to_string(groups) + " must equal the input channels " +
              std::to_string(in_channels));
    }
    out_channels = static_cast<int64_t>(ws[0]);
    if (out_channels % groups != 0) {
      Invalid("groups " + std::to_string(groups) + " must divide the filter's batch extent " +
              std::to_string(out_channels));
    }
    attr.axes = Window(xs, 2, size, false, {}, spatial_out);
  } else {
    if (static_cast<int64_t>(ws[0]) != in_channels || in_channels % groups != 0) {
      Invalid("the filter's batch extent " + std::to_string(ws[0]) +
              " must equal the input channels " + std::to_string(in_channels) +
              " and be divisible by groups " + std::to_string(groups));
    }
    out_channels = static_cast<int64_t>(ws[1]) * groups;
    const std::vector<int64_t> output_shape = Ints("output_shape");
    if (!output_shape.empty()) {
      if (output_shape.size() != rank) Invalid("output_shape must have one item per axis");
      if (output_shape[0] != static_cast<int64_t>(xs[0]) || output_shape[1] != out_channels) {
        Invalid("output_shape " + ShapeText(output_shape) + " disagrees with the batch " +
                std::to_string(xs[0]) + " and channels " + std::to_string(out_channels));
      }
    }
    attr.axes = Window(xs, 2, size, true, output_shape, spatial_out);
  }
  Shape out = spatial_out;
  out.insert(out.begin(), {xs[0], static_cast<uint64_t>(out_channels)});
  // Bias: singular, or channel extent = output channels with every other extent 1.
  const Shape& bs = S(bias);
  const uint64_t bias_count = ElementCount(bs);
  const bool per_channel = bias_count != 1;
  if (per_channel) {
    const bool ok = bs.size() >= 2 && bs[1] == static_cast<uint64_t>(out_channels) &&
                    bias_count == static_cast<uint64_t>(out_channels);
    if (!ok) {
      Invalid("bias shape " + ShapeToString(bs) + " must be singular or [1, " +
              std::to_string(out_channels) + "]");
    }
  }
  CheckWork(out, attr.axes, deconv ? static_cast<uint64_t>(in_channels / groups) : ws[1]);
  const ArgValue& bias_arg = A("bias");
  const bool zero_bias = !bias_arg.is_tensor() && ScalarOf(bias_arg) == 0.0f;
  bool webnn = rank == 4 && attr.border == Border::kConstant && (zero_bias || per_channel);
  for (const WindowAxis& a : attr.axes) webnn = webnn && a.pad_front >= 0 && a.pad_back >= 0;
  Operand result{};
  if (webnn) {
    // The WebNN kernels: same window sum (WindowSum) and bias inside the sum.
    const WindowAxis& h = attr.axes[0];
    const WindowAxis& v = attr.axes[1];
    std::optional<Operand> b;
    if (per_channel) b = Reshaped(bias, {static_cast<uint64_t>(out_channels)});
    if (!deconv) {
      MLConv2dOptions o;
      o.padding = Padding2d(h, v);
      o.strides = std::vector<uint32_t>{U32(h.stride), U32(v.stride)};
      o.dilations = std::vector<uint32_t>{U32(h.dilation), U32(v.dilation)};
      o.groups = U32(groups);
      o.bias = b;
      result = Web([&] { return Conv2d(builder, x.operand, w.operand, o); });
    } else {
      MLConvTranspose2dOptions o;
      o.padding = Padding2d(h, v);
      o.strides = std::vector<uint32_t>{U32(h.stride), U32(v.stride)};
      o.dilations = std::vector<uint32_t>{U32(h.dilation), U32(v.dilation)};
      o.outputSizes =
          std::vector<uint32_t>{static_cast<uint32_t>(out[2]), static_cast<uint32_t>(out[3])};
      o.groups = U32(groups);
      o.bias = b;
      // WebNN limits the extra output size to less than the stride; NNEF does not (output_shape
      // or automatic padding can ask for more): such a deconv runs on the NNEF operator.
      try {
        result = ConvTranspose2d(builder, x.operand, w.operand, o);
      } catch (const WebnnError&) {
        webnn = false;
      }
    }
    if (webnn && builder.Desc(result).shape != out) {
      Fail(Stage::kExecute, "the WebNN kernel's output shape " +
                                ShapeToString(builder.Desc(result).shape) +
                                " differs from NNEF's " + ShapeToString(out));
    }
  }
  if (!webnn) {
    result = Web(
        [&] { return NnefConv(builder, x.operand, w.operand, bias.operand, attr, spatial_out); });
  }
  Define(Result(), result, TensorType::kScalar);
}

// 4.3.2
void Executor::Impl::Box(bool debox) {
  const Value x = Arg("input");
  const Shape& xs = S(x);
  BoxAttributes attr;
  attr.debox = debox;
  std::vector<int64_t> output_shape;
  if (debox) {
    output_shape = Ints("output_shape");
    if (!output_shape.empty() && output_shape.size() != xs.size()) {
      Invalid("output_shape must have one item per axis");
    }
  }
  std::vector<uint64_t> out;
  attr.axes = Window(xs, 0, Ints("size"), debox, output_shape, out);
  attr.border = BorderArg({Border::kIgnore, Border::kConstant, Border::kReplicate, Border::kReflect,
                           Border::kReflectEven});
  attr.normalize = Logical("normalize");
  CheckWork(out, attr.axes);
  // avg_pool (box normalized over the two trailing axes of a rank-4 tensor, padding excluded
  // from the average) is WebNN averagePool2d.
  bool webnn = !debox && attr.normalize && xs.size() == 4;
  bool zero_pad = true;
  for (size_t k = 0; k < attr.axes.size(); ++k) {
    const WindowAxis& a = attr.axes[k];
    zero_pad = zero_pad && a.pad_front == 0 && a.pad_back == 0;
    webnn = webnn && a.dilation == 1 && a.pad_front >= 0 && a.pad_back >= 0 &&
            a.pad_front < a.size && a.pad_back < a.size;
    if (k < 2) {
      webnn = webnn && a.size == 1 && a.stride == 1 && a.pad_front == 0 && a.pad_back == 0;
    }
  }
  webnn = webnn && (attr.border == Border::kIgnore || zero_pad);
  Operand result{};
  if (webnn) {
    const WindowAxis& h = attr.axes[2];
    const WindowAxis& v = attr.axes[3];
    MLPool2dOptions o;
    o.windowDimensions = std::vector<uint32_t>{U32(h.size), U32(v.size)};
    o.padding = Padding2d(h, v);
    o.strides = std::vector<uint32_t>{U32(h.stride), U32(v.stride)};
    result = Web([&] { return AveragePool2d(builder, x.operand, o); });
    if (builder.Desc(result).shape != Shape(out)) {
      Fail(Stage::kExecute, "the WebNN kernel's output shape differs from NNEF's");
    }
  } else {
    result = Web([&] { return NnefBox(builder, x.operand, attr, out); });
  }
  Define(Result(), result, TensorType::kScalar);
}

// 4.3.3
void Executor::Impl::ArgmaxPool() {
  const Value x = Arg("input");
  WindowAttributes attr;
  std::vector<uint64_t> out;
  attr.axes = Window(S(x), 0, Ints("size"), false, {}, out);
  attr.border = BorderArg({Border::kIgnore, Border::kConstant, Border::kReplicate, Border::kReflect,
                           Border::kReflectEven});
  CheckWork(out, attr.axes);
  Define(Result(), Web([&] { return NnefArgmaxPool(builder, x.operand, attr); }),
         TensorType::kInteger);
}

void Executor::Impl::Sample() {
  const Value x = Arg("input"), index = Arg("index", TensorType::kInteger);
  WindowAttributes attr;
  std::vector<uint64_t> out;
  attr.axes = Window(S(x), 0, Ints("size"), false, {}, out);
  // 'ignore' arrives from max_pool(border = 'ignore') through max_pool_with_index: argmax_pool
  // never selects an ignored position, so it reads like 'constant'.
  attr.border = BorderArg({Border::kIgnore, Border::kConstant, Border::kReplicate, Border::kReflect,
                           Border::kReflectEven});
  if (S(index) != Shape(out) || index.type != TensorType::kInteger) {
    Invalid("index " + ShapeToString(S(index)) + " must be an integer tensor of the output shape " +
            ShapeToString(out));
  }
  Define(Result(), Web([&] { return NnefSample(builder, x.operand, index.operand, attr); }),
         TensorType::kScalar);
}

void Executor::Impl::Desample() {
  const Value x = Arg("input"), index = Arg("index", TensorType::kInteger);
  WindowAttributes attr;
  attr.border = BorderArg({Border::kConstant, Border::kIgnore});
  if (S(index) != S(x) || index.type != TensorType::kInteger) {
    Invalid("index " + ShapeToString(S(index)) + " must be an integer tensor of the input shape " +
            ShapeToString(S(x)));
  }
  const std::vector<int64_t> output_shape = Ints("output_shape");
  if (!output_shape.empty() && output_shape.size() != S(x).size()) {
    Invalid("output_shape must have one item per axis");
  }
  std::vector<uint64_t> out;
  attr.axes = Window(S(x), 0, Ints("size"), true, output_shape, out);
  Define(Result(), Web([&] { return NnefDesample(builder, x.operand, index.operand, attr, out); }),
         TensorType::kScalar);
}

// 4.3.4
void Executor::Impl::Upsample() {
  const Value x = Arg("input");
  const Shape& xs = S(x);
  UpsampleAttributes attr;
  attr.factors = Ints("factor");
  if (xs.size() < 2 || attr.factors.size() != xs.size() - 2) {
    Invalid("factor must have one item per spatial axis (" +
            std::to_string(xs.size() < 2 ? 0 : xs.size() - 2) + ")");
  }
  const std::optional<UpsampleMethod> method = ParseUpsampleMethod(Str("method"));
  if (!method) Invalid("method must be 'symmetric', 'asymmetric' or 'aligned'");
  attr.method = *method;
  attr.border =
      BorderArg({Border::kConstant, Border::kReplicate, Border::kReflect, Border::kReflectEven});
  Shape out = xs;
  for (size_t k = 0; k < attr.factors.size(); ++k) {
    if (attr.factors[k] <= 0) Invalid("factor items must be positive");
    out[k + 2] = xs[k + 2] * static_cast<uint64_t>(attr.factors[k]);
  }
  Operand result{};
  if (xs.size() == 4 && attr.method == UpsampleMethod::kSymmetric &&
      attr.border == Border::kReplicate) {
    // WebNN resample2d linear: input coordinate (o + 0.5) / f - 0.5 clamped to the input,
    // which is the symmetric method with a replicate border; exact weights, one rounding.
    MLResample2dOptions o;
    o.mode = MLInterpolationMode::kLinear;
    o.sizes = std::vector<uint32_t>{static_cast<uint32_t>(out[2]), static_cast<uint32_t>(out[3])};
    o.axes = std::vector<uint32_t>{2, 3};
    result = Web([&] { return Resample2d(builder, x.operand, o); });
  } else {
    result = Web([&] { return NnefMultilinearUpsample(builder, x.operand, attr); });
  }
  Define(Result(), result, TensorType::kScalar);
}

// 4.6
std::vector<int64_t> Executor::Impl::RoiChecks(const Value& x, const Value& rois, const Value& bi) {
  const Shape& xs = S(x);
  if (xs.size() < 3) Invalid("the input needs a batch, a channel and a spatial axis");
  const size_t m = xs.size() - 2;
  const Shape& rs = S(rois);
  if (rs.size() != 2 || rs[1] != 2 * m) {
    Invalid("rois " + ShapeToString(rs) + " must have shape [N, " + std::to_string(2 * m) + "]");
  }
  const Shape& bs = S(bi);
  if (bi.type != TensorType::kInteger || ElementCount(bs) != rs[0] || bs.empty() ||
      bs[0] != rs[0]) {
    Invalid("batch_index " + ShapeToString(bs) + " must be an integer tensor of shape [" +
            std::to_string(rs[0]) + ", 1]");
  }
  const std::vector<int64_t> size = Ints("output_size");
  if (size.size() != m) Invalid("output_size must have one item per spatial axis");
  for (int64_t s : size) {
    if (s <= 0) Invalid("output_size items must be positive");
  }
  return size;
}

void Executor::Impl::RoiPool(bool max) {
  const Value x = Arg("input"), rois = Arg("rois"), bi = Arg("batch_index", TensorType::kInteger);
  RoiAttributes attr;
  attr.output_size = RoiChecks(x, rois, bi);
  attr.max = max;
  Define(Result(),
         Web([&] { return NnefRoiPool(builder, x.operand, rois.operand, bi.operand, attr); }),
         TensorType::kScalar);
}

void Executor::Impl::RoiResample() {
  const Value x = Arg("input"), rois = Arg("rois"), bi = Arg("batch_index", TensorType::kInteger);
  RoiAttributes attr;
  attr.output_size = RoiChecks(x, rois, bi);
  const std::optional<UpsampleMethod> method = ParseUpsampleMethod(Str("method"));
  if (!method) Invalid("method must be 'symmetric', 'asymmetric' or 'aligned'");
  attr.method = *method;
  Define(Result(),
         Web([&] { return NnefRoiResample(builder, x.operand, rois.operand, bi.operand, attr); }),
         TensorType::kScalar);
}

}  // namespace nnref::nnef
