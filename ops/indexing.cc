// gather, gatherElements, gatherND — WebNN §api-mlgraphbuilder-gather,
// §api-mlgraphbuilder-gatherelements, §api-mlgraphbuilder-gathernd.
//
// Numerics: none; every output element is a copy of one input element (exact for every data
// type). Indices may be int32, uint32 or int64; a negative index counts from the end of its
// dimension. An out-of-range index is clamped to [-N, N-1] (ops/index_common.h) and every output
// element read through it is marked implementation-defined (for gatherND: the whole slice read
// through that coordinate tuple). The kernels walk the input's strides (views of any kind) and
// never read outside it. Latitude: an output element carries the code of the input element it
// copies (kOneOf becomes kAny); an index element that carries latitude makes everything read
// through it kAny.
#include "ops/indexing.h"

#include <string>

#include "ops/conv_common.h"
#include "ops/elementwise.h"
#include "ops/index_common.h"

namespace nnref {

// §tensor-limits-gather. The table gives the output ranks 1 to N, but the method steps never check
// the output rank and a rank-1 input with rank-0 indices gives a rank-0 output, which nnref
// allows (docs/deviations.md).
const OpLimits kGatherLimits = {{{"input", DataTypeSet::All(), "", 1, kMaxRankAny},
                                 {"indices", kIndexTypes, "", 0, kMaxRankAny},
                                 {"output", {}, "input", 0, kMaxRankAny}}};
// §tensor-limits-gatherelements ("indices: same rank as input" is checked by the method).
const OpLimits kGatherElementsLimits = {{{"input", DataTypeSet::All(), "", 1, kMaxRankAny},
                                         {"indices", kIndexTypes, "", 1, kMaxRankAny},
                                         {"output", {}, "input", 1, kMaxRankAny}}};
// §tensor-limits-gathernd
const OpLimits kGatherNDLimits = {{{"input", DataTypeSet::All(), "", 1, kMaxRankAny},
                                   {"indices", kIndexTypes, "", 1, kMaxRankAny},
                                   {"output", {}, "input", 0, kMaxRankAny}}};

namespace {

// The parts of a strided view around one axis: the axes before it and the axes after it.
struct AxisSplit {
  Shape outer_shape, inner_shape;
  Strides outer, inner;
};

AxisSplit SplitAt(const Shape& shape, const Strides& strides, size_t axis) {
  AxisSplit s;
  s.outer_shape.assign(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(axis));
  s.inner_shape.assign(shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, shape.end());
  s.outer.assign(strides.begin(), strides.begin() + static_cast<std::ptrdiff_t>(axis));
  s.inner.assign(strides.begin() + static_cast<std::ptrdiff_t>(axis) + 1, strides.end());
  return s;
}

// Latitude codes of an index tensor in row-major order, or an invalid tensor when it has none.
Tensor IndexCodes(const OperandValue& indices) {
  return indices.latitude.valid() ? indices.latitude.Contiguous() : Tensor();
}

// The output of a gather kernel under construction: every element copies one input element and
// carries its code (kOneOf becomes kAny), or kAny when it is read through an open index (out of
// range, or an index element that carries latitude).
class GatherOutput {
 public:
  GatherOutput(const OperandValue& input, const OperandValue& indices,
               const OperandDescriptor& desc)
      : input_(input),
        input_lat_(LatitudeView(input)),
        index_codes_(IndexCodes(indices)),
        lat_(NewLatitude(desc.shape)),
        lat_in_(input_lat_.base<uint8_t>()),
        lat_out_(lat_.base<uint8_t>()) {
    result_.data = Tensor::Allocate(desc.dataType, desc.shape);
  }

  // The input's codes as a view of the input's shape.
  const Tensor& input_latitude() const { return input_lat_; }
  Tensor& data() { return result_.data; }

