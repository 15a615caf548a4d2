// The vulkan backend's NNEF operator group (ops/nnef_op_list.inc; the reference's
// ops/nnef_window.h, nnef_resample.h, nnef_elementwise.h) on one shader, shaders/nnef.comp
// (modes and parameters in shaders/nnef_params.h). One family for the whole group (the simd
// backend has one per reference file): the operators share the shader and its host side.
//
// The host resolves the geometry: for every output element (conv/deconv: every output position
// of a channel) the tap table lists the element of x each tap reads — through the NNEF border
// (BorderIndex), the constant 0 of a 'constant' border position, or nothing (a position 'ignore'
// leaves out, a reverse window's tap whose position is not a multiple of the stride, a RoI
// cell's unused slot) — and the auxiliary words (divisors, interpolation weights, the packed
// filter and bias, the index tensor). The shader does the arithmetic per output element:
// compensated float32 sums divided once, first maxima, selections, round and elu. What a graph
// cannot use here is a stated reason: quantize (its halfway decisions need exact double
// arithmetic), data types other than float32 (uint8 for all/any), and a tap table larger than a
// binding. Data-dependent errors (an index outside its window, a batch index outside the batch, a
// non-finite RoI coordinate) are the reference's OperationErrors, raised on the host before the
// dispatch with the reference's messages.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/nnef_common.h"
#include "ops/nnef_elementwise.h"
#include "ops/nnef_quantize.h"
#include "ops/nnef_resample.h"
#include "ops/nnef_window.h"
#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/codes.h"
#include "ops/vulkan/shaders/nnef_params.h"

namespace nnref::vk {

namespace {

using nnef::Border;
using nnef::WindowAxis;

std::vector<int64_t> Extents(const Shape& s, size_t first = 0) {
  return std::vector<int64_t>(s.begin() + static_cast<std::ptrdiff_t>(first), s.end());
}

std::vector<int64_t> DenseStrides(const std::vector<int64_t>& e) {
  std::vector<int64_t> s(e.size(), 1);
  for (size_t k = e.size(); k-- > 1;) s[k - 1] = s[k] * e[k];
  return s;
}

int64_t Volume(const std::vector<int64_t>& e) {
  int64_t v = 1;
  for (int64_t x : e) v *= x;
  return v;
}

// Steps `i` through `extent` row-major; false after the last index.
bool Next(std::vector<int64_t>& i, const std::vector<int64_t>& extent) {
  for (size_t k = i.size(); k-- > 0;) {
    if (++i[k] < extent[k]) return true;
    i[k] = 0;
  }
  return false;
}

// One dispatch of nnef.comp: params, tap table, auxiliary words.
struct Job {
  std::vector<uint32_t> params = std::vector<uint32_t>(NNVK_NNEF_P_WORDS, 0);
  std::vector<int32_t> table;
  std::vector<uint32_t> aux;
};

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// The job's dispatch into `sink`: in0 = x (input 0), in1 = the tap table, in2 = the auxiliary
// words, both made on the host from the descriptors (constants: a graph uploads them once) or
// from inputs the host holds (`*_from_data`), or `aux` (made on the device).
void EmitJob(Sink& sink, Job& job, const OperandDescriptor& out, uint32_t mode, int64_t taps,
             std::optional<Source> aux = std::nullopt, bool table_from_data = false,
             bool aux_from_data = false) {
  const uint64_t count = out.ElementCount();
  if (count == 0) return;
  job.params[NNVK_NNEF_P_MODE] = mode;
  job.params[NNVK_NNEF_P_COUNT] = static_cast<uint32_t>(count);
  job.params[NNVK_NNEF_P_TAPS] = static_cast<uint32_t>(taps);
  job.params[NNVK_NNEF_P_OUT_TYPE] = static_cast<uint32_t>(out.dataType);
  if (job.table.empty()) job.table.push_back(0);
  if (job.aux.empty()) job.aux.push_back(0);
  const auto bytes = [](const auto& v) {
    const auto b = std::as_bytes(std::span(v));
    return std::vector<std::byte>(b.begin(), b.end());
  };
  std::vector<Source> sources;
  sources.push_back(Source::Input(0));
  // Made from the descriptors only: constants a graph uploads once.
  const auto host = [](std::vector<std::byte> b, bool from_data) {
    return from_data ? Source::Host(std::move(b)) : Source::Constant(std::move(b));
  };
  sources.push_back(host(bytes(job.table), table_from_data));
  sources.push_back(aux ? std::move(*aux) : host(bytes(job.aux), aux_from_data));
  sink.Run(Shader::kNnef, job.params, std::move(sources), 0, WordGroups(out));
}

// Why a node cannot be recorded when input `k` is not on the host (its values make the tables
// or are checked there), or "".
std::string HostInput(std::span<const bool> on_host, size_t k, const char* what) {
  if (k < on_host.size() && !on_host[k]) {
    return std::string(what) + " (input " + std::to_string(k) +
           ") is computed on the device, and the host reads it";
  }
  return "";
}

// The tap table of a window over the axes [first, ...) of output `y` and input `x`: per output
// position (row-major) and tap (row-major in the window), the element of x's windowed block each
// tap reads (x's dense strides), NNVK_NNEF_ZERO for a constant border position (or
// NNVK_NNEF_SKIP with `skip_border`: 'ignore', or a position outside the input that takes no
// part), NNVK_NNEF_SKIP for a reverse window's tap off the stride. Forward: position
// o s + j d - p; reverse: (o + p - j d) / s.
std::vector<int32_t> WindowTable(const std::vector<WindowAxis>& axes, const Shape& y,
                                 const Shape& x, size_t first, bool reverse, Border border,
                                 bool skip_border) {
  const size_t m = axes.size();
  const std::vector<int64_t> ye = Extents(y, first), xe = Extents(x, first);
  const std::vector<int64_t> xs = DenseStrides(xe);
  std::vector<std::vector<int64_t>> tab(m);
  std::vector<int64_t> ker(m);
  for (size_t k = 0; k < m; ++k) {
    const WindowAxis& a = axes[k];
    ker[k] = a.size;
    for (int64_t o = 0; o < ye[k]; ++o) {
      for (int64_t j = 0; j < a.size; ++j) {
        int64_t pos = o * a.stride + j * a.dilation - a.pad_front;
        if (reverse) {
          const int64_t v = o + a.pad_front - j * a.dilation;
          const int64_t q = nnef::FloorDiv(v, a.stride);
          if (q * a.stride != v) {
            tab[k].push_back(-2);
            continue;
          }
          pos = q;
        }
        tab[k].push_back(nnef::BorderIndex(pos, xe[k], border));
      }
    }
  }
  const int64_t taps = Volume(ker);
  std::vector<int32_t> table;
  table.reserve(static_cast<size_t>(Volume(ye) * taps));
  std::vector<int64_t> o(m, 0), j(m, 0);
  if (Volume(ye) == 0) return table;
  do {
    std::fill(j.begin(), j.end(), 0);
    do {
      int64_t off = 0;
      bool skip = false, zero = false;
      for (size_t k = 0; k < m; ++k) {
        const int64_t t = tab[k][static_cast<size_t>(o[k] * ker[k] + j[k])];
        skip = skip || t == -2;
        zero = zero || t == -1;
        off += t * xs[k];
      }
      if (zero && skip_border) skip = true;
      table.push_back(skip ? NNVK_NNEF_SKIP : zero ? NNVK_NNEF_ZERO : static_cast<int32_t>(off));
    } while (Next(j, ker));
  } while (Next(o, ye));
  return table;
}

// The raw words of an int64 index tensor after checking, in element order, that every index lies
// in [0, volume): the reference's error for the first that does not.
std::vector<uint32_t> CheckedIndex(const Tensor& index, int64_t volume, const char* op) {
  const Tensor t = index.Contiguous();
  const int64_t* p = t.base<int64_t>();
  const int64_t n = static_cast<int64_t>(t.element_count());
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] < 0 || p[i] >= volume) {
      nnef::ComputeError(std::string(op) + ": index " + std::to_string(p[i]) + " at element " +
                         std::to_string(i) + " is outside the window of " + std::to_string(volume) +
                         " positions");
    }
  }
  std::vector<uint32_t> words(static_cast<size_t>(2 * n));
  std::memcpy(words.data(), p, words.size() * 4);
  return words;
}

