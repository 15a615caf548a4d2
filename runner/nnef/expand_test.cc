// Expansion of compound and document fragments, compile-time evaluation, shape propagation and
// the argument validity of every primitive (chapter 6 step 3). Expected shapes and expansions are
// derived by hand from the chapter 4 rules and fragment definitions.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "runner/nnef/nnef_testing.h"
#include "runner/nnef/shapes.h"

namespace nnref::nnef {
namespace {

using testing::BodyLines;
using testing::Doc;
using testing::ErrorOf;
using testing::Parse;

// Shape of `name` after `body`, with x = external(shape = xshape).
Extents ShapeAfter(const std::string& body, const std::string& xshape,
                   const std::string& name = "y") {
  FlatGraph g = Parse(Doc(body, "y", "", xshape));
  return g.Tensor(name).shape;
}

// `body` is rejected at step 3 (operation argument validity) with `part` in the rule or message,
// reported at the graph statement on line `line`.
void Invalid(const std::string& body, const std::string& xshape, const std::string& part,
             int line = 7) {
  std::string doc = Doc(body, "y", "", xshape);
  CAPTURE(doc);
  NnefError e = ErrorOf(doc);
  INFO(e.what());
  CHECK(e.stage() == Stage::kValidate);
  CHECK((e.rule().find(part) != std::string::npos || e.message().find(part) != std::string::npos));
  CHECK(e.pos().file == "t.nnef");
  CHECK(e.pos().line == line);
}

// ---------------------------------------------------------------------------------------------
// Shape propagation and argument validity, primitive by primitive (chapter 4)
// ---------------------------------------------------------------------------------------------

TEST_CASE("4.1 tensor introducing operations") {
  FlatGraph g = Parse(Doc(R"(    c = constant(shape = [2, 3], value = [1.5]);
    d = constant<integer>(shape = [3], value = [1, 2, 3]);
    v = variable<logical>(shape = [4], label = 'Blk/a-b.c\\d_0');
    w = variable<logical>(shape = [4], label = 'blk/A-B.C\\D_0');
    y = x;)"));
  CHECK(g.Tensor("x").shape == Extents{1, 2, 4, 4});
  CHECK(g.Tensor("c").shape == Extents{2, 3});
  CHECK(g.Tensor("d").dtype == TensorType::kInteger);
  CHECK(g.Tensor("v").dtype == TensorType::kLogical);
  CHECK(g.ops[g.Tensor("v").producer].Arg("label")->str == "Blk/a-b.c\\d_0");
  Invalid("    y = x;", "[0]", "strictly positive", 6);
  Invalid("    y = constant(shape = [2, 0], value = [1.0]);", "[1]", "strictly positive");
  Invalid("    y = constant(shape = [2, 2], value = [1.0, 2.0]);", "[1]",
          "volume implied by shape or must be 1");
  Invalid("    y = variable(shape = [2], label = '');", "[1]", "label must not be empty");
  Invalid("    y = variable(shape = [2], label = 'a:b');", "[1]", "labels may only contain");
  Invalid(
      "    v = variable(shape = [2], label = 'w');\n    y = variable(shape = [3], label = 'W');",
      "[1]", "must have the same shape", 8);
}

TEST_CASE("4.2 element-wise operations: NNEF broadcasting aligns leading dimensions") {
  CHECK(ShapeAfter("    y = exp(x);", "[2, 3]") == Extents{2, 3});
  CHECK(ShapeAfter("    y = x + 1.0;", "[2, 3]") == Extents{2, 3});
  CHECK(ShapeAfter("    b = constant(shape = [2], value = [1.0]);\n    y = x * b;", "[2, 3]") ==
        Extents{2, 3});  // [2] is [2, 1]: trailing dimensions are singleton (2.2)
  CHECK(ShapeAfter("    b = constant(shape = [4, 1], value = [1.0]);\n    y = x - b;", "[1, 3]") ==
        Extents{4, 3});
  CHECK(ShapeAfter("    b = constant(shape = [2], value = [1.0]);\n    y = b / x;", "[2, 3, 4]") ==
        Extents{2, 3, 4});
  CHECK(ShapeAfter("    y = x < 0.5 && x > 0.0;", "[5]") == Extents{5});
  CHECK(ShapeAfter("    c = constant<logical>(shape = [1, 3], value = [true]);\n"
                   "    t = constant(shape = [2, 1], value = [1.0]);\n    y = select(c, t, x);",
                   "[1, 1, 4]") == Extents{2, 3, 4});
  // [2, 3] and [3]: the trailing-aligned (numpy) rule would accept this, NNEF does not.
  Invalid("    b = constant(shape = [3], value = [1.0]);\n    y = x + b;", "[2, 3]",
          "one of them must be singular", 8);
  Invalid("    c = constant<logical>(shape = [3], value = [true]);\n    y = select(c, x, 0.0);",
          "[2]", "some of them singular", 8);
}

TEST_CASE("4.3.1 conv and deconv shapes and validity") {
  // (p + X + q - f_d) / s + 1 with explicit padding.
  CHECK(ShapeAfter("    w = variable(shape = [4, 2, 3, 3], label = 'w');\n"
                   "    y = conv(x, w, padding = [(0, 0), (0, 0)], stride = [2, 2]);",
                   "[1, 2, 5, 5]") == Extents{1, 4, 2, 2});
  // Automatic padding: x = ceil(5 / 2) = 3.
  CHECK(ShapeAfter("    w = variable(shape = [4, 2, 3, 3], label = 'w');\n"
                   "    y = conv(x, w, stride = [2, 2]);",
                   "[1, 2, 5, 5]") == Extents{1, 4, 3, 3});
  // Dilation 2: f_d = 5.
  CHECK(ShapeAfter("    w = variable(shape = [4, 2, 3, 3], label = 'w');\n"
                   "    y = conv(x, w, padding = [(0, 0), (1, 1)], dilation = [2, 2]);",
                   "[1, 2, 5, 5]") == Extents{1, 4, 1, 3});
  // Groups: filter (c, C/G, ...); groups = 0 is depth-wise.
  CHECK(ShapeAfter("    w = variable(shape = [6, 2, 3, 3], label = 'w');\n"
                   "    b = variable(shape = [1, 6], label = 'b');\n"
                   "    y = conv(x, w, b, groups = 2);",
                   "[1, 4, 5, 5]") == Extents{1, 6, 5, 5});
  CHECK(ShapeAfter("    w = variable(shape = [8, 1, 3, 3], label = 'w');\n"
                   "    y = conv(x, w, groups = 0);",
                   "[1, 4, 5, 5]") == Extents{1, 8, 5, 5});
  // 1-D convolution.
  CHECK(ShapeAfter("    w = variable(shape = [3, 2, 4], label = 'w');\n"
                   "    y = conv(x, w, padding = [(1, 2)]);",
                   "[2, 2, 10]") == Extents{2, 3, 10});
  // deconv: X = (x - 1) * s + f_d - (p + q).
  CHECK(ShapeAfter("    w = variable(shape = [4, 2, 3, 3], label = 'w');\n"
                   "    y = deconv(x, w, padding = [(0, 0), (0, 0)], stride = [2, 2]);",
                   "[1, 4, 3, 3]") == Extents{1, 2, 7, 7});
  // ... with an output_shape that down-scales to the input: floor((8 - 3) / 2) + 1 = 3.
  CHECK(ShapeAfter("    w = variable(shape = [4, 2, 3, 3], label = 'w');\n"
                   "    y = deconv(x, w, padding = [(0, 0), (0, 0)], stride = [2, 2], "
                   "output_shape = [1, 2, 8, 8]);",
                   "[1, 4, 3, 3]") == Extents{1, 2, 8, 8});
  // ... automatic padding without output_shape: t = max((3-1)*2 + 3 - 6, 0) = 1, X = 4 + 3 - 1.
  CHECK(ShapeAfter("    w = variable(shape = [4, 2, 3, 3], label = 'w');\n"
                   "    y = deconv(x, w, stride = [2, 2]);",
                   "[1, 4, 3, 3]") == Extents{1, 2, 6, 6});
  // ... depth-wise: groups = 0, filter (c, 1, ...), output channels = c.
  CHECK(ShapeAfter("    w = variable(shape = [4, 1, 2, 2], label = 'w');\n"
                   "    y = deconv(x, w, stride = [2, 2], groups = 0);",
                   "[1, 4, 3, 3]") == Extents{1, 4, 6, 6});

  const std::string w = "    w = variable(shape = [4, 2, 3, 3], label = 'w');\n";
  Invalid("    w = variable(shape = [4, 2, 3], label = 'w');\n    y = conv(x, w);", "[1, 2, 5, 5]",
          "rank of filter must equal", 8);
  Invalid(w + "    y = conv(x, w);", "[1, 3, 5, 5]", "times the number of groups must equal", 8);
  Invalid(w + "    y = conv(x, w, groups = 3);", "[1, 6, 5, 5]", "must be a divisor", 8);
  Invalid(w + "    y = conv(x, w, groups = -1);", "[1, 2, 5, 5]", "non-negative", 8);
  Invalid(w + "    b = variable(shape = [1, 3], label = 'b');\n    y = conv(x, w, b);",
          "[1, 2, 5, 5]", "channel dimension of bias", 9);
  Invalid(w + "    b = variable(shape = [2, 4], label = 'b');\n    y = conv(x, w, b);",
          "[1, 2, 5, 5]", "all other dimensions singular", 9);
  Invalid(w + "    y = conv(x, w, border = 'ignore');", "[1, 2, 5, 5]", "border", 8);
  Invalid(w + "    y = conv(x, w, padding = [(0, 0)]);", "[1, 2, 5, 5]",
          "number of spatial dimensions or 0", 8);
  Invalid(w + "    y = conv(x, w, stride = [1, 0]);", "[1, 2, 5, 5]", "strictly positive", 8);
  Invalid(w + "    y = conv(x, w, dilation = [0, 1]);", "[1, 2, 5, 5]", "strictly positive", 8);
  Invalid(w + "    y = conv(x, w, padding = [(0, 0), (0, 0)]);", "[1, 2, 2, 2]",
          "at least the dilated filter size", 8);
  Invalid(w + "    y = deconv(x, w, stride = [2, 2], padding = [(0, 0), (0, 0)], "
              "output_shape = [1, 2, 9, 9]);",
          "[1, 4, 3, 3]", "must result in the shape of input", 8);
  Invalid(w + "    y = deconv(x, w, output_shape = [1, 2, 5]);", "[1, 4, 3, 3]", "output_shape", 8);
  Invalid(w + "    y = deconv(x, w);", "[1, 2, 3, 3]", "filter (c, C/groups", 8);
  Invalid("    w = variable(shape = [4, 1], label = 'w');\n    y = conv(x, w);", "[4]", "rank >= 2",
          8);
}

TEST_CASE("4.3.2-4.3.4 box, debox, argmax_pool, sample, desample, multilinear_upsample") {
  CHECK(ShapeAfter("    y = box(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], padding = [(0, 0), "
                   "(0, 0), (0, 0), (0, 0)]);",
                   "[1, 1, 4, 5]") == Extents{1, 1, 2, 2});
  CHECK(ShapeAfter("    y = box(x, size = [1, 3], border = 'ignore', normalize = true);",
                   "[2, 7]") == Extents{2, 7});
  CHECK(ShapeAfter("    y = debox(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], padding = [(0, "
                   "0), (0, 0), (0, 0), (0, 0)]);",
                   "[1, 1, 2, 3]") == Extents{1, 1, 4, 6});
  CHECK(ShapeAfter("    y = debox(x, size = [1, 3], stride = [1, 2], output_shape = [2, 8]);",
                   "[2, 4]") == Extents{2, 8});
  FlatGraph g = Parse(Doc(R"(    i = argmax_pool(x, size = [1, 1, 3, 3], stride = [1, 1, 2, 2]);
    s = sample(x, i, size = [1, 1, 3, 3], stride = [1, 1, 2, 2]);
    d = desample(s, i, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], output_shape = [1, 2, 5, 5]);
    y = multilinear_upsample(x, factor = [2, 3]);)",
                          "y", "", "[1, 2, 5, 5]"));
  CHECK(g.Tensor("i").shape == Extents{1, 2, 3, 3});  // ceil(5 / 2)
  CHECK(g.Tensor("i").dtype == TensorType::kInteger);
  CHECK(g.Tensor("s").shape == Extents{1, 2, 3, 3});
  CHECK(g.Tensor("d").shape == Extents{1, 2, 5, 5});
  CHECK(g.Tensor("y").shape == Extents{1, 2, 10, 15});

