// scatterElements, scatterND — WebNN §api-mlgraphbuilder-scatterelements,
// §api-mlgraphbuilder-scatternd.
//
// Numerics: none; the output is a copy of the input with some elements replaced by update
// elements (exact for every data type). Indices may be int32, uint32 or int64; a negative index
// counts from the end of its dimension.
// What the spec leaves open, marked implementation-defined:
//  - Duplicate targets. The spec says only "Scatter values from the updates tensor atop a copy of
//    the input tensor" and gives no order. The updates are applied in row-major order of the
//    indices (the last one wins); an output element written by two or more updates whose values
//    differ (bit patterns) is marked. Equal values give the same result in any order: not marked.
//  - Out-of-range indices (ops/index_common.h): the update is written at the clamped position.
//    Where an implementation puts it is open, so scatterElements marks the whole line along
//    `axis` through that position, and scatterND marks the whole output (any component of the
//    coordinate tuple may be the wrong one).
// Latitude: an element keeps the code of the input element or of the last update written to it
// (kOneOf becomes kAny); when the indices carry latitude every output element is marked.
#include <algorithm>
#include <cstring>
#include <string>

#include "ops/conv_common.h"
#include "ops/elementwise.h"
#include "ops/index_common.h"
#include "ops/indexing.h"

namespace nnref {

// §tensor-limits-scatterelements ("same rank as input" for indices and updates is checked by the
// method).
const OpLimits kScatterElementsLimits = {{{"input", DataTypeSet::All(), "", 1, kMaxRankAny},
                                          {"indices", kIndexTypes, "", 1, kMaxRankAny},
                                          {"updates", {}, "input", 1, kMaxRankAny},
                                          {"output", {}, "input", 1, kMaxRankAny}}};
// §tensor-limits-scatternd
const OpLimits kScatterNDLimits = {{{"input", DataTypeSet::All(), "", 1, kMaxRankAny},
                                    {"indices", kIndexTypes, "", 1, kMaxRankAny},
                                    {"updates", {}, "input", 0, kMaxRankAny},
                                    {"output", {}, "input", 1, kMaxRankAny}}};

namespace {

// The output under construction: a dense copy of the input and its latitude, plus what each
// element has been through.
template <typename T>
struct ScatterTarget {
  enum State : uint8_t { kUntouched, kWritten, kConflict };

  ScatterTarget(const OperandValue& input, const OperandDescriptor& desc)
      : data(Tensor::Allocate(desc.dataType, desc.shape)),
        lat(NewLatitude(desc.shape)),
        dense(ContiguousStrides(desc.shape)),
        state(desc.ElementCount(), kUntouched) {
    const Tensor in_lat = LatitudeView(input);
    const T* src = input.data.base<T>();
    const uint8_t* lsrc = in_lat.base<uint8_t>();
    T* dst = data.base<T>();
    uint8_t* ldst = lat.base<uint8_t>();
    uint64_t k = 0;
    ForEachOffsets<2>(desc.shape, {&input.data.strides(), &in_lat.strides()}, [&](const auto& o) {
      dst[k] = src[o[0]];
      ldst[k] = CarriedCode(lsrc[o[1]]);
      ++k;
    });
  }

  // Writes update value `v` (latitude code `code`) to dense element `e`.
  void Write(int64_t e, T v, uint8_t code) {
    const auto i = static_cast<uint64_t>(e);
    T& slot = data.base<T>()[i];
    if (state[i] != kUntouched && std::memcmp(&slot, &v, sizeof(T)) != 0) state[i] = kConflict;
    if (state[i] == kUntouched) state[i] = kWritten;
    slot = v;
    lat.base<uint8_t>()[i] = CarriedCode(code);
  }

  // Marks the conflicts (and everything when `all`), and returns the output.
  OperandValue Finish(bool all) {
    uint8_t* l = lat.base<uint8_t>();
    for (uint64_t i = 0; i < state.size(); ++i) {
      if (all || state[i] == kConflict) l[i] = kAnyCode;
    }
    return {data, lat};
  }