int64_t WindowVolume(const std::vector<WindowAxis>& axes) {
  int64_t v = 1;
  for (const WindowAxis& a : axes) v *= a.size;
  return v;
}

// conv / deconv (4.3.1).
class ConvKernel final : public RecordableKernel {
 public:
  ConvKernel(std::shared_ptr<Device> d, const nnef::ConvAttributes& a)
      : RecordableKernel(std::move(d)), a_(a) {}
  // Always recorded: the tap table comes from the descriptors; a filter or bias computed on the
  // device is gathered there.
  void Emit(Sink& sink, std::span<const OperandValue* const> in,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    const Shape& xs = in_desc[0].shape;
    const Shape& ys = out[0].shape;
    const int64_t cin = static_cast<int64_t>(xs[1]), cout = static_cast<int64_t>(ys[1]);
    const int64_t ipg = cin / a_.groups, opg = cout / a_.groups;
    const int64_t taps = WindowVolume(a_.axes);
    Job job;
    job.table = WindowTable(a_.axes, ys, xs, 2, a_.deconv, a_.border, false);
    // The filter as [oc][c within the group][tap]: conv's (c_out, C_in / G, f...) already is;
    // deconv's (c_in, C_out / G, f...) is regrouped. Then one bias per output channel.
    const uint64_t filter = static_cast<uint64_t>(cout * ipg * taps);
    const bool per_channel = in_desc[2].ElementCount() > 1;
    std::optional<Source> aux;
    if (in[1] != nullptr && in[2] != nullptr) {
      const Tensor w = in[1]->data.Contiguous(), bias = in[2]->data.Contiguous();
      const uint32_t* wp = reinterpret_cast<const uint32_t*>(w.base<float>());
      job.aux.resize(static_cast<size_t>(cout * ipg * taps + cout));
      for (int64_t oc = 0; oc < cout; ++oc) {
        for (int64_t c = 0; c < ipg; ++c) {
          const int64_t src =
              a_.deconv ? (((oc / opg) * ipg + c) * opg + oc % opg) * taps : (oc * ipg + c) * taps;
          std::copy(wp + src, wp + src + taps, job.aux.begin() + (oc * ipg + c) * taps);
        }
      }
      const float* bp = bias.base<float>();
      for (int64_t oc = 0; oc < cout; ++oc) {
        job.aux[static_cast<size_t>(cout * ipg * taps + oc)] = FloatBits(bp[per_channel ? oc : 0]);
      }
    } else if (filter > 0) {
      // Filter or bias computed on the device: the same words gathered there (deconv's filter
      // regrouped by a layout.comp transpose of (G, C_in / G, C_out / G, taps), the bias copied
      // or repeated).
      const size_t words = sink.Scratch((filter + static_cast<uint64_t>(cout)) * 4);
      if (a_.deconv) {
        const size_t moved = sink.Scratch(filter * 4);
        const Shape grouped = {static_cast<uint64_t>(a_.groups), static_cast<uint64_t>(ipg),
                               static_cast<uint64_t>(opg), static_cast<uint64_t>(taps)};
        const uint32_t perm[] = {0, 2, 1, 3};
        EmitPermute(sink, DataType::kFloat32, grouped, perm, Source::Input(1),
                    Target::Scratch(moved));
        sink.Copy(Source::Scratch(moved), 0, Target::Scratch(words), 0, filter * 4);
      } else {
        sink.Copy(Source::Input(1), 0, Target::Scratch(words), 0, filter * 4);
      }
      for (int64_t oc = 0; oc < (per_channel ? 1 : cout); ++oc) {
        sink.Copy(Source::Input(2), 0, Target::Scratch(words),
                  (filter + static_cast<uint64_t>(oc)) * 4, per_channel ? cout * 4 : 4);
      }
      aux = Source::Scratch(words);
    }
    int64_t spatial = 1, in_spatial = 1;
    for (size_t k = 2; k < ys.size(); ++k) {
      spatial *= static_cast<int64_t>(ys[k]);
      in_spatial *= static_cast<int64_t>(xs[k]);
    }
    job.params[NNVK_NNEF_P_IPG] = static_cast<uint32_t>(ipg);
    job.params[NNVK_NNEF_P_OPG] = static_cast<uint32_t>(opg);
    job.params[NNVK_NNEF_P_COUT] = static_cast<uint32_t>(cout);
    job.params[NNVK_NNEF_P_SPATIAL] = static_cast<uint32_t>(spatial);
    job.params[NNVK_NNEF_P_IN_SPATIAL] = static_cast<uint32_t>(in_spatial);
    job.params[NNVK_NNEF_P_CIN] = static_cast<uint32_t>(cin);
    EmitJob(sink, job, out[0], NNVK_NNEF_CONV, taps, std::move(aux), false, true);
  }

