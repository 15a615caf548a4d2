#include "runner/nnef/shapes.h"

#include <algorithm>
#include <map>
#include <set>

#include "ops/nnef_resample.h"

namespace nnref::nnef {
namespace {

std::string Str(const Extents& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

[[noreturn]] void Bad(std::string msg, std::string rule) {
  throw ArgumentError{std::move(msg), std::move(rule)};
}

int64_t Mul(int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) Bad(std::string(what) + " overflows 64 bits", "4.3");
  return r;
}
int64_t Add(int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) Bad(std::string(what) + " overflows 64 bits", "4.3");
  return r;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

// Reads the arguments of one primitive invocation.
class Args {
 public:
  Args(const std::vector<NamedValue>& args, const ShapeLookup& lookup)
      : args_(args), lookup_(lookup) {}

  const ArgValue& Get(std::string_view name) const {
    for (const NamedValue& a : args_) {
      if (a.name == name) return a.value;
    }
    Bad("internal: missing argument '" + std::string(name) + "'", "4");
  }
  int64_t Int(std::string_view name) const { return Get(name).i; }
  bool Bool(std::string_view name) const { return Get(name).b; }
  const std::string& String(std::string_view name) const { return Get(name).str; }
  Extents Ints(std::string_view name) const {
    Extents r;
    for (const ArgValue& v : Get(name).items) r.push_back(v.i);
    return r;
  }
  std::vector<std::pair<int64_t, int64_t>> Pairs(std::string_view name) const {
    std::vector<std::pair<int64_t, int64_t>> r;
    for (const ArgValue& v : Get(name).items) r.emplace_back(v.items[0].i, v.items[1].i);
    return r;
  }
  // nullptr when unknown.
  const Extents* Shape(std::string_view name) const { return ShapeOf(Get(name)); }
  const Extents* ShapeOf(const ArgValue& v) const {
    static const Extents kEmpty;
    if (v.kind != ArgValue::Kind::kTensor) return &kEmpty;
    return lookup_(v);
  }
  bool AnyUnknown() const {
    for (const NamedValue& a : args_) {
      if (Unknown(a.value)) return true;
    }
    return false;
  }

 private:
  bool Unknown(const ArgValue& v) const {
    if (v.kind == ArgValue::Kind::kTensor) return lookup_(v) == nullptr;
    for (const ArgValue& i : v.items) {
      if (Unknown(i)) return true;
    }
    return false;
  }