  // A size shorter than the rank applies to the trailing axes (reading, see shapes.cc).
  CHECK(ShapeAfter("    y = box(x, size = [2, 2], stride = [2, 2], padding = [(0, 0), (1, 1)]);",
                   "[1, 3, 4, 5]") == Extents{1, 3, 2, 3});
  CHECK(ShapeAfter("    y = max_pool(x, size = [3], stride = [2]);", "[2, 3, 7]") ==
        Extents{2, 3, 4});
  Invalid("    y = box(x, size = [1, 1, 1, 1]);", "[1, 1, 4]", "one entry for each relevant");
  Invalid("    y = box(x, size = [2, 2], stride = [1, 1, 1]);", "[1, 1, 4]", "length of size");
  Invalid("    y = box(x, size = [1, 0]);", "[2, 2]", "strictly positive");
  Invalid("    y = box(x, size = [1, 1], border = 'wrap');", "[2, 2]", "border");
  Invalid("    y = box(x, size = [1, 1], stride = [1]);", "[2, 2]", "(the length of size) or 0");
  Invalid("    y = debox(x, size = [1, 1], output_shape = [2]);", "[2, 2]", "output_shape");
  Invalid("    y = argmax_pool(x, size = [1, 1], border = 'mirror');", "[2, 2]", "border");
  Invalid(
      "    i = argmax_pool(x, size = [1, 2]);\n    y = sample(x, i, size = [1, 2], stride = "
      "[1, 2]);",
      "[2, 4]", "same as that of output for sample", 8);
  Invalid(
      "    i = argmax_pool(x, size = [1, 2]);\n    y = desample(x, i, size = [1, 2], border = "
      "'replicate');",
      "[2, 4]", "must be 'constant'", 8);
  Invalid(
      "    i = argmax_pool(x, size = [1, 2], stride = [1, 2]);\n    y = desample(x, i, size = "
      "[1, 2]);",
      "[2, 4]", "that of input for desample", 8);
  Invalid("    y = multilinear_upsample(x, factor = [2]);", "[1, 1, 4, 4]", "spatial dimension");
  Invalid("    y = multilinear_upsample(x, factor = [2, 0]);", "[1, 1, 4, 4]", "strictly positive");
  Invalid("    y = multilinear_upsample(x, factor = [2, 2], method = 'cubic');", "[1, 1, 4, 4]",
          "method");
  Invalid("    y = multilinear_upsample(x, factor = [2, 2], border = 'ignore');", "[1, 1, 4, 4]",
          "border");
}

TEST_CASE("4.4 reduce operations") {
  CHECK(ShapeAfter("    y = sum_reduce(x, axes = [1, 3]);", "[2, 3, 4, 5]") == Extents{2, 1, 4, 1});
  CHECK(ShapeAfter("    y = max_reduce(x, axes = []);", "[2, 3]") == Extents{2, 3});
  FlatGraph g =
      Parse(Doc("    a = argmin_reduce(x, axes = [0]);\n    l = x > 0.0;\n"
                "    b = any_reduce(l, axes = [1]);\n    y = x;",
                "y", "", "[2, 3]"));
  CHECK(g.Tensor("a").dtype == TensorType::kInteger);
  CHECK(g.Tensor("a").shape == Extents{1, 3});
  CHECK(g.Tensor("b").dtype == TensorType::kLogical);
  Invalid("    y = min_reduce(x, axes = [2]);", "[2, 3]", "less than the rank of input");
  Invalid("    y = sum_reduce(x, axes = [-1]);", "[2, 3]", "non-negative");
  Invalid("    y = argmax_reduce(x, axes = [1, 1]);", "[2, 3]", "must be unique");
}

TEST_CASE("4.5 tensor shape operations") {
  const std::string x = "[2, 3, 4]";
  CHECK(ShapeAfter("    y = reshape(x, shape = [6, -1]);", x) == Extents{6, 4});
  CHECK(ShapeAfter("    y = reshape(x, shape = [0, -1]);", x) == Extents{2, 12});
  CHECK(ShapeAfter("    y = reshape(x, shape = [12], axis_start = 1);", x) == Extents{2, 12});
  CHECK(ShapeAfter("    y = reshape(x, shape = [3, 1], axis_start = 1, axis_count = 1);", x) ==
        Extents{2, 3, 1, 4});
  CHECK(ShapeAfter("    y = reshape(x, shape = [1], axis_start = 3, axis_count = 0);", x) ==
        Extents{2, 3, 4, 1});
  Invalid("    y = reshape(x, shape = [-1, -1]);", x, "more than one -1");
  Invalid("    y = reshape(x, shape = [5]);", x, "must equal the product");
  Invalid("    y = reshape(x, shape = [5, -1]);", x, "quotient");
  Invalid("    y = reshape(x, shape = [-2, 12]);", x, "non-negative or -1");
  Invalid("    y = reshape(x, shape = [24], axis_start = 4);", x, "axis_start");
  Invalid("    y = reshape(x, shape = [24], axis_count = 5);", x, "axis_count");
  Invalid("    y = reshape(x, shape = [0, 0], axis_start = 2);", x, "corresponding extent");

  CHECK(ShapeAfter("    y = squeeze(x, axes = [0, 2]);", "[1, 3, 1]") == Extents{3});
  CHECK(ShapeAfter("    y = unsqueeze(x, axes = [0, 2]);", "[3]") == Extents{1, 3, 1});
  Invalid("    y = squeeze(x, axes = [1]);", "[1, 3, 1]", "singleton");
  Invalid("    y = squeeze(x, axes = [3]);", "[1, 3, 1]", "less than the rank of input");
  Invalid("    y = unsqueeze(x, axes = [2]);", "[3]", "less than the rank of output");

  CHECK(ShapeAfter("    y = transpose(x, axes = [1, 0]);", x) == Extents{3, 2, 4});
  CHECK(ShapeAfter("    y = transpose(x, axes = [2, 0, 1]);", x) == Extents{4, 2, 3});
  Invalid("    y = transpose(x, axes = [0, 0]);", x, "permutation");
  Invalid("    y = transpose(x, axes = [0, 2]);", x, "permutation");
  Invalid("    y = transpose(x, axes = [0, 1, 2, 3]);", x, "less than or equal to the rank");

  FlatGraph g = Parse(Doc(R"(    [a, b] = split(x, axis = 1, ratios = [1, 2]);
    c = concat([a, b, a], axis = 1);
    s = stack([a, a, a], axis = 1);
    [u1, u2] = unstack(a, axis = 0);
    y = x;)",
                          "y", "", "[2, 6]"));
  CHECK(g.Tensor("a").shape == Extents{2, 2});
  CHECK(g.Tensor("b").shape == Extents{2, 4});
  CHECK(g.Tensor("c").shape == Extents{2, 8});
  CHECK(g.Tensor("s").shape == Extents{2, 3, 2});
  CHECK(g.Tensor("u1").shape == Extents{2});
  Invalid("    [a, b] = split(x, axis = 1, ratios = [1, 3]);\n    y = x;", "[2, 6]",
          "must divide the extent");
  Invalid("    [a, b] = split(x, axis = 1, ratios = [0, 6]);\n    y = x;", "[2, 6]",
          "must be positive");
  Invalid("    [a, b] = split(x, axis = 2, ratios = [1, 1]);\n    y = x;", "[2, 6]",
          "less than the rank of value");
  Invalid("    [a, b] = split(x, axis = 1, ratios = [1, 1, 1]);\n    y = x;", "[2, 6]",
          "must match it");  // three chunks into two identifiers
  Invalid("    b = constant(shape = [3, 1], value = [1.0]);\n    y = concat([x, b], axis = 1);",
          "[2, 6]", "other than axis", 8);
  Invalid("    y = concat([x, x], axis = 2);", "[2, 6]", "less than the rank of values");
  Invalid("    y = stack([x, x], axis = 3);", "[2, 6]", "less than the rank of the output");
  Invalid("    b = constant(shape = [2, 5], value = [1.0]);\n    y = stack([x, b], axis = 0);",
          "[2, 6]", "same shape", 8);
  Invalid("    [a, b] = unstack(x, axis = 2);\n    y = x;", "[2, 6]", "less than the rank");