 private:
  nnef::ConvAttributes a_;
};

// box / debox (4.3.2), argmax_pool, sample, desample (4.3.3).
class WindowKernel final : public RecordableKernel {
 public:
  WindowKernel(std::shared_ptr<Device> d, OpId op, const nnef::WindowAttributes& a, bool debox,
               bool normalize)
      : RecordableKernel(std::move(d)), op_(op), a_(a), debox_(debox), normalize_(normalize) {}
  // Recorded, the tap table coming from the descriptors, unless sample's or desample's index is
  // computed on the device (the host checks it, with the reference's errors, and packs it).
  std::string NeedsHost(std::span<const OperandDescriptor>, std::span<const OperandDescriptor>,
                        std::span<const bool> on_host) const override {
    if (op_ == OpId::nnef_sample || op_ == OpId::nnef_desample) {
      return HostInput(on_host, 1, "the index");
    }
    return "";
  }
  void Emit(Sink& sink, std::span<const OperandValue* const> in,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    const Shape& x_shape = in_desc[0].shape;
    const int64_t taps = WindowVolume(a_.axes);
    const bool ignore = a_.border == Border::kIgnore;
    Job job;
    uint32_t mode = NNVK_NNEF_SUM;
    switch (op_) {
      case OpId::nnef_box:
      case OpId::nnef_debox: {
        job.table = WindowTable(a_.axes, out[0].shape, x_shape, 0, debox_, a_.border, ignore);
        if (normalize_) {
          // Divided by the window volume, or by the positions taking part ('ignore').
          job.params[NNVK_NNEF_P_FLAG] = 1;
          const size_t outputs = job.table.size() / static_cast<size_t>(taps);
          for (size_t i = 0; i < outputs; ++i) {
            int64_t n = 0;
            for (int64_t k = 0; k < taps; ++k) {
              n += job.table[i * static_cast<size_t>(taps) + static_cast<size_t>(k)] !=
                           NNVK_NNEF_SKIP
                       ? 1
                       : 0;
            }
            job.aux.push_back(FloatBits(static_cast<float>(ignore ? n : taps)));
          }
        }
        break;
      }
      case OpId::nnef_argmax_pool:
        job.table = WindowTable(a_.axes, out[0].shape, x_shape, 0, false, a_.border, ignore);
        mode = NNVK_NNEF_ARGMAX;
        break;
      case OpId::nnef_sample:  // 'ignore' reads as 'constant'
        job.aux = CheckedIndex(in[1]->data, taps, "sample");
        job.table = WindowTable(a_.axes, out[0].shape, x_shape, 0, false, a_.border, false);
        job.params[NNVK_NNEF_P_FLAG] = 1;
        mode = NNVK_NNEF_SELECT;
        break;
      default:  // desample: positions outside the input take no part
        job.aux = CheckedIndex(in[1]->data, taps, "desample");
        job.table = WindowTable(a_.axes, out[0].shape, x_shape, 0, true, Border::kIgnore, true);
        mode = NNVK_NNEF_DESAMPLE;
        break;
    }
    // sample's and desample's auxiliary words are the index.
    EmitJob(sink, job, out[0], mode, taps, std::nullopt, false,
            op_ == OpId::nnef_sample || op_ == OpId::nnef_desample);
  }