  const std::vector<NamedValue>& args_;
  const ShapeLookup& lookup_;
};

void CheckPositive(const Extents& s, const std::string& what, const std::string& rule) {
  for (int64_t v : s) {
    if (v <= 0) Bad("items of " + what + " must be strictly positive, got " + Str(s), rule);
  }
}

void CheckBorder(const std::string& border, std::initializer_list<Border> allowed,
                 const std::string& rule) {
  const std::optional<Border> b = ParseBorder(border);
  std::string list;
  for (Border a : allowed) {
    if (b == a) return;
    list += (list.empty() ? "'" : ", '") + std::string(BorderName(a)) + "'";
  }
  Bad("border '" + border + "' is not one of " + list, rule);
}

const std::initializer_list<Border> kBorders4 = {Border::kConstant, Border::kReplicate,
                                                 Border::kReflect, Border::kReflectEven};
const std::initializer_list<Border> kBorders5 = {
    Border::kIgnore, Border::kConstant, Border::kReplicate, Border::kReflect, Border::kReflectEven};

// Common sliding-window parameter lists (4.3): each of padding/stride/dilation has `n` items or
// none.
struct Window {
  std::vector<std::pair<int64_t, int64_t>> padding;
  Extents stride, dilation;
};

Window ReadWindow(const Args& a, size_t n, const std::string& rule, bool has_dilation = true) {
  Window w;
  w.padding = a.Pairs("padding");
  w.stride = a.Ints("stride");
  if (has_dilation) w.dilation = a.Ints("dilation");
  auto len = [&](size_t got, const char* what) {
    if (got != 0 && got != n) {
      Bad(std::string("the length of ") + what + " must be " + std::to_string(n) + " or 0, got " +
              std::to_string(got),
          rule);
    }
  };
  len(w.padding.size(), "padding");
  len(w.stride.size(), "stride");
  len(w.dilation.size(), "dilation");
  CheckPositive(w.stride, "stride",
                "4.3 Argument validity: items in stride must be strictly "
                "positive");
  CheckPositive(w.dilation, "dilation",
                "4.3 Argument validity: items in dilation must be "
                "strictly positive");
  return w;
}

// Resolves axes [first, first + sizes.size()) of `in`.
Extents WindowShape(const Extents& in, size_t first, const Extents& sizes, const Window& w,
                    bool reverse, const Extents& output_shape) {
  Extents out = in;
  for (size_t k = 0; k < sizes.size(); ++k) {
    size_t axis = first + k;
    std::optional<std::pair<int64_t, int64_t>> pad;
    if (!w.padding.empty()) pad = w.padding[k];
    std::optional<int64_t> oe;
    if (!output_shape.empty()) oe = output_shape[axis];
    ResolvedWindowAxis ax =
        ResolveWindowAxis(in[axis], sizes[k], w.stride.empty() ? 1 : w.stride[k],
                          w.dilation.empty() ? 1 : w.dilation[k], pad, reverse, oe);
    out[axis] = reverse ? ax.up : ax.down;
  }
  return out;
}

// multilinear_upsample and roi_resample: the method must be one of the three of 4.3.4.
void CheckMethod(const std::string& method, const std::string& rule) {
  if (!ParseUpsampleMethod(method)) {
    Bad("method '" + method + "' is not one of 'asymmetric', 'symmetric', 'aligned'", rule);
  }
}

void CheckOutputShapeLength(const Extents& output_shape, size_t rank, const std::string& rule) {
  if (!output_shape.empty() && output_shape.size() != rank) {
    Bad("the length of output_shape must equal the rank of input (" + std::to_string(rank) +
            ") or 0, got " + std::to_string(output_shape.size()),
        rule);
  }
  CheckPositive(output_shape, "output_shape", rule);
}

void CheckAxes(const Extents& axes, size_t rank, const std::string& what, const std::string& rule,
               bool unique = true) {
  std::set<int64_t> seen;
  for (int64_t a : axes) {
    if (a < 0 || a >= static_cast<int64_t>(rank)) {
      Bad(what + " item " + std::to_string(a) + " is out of range [0, " + std::to_string(rank) +
              ")",
          rule);
    }
    if (unique && !seen.insert(a).second) {
      Bad(what + " item " + std::to_string(a) + " is repeated", rule);
    }
  }
}

InferredShapes One(Extents s) {
  InferredShapes r;
  r.results.push_back({std::move(s)});
  return r;
}

// ---- the rules, one function per family ----

InferredShapes Introduce(NnefOp op, const Args& a, const ShapeLimits& lim) {
  const std::string rule = NnefRule(op);
  Extents shape = a.Ints("shape");
  CheckPositive(shape, "shape", rule + ": items in shape must be strictly positive");
  int64_t volume = CheckedVolume(shape, lim.max_volume);
  if (op == NnefOp::kConstant) {
    size_t n = a.Get("value").items.size();
    if (static_cast<int64_t>(n) != volume && n != 1) {
      Bad("value has " + std::to_string(n) + " items; it needs " + std::to_string(volume) +
              " (the volume of " + Str(shape) + ") or 1",
          rule + ": the length of value must equal the volume implied by shape or must be 1");
    }
  }
  if (op == NnefOp::kVariable) {
    const std::string& label = a.String("label");
    if (label.empty()) Bad("label must not be empty", rule);
    for (char c : label) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-' || c == '.' || c == '/' || c == '\\';
      if (!ok) {
        Bad("label '" + label + "' contains '" + std::string(1, c) +
                "'; labels may only contain [a-z], [A-Z], [0-9], _, -, ., /, \\",
            rule);
      }
    }
  }
  return One(shape);
}

InferredShapes Elementwise(NnefOp op, const Args& a, const std::vector<NamedValue>& args) {
  if (op == NnefOp::kSelect) {
    const Extents& c = *a.Shape("condition");
    const Extents& t = *a.Shape("true_value");
    const Extents& f = *a.Shape("false_value");
    auto ct = Broadcast(c, t);
    std::optional<Extents> r;
    if (ct) r = Broadcast(*ct, f);
    if (!r) {
      Bad("shapes " + Str(c) + ", " + Str(t) + " and " + Str(f) + " do not broadcast",
          "4.2.3 select: for each dimension, the extents must be equal or some of them singular");
    }
    return One(*r);
  }
  if (args.size() == 1) return One(*a.ShapeOf(args[0].value));
  const Extents& x = *a.Shape("x");
  const Extents& y = *a.Shape("y");
  auto r = Broadcast(x, y);
  if (!r) {
    Bad("shapes " + Str(x) + " and " + Str(y) + " do not broadcast",
        "4.2.2 Argument validity: for each dimension, the extents of x and y must either be "
        "equal or one of them must be singular");
  }
  return One(*r);
}

InferredShapes Conv(NnefOp op, const Args& a) {
  bool reverse = op == NnefOp::kDeconv;
  const std::string rule = NnefRule(op);
  const Extents& in = *a.Shape("input");
  const Extents& filter = *a.Shape("filter");
  const Extents& bias = *a.Shape("bias");
  if (in.size() < 2) Bad("input must have rank >= 2 (batch and channel), got " + Str(in), rule);
  if (filter.size() != in.size()) {
    Bad("the rank of filter " + Str(filter) + " must equal that of input " + Str(in),
        rule + ": the rank of filter must equal that of input");
  }
  size_t n = in.size() - 2;
  Window w = ReadWindow(a, n,
                        rule +
                            ": the length of padding, stride and dilation must equal "
                            "the number of spatial dimensions or 0");
  CheckBorder(a.String("border"), kBorders4, rule + ": border");
  int64_t groups = a.Int("groups");
  if (groups < 0) Bad("groups must be non-negative, got " + std::to_string(groups), rule);
  // conv: input (B,C,X..), filter (c, C/G, f..), output (B,c,x..).
  // deconv: input (B,c,x..), filter (c, C/G, f..), output (B,C,X..).
  int64_t in_channels = in[1];
  int64_t g = groups == 0 ? in_channels : groups;  // 0: depth-wise, one group per channel
  if (filter[0] % g != 0) {
    Bad("groups (" + std::to_string(g) + ") must divide the batch dimension of filter " +
            Str(filter),
        rule + ": groups must be a divisor of the batch dimension of the shape of filter");
  }
  int64_t out_channels = 0;
  if (!reverse) {
    if (Mul(filter[1], g, "channels") != in_channels) {
      Bad("the channel dimension of filter (" + std::to_string(filter[1]) + ") times groups (" +
              std::to_string(g) + ") must equal the channel dimension of input (" +
              std::to_string(in_channels) + ")",
          rule +
              ": the channel dimension of the filter times the number of groups must equal "
              "the channel dimension of the input");
    }
    out_channels = filter[0];
  } else {
    if (filter[0] != in_channels) {
      Bad("the batch dimension of filter (" + std::to_string(filter[0]) +
              ") must equal the channel dimension of input (" + std::to_string(in_channels) + ")",
          rule + ": filter (c, C/groups, ...) against input (B, c, ...)");
    }
    out_channels = Mul(filter[1], g, "channels");
  }
  for (size_t i = 0; i < bias.size(); ++i) {
    bool ok = i == 1 ? (bias[i] == out_channels || bias[i] == 1) : bias[i] == 1;
    if (!ok) {
      Bad("bias " + Str(bias) + " must be singular except for the channel dimension, which " +
              "must be " + std::to_string(out_channels) + " or 1",
          rule +
              ": the channel dimension of bias must equal the number of output channels or "
              "be singular; all other dimensions singular");
    }
  }
  Extents output_shape;
  if (reverse) {
    output_shape = a.Ints("output_shape");
    CheckOutputShapeLength(output_shape, in.size(), rule + ": output_shape");
    if (!output_shape.empty() && (output_shape[0] != in[0] || output_shape[1] != out_channels)) {
      Bad("output_shape " + Str(output_shape) + " disagrees with the batch (" +
              std::to_string(in[0]) + ") and channel (" + std::to_string(out_channels) +
              ") extents of the output",
          rule + ": output_shape");
    }
  }
  Extents sizes(filter.begin() + 2, filter.end());
  Extents out = WindowShape(in, 2, sizes, w, reverse, output_shape);
  out[1] = out_channels;
  return One(out);
}

InferredShapes BoxLike(NnefOp op, const Args& a, const ShapeLimits& lim) {
  bool reverse = op == NnefOp::kDebox || op == NnefOp::kDesample;
  const std::string rule = NnefRule(op);
  const Extents& in = *a.Shape("input");
  Extents size = a.Ints("size");
  // One size entry per relevant dimension: all of them, or (reading) only the trailing ones, as
  // the standard avg_roi_align/max_roi_align pass the spatial sampling_rate to avg_pool/max_pool;
  // the leading axes then have window 1, stride 1, dilation 1 and no padding.
  if (size.size() > in.size() || (size.empty() && !in.empty())) {
    Bad("size has " + std::to_string(size.size()) +
            " items; it needs one per dimension of "
            "input " +
            Str(in) + " (or per trailing dimension)",
        rule + ": size must contain one entry for each relevant dimension");
  }
  CheckPositive(size, "size", "4.3 Argument validity: items in size must be strictly positive");
  (void)CheckedVolume(size, lim.max_volume);
  size_t lead = in.size() - size.size();
  Window w = ReadWindow(a, size.size(),
                        rule +
                            ": the length of padding, stride and dilation must equal the rank "
                            "of input (the length of size) or 0");
  const std::string& border = a.String("border");
  if (op == NnefOp::kDesample) {
    CheckBorder(border, {Border::kConstant}, rule + ": border must be 'constant'");
  } else if (op == NnefOp::kSample) {
    // 'ignore' is accepted as well: the standard max_pool passes its border (AlexNet uses
    // 'ignore') through max_pool_with_index to sample, whose indices come from argmax_pool with
    // the same border, so every sampled position lies inside the input.
    CheckBorder(border, kBorders5, rule + ": border");
  } else {
    CheckBorder(border, kBorders5, rule + ": border");
  }
  Extents output_shape;
  if (reverse) {
    output_shape = a.Ints("output_shape");
    CheckOutputShapeLength(output_shape, in.size(), rule + ": output_shape");
  }
  Extents out = WindowShape(in, lead, size, w, reverse, output_shape);
  if (op == NnefOp::kSample || op == NnefOp::kDesample) {
    const Extents& index = *a.Shape("index");
    const Extents& want = op == NnefOp::kSample ? out : in;
    if (index != want) {
      Bad("the shape of index " + Str(index) + " must be " + Str(want) +
              (op == NnefOp::kSample ? " (the output shape)" : " (the input shape)"),
          rule +
              ": the shape of index must be the same as that of output for sample and that "
              "of input for desample");
    }
  }
  return One(out);
}

InferredShapes Upsample(const Args& a) {
  const std::string rule = NnefRule(NnefOp::kMultilinearUpsample);
  const Extents& in = *a.Shape("input");
  if (in.size() < 2) Bad("input must have rank >= 2, got " + Str(in), rule);
  Extents factor = a.Ints("factor");
  if (factor.size() != in.size() - 2) {
    Bad("factor has " + std::to_string(factor.size()) +
            " items; it needs one per spatial "
            "dimension (" +
            std::to_string(in.size() - 2) + ")",
        rule + ": item i of factor corresponds to spatial dimension i");
  }
  CheckPositive(factor, "factor", rule + ": the items in factor must be strictly positive");
  const std::string& method = a.String("method");
  CheckMethod(method, rule);
  CheckBorder(a.String("border"), kBorders4, rule + ": border");
  Extents out = in;
  for (size_t i = 0; i < factor.size(); ++i) out[i + 2] = Mul(in[i + 2], factor[i], "extent");
  return One(out);
}

InferredShapes Reduce(NnefOp op, const Args& a) {
  const Extents& in = *a.Shape("input");
  Extents axes = a.Ints("axes");
  CheckAxes(axes, in.size(), "axes",
            NnefRule(op) +
                ": items in axes must be unique, non-negative and less than the rank "
                "of input");
  Extents out = in;
  for (int64_t ax : axes) out[static_cast<size_t>(ax)] = 1;
  return One(out);
}

InferredShapes Reshape(const Args& a, const ShapeLimits& lim) {
  const std::string rule = NnefRule(NnefOp::kReshape);
  const Extents& in = *a.Shape("input");
  auto rank = static_cast<int64_t>(in.size());
  int64_t start = a.Int("axis_start");
  int64_t count = a.Int("axis_count");
  if (start < 0 || start > rank) {
    Bad("axis_start " + std::to_string(start) + " must be in [0, " + std::to_string(rank) + "]",
        rule + ": axis_start must be non-negative and less than or equal to the rank of input");
  }
  if (count == -1) count = rank - start;
  if (count < 0 || start + count > rank) {
    Bad("axis_count " + std::to_string(a.Int("axis_count")) + " must be -1 or in [0, " +
            std::to_string(rank - start) + "]",
        rule + ": axis_start + axis_count must be less than or equal to the rank of input");
  }
  Extents shape = a.Ints("shape");
  int64_t range_volume = 1;
  for (int64_t i = start; i < start + count; ++i) range_volume *= in[static_cast<size_t>(i)];
  int64_t known = 1;
  int minus = -1;
  Extents mid = shape;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t v = shape[i];
    if (v == -1) {
      if (minus >= 0) Bad("shape " + Str(shape) + " has more than one -1 item", rule);
      minus = static_cast<int>(i);
      continue;
    }
    if (v < -1) Bad("shape items must be non-negative or -1, got " + Str(shape), rule);
    if (v == 0) {
      if (static_cast<int64_t>(i) >= count) {
        Bad("shape item " + std::to_string(i) +
                " is 0 but there is no corresponding input "
                "axis in the reshaped range",
            rule + ": a 0 item inherits the corresponding extent of the input");
      }
      mid[i] = in[static_cast<size_t>(start) + i];
    }
    known = Mul(known, mid[i], "shape volume");
  }
  if (minus >= 0) {
    if (known == 0 || range_volume % known != 0) {
      Bad("the product of the known items of shape " + Str(shape) + " (" + std::to_string(known) +
              ") does not divide the reshaped volume " + std::to_string(range_volume),
          rule + ": the -1 item is the quotient of the volume and the product of the others");
    }
    mid[static_cast<size_t>(minus)] = range_volume / known;
  } else if (known != range_volume) {
    Bad("shape " + Str(shape) + " has volume " + std::to_string(known) +
            " but the reshaped input axes have volume " + std::to_string(range_volume),
        rule + ": the product of items in shape must equal the product of the reshaped extents");
  }
  Extents out(in.begin(), in.begin() + start);
  out.insert(out.end(), mid.begin(), mid.end());
  out.insert(out.end(), in.begin() + start + count, in.end());
  (void)CheckedVolume(out, lim.max_volume);
  return One(out);
}