  // Whether index element j, resolved as r, is open.
  bool Open(const ResolvedIndex& r, uint64_t j) const {
    return !r.in_range || (index_codes_.valid() && index_codes_.At<uint8_t>(j));
  }

  // Output element k's code: kAny when read through an open index, else the carried code of the
  // input element at offset lat_offset of input_latitude().
  void Mark(uint64_t k, bool open, int64_t lat_offset) {
    const uint8_t code = open ? kAnyCode : CarriedCode(lat_in_[lat_offset]);
    if (code != 0) {
      lat_out_[k] = code;
      any_ = true;
    }
  }

  // Always hands back latitude when an input had some (the executor drops it if all exact).
  std::vector<OperandValue> Finish() {
    if (any_ || input_.latitude.valid() || index_codes_.valid()) result_.latitude = std::move(lat_);
    return {std::move(result_)};
  }

 private:
  const OperandValue& input_;
  Tensor input_lat_;
  Tensor index_codes_;
  Tensor lat_;
  const uint8_t* lat_in_;
  uint8_t* lat_out_;
  OperandValue result_;
  bool any_ = false;
};

// output[o, j..., i...] = input[o, indices[j...], i...]: outer axes o before `axis`, the indices'
// axes j, inner axes i after it.
class GatherKernel final : public Kernel {
 public:
  explicit GatherKernel(size_t axis) : axis_(axis) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    GatherOutput output(*in[0], *in[1], out[0]);
    const Tensor& x_lat = output.input_latitude();
    const IndexReader indices(in[1]->data);
    const uint64_t index_count = in[1]->data.element_count();
    const uint64_t axis_size = x.shape()[axis_];
    const int64_t axis_stride = x.strides()[axis_], lat_axis_stride = x_lat.strides()[axis_];
    const AxisSplit xs = SplitAt(x.shape(), x.strides(), axis_);
    const AxisSplit ls = SplitAt(x_lat.shape(), x_lat.strides(), axis_);

    DispatchDataType(out[0].dataType, [&]<typename T>() {
      const T* src = x.base<T>();
      T* dst = output.data().base<T>();
      uint64_t k = 0;  // output elements in row-major order
      ForEachOffsets<2>(xs.outer_shape, {&xs.outer, &ls.outer}, [&](const auto& o) {
        for (uint64_t j = 0; j < index_count; ++j) {
          const ResolvedIndex r = ResolveIndex(indices[j], axis_size);
          const auto pos = static_cast<int64_t>(r.position);
          const bool open = output.Open(r, j);
          const int64_t base = o[0] + pos * axis_stride, lat_base = o[1] + pos * lat_axis_stride;
          ForEachOffsets<2>(xs.inner_shape, {&xs.inner, &ls.inner}, [&](const auto& i) {
            dst[k] = src[base + i[0]];
            output.Mark(k, open, lat_base + i[1]);
            ++k;
          });
        }
      });
      return 0;
    });
    return output.Finish();
  }

 private:
  size_t axis_;
};

// output[c] = input[c with c[axis] = indices[c]], over the indices' shape.
class GatherElementsKernel final : public Kernel {
 public:
  explicit GatherElementsKernel(size_t axis) : axis_(axis) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    GatherOutput output(*in[0], *in[1], out[0]);
    const Tensor& x_lat = output.input_latitude();
    const IndexReader indices(in[1]->data);
    const uint64_t axis_size = x.shape()[axis_];
    const int64_t axis_stride = x.strides()[axis_], lat_axis_stride = x_lat.strides()[axis_];
    // Walk the indices' shape with the input's strides, the axis itself held at 0: the shapes
    // agree on every other axis.
    Strides walk = x.strides(), lat_walk = x_lat.strides();
    walk[axis_] = 0;
    lat_walk[axis_] = 0;

