// The vulkan backend's conv2d (§api-mlgraphbuilder-conv2d), as in the reference's ops/conv2d.cc,
// on shaders/conv2d.comp (parameters NNVK_CONV_P_* of shaders/params.h): input and filter
// uploaded dense in their own layouts and read through strides; the output is written in the
// input layout. conv_transpose2d.cc runs convTranspose2d on the same kernel. In the native
// arithmetic mode: shaders/conv2d_native.comp, an implicit GEMM on gemm_tile.glsl (same
// parameters), or on CPU devices its direct variant over a filter packed here.
#include "ops/vulkan/conv2d.h"

#include <cstring>
#include <vector>

#include "ops/conv2d.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

class Conv2dKernel final : public RecordableKernel {
 public:
  // convTranspose2d (p.transposed): the same shader in gather form.
  Conv2dKernel(std::shared_ptr<Device> device, const ConvParams& p)
      : RecordableKernel(std::move(device)), a_(p) {}

  // Always recorded. Input, filter and bias are read dense in their own layouts, except by the
  // native mode's direct variant (CPU devices), which reads a packed filter and, with 4 | input
  // channels per group, an nchw input transposed to channels-last: made on the host when those
  // operands are there, else on the device (layout.comp), the same bits either way.

  void Emit(Sink& sink, std::span<const OperandValue* const> values,
            std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    if (desc.ElementCount() == 0) return;
    const Shape& input = in[0].shape;
    const Shape& filter = in[1].shape;
    const ImageAxes ia = a_.image;
    const size_t fo = a_.fo, fi = a_.fi, fh = a_.fh, fw = a_.fw;
    const Strides is = ContiguousStrides(input);
    const Strides fs = ContiguousStrides(filter);
    const auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
    std::vector<uint32_t> params(NNVK_CONV_P_WORDS, 0);
    params[NNVK_CONV_P_TRANSPOSED] = a_.transposed ? 1 : 0;
    params[NNVK_CONV_P_FILTER_OUT_C] = u(filter[fo]);
    params[NNVK_CONV_P_TYPE] = u(static_cast<uint64_t>(desc.dataType));
    params[NNVK_CONV_P_BATCHES] = u(desc.shape[ia.batch]);
    params[NNVK_CONV_P_IN_C] = u(input[ia.channel]);
    params[NNVK_CONV_P_IN_H] = u(input[ia.height]);
    params[NNVK_CONV_P_IN_W] = u(input[ia.width]);
    params[NNVK_CONV_P_OUT_C] = u(desc.shape[ia.channel]);
    params[NNVK_CONV_P_OUT_H] = u(desc.shape[ia.height]);
    params[NNVK_CONV_P_OUT_W] = u(desc.shape[ia.width]);
    // Input channels per group: the filter's for conv2d, the input's / groups for transpose.
    params[NNVK_CONV_P_FILTER_C] =
        a_.transposed ? u(input[ia.channel] / static_cast<uint64_t>(a_.groups)) : u(filter[fi]);
    params[NNVK_CONV_P_KH] = u(filter[fh]);
    params[NNVK_CONV_P_KW] = u(filter[fw]);
    const auto s = [](int64_t v) { return static_cast<uint32_t>(v); };
    params[NNVK_CONV_P_PAD_TOP] = s(a_.pad_top);
    params[NNVK_CONV_P_PAD_LEFT] = s(a_.pad_left);
    params[NNVK_CONV_P_STRIDE_H] = s(a_.stride_height);
    params[NNVK_CONV_P_STRIDE_W] = s(a_.stride_width);
    params[NNVK_CONV_P_DIL_H] = s(a_.dilation_height);
    params[NNVK_CONV_P_DIL_W] = s(a_.dilation_width);
    params[NNVK_CONV_P_GROUPS] = s(a_.groups);
    // The node has a bias input exactly with options.bias.
    const bool has_bias = in.size() > 2;
    params[NNVK_CONV_P_HAS_BIAS] = has_bias ? 1 : 0;
    params[NNVK_CONV_P_OUT_NHWC] = ia.channel == 3 ? 1 : 0;
    params[NNVK_CONV_P_IN_STRIDES + 0] = u(static_cast<uint64_t>(is[ia.batch]));
    params[NNVK_CONV_P_IN_STRIDES + 1] = u(static_cast<uint64_t>(is[ia.channel]));
    params[NNVK_CONV_P_IN_STRIDES + 2] = u(static_cast<uint64_t>(is[ia.height]));
    params[NNVK_CONV_P_IN_STRIDES + 3] = u(static_cast<uint64_t>(is[ia.width]));
    params[NNVK_CONV_P_FILTER_STRIDES + 0] = u(static_cast<uint64_t>(fs[fo]));
    params[NNVK_CONV_P_FILTER_STRIDES + 1] = u(static_cast<uint64_t>(fs[fi]));
    params[NNVK_CONV_P_FILTER_STRIDES + 2] = u(static_cast<uint64_t>(fs[fh]));
    params[NNVK_CONV_P_FILTER_STRIDES + 3] = u(static_cast<uint64_t>(fs[fw]));
    const uint64_t groups = static_cast<uint64_t>(a_.groups);
    std::vector<Source> sources;
    if (Direct(desc.dataType)) {
      // The direct variant (CPU devices): the filter packed as [group][k][output channel in
      // the group, padded to a multiple of 4] (conv2d_native.comp's DirectGemm); the output
      // pixels are its rows. With 4 | input channels per group the input goes channels-last
      // (nhwc as given, nchw transposed here) and k = (ky, kx, input channel), read as vec4s
      // (specialization constant 1); otherwise k = (input channel, ky, kx) as the tiled
      // variant, the input in its own layout.
      const uint64_t oc = desc.shape[ia.channel] / groups, oc4 = (oc + 3) / 4;
      const uint64_t fc = filter[fi], kh = filter[fh], kw = filter[fw];
      const uint64_t k_count = fc * kh * kw;
      const bool channels_last = ChannelsLast(input, filter);
      if (Transposes(input, filter)) {  // nchw -> nhwc
        sources.push_back(ChannelsLastInput(sink, values[0], input));
      } else {
        sources.push_back(Source::Input(0));
      }
      if (values[1] == nullptr) {
        // The filter computed on the device: packed there by one layout.comp dispatch (zero
        // bits for the padded output channels), the same words as below.
        std::vector<StridedAxis> axes = {{groups, groups, static_cast<int64_t>(oc) * fs[fo]}};
        const StridedAxis c{fc, fc, fs[fi]}, y{kh, kh, fs[fh]}, x{kw, kw, fs[fw]};
        if (channels_last) {
          axes.insert(axes.end(), {y, x, c});
        } else {
          axes.insert(axes.end(), {c, y, x});
        }
        axes.push_back({oc4 * 4, oc, fs[fo]});
        const size_t packed = sink.Scratch(groups * k_count * oc4 * 4 * sizeof(float));
        EmitStrided(sink, DataType::kFloat32, axes, Source::Input(1), Target::Scratch(packed));
        sources.push_back(Source::Scratch(packed));
      } else {
        sources.push_back(
            Source::Host(PackFilter(values[1]->data, filter, groups, oc, oc4, channels_last)));
      }
      if (has_bias) sources.push_back(Source::Input(2));
      const uint64_t pixels = desc.shape[ia.batch] * desc.shape[ia.height] * desc.shape[ia.width];
      const uint32_t spec[] = {NNVK_GEMM_DIRECT, channels_last ? 1u : 0u};
      sink.Run(Shader::kConv2dNative, params, std::move(sources), 0,
               GemmDirectGroups(device_->info(), groups, pixels, oc4), spec);
      return;
    }
    sources.push_back(Source::Input(0));
    sources.push_back(Source::Input(1));
    if (has_bias) sources.push_back(Source::Input(2));
    if (device_->native()) {
      // An implicit GEMM per group: M = output channels per group, N = output pixels.
      const uint64_t m = a_.transposed ? filter[fo] : desc.shape[ia.channel] / groups;
      const uint64_t n = desc.shape[ia.batch] * desc.shape[ia.height] * desc.shape[ia.width];
      // float16 accumulated in float16_t where the device has shaderFloat16.
      const bool half = desc.dataType == DataType::kFloat16 && device_->float16_native();
      sink.Run(half ? Shader::kConv2dNativeF16 : Shader::kConv2dNative, params, std::move(sources),
               0, GemmTileGroups(device_->info(), groups, m, n));
    } else {
      sink.Run(Shader::kConv2d, params, std::move(sources), 0, WordGroups(desc));
    }
  }