InferredShapes SqueezeLike(NnefOp op, const Args& a) {
  const std::string rule = NnefRule(op);
  const Extents& in = *a.Shape("input");
  Extents axes = a.Ints("axes");
  if (op == NnefOp::kSqueeze) {
    CheckAxes(axes, in.size(), "axes",
              rule + ": items in axes must be non-negative and less than the rank of input");
    Extents out;
    for (size_t i = 0; i < in.size(); ++i) {
      bool removed = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
      if (removed && in[i] != 1) {
        Bad("axis " + std::to_string(i) + " of " + Str(in) + " is not singleton",
            rule + ": squeeze removes singleton dimensions");
      }
      if (!removed) out.push_back(in[i]);
    }
    return One(out);
  }
  size_t out_rank = in.size() + axes.size();
  CheckAxes(axes, out_rank, "axes",
            rule + ": items in axes must be non-negative and less than the rank of output");
  Extents out;
  size_t k = 0;
  for (size_t i = 0; i < out_rank; ++i) {
    bool inserted = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    out.push_back(inserted ? 1 : in[k++]);
  }
  return One(out);
}

InferredShapes Transpose(const Args& a) {
  const std::string rule = NnefRule(NnefOp::kTranspose);
  const Extents& in = *a.Shape("input");
  Extents axes = a.Ints("axes");
  if (axes.size() > in.size()) {
    Bad("axes has " + std::to_string(axes.size()) + " items but input has rank " +
            std::to_string(in.size()),
        rule + ": the length of axes must be less than or equal to the rank of input");
  }
  CheckAxes(axes, axes.size(), "axes",
            rule + ": axes must be a permutation of the integers from 0 to n-1");
  Extents out = in;
  for (size_t i = 0; i < axes.size(); ++i) out[i] = in[static_cast<size_t>(axes[i])];
  return One(out);
}