    DispatchDataType(out[0].dataType, [&]<typename T>() {
      const T* src = x.base<T>();
      T* dst = output.data().base<T>();
      uint64_t k = 0;  // output (and index) elements in row-major order
      ForEachOffsets<2>(out[0].shape, {&walk, &lat_walk}, [&](const auto& o) {
        const ResolvedIndex r = ResolveIndex(indices[k], axis_size);
        const auto pos = static_cast<int64_t>(r.position);
        dst[k] = src[o[0] + pos * axis_stride];
        output.Mark(k, output.Open(r, k), o[1] + pos * lat_axis_stride);
        ++k;
      });
      return 0;
    });
    return output.Finish();
  }

 private:
  size_t axis_;
};

// output[t..., s...] = input[indices[t..., 0], ..., indices[t..., c-1], s...], c the size of the
// indices' last axis.
class GatherNDKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    GatherOutput output(*in[0], *in[1], out[0]);
    const Tensor& x_lat = output.input_latitude();
    const IndexReader indices(in[1]->data);
    const size_t c = static_cast<size_t>(in[1]->data.shape().back());
    const uint64_t tuples = in[1]->data.element_count() / c;
    const auto cut = static_cast<std::ptrdiff_t>(c);
    const Shape slice_shape(x.shape().begin() + cut, x.shape().end());
    const Strides slice(x.strides().begin() + cut, x.strides().end());
    const Strides lat_slice(x_lat.strides().begin() + cut, x_lat.strides().end());

    DispatchDataType(out[0].dataType, [&]<typename T>() {
      const T* src = x.base<T>();
      T* dst = output.data().base<T>();
      uint64_t k = 0;  // output elements in row-major order
      for (uint64_t t = 0; t < tuples; ++t) {
        int64_t base = 0, lat_base = 0;
        bool open = false;
        for (size_t q = 0; q < c; ++q) {
          const ResolvedIndex r = ResolveIndex(indices[t * c + q], x.shape()[q]);
          base += static_cast<int64_t>(r.position) * x.strides()[q];
          lat_base += static_cast<int64_t>(r.position) * x_lat.strides()[q];
          open = open || output.Open(r, t * c + q);
        }
        ForEachOffsets<2>(slice_shape, {&slice, &lat_slice}, [&](const auto& i) {
          dst[k] = src[base + i[0]];
          output.Mark(k, open, lat_base + i[1]);
          ++k;
        });
      }
      return 0;
    });
    return output.Finish();
  }
};

}  // namespace

Operand Gather(GraphBuilder& builder, const Operand& input, const Operand& indices,
               const MLGatherOptions& options) {
  const std::string name = OperatorDisplayName("gather", options);
  builder.CheckCanBuild(name);                        // step 1
  builder.ValidateOperand(name, "input", input);      // step 2
  builder.ValidateOperand(name, "indices", indices);  //
  const OperandDescriptor in = builder.Desc(input);
  const OperandDescriptor idx = builder.Desc(indices);
  CheckDataType(name, "indices", idx.dataType, kGatherLimits.Find("indices")->types);  // step 3
  CheckAxis(name, options.axis, in.shape.size());                                      // 4-7
  // Steps 8-19: the input's axes before `axis`, the indices' axes, the input's axes after it.
  Shape shape(in.shape.begin(), in.shape.begin() + options.axis);
  shape.insert(shape.end(), idx.shape.begin(), idx.shape.end());
  shape.insert(shape.end(), in.shape.begin() + options.axis + 1, in.shape.end());
  OperatorNode node{OpId::gather,
                    options.label,
                    {input.id, indices.id},
                    {},
                    std::make_shared<GatherKernel>(options.axis),
                    {OpId::gather, in.dataType, 0}};
  auto attributes = std::make_shared<GatherAttributes>();
  attributes->axis = options.axis;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{in.dataType, shape}})[0];  // steps 20-22
}