  CHECK(ShapeAfter("    y = slice(x, axes = [0, 1], begin = [1, -3], end = [3, 0]);", "[4, 5]") ==
        Extents{2, 3});
  CHECK(ShapeAfter("    y = slice(x, axes = [1], begin = [0], end = [-1]);", "[4, 5]") ==
        Extents{4, 4});
  Invalid("    y = slice(x, axes = [0], begin = [3], end = [2]);", "[4, 5]",
          "end[i] must be greater than begin[i]");
  Invalid("    y = slice(x, axes = [1], begin = [-5], end = [2]);", "[4, 5]", "(-x_i, x_i]");
  Invalid("    y = slice(x, axes = [1], begin = [0], end = [6]);", "[4, 5]", "(-x_i, x_i]");
  Invalid("    y = slice(x, axes = [0, 1], begin = [0], end = [1, 1]);", "[4, 5]",
          "must be the same");
  Invalid("    y = slice(x, axes = [2], begin = [0], end = [1]);", "[4, 5]",
          "less than the rank of input");

  CHECK(ShapeAfter("    y = pad(x, padding = [(1, 2), (0, -2)], border = 'reflect');", "[4, 5]") ==
        Extents{7, 3});
  Invalid("    y = pad(x, padding = [(1, 1)]);", "[4, 5]", "each dimension");
  Invalid("    y = pad(x, padding = [(0, 0), (-3, -2)]);", "[4, 5]", "must be positive");
  Invalid("    y = pad(x, padding = [(0, 0), (0, 0)], border = 'ignore');", "[4, 5]", "border");