  Tensor data, lat;
  Strides dense;
  std::vector<uint8_t> state;
};

// output[c with c[axis] = indices[c]] = updates[c], for every c of the indices' shape.
class ScatterElementsKernel final : public Kernel {
 public:
  explicit ScatterElementsKernel(size_t axis) : axis_(axis) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const IndexReader indices(in[1]->data);
    const Tensor& updates = in[2]->data;
    const Tensor upd_lat = LatitudeView(*in[2]);
    const uint64_t axis_size = out[0].shape[axis_];
    return {DispatchDataType(out[0].dataType, [&]<typename T>() {
      ScatterTarget<T> target(*in[0], out[0]);
      // Walk the indices' shape with the output's strides, the axis held at 0.
      Strides walk = target.dense;
      walk[axis_] = 0;
      const int64_t axis_stride = target.dense[axis_];
      const T* upd = updates.template base<T>();
      const uint8_t* lupd = upd_lat.base<uint8_t>();
      std::vector<int64_t> open_lines;  // dense offsets (axis coordinate 0) of lines to mark
      uint64_t k = 0;                   // index (and update) elements in row-major order
      ForEachOffsets<3>(updates.shape(), {&walk, &updates.strides(), &upd_lat.strides()},
                        [&](const auto& o) {
                          const ResolvedIndex r = ResolveIndex(indices[k++], axis_size);
                          if (!r.in_range) open_lines.push_back(o[0]);
                          target.Write(o[0] + static_cast<int64_t>(r.position) * axis_stride,
                                       upd[o[1]], lupd[o[2]]);
                        });
      OperandValue result = target.Finish(in[1]->latitude.valid());
      uint8_t* l = result.latitude.template base<uint8_t>();
      std::sort(open_lines.begin(), open_lines.end());  // each line once: at most every element
      open_lines.erase(std::unique(open_lines.begin(), open_lines.end()), open_lines.end());
      for (int64_t line : open_lines) {
        for (uint64_t a = 0; a < axis_size; ++a) {
          l[line + static_cast<int64_t>(a) * axis_stride] = kAnyCode;
        }
      }
      return result;
    })};
  }

 private:
  size_t axis_;
};

// output[indices[t..., 0], ..., indices[t..., c-1], s...] = updates[t..., s...].
class ScatterNDKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const IndexReader indices(in[1]->data);
    const Shape& index_shape = in[1]->data.shape();
    const size_t c = static_cast<size_t>(index_shape.back());
    const size_t lead_rank = index_shape.size() - 1;
    const Tensor& updates = in[2]->data;
    const Tensor upd_lat = LatitudeView(*in[2]);
    const auto lead_cut = static_cast<std::ptrdiff_t>(lead_rank);
    const Shape lead_shape(index_shape.begin(), index_shape.end() - 1);
    const Strides upd_lead(updates.strides().begin(), updates.strides().begin() + lead_cut);
    const Strides lat_lead(upd_lat.strides().begin(), upd_lat.strides().begin() + lead_cut);
    const Strides upd_slice(updates.strides().begin() + lead_cut, updates.strides().end());
    const Strides lat_slice(upd_lat.strides().begin() + lead_cut, upd_lat.strides().end());
    const Shape slice_shape(out[0].shape.begin() + static_cast<std::ptrdiff_t>(c),
                            out[0].shape.end());
    return {DispatchDataType(out[0].dataType, [&]<typename T>() {
      ScatterTarget<T> target(*in[0], out[0]);
      const Strides out_slice(target.dense.begin() + static_cast<std::ptrdiff_t>(c),
                              target.dense.end());
      const T* upd = updates.template base<T>();
      const uint8_t* lupd = upd_lat.base<uint8_t>();
      bool open = in[1]->latitude.valid();
      uint64_t t = 0;  // coordinate tuples in row-major order
      ForEachOffsets<2>(lead_shape, {&upd_lead, &lat_lead}, [&](const auto& lead) {
        int64_t base = 0;
        for (size_t q = 0; q < c; ++q) {
          const ResolvedIndex r = ResolveIndex(indices[t * c + q], out[0].shape[q]);
          open = open || !r.in_range;
          base += static_cast<int64_t>(r.position) * target.dense[q];
        }
        ++t;
        ForEachOffsets<3>(slice_shape, {&out_slice, &upd_slice, &lat_slice}, [&](const auto& s) {
          target.Write(base + s[0], upd[lead[0] + s[1]], lupd[lead[1] + s[2]]);
        });
      });
      return target.Finish(open);
    })};
  }
};

// The descriptors of a scatter method's operands.
struct ScatterDescriptors {
  OperandDescriptor in, idx, upd;
};

// Steps 1-4 of scatterElements and scatterND: the builder can build, the operands are valid, the
// indices' data type is allowed and updates has the input's data type.
ScatterDescriptors CheckScatterOperands(GraphBuilder& builder, const std::string& name,
                                        const OpLimits& limits, const Operand& input,
                                        const Operand& indices, const Operand& updates) {
  builder.CheckCanBuild(name);                        // step 1
  builder.ValidateOperand(name, "input", input);      // step 2
  builder.ValidateOperand(name, "indices", indices);  //
  builder.ValidateOperand(name, "updates", updates);  //
  ScatterDescriptors d{builder.Desc(input), builder.Desc(indices), builder.Desc(updates)};
  CheckDataType(name, "indices", d.idx.dataType, limits.Find("indices")->types);  // step 3
  CheckSameType(name, "updates", d.upd.dataType, "input", d.in.dataType);         // step 4
  return d;
}

}  // namespace