InferredShapes Split(const Args& a) {
  const std::string rule = NnefRule(NnefOp::kSplit);
  const Extents& in = *a.Shape("value");
  int64_t axis = a.Int("axis");
  Extents ratios = a.Ints("ratios");
  if (axis < 0 || axis >= static_cast<int64_t>(in.size())) {
    Bad("axis " + std::to_string(axis) + " is out of range for " + Str(in),
        rule + ": axis must be non-negative and less than the rank of value");
  }
  if (ratios.empty()) Bad("ratios must not be empty", rule);
  CheckPositive(ratios, "ratios", rule + ": items in ratios must be positive");
  int64_t total = 0;
  for (int64_t r : ratios) total = Add(total, r, "sum of ratios");
  int64_t extent = in[static_cast<size_t>(axis)];
  if (extent % total != 0) {
    Bad("the sum of ratios (" + std::to_string(total) + ") does not divide the extent " +
            std::to_string(extent) + " along axis " + std::to_string(axis),
        rule + ": the sum of ratios must divide the extent of value along dimension axis");
  }
  InferredShapes r;
  r.results.emplace_back();
  for (int64_t ratio : ratios) {
    Extents s = in;
    s[static_cast<size_t>(axis)] = extent / total * ratio;
    r.results[0].push_back(s);
  }
  return r;
}