  CHECK(ShapeAfter("    y = tile(x, repeats = [2, 1]);", "[4, 5]") == Extents{8, 5});
  Invalid("    y = tile(x, repeats = [2]);", "[4, 5]", "equal the rank of input");
  Invalid("    y = tile(x, repeats = [2, 0]);", "[4, 5]", "strictly positive");
}

TEST_CASE("4.6 RoI operations, 4.7 matmul, 4.8 update") {
  const std::string rois =
      "    r = variable(shape = [5, 4], label = 'r');\n"
      "    b = variable<integer>(shape = [5, 1], label = 'b');\n";
  CHECK(ShapeAfter(rois + "    y = avg_roi_pool(x, r, b, output_size = [2, 2]);", "[2, 3, 8, 8]") ==
        Extents{5, 3, 2, 2});
  CHECK(
      ShapeAfter(rois + "    y = roi_resample(x, r, b, output_size = [4, 3], method = 'aligned');",
                 "[2, 3, 8, 8]") == Extents{5, 3, 4, 3});
  CHECK(ShapeAfter(rois + "    y = max_roi_align(x, r, b, output_size = [2, 2], sampling_rate = "
                          "[2, 2]);",
                   "[2, 3, 8, 8]") == Extents{5, 3, 2, 2});
  Invalid(
      "    r = variable(shape = [5, 3], label = 'r');\n"
      "    b = variable<integer>(shape = [5, 1], label = 'b');\n"
      "    y = max_roi_pool(x, r, b, output_size = [2, 2]);",
      "[2, 3, 8, 8]", "(N, 2M)", 9);
  Invalid(
      "    r = variable(shape = [5, 4], label = 'r');\n"
      "    b = variable<integer>(shape = [4, 1], label = 'b');\n"
      "    y = max_roi_pool(x, r, b, output_size = [2, 2]);",
      "[2, 3, 8, 8]", "(N, 1)", 9);
  Invalid(rois + "    y = max_roi_pool(x, r, b, output_size = [2]);", "[2, 3, 8, 8]",
          "each spatial dimension", 9);
  Invalid(rois + "    y = roi_resample(x, r, b, output_size = [2, 2], method = 'x');",
          "[2, 3, 8, 8]", "method", 9);

  CHECK(ShapeAfter("    b = variable(shape = [3, 4], label = 'b');\n    y = matmul(x, b);",
                   "[2, 3]") == Extents{2, 4});
  CHECK(ShapeAfter("    b = variable(shape = [3, 4], label = 'b');\n"
                   "    y = matmul(x, b, transposeA = true);",
                   "[3, 2]") == Extents{2, 4});
  CHECK(ShapeAfter("    b = variable(shape = [4, 3], label = 'b');\n"
                   "    y = matmul(x, b, transposeA = true, transposeB = true);",
                   "[3, 2]") == Extents{2, 4});
  CHECK(ShapeAfter("    b = variable(shape = [1, 7, 3, 4], label = 'b');\n    y = matmul(x, b);",
                   "[5, 1, 2, 3]") == Extents{5, 7, 2, 4});
  Invalid("    b = variable(shape = [4, 4], label = 'b');\n    y = matmul(x, b);", "[2, 3]",
          "agreeing dimensions", 8);
  Invalid("    b = variable(shape = [1, 3, 4], label = 'b');\n    y = matmul(x, b);", "[2, 3]",
          "must be equal", 8);
  Invalid("    b = variable(shape = [3, 3, 4], label = 'b');\n    y = matmul(x, b);", "[2, 2, 3]",
          "batch dimensions broadcast", 8);
  Invalid("    b = variable(shape = [3], label = 'b');\n    y = matmul(x, b);", "[3]", "at least 2",
          8);

  FlatGraph g =
      Parse(Doc("    v = variable(shape = [2, 3], label = 'state');\n"
                "    y = update(v, v + x);",
                "y", "", "[2, 3]"));
  CHECK(g.ops.back().op == "update");
  CHECK(g.Tensor("y").shape == Extents{2, 3});
  Invalid("    y = update(x, x);", "[2, 3]", "only variable tensors can be updated");
  Invalid(
      "    v = variable(shape = [2, 3], label = 's');\n    w = variable(shape = [2, 3], "
      "label = 'S');\n    u = update(v, x);\n    y = update(w, x);",
      "[2, 3]", "only be updated once", 10);
  Invalid("    v = variable(shape = [2, 3], label = 's');\n    y = update(v, x);", "[3, 2]",
          "must equal the shape of variable", 8);
  Invalid("    v = variable(shape = [6], label = 's');\n    y = update(v, x);", "[6, 1]",
          "must equal the shape of variable", 8);  // equal rank too (4.8)
}

