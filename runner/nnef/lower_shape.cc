// Lowering of the tensor shape operations (NNEF 1.0.2 4.5) onto the WebNN operators reshape,
// transpose, split, concat, slice, pad and tile; pad with a border WebNN's pad cannot read is the
// NNEF operator pad (ops/nnef_window.h).
#include "ops/data_movement.h"
#include "runner/nnef/lower.h"

namespace nnref::nnef {

namespace {

Shape InsertOnes(const Shape& in, std::vector<size_t> axes) {
  std::sort(axes.begin(), axes.end());
  Shape out = in;
  for (size_t a : axes) out.insert(out.begin() + static_cast<std::ptrdiff_t>(a), 1);
  return out;
}

}  // namespace

// 4.5.1
void Executor::Impl::ReshapeOp() {
  const Value x = Arg("input", current->dtype);
  const Shape& xs = S(x);
  const int64_t rank = static_cast<int64_t>(xs.size());
  const int64_t start = Int("axis_start");
  int64_t count = Int("axis_count");
  if (start < 0 || start > rank) Invalid("axis_start is outside [0, rank]");
  if (count == -1) count = rank - start;
  if (count < 0 || start + count > rank) Invalid("axis_count is out of range");
  const std::vector<int64_t> shape = Ints("shape");
  uint64_t volume = 1;
  for (int64_t k = start; k < start + count; ++k) volume *= xs[static_cast<size_t>(k)];
  Shape mid;
  uint64_t known = 1;
  int infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    int64_t e = shape[k];
    if (e == 0) {
      if (static_cast<int64_t>(k) + start >= rank) Invalid("a 0 item has no input extent");
      e = static_cast<int64_t>(xs[static_cast<size_t>(start) + k]);
    }
    if (e == -1) {
      if (infer >= 0) Invalid("shape has more than one -1 item");
      infer = static_cast<int>(k);
      mid.push_back(1);
      continue;
    }
    if (e < 0) Invalid("shape items must be non-negative or -1");
    mid.push_back(static_cast<uint64_t>(e));
    known *= static_cast<uint64_t>(e);
  }
  if (infer >= 0) {
    if (known == 0 || volume % known != 0) {
      Invalid("shape " + ShapeText(shape) + " does not divide the volume " +
              std::to_string(volume));
    }
    mid[static_cast<size_t>(infer)] = volume / known;
  } else if (known != volume) {
    Invalid("shape " + ShapeText(shape) + " has volume " + std::to_string(known) +
            " but the reshaped axes hold " + std::to_string(volume));
  }
  Shape out(xs.begin(), xs.begin() + start);
  out.insert(out.end(), mid.begin(), mid.end());
  out.insert(out.end(), xs.begin() + start + count, xs.end());
  Define(Result(), Reshaped(x, out), x.type);
}

void Executor::Impl::Squeeze() {
  const Value x = Arg("input", current->dtype);
  const std::vector<size_t> axes = AxesArg("axes", S(x).size());
  Shape out;
  for (size_t k = 0; k < S(x).size(); ++k) {
    if (std::find(axes.begin(), axes.end(), k) == axes.end()) {
      out.push_back(S(x)[k]);
    } else if (S(x)[k] != 1) {
      Invalid("axis " + std::to_string(k) + " has extent " + std::to_string(S(x)[k]) + ", not 1");
    }
  }
  Define(Result(), Reshaped(x, out), x.type);
}

void Executor::Impl::Unsqueeze() {
  const Value x = Arg("input", current->dtype);
  const std::vector<size_t> axes = AxesArg("axes", S(x).size() + Ints("axes").size());
  Define(Result(), Reshaped(x, InsertOnes(S(x), axes)), x.type);
}

// 4.5.2
void Executor::Impl::Transpose() {
  const Value x = Arg("input", current->dtype);
  const std::vector<size_t> axes = AxesArg("axes", S(x).size());
  for (size_t k = 0; k < axes.size(); ++k) {
    if (axes[k] >= axes.size()) Invalid("axes must be a permutation of 0..n-1");
  }
  MLTransposeOptions o;
  o.permutation.emplace();  // not `= vector()`: a GCC 12 -O2 sanitizer false positive
  for (size_t a : axes) o.permutation->push_back(static_cast<uint32_t>(a));
  for (size_t k = axes.size(); k < S(x).size(); ++k) {
    o.permutation->push_back(static_cast<uint32_t>(k));
  }
  Define(Result(), Web([&] { return nnref::Transpose(builder, x.operand, o); }), x.type);
}