InferredShapes Concat(NnefOp op, const Args& a, const ShapeLimits& lim) {
  const std::string rule = NnefRule(op);
  const bool concat = op == NnefOp::kConcat;  // else stack
  const ArgValue& values = a.Get("values");
  if (values.items.empty()) Bad("values must not be empty", rule);
  const Extents& first = *a.ShapeOf(values.items[0]);
  int64_t axis = a.Int("axis");
  auto rank = static_cast<int64_t>(first.size());
  int64_t limit = concat ? rank : rank + 1;
  if (axis < 0 || axis >= limit) {
    Bad("axis " + std::to_string(axis) + " is out of range [0, " + std::to_string(limit) + ")",
        rule + (concat ? ": axis must be non-negative and less than the rank of values"
                       : ": axis must be less than the rank of the output"));
  }
  int64_t sum = 0;
  for (const ArgValue& v : values.items) {
    const Extents& s = *a.ShapeOf(v);
    bool ok = s.size() == first.size();
    for (size_t i = 0; ok && i < s.size(); ++i) {
      if (concat && static_cast<int64_t>(i) == axis) continue;
      ok = s[i] == first[i];
    }
    if (!ok) {
      Bad("shapes " + Str(first) + " and " + Str(s) +
              (concat ? " differ outside the concatenation axis" : " differ"),
          rule + (concat ? ": the ranks must be equal and the shapes equal in all dimensions "
                           "other than axis"
                         : ": all values must have the same shape"));
    }
    if (concat) sum = Add(sum, s[static_cast<size_t>(axis)], "concatenated extent");
  }
  Extents out = first;
  if (concat) {
    out[static_cast<size_t>(axis)] = sum;
  } else {
    out.insert(out.begin() + axis, static_cast<int64_t>(values.items.size()));
  }
  (void)CheckedVolume(out, lim.max_volume);
  return One(out);
}

