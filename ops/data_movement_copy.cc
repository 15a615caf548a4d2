// concat, pad, tile and triangular — WebNN §api-mlgraphbuilder-concat, §api-mlgraphbuilder-pad,
// §api-mlgraphbuilder-tile, §api-mlgraphbuilder-triangular.
//
// Numerics: none. Each output element is a copy of one input element, pad's constant (the spec's
// MLNumber cast to the input type once, when the operator is built; numerics/cast.h CastNumber),
// or triangular's zero. Results are exact in every data type (0 ULP). Each kernel is one template
// over the storage type that walks the input's strides (any view: transposed, broadcast,
// reversed) and writes a dense output. Latitude: the same template runs over the inputs' uint8
// latitude tensors (an input without marks counts as all exact), so a mark follows its element,
// and padding and triangular's zeros are exact.
#include <cmath>
#include <cstring>
#include <utility>

#include "ops/data_movement.h"
#include "ops/elementwise.h"

namespace nnref {

namespace {

constexpr DataTypeSet kAny = DataTypeSet::All();

}  // namespace

const OpLimits kConcatLimits = {
    {{"inputs", kAny, "", 1, kMaxRankAny}, {"output", {}, "inputs", 1, kMaxRankAny}}};
const OpLimits kPadLimits = {
    {{"input", kAny, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
const OpLimits kTileLimits = {
    {{"input", kAny, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
const OpLimits kTriangularLimits = {
    {{"input", kAny, "", 2, kMaxRankAny}, {"output", {}, "input", 2, kMaxRankAny}}};

namespace {

using data_movement::CheckAllowedRank;
using data_movement::kMaxDimension;
using data_movement::kMaxTensorCount;
using data_movement::ListToString;

// dst[i] = src[i] for two views of the same shape: rows of the merged axes (MapElements' row
// plan), copied with memcpy where both are dense, over the reference's threads.
template <typename T>
void CopyElements(const Tensor& src, const Tensor& dst) {
  using namespace elementwise_detail;
  if (src.element_count() == 0) return;
  const T* from = src.base<T>();
  T* to = dst.base<T>();
  const RowPlan<2> plan = MakeRowPlan<2>(src.shape(), {&src.strides(), &dst.strides()});
  const uint64_t row = plan.row;
  const int64_t s_from = plan.row_stride[0], s_to = plan.row_stride[1];
  ParallelFor(plan.rows, RowGrain(row), [&](size_t begin, size_t end) {
    ForRows(plan, begin, end, [&](const std::array<int64_t, 2>& off) {
      if (s_from == 1 && s_to == 1) {
        std::memcpy(to + off[1], from + off[0], row * sizeof(T));
      } else {
        for (uint64_t i = 0; i < row; ++i) {
          const auto k = static_cast<int64_t>(i);
          to[off[1] + k * s_to] = from[off[0] + k * s_from];
        }
      }
    });
  });
}

// An operand's latitude marks, or an all-exact (stride-0) view when it carries none.
Tensor MarksOf(const OperandValue& v) {
  if (v.latitude.valid()) return v.latitude;
  return NewLatitude({}).BroadcastTo(v.data.shape());
}

bool AnyMarks(std::span<const OperandValue* const> in) {
  for (const OperandValue* v : in) {
    if (v->latitude.valid()) return true;
  }
  return false;
}

// Runs fill<T>(input tensors, output, false) for the data (T = the storage type) and, when an
// input carries marks, fill<uint8_t>(latitude tensors, output latitude, true).
template <typename Fill>
OperandValue Produce(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                     const Fill& fill) {
  OperandValue result;
  result.data = Tensor::Allocate(out.dataType, out.shape);
  std::vector<Tensor> data;
  for (const OperandValue* v : in) data.push_back(v->data);
  DispatchDataType(out.dataType, [&]<typename T>() {
    fill.template operator()<T>(data, result.data, false);
    return 0;
  });
  if (AnyMarks(in)) {
    std::vector<Tensor> marks;
    for (const OperandValue* v : in) marks.push_back(MarksOf(*v));
    result.latitude = NewLatitude(out.shape);
    fill.template operator()<uint8_t>(marks, result.latitude, true);
  }
  return result;
}

// Each input is copied into the output region that starts where the previous one ended along
// the axis.
class ConcatKernel final : public Kernel {
 public:
  explicit ConcatKernel(size_t axis) : axis_(axis) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const size_t axis = axis_;
    return {Produce(in, out[0],
                    [axis]<typename T>(const std::vector<Tensor>& parts, Tensor& dst, bool) {
                      const size_t rank = dst.rank();
                      std::vector<uint64_t> starts(rank, 0);
                      const std::vector<uint64_t> steps(rank, 1);
                      for (const Tensor& part : parts) {
                        CopyElements<T>(part, dst.Slice(starts, part.shape(), steps));
                        starts[axis] += part.shape()[axis];
                      }
                    })};
  }

 private:
  size_t axis_;
};

// Output index i along axis a reads input index i - beginningPadding[a] when that lies in the
// input; otherwise the mode decides: constant (the value), edge (the nearest input index) or
// reflection (mirrored about the first/last index, which is not repeated). The builder limits
// reflection padding to size - 1 on either side, so one mirror is enough.
class PadKernel final : public Kernel {
 public:
  PadKernel(std::vector<uint64_t> beginning, MLPaddingMode mode, Tensor value)
      : beginning_(std::move(beginning)), mode_(mode), value_(std::move(value)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const std::vector<std::vector<int64_t>> source = SourceIndices(in[0]->data.shape(), out[0]);
    const Tensor& value = value_;
    return {
        Produce(in, out[0], [&]<typename T>(const std::vector<Tensor>& x, Tensor& dst, bool marks) {
          // The data's constant is the cast value; in the latitude tensor padding is exact (0).
          const T constant = marks ? T{} : *value.base<T>();
          PadInto<T>(x[0], source, constant, dst);
        })};
  }

 private:
  // source[a][i]: the input index that output index i of axis a reads, or -1 for the constant.
  std::vector<std::vector<int64_t>> SourceIndices(const Shape& in_shape,
                                                  const OperandDescriptor& out) const {
    std::vector<std::vector<int64_t>> source(in_shape.size());
    for (size_t a = 0; a < in_shape.size(); ++a) {
      const auto size = static_cast<int64_t>(in_shape[a]);
      const auto begin = static_cast<int64_t>(beginning_[a]);
      for (uint64_t i = 0; i < out.shape[a]; ++i) {
        const int64_t j = static_cast<int64_t>(i) - begin;
        int64_t s = j;
        if (j < 0 || j >= size) {
          switch (mode_) {
            case MLPaddingMode::kConstant:
              s = -1;
              break;
            case MLPaddingMode::kEdge:
              s = j < 0 ? 0 : size - 1;
              break;
            case MLPaddingMode::kReflection:
              s = j < 0 ? -j : 2 * (size - 1) - j;
              break;
          }
        }
        source[a].push_back(s);
      }
    }
    return source;
  }

  template <typename T>
  static void PadInto(const Tensor& x, const std::vector<std::vector<int64_t>>& source, T constant,
                      Tensor& dst) {
    const size_t rank = dst.rank();
    const T* src = x.base<T>();
    T* out = dst.base<T>();  // dense, written in row-major order
    const uint64_t count = dst.element_count();
    std::vector<uint64_t> index(rank, 0);
    for (uint64_t k = 0; k < count; ++k) {
      int64_t offset = 0;
      bool padded = false;
      for (size_t a = 0; a < rank && !padded; ++a) {
        const int64_t s = source[a][index[a]];
        padded = s < 0;
        offset += s * x.strides()[a];
      }
      out[k] = padded ? constant : src[offset];
      for (size_t a = rank; a-- > 0;) {  // next row-major index
        if (++index[a] < dst.shape()[a]) break;
        index[a] = 0;
      }
    }
  }

  std::vector<uint64_t> beginning_;
  MLPaddingMode mode_;
  Tensor value_;  // 0-d, the input's data type
};

// The output, viewed with shape [r0, n0, r1, n1, ...] (r = repetitions, n = input sizes), is
// row-major the same as the tiled tensor: copy the input into it with stride 0 along each r.
class TileKernel final : public Kernel {
 public:
  explicit TileKernel(Shape repetitions) : repetitions_(std::move(repetitions)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& repetitions = repetitions_;
    return {Produce(in, out[0], [&]<typename T>(const std::vector<Tensor>& x, Tensor& dst, bool) {
      Shape interleaved;
      Strides source;
      for (size_t a = 0; a < x[0].rank(); ++a) {
        interleaved.push_back(repetitions[a]);
        source.push_back(0);
        interleaved.push_back(x[0].shape()[a]);
        source.push_back(x[0].strides()[a]);
      }
      const Tensor from(x[0].dtype(), interleaved, source, x[0].offset(), x[0].buffer());
      CopyElements<T>(from, dst.Reshape(interleaved));  // dst is dense: Reshape is a view
    })};
  }

 private:
  Shape repetitions_;
};

// Element (i, j) of each matrix (the last two axes) is kept when j - i >= diagonal (upper) or
// j - i <= diagonal (lower), else it is zero.
class TriangularKernel final : public Kernel {
 public:
  TriangularKernel(bool upper, int64_t diagonal) : upper_(upper), diagonal_(diagonal) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const bool upper = upper_;
    const int64_t diagonal = diagonal_;
    return {Produce(in, out[0], [&]<typename T>(const std::vector<Tensor>& x, Tensor& dst, bool) {
      const Tensor& input = x[0];
      const size_t rank = input.rank();
      const Shape batch(input.shape().begin(), input.shape().end() - 2);
      const Strides in_batch(input.strides().begin(), input.strides().end() - 2);
      const Strides out_batch(dst.strides().begin(), dst.strides().end() - 2);
      const auto rows = static_cast<int64_t>(input.shape()[rank - 2]);
      const auto cols = static_cast<int64_t>(input.shape()[rank - 1]);
      const int64_t in_row_stride = input.strides()[rank - 2];
      const int64_t in_col_stride = input.strides()[rank - 1];
      const int64_t out_row_stride = dst.strides()[rank - 2];
      const int64_t out_col_stride = dst.strides()[rank - 1];
      const T* src = input.base<T>();
      T* to = dst.base<T>();
      ForEachOffsets<2>(batch, {&in_batch, &out_batch}, [&](const std::array<int64_t, 2>& off) {
        for (int64_t row = 0; row < rows; ++row) {
          for (int64_t col = 0; col < cols; ++col) {
            const int64_t offset_from_diagonal = col - row;
            const bool keep =
                upper ? offset_from_diagonal >= diagonal : offset_from_diagonal <= diagonal;
            to[off[1] + row * out_row_stride + col * out_col_stride] =
                keep ? src[off[0] + row * in_row_stride + col * in_col_stride] : T{};
          }
        }
      });
    })};
  }

 private:
  bool upper_;
  int64_t diagonal_;
};

const char* ModeName(MLPaddingMode mode) {
  switch (mode) {
    case MLPaddingMode::kConstant:
      return "constant";
    case MLPaddingMode::kEdge:
      return "edge";
    case MLPaddingMode::kReflection:
      return "reflection";
  }
  return "?";
}

}  // namespace

Operand Concat(GraphBuilder& builder, const std::vector<Operand>& inputs, uint32_t axis,
               const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("concat", options);
  builder.CheckCanBuild(name);                  // step 1
  for (size_t i = 0; i < inputs.size(); ++i) {  // step 2
    const std::string argument = "inputs[" + std::to_string(i) + "]";
    builder.ValidateOperand(name, argument.c_str(), inputs[i]);
  }
  if (inputs.empty() || inputs.size() > kMaxTensorCount) {  // step 3
    ThrowTypeError(name + ": " + std::to_string(inputs.size()) +
                   " inputs is not a valid tensor count (1 to 8192)");
  }
  const OperandDescriptor first = builder.Desc(inputs[0]);  // step 4
  const size_t rank = first.shape.size();
  if (axis >= rank) {  // step 5
    ThrowTypeError(name + ": axis " + std::to_string(axis) + " is out of range for the rank " +
                   std::to_string(rank) + " of inputs[0]");
  }
  OperandDescriptor desc = first;  // steps 6-7
  std::vector<OperandId> ids{inputs[0].id};
  for (size_t index = 1; index < inputs.size(); ++index) {  // step 8
    const OperandDescriptor& input = builder.Desc(inputs[index]);
    const std::string which = "inputs[" + std::to_string(index) + "]";
    if (input.dataType != first.dataType) {  // step 8.2
      ThrowTypeError(name + ": " + which + " is " + std::string(DataTypeName(input.dataType)) +
                     " but inputs[0] is " + std::string(DataTypeName(first.dataType)));
    }
    if (input.shape.size() != rank) {  // step 8.3
      ThrowTypeError(name + ": " + which + " has rank " + std::to_string(input.shape.size()) +
                     " but inputs[0] has rank " + std::to_string(rank));
    }
    for (size_t dim = 0; dim < rank; ++dim) {                     // step 8.4
      if (dim != axis && input.shape[dim] != first.shape[dim]) {  // step 8.4.1
        ThrowTypeError(name + ": " + which + " has shape " + ShapeToString(input.shape) +
                       ", which differs from inputs[0]'s " + ShapeToString(first.shape) +
                       " on axis " + std::to_string(dim) + " (not the concatenation axis)");
      }
      if (dim == axis) {                                            // step 8.4.2
        const uint64_t size = desc.shape[axis] + input.shape[dim];  // both below 2^32
        if (size > kMaxDimension) {
          ThrowTypeError(name + ": the size along axis " + std::to_string(axis) + " reaches " +
                         std::to_string(size) + " at " + which +
                         ", not a valid dimension (at most 2147483647)");
        }
        desc.shape[axis] = size;
      }
    }
    ids.push_back(inputs[index].id);
  }
  OperatorNode node{OpId::concat,
                    options.label,
                    std::move(ids),
                    {},
                    std::make_shared<ConcatKernel>(axis),
                    {OpId::concat, first.dataType, 0}};
  auto attributes = std::make_shared<ConcatAttributes>();
  attributes->axis = axis;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {desc})[0];  // step 9
}

Operand Pad(GraphBuilder& builder, const Operand& input,
            const std::vector<uint32_t>& beginningPadding,
            const std::vector<uint32_t>& endingPadding, const MLPadOptions& options) {
  const std::string name = OperatorDisplayName("pad", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  const size_t rank = d.shape.size();
  if (beginningPadding.size() != rank || endingPadding.size() != rank) {  // step 3
    ThrowTypeError(name + ": beginningPadding " + ListToString(beginningPadding) +
                   " and endingPadding " + ListToString(endingPadding) +
                   " must both have the input's rank " + std::to_string(rank) + " values");
  }
  Shape shape = d.shape;                               // steps 4-5
  for (size_t index = 0; index < rank; ++index) {      // step 6
    if (options.mode == MLPaddingMode::kReflection) {  // step 6.1
      // A reflection repeats neither edge element, so at most size - 1 values fit on each side.
      const char* sides[2] = {"beginningPadding", "endingPadding"};
      const uint32_t amounts[2] = {beginningPadding[index], endingPadding[index]};
      for (int side = 0; side < 2; ++side) {
        if (amounts[side] >= shape[index]) {
          ThrowTypeError(name + ": reflection " + sides[side] + "[" + std::to_string(index) +
                         "] = " + std::to_string(amounts[side]) +
                         " is not less than the input size " + std::to_string(shape[index]) +
                         " on that axis");
        }
      }
    }
    shape[index] += uint64_t{beginningPadding[index]} + endingPadding[index];  // steps 6.2-6.3
  }
  for (size_t index = 0; index < rank; ++index) {  // step 7
    if (shape[index] > kMaxDimension) {
      ThrowTypeError(name + ": output size " + std::to_string(shape[index]) + " on axis " +
                     std::to_string(index) + " is not a valid dimension (at most 2147483647)");
    }
  }
  Tensor value = Tensor::Allocate(d.dataType, {});  // step 8: cast the MLNumber once
  DispatchDataType(d.dataType, [&]<typename T>() {
    *value.base<T>() = CastNumber<T>(options.value);
    return 0;
  });
  auto attributes = std::make_shared<PadAttributes>();
  attributes->beginningPadding.assign(beginningPadding.begin(), beginningPadding.end());
  attributes->endingPadding.assign(endingPadding.begin(), endingPadding.end());
  attributes->mode = options.mode;
  attributes->value = value;
  OperatorNode node{OpId::pad,
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<PadKernel>(
                        std::vector<uint64_t>(beginningPadding.begin(), beginningPadding.end()),
                        options.mode, std::move(value)),
                    {OpId::pad, d.dataType, 0}};
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{d.dataType, shape}})[0];  // steps 9-11
}

Operand Tile(GraphBuilder& builder, const Operand& input, const std::vector<uint32_t>& repetitions,
             const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("tile", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  if (repetitions.size() != d.shape.size()) {  // step 3
    ThrowTypeError(name + ": repetitions " + ListToString(repetitions) + " has " +
                   std::to_string(repetitions.size()) + " values but the input rank is " +
                   std::to_string(d.shape.size()));
  }
  for (size_t i = 0; i < repetitions.size(); ++i) {  // step 4
    if (repetitions[i] == 0) {
      ThrowTypeError(name + ": repetitions[" + std::to_string(i) + "] is 0");
    }
  }
  // Steps 5-6. Each product is below 2^31 * 2^32 (no overflow); AddOperator rejects an output
  // dimension or element count that is not valid.
  Shape shape = d.shape;
  for (size_t i = 0; i < shape.size(); ++i) shape[i] *= repetitions[i];
  OperatorNode node{OpId::tile,
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<TileKernel>(Shape(repetitions.begin(), repetitions.end())),
                    {OpId::tile, d.dataType, 0}};
  auto attributes = std::make_shared<TileAttributes>();
  attributes->repetitions.assign(repetitions.begin(), repetitions.end());
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{d.dataType, shape}})[0];  // steps 7-8
}

Operand Triangular(GraphBuilder& builder, const Operand& input,
                   const MLTriangularOptions& options) {
  const std::string name = OperatorDisplayName("triangular", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  CheckAllowedRank(name, "input", d.shape.size(), *kTriangularLimits.Find("input"));  // step 3
  OperatorNode node{OpId::triangular,
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<TriangularKernel>(options.upper, options.diagonal),
                    {OpId::triangular, d.dataType, 0}};
  auto attributes = std::make_shared<TriangularAttributes>();
  attributes->upper = options.upper;
  attributes->diagonal = options.diagonal;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {d})[0];  // step 4
}

std::vector<Operand> CallConcat(OpCall& call) {
  call.ExpectAtMost(3);
  const std::vector<Operand> inputs = call.GetOperandList(0, "inputs");
  const uint32_t axis = call.GetUint32(1, "axis");
  return {Concat(call.builder(), inputs, axis, call.GetOperatorOptions(call.GetOptions(2)))};
}

std::vector<Operand> CallPad(OpCall& call) {
  call.ExpectAtMost(4);
  const Operand input = call.GetOperand(0, "input");
  const std::vector<uint32_t> beginning = call.GetUint32List(1, "beginningPadding");
  const std::vector<uint32_t> ending = call.GetUint32List(2, "endingPadding");
  const Value& o = call.GetOptions(3);
  MLPadOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  const auto mode = call.GetEnumOption(o, "mode", {"constant", "edge", "reflection"});
  for (MLPaddingMode m :
       {MLPaddingMode::kConstant, MLPaddingMode::kEdge, MLPaddingMode::kReflection}) {
    if (mode && *mode == ModeName(m)) options.mode = m;
  }
  options.value = call.GetNumberOption(o, "value").value_or(MLNumber::FromDouble(0));
  return {Pad(call.builder(), input, beginning, ending, options)};
}

std::vector<Operand> CallTile(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  // sequence<unsigned long> without [EnforceRange]: WebIDL takes each value modulo 2^32
  // (4294967298 -> 2; 4294967296 -> 0, which step 4 rejects).
  const std::vector<uint32_t> repetitions =
      call.GetUint32List(1, "repetitions", /*enforce_range=*/false);
  return {Tile(call.builder(), input, repetitions, call.GetOperatorOptions(call.GetOptions(2)))};
}

std::vector<Operand> CallTriangular(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLTriangularOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.upper = call.GetBoolOption(o, "upper").value_or(true);
  if (const auto diagonal = call.GetDoubleOption(o, "diagonal")) {
    // [EnforceRange] long (WebIDL ConvertToInt): NaN and ±Infinity throw, the integer part is
    // taken, and a value outside [-2^31, 2^31 - 1] throws.
    const double v = std::trunc(*diagonal);
    if (!std::isfinite(v) || v < -2147483648.0 || v > 2147483647.0) {
      ThrowTypeError(call.op() + ": options.diagonal = " + std::to_string(*diagonal) +
                     " is not a long ([EnforceRange])");
    }
    options.diagonal = static_cast<int32_t>(v);
  }
  return {Triangular(call.builder(), input, options)};
}

}  // namespace nnref