// ---------------------------------------------------------------------------------------------
// Compound operations expand exactly as the chapter 4 definitions say
// ---------------------------------------------------------------------------------------------

std::vector<std::string> Expanded(const std::string& body, const std::string& fragments = "",
                                  const std::string& xshape = "[1, 2, 4, 4]") {
  std::vector<std::string> lines = BodyLines(Parse(Doc(body, "y", fragments, xshape)));
  lines.erase(lines.begin());  // x = external(...)
  return lines;
}

TEST_CASE("compounds: activations") {
  // sigmoid: y = 1.0 / (1.0 + exp(-x))
  CHECK(Expanded("    y = sigmoid(x);") == std::vector<std::string>{
                                               "y_1 = neg(x);",
                                               "y_2 = exp(y_1);",
                                               "y_3 = add(1.0, y_2);",
                                               "y = div(1.0, y_3);",
                                           });
  // relu: max(x, 0.0) = select(x > 0.0, x, 0.0)
  CHECK(Expanded("    y = relu(x);") ==
        std::vector<std::string>{"y_1 = gt(x, 0.0);", "y = select(y_1, x, 0.0);"});
  // leaky_relu(x, alpha) = prelu(x, alpha) = select(x < 0.0, alpha * x, x)
  CHECK(Expanded("    y = leaky_relu(x, alpha = 0.25);") ==
        std::vector<std::string>{"y_1 = lt(x, 0.0);", "y_2 = mul(0.25, x);",
                                 "y = select(y_1, y_2, x);"});
  // tanh: (exp(x) - exp(-x)) / (exp(x) + exp(-x)), each exp evaluated where it appears
  CHECK(Expanded("    y = tanh(x);") ==
        std::vector<std::string>{"y_1 = exp(x);", "y_2 = neg(x);", "y_3 = exp(y_2);",
                                 "y_4 = sub(y_1, y_3);", "y_5 = exp(x);", "y_6 = neg(x);",
                                 "y_7 = exp(y_6);", "y_8 = add(y_5, y_7);", "y = div(y_4, y_8);"});
  CHECK(Expanded("    y = softmax(x, axes = [1, 2]);") ==
        std::vector<std::string>{
            "y_1 = max_reduce(x, axes = [1, 2]);", "y_2 = sub(x, y_1);", "y_3 = exp(y_2);",
            "y_4 = sum_reduce(y_3, axes = [1, 2], normalize = false);", "y = div(y_3, y_4);"});
  CHECK(Expanded("    y = softplus(x);") ==
        std::vector<std::string>{"y_1 = exp(x);", "y_2 = add(y_1, 1.0);", "y = log(y_2);"});
  CHECK(Expanded("    y = elu(x);") ==
        std::vector<std::string>{"y_1 = lt(x, 0.0);", "y_2 = exp(x);", "y_3 = sub(y_2, 1.0);",
                                 "y = select(y_1, y_3, x);"});
}

TEST_CASE("compounds: expanded groups are tagged with the outermost atomic compound (4.9)") {
  // x = external is op 0 (untagged); tanh's nine primitives form compound 0 with result y.
  FlatGraph g = Parse(Doc("    t = tanh(x);\n    y = leaky_relu(t, alpha = 0.5);"));
  REQUIRE(g.compounds.size() == 2);
  const CompoundInstance& t = g.compounds[0];
  CHECK(t.name == "tanh");
  CHECK(t.first_op == 1);
  CHECK(t.end_op == 10);
  REQUIRE(t.args.size() == 1);
  CHECK(t.args[0].name == "x");
  CHECK(t.args[0].value == ArgValue::Tensor("x"));
  REQUIRE(t.results.size() == 1);
  CHECK(t.results[0].value == ArgValue::Tensor("t"));  // renamed to the graph identifier
  CHECK(t.pos.line == 7);
  // leaky_relu calls prelu: the outermost (leaky_relu) is recorded, not the prelu inside.
  const CompoundInstance& l = g.compounds[1];
  CHECK(l.name == "leaky_relu");
  CHECK(l.first_op == 10);
  CHECK(l.end_op == 13);
  CHECK(l.args[1].value == ArgValue::Scalar(0.5));
  CHECK(l.results[0].value == ArgValue::Tensor("y"));
  REQUIRE(g.ops.size() == 13);
  CHECK(g.ops[0].compound == -1);
  for (size_t i = 1; i < 10; ++i) CHECK(g.ops[i].compound == 0);
  for (size_t i = 10; i < 13; ++i) CHECK(g.ops[i].compound == 1);
  // Compounds without an atomic kernel (sqr, linear, ...) are not recorded; the flat text is
  // unchanged (the primitives, no compound names).
  FlatGraph h = Parse(Doc("    y = sqr(x);"));
  CHECK(h.compounds.empty());
  CHECK(h.ops.back().compound == -1);
  CHECK(g.ToString().find("tanh") == std::string::npos);
}