InferredShapes Unstack(const Args& a) {
  const std::string rule = NnefRule(NnefOp::kUnstack);
  const Extents& in = *a.Shape("value");
  int64_t axis = a.Int("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(in.size())) {
    Bad("axis " + std::to_string(axis) + " is out of range for " + Str(in),
        rule + ": axis must be non-negative and less than the rank of input");
  }
  Extents s = in;
  s.erase(s.begin() + axis);
  InferredShapes r;
  r.results.emplace_back(static_cast<size_t>(in[static_cast<size_t>(axis)]), s);
  return r;
}

InferredShapes Slice(const Args& a) {
  const std::string rule = NnefRule(NnefOp::kSlice);
  const Extents& in = *a.Shape("input");
  Extents axes = a.Ints("axes");
  Extents begin = a.Ints("begin");
  Extents end = a.Ints("end");
  if (axes.size() != begin.size() || axes.size() != end.size()) {
    Bad("axes, begin and end have lengths " + std::to_string(axes.size()) + ", " +
            std::to_string(begin.size()) + ", " + std::to_string(end.size()),
        rule + ": the length of arrays axes, begin and end must be the same");
  }
  CheckAxes(axes, in.size(), "axes",
            rule + ": items in axes must be non negative and less than the rank of input");
  Extents out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t x = in[static_cast<size_t>(axes[i])];
    int64_t b = begin[i];
    int64_t e = end[i];
    auto in_range = [&](int64_t v) { return v > -x && v <= x; };
    if (!in_range(b) || !in_range(e)) {
      Bad("begin " + std::to_string(b) + " / end " + std::to_string(e) + " on axis " +
              std::to_string(axes[i]) + " must be in (-" + std::to_string(x) + ", " +
              std::to_string(x) + "]",
          rule + ": begin[i] and end[i] must be in the range (-x_i, x_i]");
    }
    if (b < 0) b += x;
    if (e < 0) e += x;
    if (e == 0) e = x;
    if (e <= b) {
      Bad("end " + std::to_string(end[i]) + " must be greater than begin " +
              std::to_string(begin[i]) + " on axis " + std::to_string(axes[i]),
          rule + ": end[i] must be greater than begin[i]");
    }
    out[static_cast<size_t>(axes[i])] = e - b;
  }
  return One(out);
}

InferredShapes Pad(const Args& a, const ShapeLimits& lim) {
  const std::string rule = NnefRule(NnefOp::kPad);
  const Extents& in = *a.Shape("input");
  auto padding = a.Pairs("padding");
  if (padding.size() != in.size()) {
    Bad("padding has " + std::to_string(padding.size()) + " items; it needs one per dimension (" +
            std::to_string(in.size()) + ")",
        rule + ": padding has an item for each dimension");
  }
  // 'ignore' defines no value for the padded elements, so pad accepts the other four modes.
  CheckBorder(a.String("border"), kBorders4, rule + ": border");
  Extents out = in;
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t e =
        Add(Add(in[i], padding[i].first, "padded extent"), padding[i].second, "padded extent");
    if (e <= 0) {
      Bad("the padded extent of dimension " + std::to_string(i) + " is " + std::to_string(e),
          rule + ": the extent of output x_k + p_k + q_k must be positive");
    }
    out[i] = e;
  }
  (void)CheckedVolume(out, lim.max_volume);
  return One(out);
}

InferredShapes Tile(const Args& a, const ShapeLimits& lim) {
  const std::string rule = NnefRule(NnefOp::kTile);
  const Extents& in = *a.Shape("input");
  Extents repeats = a.Ints("repeats");
  if (repeats.size() != in.size()) {
    Bad("repeats has " + std::to_string(repeats.size()) + " items but input has rank " +
            std::to_string(in.size()),
        rule + ": the length of repeats must equal the rank of input");
  }
  CheckPositive(repeats, "repeats", rule + ": the items in repeats must be strictly positive");
  Extents out = in;
  for (size_t i = 0; i < in.size(); ++i) out[i] = Mul(in[i], repeats[i], "tiled extent");
  (void)CheckedVolume(out, lim.max_volume);
  return One(out);
}