 private:
  // The direct variant's filter on the host: [group][k][output channel in the group, padded
  // to a multiple of 4 with zeros], k = (ky, kx, input channel) when the input is read
  // channels-last, else (input channel, ky, kx).
  std::vector<std::byte> PackFilter(const Tensor& weights, const Shape& filter, uint64_t groups,
                                    uint64_t oc, uint64_t oc4, bool channels_last) const {
    const Strides fs = ContiguousStrides(filter);
    const uint64_t fc = filter[a_.fi], kh = filter[a_.fh], kw = filter[a_.fw];
    const uint64_t k_count = fc * kh * kw;
    std::vector<float> packed(groups * k_count * oc4 * 4, 0.0f);
    const std::vector<std::byte> bytes = weights.Bytes();
    for (uint64_t g = 0; g < groups; ++g) {
      for (uint64_t o = 0; o < oc; ++o) {
        for (uint64_t c = 0; c < fc; ++c) {
          for (uint64_t y = 0; y < kh; ++y) {
            for (uint64_t x = 0; x < kw; ++x) {
              const uint64_t from = (g * oc + o) * static_cast<uint64_t>(fs[a_.fo]) +
                                    c * static_cast<uint64_t>(fs[a_.fi]) +
                                    y * static_cast<uint64_t>(fs[a_.fh]) +
                                    x * static_cast<uint64_t>(fs[a_.fw]);
              const uint64_t k = channels_last ? (y * kw + x) * fc + c : (c * kh + y) * kw + x;
              std::memcpy(&packed[(g * k_count + k) * oc4 * 4 + o],
                          bytes.data() + from * sizeof(float), sizeof(float));
            }
          }
        }
      }
    }
    return AsBytes(packed);
  }