 private:
  OpId op_;
  nnef::WindowAttributes a_;
  bool debox_, normalize_;
};

// pad (4.5.5): one tap per output, the constant value at a constant border position.
class PadKernel final : public RecordableKernel {
 public:
  PadKernel(std::shared_ptr<Device> d, const nnef::NnefPadAttributes& a)
      : RecordableKernel(std::move(d)), a_(a) {}
  // Always recorded: the table (if any) comes from the descriptors.
  void Emit(Sink& sink, std::span<const OperandValue* const>,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    const Shape& x_shape = in_desc[0].shape;
    std::vector<WindowAxis> axes;
    for (const auto& [front, back] : a_.padding) axes.push_back(WindowAxis{1, 1, 1, front, back});
    const Border border = a_.border == Border::kIgnore ? Border::kConstant : a_.border;
    Job job;
    job.table = WindowTable(axes, out[0].shape, x_shape, 0, false, border, false);
    job.params[NNVK_NNEF_P_VALUE] = FloatBits(a_.value);
    EmitJob(sink, job, out[0], NNVK_NNEF_SELECT, 1);
  }

 private:
  nnef::NnefPadAttributes a_;
};

// multilinear_upsample (4.3.4): per output, the 2^m corners of its cell with integer weights
// (den - num and num per axis) over the product of the denominators.
class UpsampleKernel final : public RecordableKernel {
 public:
  UpsampleKernel(std::shared_ptr<Device> d, const nnef::UpsampleAttributes& a)
      : RecordableKernel(std::move(d)), a_(a) {}
  // Always recorded: the table (if any) comes from the descriptors.
  void Emit(Sink& sink, std::span<const OperandValue* const>,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    const Shape& x_shape = in_desc[0].shape;
    const std::vector<int64_t> xe = Extents(x_shape), ye = Extents(out[0].shape);
    const std::vector<int64_t> xs = DenseStrides(xe);
    const size_t m = a_.factors.size();
    // Per spatial axis and output index: the two taps (-1: a constant border position) and
    // their integer weights over den.
    struct AxisTap {
      int64_t i0, i1, w0, w1;
    };
    std::vector<std::vector<AxisTap>> axis(m);
    double den = 1;
    for (size_t k = 0; k < m; ++k) {
      const int64_t f = a_.factors[k], extent = xe[k + 2];
      int64_t d = 1;
      for (int64_t i = 0; i < ye[k + 2]; ++i) {
        int64_t n = 0;
        d = 1;
        switch (a_.method) {
          case nnef::UpsampleMethod::kAsymmetric:  // i / f
            n = i;
            d = f;
            break;
          case nnef::UpsampleMethod::kSymmetric:  // (i + 1/2) / f - 1/2
            n = 2 * i - f + 1;
            d = 2 * f;
            break;
          case nnef::UpsampleMethod::kAligned:  // i (X - 1) / (X f - 1)
            if (extent > 1) {
              n = i * (extent - 1);
              d = extent * f - 1;
            }
            break;
        }
        const int64_t j0 = nnef::FloorDiv(n, d), num = n - j0 * d;
        axis[k].push_back({nnef::BorderIndex(j0, extent, a_.border),
                           nnef::BorderIndex(j0 + 1, extent, a_.border), d - num, num});
      }
      den *= static_cast<double>(d);
    }
    const int64_t corners = int64_t{1} << m;
    Job job;
    std::vector<int64_t> o(xe.size(), 0);
    do {
      for (int64_t c = 0; c < corners; ++c) {
        int64_t off = o[0] * xs[0] + o[1] * xs[1], weight = 1;
        bool zero = false;
        for (size_t k = 0; k < m; ++k) {
          const AxisTap& t = axis[k][static_cast<size_t>(o[k + 2])];
          const bool second = ((c >> (m - 1 - k)) & 1) != 0;
          const int64_t idx = second ? t.i1 : t.i0;
          weight *= second ? t.w1 : t.w0;
          zero = zero || idx < 0;
          off += idx * xs[k + 2];
        }
        job.table.push_back(zero || weight == 0 ? NNVK_NNEF_SKIP : static_cast<int32_t>(off));
        job.aux.push_back(FloatBits(static_cast<float>(weight)));
      }
    } while (Next(o, ye));
    job.params[NNVK_NNEF_P_VALUE] = FloatBits(static_cast<float>(den));
    EmitJob(sink, job, out[0], NNVK_NNEF_WEIGHTED, corners);
  }