// 4.5.3
void Executor::Impl::Split() {
  const Value x = Arg("value", current->dtype);
  const size_t axis = AxisArg("axis", S(x).size());
  const std::vector<int64_t> ratios = Ints("ratios");
  int64_t total = 0;
  for (int64_t r : ratios) {
    if (r <= 0) Invalid("ratios must be positive");
    total += r;
  }
  const auto extent = static_cast<int64_t>(S(x)[axis]);
  if (ratios.empty() || extent % total != 0) {
    Invalid("the sum of ratios " + std::to_string(total) + " does not divide the extent " +
            std::to_string(extent));
  }
  const std::vector<std::string> ids = ResultList();
  if (ids.size() != ratios.size()) Invalid("the result count differs from the ratio count");
  std::vector<uint32_t> sizes;
  for (int64_t r : ratios) sizes.push_back(static_cast<uint32_t>(extent / total * r));
  const std::vector<Operand> parts = SplitParts(x, axis, sizes);
  for (size_t k = 0; k < ids.size(); ++k) Define(ids[k], parts[k], x.type);
}

Operand Executor::Impl::ConcatOf(const std::vector<Value>& vs, size_t axis) {
  Shape out = S(vs[0]);
  out[axis] = 0;
  std::vector<Operand> ops;
  for (const Value& v : vs) {
    const Shape& s = S(v);
    if (s.size() != out.size() || v.type != vs[0].type) {
      Invalid("the tensors to concatenate differ in rank or type");
    }
    for (size_t k = 0; k < s.size(); ++k) {
      if (k != axis && s[k] != out[k]) {
        Invalid("shape " + ShapeToString(s) + " differs from " + ShapeToString(S(vs[0])) +
                " outside axis " + std::to_string(axis));
      }
    }
    out[axis] += s[axis];
    ops.push_back(v.operand);
  }
  // WebNN concat takes at most kMaxTensorCount inputs: more are concatenated in chunks.
  const auto a = static_cast<uint32_t>(axis);
  while (ops.size() > data_movement::kMaxTensorCount) {
    std::vector<Operand> chunks;
    for (size_t k = 0; k < ops.size(); k += data_movement::kMaxTensorCount) {
      const std::vector<Operand> chunk(
          ops.begin() + static_cast<std::ptrdiff_t>(k),
          ops.begin() + static_cast<std::ptrdiff_t>(
                            std::min<size_t>(ops.size(), k + data_movement::kMaxTensorCount)));
      chunks.push_back(Web([&] { return nnref::Concat(builder, chunk, a); }));
    }
    ops = std::move(chunks);
  }
  return Web([&] { return nnref::Concat(builder, ops, a); });
}

std::vector<Operand> Executor::Impl::SplitParts(const Value& x, size_t axis,
                                                const std::vector<uint32_t>& sizes) {
  if (sizes.size() <= data_movement::kMaxTensorCount) {
    MLSplitOptions o;
    o.axis = static_cast<uint32_t>(axis);
    return Web([&] { return nnref::Split(builder, x.operand, sizes, o); });
  }
  // More parts than WebNN split makes: one slice each.
  std::vector<Operand> parts;
  std::vector<uint32_t> starts(S(x).size(), 0), extents(S(x).begin(), S(x).end());
  for (uint32_t size : sizes) {
    extents[axis] = size;
    parts.push_back(Web([&] { return nnref::Slice(builder, x.operand, starts, extents); }));
    starts[axis] += size;
  }
  return parts;
}

void Executor::Impl::Concat() {
  const std::vector<Value> vs = TensorList("values");
  const size_t axis = AxisArg("axis", S(vs[0]).size());
  Define(Result(), ConcatOf(vs, axis), vs[0].type);
}

void Executor::Impl::Stack() {
  std::vector<Value> vs = TensorList("values");
  const size_t axis = AxisArg("axis", S(vs[0]).size() + 1);
  for (Value& v : vs) {
    if (S(v) != S(vs[0])) Invalid("the tensors to stack differ in shape");
  }
  for (Value& v : vs) v.operand = Reshaped(v, InsertOnes(S(v), {axis}));
  Define(Result(), ConcatOf(vs, axis), vs[0].type);
}

void Executor::Impl::Unstack() {
  const Value x = Arg("value", current->dtype);
  const size_t axis = AxisArg("axis", S(x).size());
  const std::vector<std::string> ids = ResultList();
  const uint64_t n = S(x)[axis];
  if (ids.size() != n) Invalid("the result count differs from the extent of the axis");
  Shape squeezed = S(x);
  squeezed.erase(squeezed.begin() + static_cast<std::ptrdiff_t>(axis));
  const std::vector<Operand> parts = SplitParts(x, axis, std::vector<uint32_t>(n, 1));
  for (size_t k = 0; k < ids.size(); ++k) {
    Define(ids[k], Reshaped({parts[k], x.type}, squeezed), x.type);
  }
}