Operand GatherElements(GraphBuilder& builder, const Operand& input, const Operand& indices,
                       const MLGatherOptions& options) {
  const std::string name = OperatorDisplayName("gatherElements", options);
  builder.CheckCanBuild(name);                        // step 1
  builder.ValidateOperand(name, "input", input);      // step 2
  builder.ValidateOperand(name, "indices", indices);  //
  const OperandDescriptor in = builder.Desc(input);
  const OperandDescriptor idx = builder.Desc(indices);
  const OpLimits& limits = kGatherElementsLimits;
  CheckDataType(name, "indices", idx.dataType, limits.Find("indices")->types);  // step 3
  // Step 4: input ranks 1 to N; indices "same rank as input".
  CheckRank(name, limits, "input", in.shape.size());
  if (idx.shape.size() != in.shape.size()) {
    ThrowTypeError(name + ": indices rank " + Str(idx.shape.size()) +
                   " is not the same as input rank " + Str(in.shape.size()));
  }
  CheckAxis(name, options.axis, in.shape.size());  // steps 5-6
  // Steps 7-9: the indices' shape is the input's except on `axis`.
  Shape expected = in.shape;
  expected[options.axis] = idx.shape[options.axis];
  if (idx.shape != expected) {
    ThrowTypeError(name + ": indices shape " + ShapeToString(idx.shape) + " must be " +
                   ShapeToString(expected) + " (the input's shape except on axis " +
                   Str(options.axis) + ")");
  }
  // Step 10 copies the input's descriptor, but the worked example (and every framework) gives the
  // output the indices' shape (spec-notes #5, docs/deviations.md).
  OperatorNode node{OpId::gatherElements,
                    options.label,
                    {input.id, indices.id},
                    {},
                    std::make_shared<GatherElementsKernel>(options.axis),
                    {OpId::gatherElements, in.dataType, 0}};
  auto attributes = std::make_shared<GatherAttributes>();
  attributes->axis = options.axis;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{in.dataType, idx.shape}})[0];
}

Operand GatherND(GraphBuilder& builder, const Operand& input, const Operand& indices,
                 const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("gatherND", options);
  builder.CheckCanBuild(name);                        // step 1
  builder.ValidateOperand(name, "input", input);      // step 2
  builder.ValidateOperand(name, "indices", indices);  //
  const OperandDescriptor in = builder.Desc(input);
  const OperandDescriptor idx = builder.Desc(indices);
  const OpLimits& limits = kGatherNDLimits;
  CheckDataType(name, "indices", idx.dataType, limits.Find("indices")->types);  // step 3
  CheckRank(name, limits, "input", in.shape.size());                            // step 4 (and 7)
  CheckRank(name, limits, "indices", idx.shape.size());
  // Steps 5-10 (coordinateSize at most the input rank), 11-13: the indices' leading axes, then
  // the input's axes from coordinateSize on.
  const Shape shape = GatherNDShape(name, in.shape, idx.shape);
  OperatorNode node{OpId::gatherND,
                    options.label,
                    {input.id, indices.id},
                    {},
                    std::make_shared<GatherNDKernel>(),
                    {OpId::gatherND, in.dataType, 0}};
  return builder.AddOperator(std::move(node), {{in.dataType, shape}})[0];  // steps 14-16
}

std::vector<Operand> CallGather(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const Operand indices = call.GetOperand(1, "indices");
  const Value& o = call.GetOptions(2);
  MLGatherOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.axis = call.GetUint32Option(o, "axis").value_or(0);
  return {Gather(call.builder(), input, indices, options)};
}

std::vector<Operand> CallGatherElements(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const Operand indices = call.GetOperand(1, "indices");
  const Value& o = call.GetOptions(2);
  MLGatherOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.axis = call.GetUint32Option(o, "axis").value_or(0);
  return {GatherElements(call.builder(), input, indices, options)};
}

std::vector<Operand> CallGatherND(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const Operand indices = call.GetOperand(1, "indices");
  return {GatherND(call.builder(), input, indices, call.GetOperatorOptions(call.GetOptions(2)))};
}

}  // namespace nnref