 private:
  nnef::UpsampleAttributes a_;
};

// The RoI operators' checks, before any arithmetic and in the reference's order (RoI by RoI:
// the batch index, then the coordinates lo_0, hi_0, lo_1, ...), with its messages.
void CheckRois(const float* rois, const int64_t* bi, int64_t count, size_t m, int64_t batch) {
  for (int64_t r = 0; r < count; ++r) {
    if (bi[r] < 0 || bi[r] >= batch) {
      nnef::ComputeError("RoI " + std::to_string(r) + ": batch_index " + std::to_string(bi[r]) +
                         " is outside the batch of " + std::to_string(batch));
    }
    for (size_t k = 0; k < m; ++k) {
      for (size_t c : {k, m + k}) {
        const double v =
            static_cast<double>(rois[r * 2 * static_cast<int64_t>(m) + static_cast<int64_t>(c)]);
        if (!std::isfinite(v) || std::fabs(v) > 9.0e15) {
          nnef::ComputeError("RoI " + std::to_string(r) + ": coordinate " + std::to_string(c) +
                             " (" + std::to_string(v) + ") is not a finite value in range");
        }
      }
    }
  }
}

// avg_roi_pool, max_roi_pool (4.6.1) and roi_resample (4.6.2). Pools: per output, the cell's
// positions inside the input (and, for a cell reaching past it, one constant-0 tap first: the
// border's candidate for the maximum; it adds nothing to a sum), other slots skipped; the average
// divides by the cell volume. roi_resample: the 2^m clamped corners with their weights.
class RoiKernel final : public RecordableKernel {
 public:
  RoiKernel(std::shared_ptr<Device> d, OpId op, const nnef::RoiAttributes& a)
      : RecordableKernel(std::move(d)), op_(op), a_(a) {}
  // Recorded when the RoIs and their batch indices are on the host, where they are checked (the
  // reference's errors) and make the tap table.
  std::string NeedsHost(std::span<const OperandDescriptor>, std::span<const OperandDescriptor>,
                        std::span<const bool> on_host) const override {
    std::string why = HostInput(on_host, 1, "the RoIs");
    return why.empty() ? HostInput(on_host, 2, "the batch indices") : why;
  }
  void Emit(Sink& sink, std::span<const OperandValue* const> in,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    const Shape& x_shape = in_desc[0].shape;
    const Tensor rt = in[1]->data.Contiguous(), bt = in[2]->data.Contiguous();
    const std::vector<int64_t> xe = Extents(x_shape), ye = Extents(out[0].shape);
    const size_t m = a_.output_size.size();
    const auto mi = static_cast<int64_t>(m);
    const float* rois = rt.base<float>();
    const int64_t* bi = bt.base<int64_t>();
    CheckRois(rois, bi, ye[0], m, xe[0]);
    const std::vector<int64_t> in_sp(xe.begin() + 2, xe.end()), out_sp(ye.begin() + 2, ye.end());
    const std::vector<int64_t> st = DenseStrides(in_sp);
    const int64_t in_plane = Volume(in_sp), channels = ye[1];
    Job job;
    if (op_ == OpId::nnef_roi_resample) {
      const int64_t corners = int64_t{1} << m;
      for (int64_t r = 0; r < ye[0]; ++r) {
        // Per axis and output index: the two clamped items and their weights.
        std::vector<std::vector<std::array<double, 4>>> taps(m);
        for (size_t k = 0; k < m; ++k) {
          const double lo = static_cast<double>(rois[r * 2 * mi + static_cast<int64_t>(k)]);
          const double hi = static_cast<double>(rois[r * 2 * mi + mi + static_cast<int64_t>(k)]);
          const double h = static_cast<double>(out_sp[k]), extent = hi - lo;
          for (int64_t i = 0; i < out_sp[k]; ++i) {
            const double di = static_cast<double>(i);
            double c = lo;
            if (a_.method == nnef::UpsampleMethod::kSymmetric) {
              c = lo + (di + 0.5) * extent / h - 0.5;
            } else if (a_.method == nnef::UpsampleMethod::kAsymmetric) {
              c = lo + di * extent / h;
            } else if (out_sp[k] > 1) {
              c = lo + di * (extent - 1) / (h - 1);
            }
            const double j0 = std::floor(c), u = c - j0;
            const double last = static_cast<double>(in_sp[k] - 1);
            taps[k].push_back({std::clamp(j0, 0.0, last), 1 - u, std::clamp(j0 + 1, 0.0, last), u});
          }
        }
        for (int64_t ch = 0; ch < channels; ++ch) {
          const int64_t base = (bi[r] * channels + ch) * in_plane;
          std::vector<int64_t> o(m, 0);
          do {
            for (int64_t c = 0; c < corners; ++c) {
              double weight = 1;
              int64_t off = base;
              for (size_t k = 0; k < m; ++k) {
                const auto& t = taps[k][static_cast<size_t>(o[k])];
                const bool second = ((c >> (m - 1 - k)) & 1) != 0;
                weight *= second ? t[3] : t[1];
                off += static_cast<int64_t>(second ? t[2] : t[0]) * st[k];
              }
              job.table.push_back(weight == 0 ? NNVK_NNEF_SKIP : static_cast<int32_t>(off));
              job.aux.push_back(FloatBits(static_cast<float>(weight)));
            }
          } while (Next(o, out_sp));
        }
      }
      job.params[NNVK_NNEF_P_VALUE] = FloatBits(1.0f);
      EmitJob(sink, job, out[0], NNVK_NNEF_WEIGHTED, corners, std::nullopt, true, true);
      return;
    }
    // The pools: every output's list of taps, then padded to the longest.
    std::vector<std::vector<int32_t>> lists;
    std::vector<uint32_t> divisors;
    for (int64_t r = 0; r < ye[0]; ++r) {
      std::vector<int64_t> start(m), cell(m), step(m);
      bool empty = false;
      double volume = 1;
      for (size_t k = 0; k < m; ++k) {
        const auto round = [](float v) {
          return static_cast<int64_t>(std::floor(static_cast<double>(v) + 0.5));
        };
        const int64_t lo = round(rois[r * 2 * mi + static_cast<int64_t>(k)]);
        const int64_t hi = round(rois[r * 2 * mi + mi + static_cast<int64_t>(k)]);
        start[k] = lo;
        cell[k] = nnef::CeilDiv(hi - lo, a_.output_size[k]);
        step[k] = nnef::FloorDiv(hi - lo, a_.output_size[k]);
        empty = empty || cell[k] <= 0;
        volume *= static_cast<double>(cell[k]);
      }
      for (int64_t ch = 0; ch < channels; ++ch) {
        const int64_t base = (bi[r] * channels + ch) * in_plane;
        std::vector<int64_t> o(m, 0);
        do {
          std::vector<int32_t> list;
          std::vector<int64_t> lo(m), extent(m);
          bool inside = !empty, clipped = false;
          for (size_t k = 0; k < m && inside; ++k) {
            const int64_t first = start[k] + o[k] * step[k];
            lo[k] = std::max<int64_t>(first, 0);
            const int64_t hi = std::min<int64_t>(first + cell[k], in_sp[k]);
            extent[k] = hi - lo[k];
            inside = extent[k] > 0;
            clipped = clipped || lo[k] != first || hi != first + cell[k];
          }
          if (!empty && (clipped || !inside)) list.push_back(NNVK_NNEF_ZERO);
          if (inside) {
            std::vector<int64_t> t(m, 0);
            do {
              int64_t off = base;
              for (size_t k = 0; k < m; ++k) off += (lo[k] + t[k]) * st[k];
              list.push_back(static_cast<int32_t>(off));
            } while (Next(t, extent));
          }
          lists.push_back(std::move(list));
          divisors.push_back(FloatBits(empty ? 0.0f : static_cast<float>(volume)));
        } while (Next(o, out_sp));
      }
    }
    size_t taps = 1;
    for (const auto& l : lists) taps = std::max(taps, l.size());
    for (const auto& l : lists) {
      job.table.insert(job.table.end(), l.begin(), l.end());
      job.table.insert(job.table.end(), taps - l.size(), NNVK_NNEF_SKIP);
    }
    if (op_ == OpId::nnef_avg_roi_pool) {
      job.aux = std::move(divisors);
      job.params[NNVK_NNEF_P_FLAG] = 1;
    }
    EmitJob(sink, job, out[0], op_ == OpId::nnef_max_roi_pool ? NNVK_NNEF_MAX : NNVK_NNEF_SUM,
            static_cast<int64_t>(taps), std::nullopt, true, true);
  }