InferredShapes Roi(NnefOp op, const Args& a, const ShapeLimits& lim) {
  const std::string rule = NnefRule(op);
  const Extents& in = *a.Shape("input");
  const Extents& rois = *a.Shape("rois");
  const Extents& bi = *a.Shape("batch_index");
  if (in.size() < 2) Bad("input must have rank >= 2, got " + Str(in), rule);
  auto m = static_cast<int64_t>(in.size() - 2);
  if (rois.size() != 2 || rois[1] != 2 * m) {
    Bad("rois " + Str(rois) + " must have shape (N, " + std::to_string(2 * m) + ")",
        rule + ": rois must be a tensor of shape (N, 2M), M the number of spatial dimensions");
  }
  int64_t n = rois[0];
  bool bi_ok = (bi.size() == 2 && bi[0] == n && bi[1] == 1) || (bi.size() == 1 && bi[0] == n);
  if (!bi_ok) {
    Bad("batch_index " + Str(bi) + " must have shape (" + std::to_string(n) + ", 1)",
        rule + ": batch_index must be a tensor of shape (N, 1)");
  }
  Extents size = a.Ints("output_size");
  if (static_cast<int64_t>(size.size()) != m) {
    Bad("output_size has " + std::to_string(size.size()) + " items; it needs " + std::to_string(m),
        rule + ": output_size must have an entry for each spatial dimension");
  }
  CheckPositive(size, "output_size", rule + ": the items in output_size must be positive");
  if (op == NnefOp::kRoiResample) {
    const std::string& method = a.String("method");
    CheckMethod(method, rule);
  }
  Extents out = {n, in[1]};
  out.insert(out.end(), size.begin(), size.end());
  (void)CheckedVolume(out, lim.max_volume);
  return One(out);
}

InferredShapes Matmul(const Args& a, const ShapeLimits& lim) {
  const std::string rule = NnefRule(NnefOp::kMatmul);
  const Extents& A = *a.Shape("A");
  const Extents& B = *a.Shape("B");
  if (A.size() < 2 || A.size() != B.size()) {
    Bad("A " + Str(A) + " and B " + Str(B) + " must have equal ranks of at least 2",
        rule + ": the rank of A and B must be at least 2 and they must be equal");
  }
  size_t r = A.size();
  Extents batch_a(A.begin(), A.end() - 2);
  Extents batch_b(B.begin(), B.end() - 2);
  auto batch = Broadcast(batch_a, batch_b);
  if (!batch) {
    Bad("the batch dimensions of A " + Str(A) + " and B " + Str(B) + " do not broadcast",
        rule + ": batch dimensions broadcast as for binary operations");
  }
  bool ta = a.Bool("transposeA");
  bool tb = a.Bool("transposeB");
  int64_t m = ta ? A[r - 1] : A[r - 2];
  int64_t ka = ta ? A[r - 2] : A[r - 1];
  int64_t kb = tb ? B[r - 1] : B[r - 2];
  int64_t n = tb ? B[r - 2] : B[r - 1];
  if (ka != kb) {
    Bad("the inner extents disagree: " + std::to_string(ka) + " (A" + (ta ? ", transposed" : "") +
            ") vs " + std::to_string(kb) + " (B" + (tb ? ", transposed" : "") + ")",
        rule + ": the agreeing dimensions of A' and B' must be equal");
  }
  Extents out = *batch;
  out.push_back(m);
  out.push_back(n);
  (void)CheckedVolume(out, lim.max_volume);
  return One(out);
}

}  // namespace

std::optional<Extents> Broadcast(const Extents& a, const Extents& b) {
  size_t n = std::max(a.size(), b.size());
  Extents r(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = ExtentAt(a, i);
    int64_t y = ExtentAt(b, i);
    if (x != y && x != 1 && y != 1) return std::nullopt;
    r[i] = x == 1 ? y : x;
  }
  return r;
}

int64_t CheckedVolume(const Extents& s, int64_t limit) {
  int64_t v = 1;
  for (int64_t e : s) {
    if (e > 0 && v > limit / e) {
      Bad("the volume of shape " + Str(s) + " exceeds the implementation limit " +
              std::to_string(limit),
          "implementation limit (hostile extents)");
    }
    v *= e;
  }
  if (v > limit) {
    Bad("the volume of shape " + Str(s) + " exceeds the implementation limit " +
            std::to_string(limit),
        "implementation limit (hostile extents)");
  }
  return v;
}