TEST_CASE("compounds: simplifiers, pooling, normalization, quantization, misc") {
  CHECK(Expanded("    y = rsqrt(x);") == std::vector<std::string>{"y = pow(x, -0.5);"});
  CHECK(Expanded("    y = log2(x);") ==
        std::vector<std::string>{"y_1 = log(x);", "y_2 = log(2.0);", "y = div(y_1, y_2);"});
  // clamp(x, a, b) = max(min(x, b), a)
  CHECK(Expanded("    y = clamp(x, 0.0, 6.0);") ==
        std::vector<std::string>{"y_1 = lt(x, 6.0);", "y_2 = select(y_1, x, 6.0);",
                                 "y_3 = gt(y_2, 0.0);", "y = select(y_3, y_2, 0.0);"});
  CHECK(Expanded("    y = avg_pool(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2]);") ==
        std::vector<std::string>{
            "y = box(x, size = [1, 1, 2, 2], border = 'constant', padding = [], stride = [1, 1, "
            "2, 2], dilation = [], normalize = true);"});
  CHECK(Expanded("    y = max_pool(x, size = [1, 1, 3, 3], border = 'ignore');") ==
        std::vector<std::string>{
            "y_1 = argmax_pool(x, size = [1, 1, 3, 3], border = 'ignore', padding = [], stride = "
            "[], dilation = []);",
            "y = sample(x, y_1, size = [1, 1, 3, 3], border = 'ignore', padding = [], stride = "
            "[], dilation = []);"});
  CHECK(Expanded("    y = nearest_upsample(x, factor = [2, 2]);") ==
        std::vector<std::string>{
            "y = debox(x, size = [1, 1, 2, 2], border = 'constant', padding = [(0, 0), (0, 0), "
            "(0, 0), (0, 0)], stride = [1, 1, 2, 2], dilation = [], output_shape = [], normalize "
            "= false);"});
  CHECK(Expanded("    y = batch_normalization(x, 0.5, 4.0, 1.0, 2.0, epsilon = 0.0);") ==
        std::vector<std::string>{"y_1 = sub(x, 0.5);", "y_2 = mul(2.0, y_1);",
                                 "y_3 = add(4.0, 0.0);", "y_4 = pow(y_3, 0.5);",
                                 "y_5 = div(y_2, y_4);", "y = add(1.0, y_5);"});
  // linear_quantize: r = scalar(2 ^ bits - 1) = 255.0 is compile-time; min and max are tensor
  // parameters, so max - min is a sub operation even for literal arguments (3.3.3).
  CHECK(Expanded("    y = linear_quantize(x, 0.0, 1.0, bits = 8);") ==
        std::vector<std::string>{
            "y_1 = lt(x, 1.0);", "y_2 = select(y_1, x, 1.0);", "y_3 = gt(y_2, 0.0);",
            "y_4 = select(y_3, y_2, 0.0);", "y_5 = sub(y_4, 0.0);", "y_6 = sub(1.0, 0.0);",
            "y_7 = div(y_5, y_6);", "y_8 = mul(y_7, 255.0);", "y_9 = round(y_8);",
            "y_10 = div(y_9, 255.0);", "y_11 = sub(1.0, 0.0);", "y_12 = mul(y_10, y_11);",
            "y = add(y_12, 0.0);"});
  // add_n(x) = x[0] + add_n(x[1:]) if length_of(x) > 0 else 0.0 (recursive, lazy).
  CHECK(Expanded("    y = add_n([x, x, x]);") ==
        std::vector<std::string>{"y_1 = add(x, 0.0);", "y_2 = add(x, y_1);", "y = add(x, y_2);"});
  CHECK(Expanded("    y = add_n([]);") == std::vector<std::string>{"y = copy(0.0);"});
  CHECK(Expanded("    [a, y] = copy_n(x, times = 2);") ==
        std::vector<std::string>{"a = copy(x);", "y = copy(x);"});
  CHECK(Expanded("    y, v = moments(x, axes = [2, 3]);") ==
        std::vector<std::string>{"y = sum_reduce(x, axes = [2, 3], normalize = true);",
                                 "y_2 = sub(x, y);", "y_3 = pow(y_2, 2.0);",
                                 "v = sum_reduce(y_3, axes = [2, 3], normalize = true);"});
  CHECK(Expanded("    w = variable(shape = [3, 4], label = 'w');\n"
                 "    y = linear(x, w, 1.5);",
                 "", "[2, 4]") ==
        std::vector<std::string>{"w = variable(shape = [3, 4], label = 'w');",
                                 "y_1 = matmul(x, w, transposeA = false, transposeB = true);",
                                 "y = add(y_1, 1.5);"});
}