 private:
  OpId op_;
  nnef::RoiAttributes a_;
};

// round, elu (element-wise, no table) and the arg/logical reductions (one tap per item of the
// reduced sub-volume, row-major).
class ElementwiseKernel final : public RecordableKernel {
 public:
  ElementwiseKernel(std::shared_ptr<Device> d, OpId op, std::vector<uint32_t> axes)
      : RecordableKernel(std::move(d)), op_(op), axes_(std::move(axes)) {}
  // Always recorded: the table (if any) comes from the descriptors.
  void Emit(Sink& sink, std::span<const OperandValue* const>,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    const Shape& x_shape = in_desc[0].shape;
    Job job;
    if (op_ == OpId::nnef_round || op_ == OpId::nnef_elu) {
      EmitJob(sink, job, out[0], op_ == OpId::nnef_round ? NNVK_NNEF_ROUND : NNVK_NNEF_ELU, 1);
      return;
    }
    const std::vector<int64_t> xe = Extents(x_shape);
    const std::vector<int64_t> xs = DenseStrides(xe);
    std::vector<int64_t> outer = xe, inner, inner_st;
    for (uint32_t a : axes_) {
      inner.push_back(xe[a]);
      inner_st.push_back(xs[a]);
      outer[a] = 1;
    }
    const int64_t taps = Volume(inner);
    if (Volume(xe) > 0) {
      std::vector<int64_t> o(xe.size(), 0);
      do {
        int64_t base = 0;
        for (size_t k = 0; k < o.size(); ++k) base += o[k] * xs[k];
        std::vector<int64_t> r(inner.size(), 0);
        do {
          int64_t off = base;
          for (size_t k = 0; k < r.size(); ++k) off += r[k] * inner_st[k];
          job.table.push_back(static_cast<int32_t>(off));
        } while (!r.empty() && Next(r, inner));
      } while (!o.empty() && Next(o, outer));
    }
    uint32_t mode = NNVK_NNEF_ARGMAX;
    if (op_ == OpId::nnef_argmin_reduce) mode = NNVK_NNEF_ARGMIN;
    if (op_ == OpId::nnef_all_reduce) mode = NNVK_NNEF_ALL;
    if (op_ == OpId::nnef_any_reduce) mode = NNVK_NNEF_ANY;
    EmitJob(sink, job, out[0], mode, taps);
  }