  // An nchw input moved channels-last: on the host when it is there, else on the device (one
  // layout.comp transpose into a scratch tensor); the same bits either way.
  Source ChannelsLastInput(Sink& sink, const OperandValue* value, const Shape& input) const {
    const ImageAxes ia = a_.image;
    const uint64_t n = input[ia.batch], h = input[ia.height], w = input[ia.width];
    const uint64_t in_c = input[ia.channel];
    if (value == nullptr) {
      const size_t s = sink.Scratch(n * h * w * in_c * sizeof(float));
      const uint32_t perm[] = {0, 2, 3, 1};
      EmitPermute(sink, DataType::kFloat32, input, perm, Source::Input(0), Target::Scratch(s));
      return Source::Scratch(s);
    }
    const std::vector<std::byte> data = value->data.Bytes();
    const float* from = reinterpret_cast<const float*>(data.data());
    std::vector<float> transposed(n * h * w * in_c);
    for (uint64_t b = 0; b < n; ++b) {
      for (uint64_t c = 0; c < in_c; ++c) {
        const float* plane = from + (b * in_c + c) * h * w;
        float* to = transposed.data() + b * h * w * in_c + c;
        for (uint64_t i = 0; i < h * w; ++i) to[i * in_c] = plane[i];
      }
    }
    return Source::Host(AsBytes(transposed));
  }

  // The native mode's direct variant (CPU devices): float32 conv2d.
  bool Direct(DataType type) const {
    return device_->native() && !a_.transposed && type == DataType::kFloat32 &&
           PreferDirectGemm(*device_);
  }
  // The direct variant reads the input channels-last when 4 | input channels (per group too).
  bool ChannelsLast(const Shape& input, const Shape& filter) const {
    return filter[a_.fi] % 4 == 0 && input[a_.image.channel] % 4 == 0;
  }
  // ... transposing an nchw input on the host.
  bool Transposes(const Shape& input, const Shape& filter) const {
    return ChannelsLast(input, filter) && a_.image.channel != 3;
  }
  static std::vector<std::byte> AsBytes(const std::vector<float>& v) {
    const std::span<const std::byte> b = std::as_bytes(std::span<const float>(v));
    return std::vector<std::byte>(b.begin(), b.end());
  }

  ConvParams a_;
};

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo&) {
  if (op != OpId::conv2d) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const auto* conv = AttributesOf<Conv2dAttributes>(node, why);
  if (conv == nullptr) return nullptr;
  if (device->native() && !(why = NativeGemmUnsupported(*device)).empty()) return nullptr;
  return std::make_shared<Conv2dKernel>(device, ConvParamsOf(*conv));
}

}  // namespace

std::shared_ptr<const Kernel> MakeConv2dKernel(std::shared_ptr<Device> device,
                                               const ConvParams& p) {
  return std::make_shared<Conv2dKernel>(std::move(device), p);
}

const Family kConv2dFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