TEST_CASE("compounds: every standard compound expands to primitives with propagated shapes") {
  FlatGraph g = Parse(Doc(R"(    pf = variable(shape = [2, 1, 3, 3], label = 'pf');
    qf = variable(shape = [4, 2, 1, 1], label = 'qf');
    rois = variable(shape = [3, 4], label = 'rois');
    bi = variable<integer>(shape = [3, 1], label = 'bi');
    a1 = sqr(x) + sqrt(x) + rsqr(x) + rsqrt(x) + log2(x) + min(x, 1.0) + max(x, 1.0);
    a2 = clamp(x, 0.0, 1.0) + sigmoid(x) + relu(x) + prelu(x, 0.1) + leaky_relu(x, alpha = 0.1);
    a3 = elu(x) + tanh(x) + softmax(x) + softplus(x);
    a4 = separable_conv(x, pf, qf);
    a5 = separable_deconv(a4, pf, qf);
    a6, i6 = max_pool_with_index(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2]);
    a7 = max_pool(x, size = [1, 1, 3, 3]) + avg_pool(x, size = [1, 1, 3, 3]) + rms_pool(x, size = [1, 1, 3, 3]);
    a8 = local_response_normalization(x, size = [1, 2, 1, 1]) + local_mean_normalization(x, size = [1, 1, 3, 3]);
    a9 = local_variance_normalization(x, size = [1, 1, 3, 3]) + local_contrast_normalization(x, size = [1, 1, 3, 3]);
    b1 = l1_normalization(x, axes = [1]) + l2_normalization(x, axes = [1], epsilon = 1e-5);
    b2 = batch_normalization(x, 0.0, 1.0, 0.0, 1.0, epsilon = 1e-3);
    b3 = linear_quantize(x, -1.0, 1.0, bits = 4) + logarithmic_quantize(x, 4.0, bits = 3);
    b4 = nearest_downsample(x, factor = [2, 2]) + area_downsample(x, factor = [2, 2]);
    b5 = nearest_upsample(b4, factor = [2, 2]);
    b6 = mean_reduce(x, axes = [2, 3]);
    b7 = avg_roi_align(x, rois, bi, output_size = [2, 2], sampling_rate = [2, 1]);
    [c1, c2] = copy_n(x, times = 2);
    y = add_n([a1, a2, a3, a5, a7, a8, a9, b1, b2, b3, b5]);)",
                          "y", "", "[2, 2, 4, 4]"));
  static const std::set<std::string> kPrimitives = {"external",
                                                    "constant",
                                                    "variable",
                                                    "copy",
                                                    "neg",
                                                    "rcp",
                                                    "exp",
                                                    "log",
                                                    "sin",
                                                    "cos",
                                                    "abs",
                                                    "sign",
                                                    "not",
                                                    "floor",
                                                    "ceil",
                                                    "round",
                                                    "add",
                                                    "sub",
                                                    "mul",
                                                    "div",
                                                    "pow",
                                                    "lt",
                                                    "gt",
                                                    "le",
                                                    "ge",
                                                    "eq",
                                                    "ne",
                                                    "and",
                                                    "or",
                                                    "select",
                                                    "conv",
                                                    "deconv",
                                                    "box",
                                                    "debox",
                                                    "argmax_pool",
                                                    "sample",
                                                    "desample",
                                                    "multilinear_upsample",
                                                    "sum_reduce",
                                                    "max_reduce",
                                                    "min_reduce",
                                                    "argmax_reduce",
                                                    "argmin_reduce",
                                                    "all_reduce",
                                                    "any_reduce",
                                                    "reshape",
                                                    "squeeze",
                                                    "unsqueeze",
                                                    "transpose",
                                                    "split",
                                                    "concat",
                                                    "stack",
                                                    "unstack",
                                                    "slice",
                                                    "pad",
                                                    "tile",
                                                    "avg_roi_pool",
                                                    "max_roi_pool",
                                                    "roi_resample",
                                                    "matmul",
                                                    "update"};
  for (const Invocation& op : g.ops) {
    CAPTURE(op.op);
    CHECK(kPrimitives.count(op.op) == 1);
    CHECK_FALSE(op.custom);
  }
  CHECK(g.Tensor("a4").shape == Extents{2, 4, 4, 4});  // depth-wise 3x3 then point-wise 1x1
  CHECK(g.Tensor("a5").shape == Extents{2, 2, 4, 4});
  CHECK(g.Tensor("a6").shape == Extents{2, 2, 2, 2});
  CHECK(g.Tensor("i6").dtype == TensorType::kInteger);
  CHECK(g.Tensor("b4").shape == Extents{2, 2, 2, 2});
  CHECK(g.Tensor("b5").shape == Extents{2, 2, 4, 4});
  CHECK(g.Tensor("b6").shape == Extents{2, 2, 1, 1});
  CHECK(g.Tensor("b7").shape == Extents{3, 2, 2, 2});
  const Invocation& resample = g.ops[static_cast<size_t>(
      g.Tensor(g.ops[g.Tensor("b7").producer].args[0].value.str).producer)];
  CHECK(resample.op == "roi_resample");
  CHECK(resample.Arg("output_size")->ToString() == "[4, 2]");  // output_size * sampling_rate
  CHECK(g.Tensor("y").shape == Extents{2, 2, 4, 4});
}

// ---------------------------------------------------------------------------------------------
// Document fragments: expansion to any depth, recursion, generated names
// ---------------------------------------------------------------------------------------------

TEST_CASE("document fragments expand to any depth; bounded recursion terminates") {
  std::string frags = R"(
fragment level1( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = level2(a) * 2.0; }
fragment level2( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = level3(a) + 1.0; }
fragment level3( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = exp(a); }
fragment repeat( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )
{
    y = repeat(neg(x), n = n - 1) if n > 0 else x;
}
fragment pair( x: tensor<scalar> ) -> ( s: tensor<scalar>, d: tensor<scalar> )
{
    t = x * x;
    s = t + x;
    d = t;
}
fragment twice( x: tensor<scalar> ) -> ( a: tensor<scalar>, b: tensor<scalar> )
{
    t = exp(x);
    a = t;
    b = t;
}
)";
  CHECK(Expanded("    y = level1(x);", frags) ==
        std::vector<std::string>{"y_1 = exp(x);", "y_2 = add(y_1, 1.0);", "y = mul(y_2, 2.0);"});
  CHECK(Expanded("    y = repeat(x, n = 3);", frags) ==
        std::vector<std::string>{"y_1 = neg(x);", "y_2 = neg(y_1);", "y = neg(y_2);"});
  CHECK(Expanded("    y = repeat(x, n = 0);", frags) == std::vector<std::string>{"y = copy(x);"});
  // Results are fresh tensors: they take the graph identifiers.
  CHECK(Expanded("    y, z = pair(x);", frags) ==
        std::vector<std::string>{"z = mul(x, x);", "y = add(z, x);"});
  // Two results naming the same tensor: the second identifier is a copy.
  CHECK(Expanded("    y, z = twice(x);", frags) ==
        std::vector<std::string>{"y = exp(x);", "z = copy(y);"});
  // Generated names avoid every identifier of the graph.
  CHECK(Expanded("    y = relu(x);\n    y_1 = relu(y);", frags) ==
        std::vector<std::string>{"y_2 = gt(x, 0.0);", "y = select(y_2, x, 0.0);",
                                 "y_1_1 = gt(y, 0.0);", "y_1 = select(y_1_1, y, 0.0);"});
}

TEST_CASE("unbounded fragment recursion is detected, not a stack overflow") {
  std::string frags = R"(
fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = g(a); }
fragment g( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = f(a) + 1.0; }
fragment self( a: tensor<scalar>, n: integer ) -> ( b: tensor<scalar> ) { b = self(a, n = n + 1); }
)";
  NnefError e = ErrorOf(Doc("    y = f(x);", "y", frags));
  CHECK(e.stage() == Stage::kValidate);
  CHECK(e.message().find("recursion") != std::string::npos);
  CHECK(e.message().find("f -> g -> f -> g") != std::string::npos);
  CHECK((e.pos().line == 4 || e.pos().line == 5));  // inside the document's fragments f, g
  NnefError e2 = ErrorOf(Doc("    y = self(x, n = 0);", "y", frags));
  CHECK(e2.message().find("recursion") != std::string::npos);
  // A depth limit in the options.
  ParseOptions small;
  small.max_expansion_depth = 3;
  std::string repeat = R"(
fragment repeat( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )
{
    y = repeat(neg(x), n = n - 1) if n > 0 else x;
}
)";
  CHECK_NOTHROW(ParseDocument(Doc("    y = repeat(x, n = 1);", "y", repeat), "t.nnef", small));
  CHECK_THROWS_AS(ParseDocument(Doc("    y = repeat(x, n = 5);", "y", repeat), "t.nnef", small),
                  NnefError);
}