 private:
  OpId op_;
  std::vector<uint32_t> axes_;
};

// quantize (graph.quant, chapter 7.1) on nnef_quantize.comp: the quantizer's constants computed
// here as the reference computes them (double), the element-wise arithmetic in the shader.
class QuantizeKernel final : public RecordableKernel {
 public:
  QuantizeKernel(std::shared_ptr<Device> d, const nnef::Quantizer& q)
      : RecordableKernel(std::move(d)), q_(q) {}
  // Always recorded: the table (if any) comes from the descriptors.
  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor>,
            std::span<const OperandDescriptor> out) const override {
    using Kind = nnef::Quantizer::Kind;
    const uint64_t count = out[0].ElementCount();
    if (count == 0) return;
    std::vector<uint32_t> params(NNVK_NNEF_QP_WORDS, 0);
    const auto put = [&params](size_t at, double v) { std::memcpy(&params[at], &v, sizeof v); };
    params[NNVK_NNEF_QP_COUNT] = static_cast<uint32_t>(count);
    const double levels = std::ldexp(1.0, static_cast<int>(q_.bits)) - 1.0;
    switch (q_.kind) {
      case Kind::kLinear:
      case Kind::kMinMaxLinear: {
        // r = 2^bits - 1 - (signed && symmetric), the last term only for min_max_linear.
        const bool drop = q_.kind == Kind::kMinMaxLinear && q_.is_signed && q_.symmetric;
        params[NNVK_NNEF_QP_KIND] = NNVK_NNEF_Q_LINEAR;
        put(NNVK_NNEF_QP_MIN, q_.min);
        put(NNVK_NNEF_QP_MAX, q_.max);
        put(NNVK_NNEF_QP_WIDTH, q_.max - q_.min);
        put(NNVK_NNEF_QP_LEVELS, levels - (drop ? 1.0 : 0.0));
        break;
      }
      case Kind::kLogarithmic: {
        // m = ceil(log2(max)), exact from the binary exponent; codes clamp to [m - r, m] (below
        // -1000 every power of two rounds to 0 in float32).
        int e = 0;
        const double mant = std::frexp(q_.max, &e);
        const double m = mant == 0.5 ? e - 1 : e;
        params[NNVK_NNEF_QP_KIND] = NNVK_NNEF_Q_LOGARITHMIC;
        put(NNVK_NNEF_QP_MIN, std::max(m - levels, -1000.0));
        put(NNVK_NNEF_QP_MAX, m);
        break;
      }
      case Kind::kZeroPointLinear:
        params[NNVK_NNEF_QP_KIND] = NNVK_NNEF_Q_ZERO_POINT;
        put(NNVK_NNEF_QP_MIN, static_cast<double>(q_.MinCode()));
        put(NNVK_NNEF_QP_MAX, static_cast<double>(q_.MaxCode()));
        put(NNVK_NNEF_QP_WIDTH, q_.scale);
        put(NNVK_NNEF_QP_LEVELS, static_cast<double>(q_.zero_point));
        break;
    }
    std::vector<Source> sources;
    sources.push_back(Source::Input(0));
    sink.Run(Shader::kNnefQuantize, params, std::move(sources), 0, WordGroups(out[0]));
  }

 private:
  nnef::Quantizer q_;
};