// 4.5.4
void Executor::Impl::SliceOp() {
  const Value x = Arg("input", current->dtype);
  const Shape& xs = S(x);
  const std::vector<size_t> axes = AxesArg("axes", xs.size());
  const std::vector<int64_t> begin = Ints("begin"), end = Ints("end");
  if (begin.size() != axes.size() || end.size() != axes.size()) {
    Invalid("axes, begin and end must have the same length");
  }
  std::vector<uint32_t> starts(xs.size(), 0), sizes(xs.begin(), xs.end());
  for (size_t k = 0; k < axes.size(); ++k) {
    const auto extent = static_cast<int64_t>(xs[axes[k]]);
    // Negative items count from the end; end = 0 means the extent.
    const int64_t b = begin[k] < 0 ? begin[k] + extent : begin[k];
    const int64_t e = end[k] <= 0 ? end[k] + extent : end[k];
    if (b < 0 || b >= extent || e <= b || e > extent) {
      Invalid("axis " + std::to_string(axes[k]) + ": begin " + std::to_string(begin[k]) +
              " and end " + std::to_string(end[k]) +
              " do not select a non-empty range of "
              "extent " +
              std::to_string(extent));
    }
    starts[axes[k]] = static_cast<uint32_t>(b);
    sizes[axes[k]] = static_cast<uint32_t>(e - b);
  }
  Define(Result(), Web([&] { return nnref::Slice(builder, x.operand, starts, sizes); }), x.type);
}

// 4.5.5
void Executor::Impl::Pad() {
  const Value x = Arg("input");
  const Shape& xs = S(x);
  std::vector<std::pair<int64_t, int64_t>> padding = Pairs("padding");
  if (padding.size() > xs.size()) Invalid("padding has more items than the rank");
  // Fewer items than the rank pad the trailing axes (as a window's size does).
  padding.insert(padding.begin(), xs.size() - padding.size(), {0, 0});
  Border border = BorderArg({Border::kIgnore, Border::kConstant, Border::kReplicate,
                             Border::kReflect, Border::kReflectEven});
  if (border == Border::kIgnore) border = Border::kConstant;
  const float value = ScalarOf(A("value"));
  for (size_t k = 0; k < xs.size(); ++k) {
    const int64_t e = static_cast<int64_t>(xs[k]) + padding[k].first + padding[k].second;
    if (e <= 0) Invalid("axis " + std::to_string(k) + " would have extent " + std::to_string(e));
  }
  // WebNN where it reads the same: negative padding crops first (slice), then pad with the
  // translated mode (WebnnPaddingMode). WebNN has no 'reflect-even', and its reflection stops
  // one extent away (the NNEF reading continues periodically): the NNEF operator pad then.
  const std::optional<MLPaddingMode> mode = WebnnPaddingMode(border);
  bool webnn = mode.has_value(), crop = false;
  std::vector<uint32_t> starts, sizes, begin, end;
  for (size_t k = 0; k < xs.size(); ++k) {
    const auto [p, q] = padding[k];
    const int64_t kept =
        static_cast<int64_t>(xs[k]) + std::min<int64_t>(p, 0) + std::min<int64_t>(q, 0);
    if (kept <= 0) {
      webnn = false;
      break;
    }
    crop = crop || p < 0 || q < 0;
    starts.push_back(static_cast<uint32_t>(std::max<int64_t>(-p, 0)));
    sizes.push_back(static_cast<uint32_t>(kept));
    begin.push_back(static_cast<uint32_t>(std::max<int64_t>(p, 0)));
    end.push_back(static_cast<uint32_t>(std::max<int64_t>(q, 0)));
    if (mode == MLPaddingMode::kReflection && (begin.back() >= kept || end.back() >= kept)) {
      webnn = false;
    }
  }
  Operand result{};
  if (webnn) {
    result = x.operand;
    if (crop) result = Web([&] { return nnref::Slice(builder, result, starts, sizes); });
    MLPadOptions o;
    o.mode = *mode;
    o.value = MLNumber::FromDouble(static_cast<double>(value));
    result = Web([&] { return nnref::Pad(builder, result, begin, end, o); });
  } else {
    NnefPadAttributes a;
    a.padding = padding;
    a.border = border;
    a.value = value;
    result = Web([&] { return NnefPad(builder, x.operand, a); });
  }
  Define(Result(), result, TensorType::kScalar);
}

// 4.5.6
void Executor::Impl::TileOp() {
  const Value x = Arg("input", current->dtype);
  const std::vector<int64_t> repeats = Ints("repeats");
  if (repeats.size() != S(x).size()) Invalid("repeats must have one item per axis");
  std::vector<uint32_t> r;
  for (int64_t e : repeats) {
    if (e <= 0) Invalid("repeats must be positive");
    r.push_back(static_cast<uint32_t>(e));
  }
  Define(Result(), Web([&] { return nnref::Tile(builder, x.operand, r); }), x.type);
}

}  // namespace nnref::nnef