// The formulas are those of ops/nnef_window.h (AutoPad, DownscaledExtent, UpscaledExtent), the
// geometry the window operators compute with; here they are guarded against 64-bit overflow
// (hostile extents) and their failures named by the rule broken.
ResolvedWindowAxis ResolveWindowAxis(int64_t in, int64_t size, int64_t stride, int64_t dilation,
                                     std::optional<std::pair<int64_t, int64_t>> padding,
                                     bool reverse, std::optional<int64_t> output_extent) {
  const char* rule = "4.3 Output shape calculation";
  ResolvedWindowAxis w;
  WindowAxis& a = w.window;
  a.size = size;
  a.stride = stride;
  a.dilation = dilation;
  const int64_t fd = Add(Mul(size - 1, dilation, "dilated filter size"), 1, "dilated filter size");
  const auto pad = [&](std::optional<int64_t> up) {
    if (padding) {
      a.pad_front = padding->first;
      a.pad_back = padding->second;
      return;
    }
    Add(Mul(CeilDiv(*up, stride) - 1, stride, "padding"), fd - *up, "padding");
    AutoPad(a, *up);
  };
  const auto down_of = [&](int64_t up) {
    Add(Add(a.pad_front, up, "padded extent"), a.pad_back - fd, "padded extent");
    const std::optional<int64_t> down = DownscaledExtent(up, a);
    if (!down) {
      Bad("the padded extent " + std::to_string(a.pad_front + up + a.pad_back) +
              " is smaller than the dilated filter size " + std::to_string(fd),
          std::string(rule) + ": p + X + q must be at least the dilated filter size");
    }
    return *down;
  };
  if (!reverse) {
    w.up = in;
    pad(in);
    w.down = down_of(in);
    return w;
  }
  w.down = in;
  if (output_extent) {
    w.up = *output_extent;
    pad(w.up);
    const int64_t back = down_of(w.up);
    if (back != in) {
      Bad("output_shape extent " + std::to_string(w.up) + " down-scales to " +
              std::to_string(back) + ", not to the input extent " + std::to_string(in),
          "4.3 Common parameters: applying the down-scaled shape calculation to output_shape "
          "must result in the shape of input");
    }
    return w;
  }
  // Automatic padding with no reference shape: pad for the up-scaled extent x * s.
  pad(padding ? std::nullopt : std::optional<int64_t>(Mul(in, stride, "up-scaled extent")));
  Add(Add(Mul(in - 1, stride, "up-scaled extent"), fd, "up-scaled extent"),
      -(a.pad_front + a.pad_back), "up-scaled extent");
  w.up = UpscaledExtent(in, a);
  if (w.up <= 0) {
    Bad("the up-scaled extent (x - 1) * s + f_d - (p + q) = " + std::to_string(w.up) +
            " is not positive",
        rule);
  }
  return w;
}

InferredShapes InferPrimitive(NnefOp op, const std::vector<NamedValue>& args,
                              const ShapeLookup& lookup, const ShapeLimits& limits) {
  Args a(args, lookup);
  const NnefFamily family = NnefOpFamily(op);
  if (family == NnefFamily::kIntroduce) return Introduce(op, a, limits);
  if (a.AnyUnknown()) {
    InferredShapes r;
    r.known = false;
    if (op == NnefOp::kSplit) {
      r.results.emplace_back(a.Get("ratios").items.size());
    } else {
      r.results.emplace_back(op == NnefOp::kUnstack ? 0 : 1);
    }
    return r;
  }
  switch (family) {
    case NnefFamily::kElementwise:
      return Elementwise(op, a, args);
    case NnefFamily::kReduce:
      return Reduce(op, a);
    case NnefFamily::kRoi:
      return Roi(op, a, limits);
    case NnefFamily::kMatmul:
      return Matmul(a, limits);
    default:
      break;
  }
  switch (op) {
    case NnefOp::kConv:
    case NnefOp::kDeconv:
      return Conv(op, a);
    case NnefOp::kBox:
    case NnefOp::kDebox:
    case NnefOp::kArgmaxPool:
    case NnefOp::kSample:
    case NnefOp::kDesample:
      return BoxLike(op, a, limits);
    case NnefOp::kMultilinearUpsample:
      return Upsample(a);
    case NnefOp::kReshape:
      return Reshape(a, limits);
    case NnefOp::kSqueeze:
    case NnefOp::kUnsqueeze:
      return SqueezeLike(op, a);
    case NnefOp::kTranspose:
      return Transpose(a);
    case NnefOp::kSplit:
      return Split(a);
    case NnefOp::kConcat:
    case NnefOp::kStack:
      return Concat(op, a, limits);
    case NnefOp::kUnstack:
      return Unstack(a);
    case NnefOp::kSlice:
      return Slice(a);
    case NnefOp::kPad:
      return Pad(a, limits);
    case NnefOp::kTile:
      return Tile(a, limits);
    case NnefOp::kUpdate: {
      const Extents& var = *a.Shape("variable");
      const Extents& value = *a.Shape("value");
      if (var != value) {
        Bad("the shape of value " + Str(value) + " must equal the shape of variable " + Str(var),
            NnefRule(op) + ": the rank and shape of value must equal the shape of variable");
      }
      return One(var);
    }
    default:
      break;
  }
  Bad("internal: no shape rule for primitive '" + std::string(NnefOpName(op)) + "'", "4");
}

}  // namespace nnref::nnef