TEST_CASE("compile-time evaluation errors are validity errors with positions") {
  auto bad = [](const std::string& expr, const std::string& type, const std::string& part) {
    std::string doc = Doc("    y = probe(v = " + expr + ");", "y",
                          "fragment probe( v: " + type + " ) -> ( y: tensor<scalar> );\n");
    CAPTURE(doc);
    NnefError e = ErrorOf(doc);
    INFO(e.what());
    CHECK(e.stage() == Stage::kValidate);
    CHECK(
        (e.message().find(part) != std::string::npos || e.rule().find(part) != std::string::npos));
    CHECK(e.pos().line == 8);
  };
  bad("[1, 2][2]", "integer", "out of range");
  bad("[1, 2][-1]", "integer", "out of range");
  bad("[1, 2][0:3]", "integer[]", "out of bounds");
  bad("'ab'[2]", "string", "out of range");
  bad("9223372036854775807 + 1", "integer", "overflows");
  bad("4611686018427387904 * 2", "integer", "overflows");
  bad("2 ^ 63", "integer", "overflows");
  bad("1 / 0", "integer", "division by zero");
  bad("2 ^ -1", "integer", "negative exponent");
  bad("1e308 * 10.0", "scalar", "finite");
  bad("0.0 / 0.0", "scalar", "finite");
  bad("integer('1.5')", "integer", "not a valid integer literal");
  bad("integer(1e300)", "integer", "out of range");
  bad("scalar('abc')", "scalar", "not a valid scalar literal");
  bad("[1] * -1", "integer[]", "negative number of times");
  bad("[for i in [1, 2], j in [1] yield i]", "integer[]", "same length");
  bad("[1] * 2000000000", "integer[]", "exceeds the limit");
  bad("'ab' * 2000000000", "string", "exceeds the limit");
  // Hostile extents never reach an allocation.
  Invalid("    y = constant(shape = [1000000, 1000000, 1000000], value = [0.0]);", "[1]",
          "hostile extents");
  Invalid("    y = tile(x, repeats = [1099511627776, 2]);", "[1, 1]", "hostile extents");
  // Deep expressions inside deep recursion: bounded as a whole, never a stack overflow.
  std::string deep =
      "fragment deep( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )\n{\n"
      "    y = " +
      std::string(150, '-') + "deep(x, n = n - 1) if n > 0 else x;\n}\n";
  NnefError e = ErrorOf(Doc("    y = deep(x, n = 150);", "y", deep));
  CHECK(e.message().find("implementation limit") != std::string::npos);
  NnefError t = ErrorOf(Doc(
      "    y = x;", "y", "fragment f( a: tensor<scalar>, b: integer" + [] {
        std::string s;
        for (int i = 0; i < 5000; ++i) s += "[]";
        return s;
      }() + " ) -> ( y: tensor<scalar> );\n"));
  CHECK(t.stage() == Stage::kParse);
  ParseOptions few;
  few.max_operations = 5;
  CHECK_THROWS_AS(ParseDocument(Doc("    y = tanh(x);"), "t.nnef", few), NnefError);
}

TEST_CASE("custom operations: shapes unknown downstream, shape_of rejected") {
  std::string frags = "fragment mystery( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n";
  FlatGraph g = Parse(Doc("    m = mystery(x);\n    y = relu(m) + x;", "y", frags));
  CHECK_FALSE(g.Tensor("m").shape_known);
  CHECK_FALSE(g.Tensor("y").shape_known);
  CHECK(g.Tensor("x").shape_known);
  CHECK(g.ops[1].custom);
  NnefError e =
      ErrorOf(Doc("    m = mystery(x);\n    y = reshape(m, shape = shape_of(m));", "y", frags));
  CHECK(e.message().find("not known") != std::string::npos);
  CHECK(e.pos().line == 9);
}

// ---------------------------------------------------------------------------------------------
// The flat text round-trips; ParseModel reads files and folders
// ---------------------------------------------------------------------------------------------

TEST_CASE("ToString prints a flat document that parses back to the same graph") {
  std::string frags = R"(
fragment mystery<?>( x: tensor<?>, k: (integer, string)[] = [(1, 'a')] ) -> ( y: tensor<?>[] );
)";
  FlatGraph g = Parse(Doc(R"(    w = variable(shape = [4, 2, 3, 3], label = 'conv/w');
    c = conv(x, w, 0.5, stride = [2, 2]);
    k = constant<integer>(shape = [2], value = [3, -4]);
    m = constant<logical>(shape = [1, 4], value = [true, false, true, true]);
    [p, q] = mystery(c, k = [(2, 'b\'c')]);
    r = select(m, p, 1e-7) if 'it\'s' + '\\' == 'it\'s\\' else q;
    y = softmax(r);)",
                          "y", frags));
  std::string text = g.ToString();
  INFO(text);
  FlatGraph h = ParseDocument(text, "flat.nnef");
  CHECK(h.ToString() == text);
  CHECK(h.ops.size() == g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    CHECK(h.ops[i].op == g.ops[i].op);
    CHECK(h.ops[i].dtype == g.ops[i].dtype);
    REQUIRE(h.ops[i].args.size() == g.ops[i].args.size());
    for (size_t k = 0; k < g.ops[i].args.size(); ++k)
      CHECK(h.ops[i].args[k].value == g.ops[i].args[k].value);
  }
  for (const auto& [name, t] : g.tensors) {
    CAPTURE(name);
    CHECK(h.Tensor(name).shape == t.shape);
    CHECK(h.Tensor(name).dtype == t.dtype);
  }
}

TEST_CASE("ParseModel reads graph.nnef from a file or a model folder") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "nnref_nnef_parse_model_test";
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "graph.nnef");
    out << "version 1.0;\ngraph M( a ) -> ( b )\n{\n  a = external(shape = [3]);\n  b = "
           "exp(a);\n}\n";
  }
  FlatGraph g1 = ParseModel(dir.string());
  FlatGraph g2 = ParseModel((dir / "graph.nnef").string());
  CHECK(g1.name == "M");
  CHECK(g2.ToString() == g1.ToString());
  CHECK(g1.file == (dir / "graph.nnef").string());
  fs::remove_all(dir);
  NnefError e = ErrorOf("");  // empty document
  CHECK(e.stage() == Stage::kParse);
  CHECK_THROWS_AS(ParseModel((dir / "missing").string()), NnefError);
}

}  // namespace
}  // namespace nnref::nnef