Operand ScatterElements(GraphBuilder& builder, const Operand& input, const Operand& indices,
                        const Operand& updates, const MLScatterOptions& options) {
  const std::string name = OperatorDisplayName("scatterElements", options);
  const OpLimits& limits = kScatterElementsLimits;
  const auto [in, idx, upd] =
      CheckScatterOperands(builder, name, limits, input, indices, updates);  // steps 1-4
  // Step 5: input ranks 1 to N; indices and updates "same rank as input".
  CheckRank(name, limits, "input", in.shape.size());
  for (const auto& [operand, rank] :
       {std::pair{"indices", idx.shape.size()}, std::pair{"updates", upd.shape.size()}}) {
    if (rank != in.shape.size()) {
      ThrowTypeError(name + ": " + operand + " rank " + Str(rank) +
                     " is not the same as input rank " + Str(in.shape.size()));
    }
  }
  CheckAxis(name, options.axis, in.shape.size());  // steps 6-7
  // Steps 8-10: the indices' shape is the input's except on `axis`.
  Shape expected = in.shape;
  expected[options.axis] = idx.shape[options.axis];
  if (idx.shape != expected) {
    ThrowTypeError(name + ": indices shape " + ShapeToString(idx.shape) + " must be " +
                   ShapeToString(expected) + " (the input's shape except on axis " +
                   Str(options.axis) + ")");
  }
  if (upd.shape != idx.shape) {  // step 11
    ThrowTypeError(name + ": updates shape " + ShapeToString(upd.shape) +
                   " is not the indices' shape " + ShapeToString(idx.shape));
  }
  OperatorNode node{OpId::scatterElements,
                    options.label,
                    {input.id, indices.id, updates.id},
                    {},
                    std::make_shared<ScatterElementsKernel>(options.axis),
                    {OpId::scatterElements, in.dataType, 0}};
  auto attributes = std::make_shared<ScatterAttributes>();
  attributes->axis = options.axis;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {in})[0];  // steps 12-13
}

Operand ScatterND(GraphBuilder& builder, const Operand& input, const Operand& indices,
                  const Operand& updates, const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("scatterND", options);
  const OpLimits& limits = kScatterNDLimits;
  const auto [in, idx, upd] =
      CheckScatterOperands(builder, name, limits, input, indices, updates);  // steps 1-4
  CheckRank(name, limits, "input", in.shape.size());                         // step 5
  CheckRank(name, limits, "indices", idx.shape.size());
  CheckRank(name, limits, "updates", upd.shape.size());
  // Steps 6-10 (coordinateSize at most the input rank), 11-15: updates are the indices' leading
  // axes, then the input's axes from coordinateSize on.
  const Shape expected = GatherNDShape(name, in.shape, idx.shape);
  if (upd.shape != expected) {
    ThrowTypeError(name + ": updates shape " + ShapeToString(upd.shape) + " must be " +
                   ShapeToString(expected));
  }
  // Steps 16-17: the output has the input's shape (the "Returns" text carries gatherND's rank
  // formula; spec-notes #6).
  OperatorNode node{OpId::scatterND,
                    options.label,
                    {input.id, indices.id, updates.id},
                    {},
                    std::make_shared<ScatterNDKernel>(),
                    {OpId::scatterND, in.dataType, 0}};
  return builder.AddOperator(std::move(node), {in})[0];  // steps 18-19
}

std::vector<Operand> CallScatterElements(OpCall& call) {
  call.ExpectAtMost(4);
  const Operand input = call.GetOperand(0, "input");
  const Operand indices = call.GetOperand(1, "indices");
  const Operand updates = call.GetOperand(2, "updates");
  const Value& o = call.GetOptions(3);
  MLScatterOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.axis = call.GetUint32Option(o, "axis").value_or(0);
  return {ScatterElements(call.builder(), input, indices, updates, options)};
}

std::vector<Operand> CallScatterND(OpCall& call) {
  call.ExpectAtMost(4);
  const Operand input = call.GetOperand(0, "input");
  const Operand indices = call.GetOperand(1, "indices");
  const Operand updates = call.GetOperand(2, "updates");
  return {ScatterND(call.builder(), input, indices, updates,
                    call.GetOperatorOptions(call.GetOptions(3)))};
}

}  // namespace nnref