bool IsNnefGroup(OpId op) {
  switch (op) {
#define NNREF_NNEF_OP(name, ...) case OpId::nnef_##name:
#include "ops/nnef_op_list.inc"
#undef NNREF_NNEF_OP
    return true;
    default:
      return false;
  }
}

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo& device) {
  if (!IsNnefGroup(op)) return std::nullopt;
  if (op == OpId::nnef_quantize && !device.shader_float64) {
    return std::string(
        "the graph.quant quantization decides halfway cases on exact quotients in double "
        "arithmetic: needs shaderFloat64");
  }
  const DataType want = op == OpId::nnef_all_reduce || op == OpId::nnef_any_reduce
                            ? DataType::kUint8
                            : DataType::kFloat32;
  if (type != want) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

// The largest tap table (4-byte entries) or auxiliary array a node needs, from its shapes.
uint64_t TableBytes(const Graph& graph, const OperatorNode& node) {
  const Shape& ys = graph.operand(node.outputs[0]).desc.shape;
  const Shape& xs = graph.operand(node.inputs[0]).desc.shape;
  uint64_t outputs = ElementCount(ys), taps = 1;
  if (const auto* w = node.Attributes<nnef::WindowAttributes>()) {
    taps = static_cast<uint64_t>(WindowVolume(w->axes));
    if (node.op == OpId::nnef_conv || node.op == OpId::nnef_deconv) {
      const Shape& ws = graph.operand(node.inputs[1]).desc.shape;
      return 4 * std::max(ElementCount(ws) + ys[1], outputs / (ys[0] * ys[1]) * taps);
    }
  } else if (const auto* r = node.Attributes<nnef::RoiAttributes>()) {
    // roi_resample: 2^m corners; the pools: at most the input plane and the border's tap.
    taps = node.op == OpId::nnef_roi_resample ? uint64_t{1} << r->output_size.size()
                                              : ElementCount(xs) / (xs[0] * xs[1]) + 1;
  } else if (const auto* u = node.Attributes<nnef::UpsampleAttributes>()) {
    taps = uint64_t{1} << u->factors.size();
  } else if (node.Attributes<nnef::NnefReduceAttributes>() != nullptr) {
    taps = ElementCount(xs) / std::max<uint64_t>(1, outputs);
  }
  return 4 * outputs * taps;
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const uint64_t bytes = TableBytes(graph, node);
  if (bytes + 16 > device->info().max_storage_buffer_range || bytes >= (uint64_t{1} << 31)) {
    why = std::string(OpName(node.op)) + ": a tap table of " + std::to_string(bytes) +
          " bytes exceeds one binding";
    return nullptr;
  }
  switch (node.op) {
    case OpId::nnef_conv:
    case OpId::nnef_deconv: {
      const auto* a = AttributesOf<nnef::ConvAttributes>(node, why);
      return a == nullptr ? nullptr : std::make_shared<ConvKernel>(device, *a);
    }
    case OpId::nnef_box:
    case OpId::nnef_debox: {
      const auto* a = AttributesOf<nnef::BoxAttributes>(node, why);
      return a == nullptr
                 ? nullptr
                 : std::make_shared<WindowKernel>(device, node.op, *a, a->debox, a->normalize);
    }
    case OpId::nnef_argmax_pool:
    case OpId::nnef_sample:
    case OpId::nnef_desample: {
      const auto* a = AttributesOf<nnef::WindowAttributes>(node, why);
      return a == nullptr ? nullptr
                          : std::make_shared<WindowKernel>(device, node.op, *a, false, false);
    }
    case OpId::nnef_pad: {
      const auto* a = AttributesOf<nnef::NnefPadAttributes>(node, why);
      return a == nullptr ? nullptr : std::make_shared<PadKernel>(device, *a);
    }
    case OpId::nnef_multilinear_upsample: {
      const auto* a = AttributesOf<nnef::UpsampleAttributes>(node, why);
      return a == nullptr ? nullptr : std::make_shared<UpsampleKernel>(device, *a);
    }
    case OpId::nnef_avg_roi_pool:
    case OpId::nnef_max_roi_pool:
    case OpId::nnef_roi_resample: {
      const auto* a = AttributesOf<nnef::RoiAttributes>(node, why);
      return a == nullptr ? nullptr : std::make_shared<RoiKernel>(device, node.op, *a);
    }
    case OpId::nnef_round:
    case OpId::nnef_elu:
      return std::make_shared<ElementwiseKernel>(device, node.op, std::vector<uint32_t>{});
    case OpId::nnef_quantize: {
      const auto* a = AttributesOf<nnef::QuantizeAttributes>(node, why);
      return a == nullptr ? nullptr : std::make_shared<QuantizeKernel>(device, a->quantizer);
    }
    default: {
      const auto* a = AttributesOf<nnef::NnefReduceAttributes>(node, why);
      return a == nullptr ? nullptr : std::make_shared<ElementwiseKernel>(device, node.op, a->axes);
    }
  }
}

}  // namespace

const Family kNnefFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
