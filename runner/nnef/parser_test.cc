// NNEF chapter 3 syntax and chapter 6 steps 1-2: a parse test for every syntax form, and a
// rejection test for every document-validity rule (listed below with their sections). Expected
// values are derived by hand from the specification text. Operation argument validity (chapter 6
// step 3), expansion and shapes are in expand_test.cc.
#include <doctest/doctest.h>

#include "runner/nnef/lexer.h"
#include "runner/nnef/nnef_testing.h"

namespace nnref::nnef {
namespace {

using testing::BodyLines;
using testing::Doc;
using testing::ErrorOf;
using testing::Parse;

// ---------------------------------------------------------------------------------------------
// 3.1 Lexical elements
// ---------------------------------------------------------------------------------------------

TEST_CASE("lexer: identifiers, keywords, literals, operators, comments and white space") {
  auto toks = Tokenize(
      "version 1.0;# comment ; graph\n\t\v\f\r\nfoo_1 _x 12 3.25 1e3 2.5E-2 'a\\'b' \"q\\\\\" "
      "true false <= >= == != && || -> [ ] { } ( ) : = , ; ? + - * / ^ < > ! # tail",
      "t");
  std::vector<std::pair<Tok, std::string>> want = {
      {Tok::kKeyword, "version"}, {Tok::kNumber, "1.0"},
      {Tok::kPunct, ";"},         {Tok::kIdentifier, "foo_1"},
      {Tok::kIdentifier, "_x"},   {Tok::kNumber, "12"},
      {Tok::kNumber, "3.25"},     {Tok::kNumber, "1e3"},
      {Tok::kNumber, "2.5E-2"},   {Tok::kString, "a'b"},
      {Tok::kString, "q\\"},      {Tok::kLogical, "true"},
      {Tok::kLogical, "false"},   {Tok::kPunct, "<="},
      {Tok::kPunct, ">="},        {Tok::kPunct, "=="},
      {Tok::kPunct, "!="},        {Tok::kPunct, "&&"},
      {Tok::kPunct, "||"},        {Tok::kPunct, "->"},
      {Tok::kPunct, "["},         {Tok::kPunct, "]"},
      {Tok::kPunct, "{"},         {Tok::kPunct, "}"},
      {Tok::kPunct, "("},         {Tok::kPunct, ")"},
      {Tok::kPunct, ":"},         {Tok::kPunct, "="},
      {Tok::kPunct, ","},         {Tok::kPunct, ";"},
      {Tok::kPunct, "?"},         {Tok::kPunct, "+"},
      {Tok::kPunct, "-"},         {Tok::kPunct, "*"},
      {Tok::kPunct, "/"},         {Tok::kPunct, "^"},
      {Tok::kPunct, "<"},         {Tok::kPunct, ">"},
      {Tok::kPunct, "!"},         {Tok::kEnd, ""}};
  REQUIRE(toks.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(toks[i].kind == want[i].first);
    CHECK(toks[i].text == want[i].second);
  }
  CHECK_FALSE(toks[5].is_real);  // 12
  CHECK(toks[6].is_real);        // 3.25
  CHECK(toks[7].is_real);        // 1e3: an exponent makes a real (scalar) literal
  // 'foo_1' is on line 3 (after the comment line and the CR-LF line), column 1.
  CHECK(toks[3].line == 3);
  CHECK(toks[3].column == 1);
  CHECK(toks[4].column == 7);
  for (const char* k :
       {"version", "extension", "graph", "fragment", "tensor", "integer", "scalar", "logical",
        "string", "shape_of", "length_of", "range_of", "for", "in", "yield", "if", "else"}) {
    CHECK(IsKeyword(k));
  }
  CHECK_FALSE(IsKeyword("relu"));
  CHECK_FALSE(IsKeyword("true"));  // a logical literal, not a keyword
}

// Line * 1000 + column of the lexical error in `text`.
int LexErrorAt(const char* text) {
  try {
    Tokenize(text, "f.nnef");
  } catch (const NnefError& e) {
    CHECK(e.stage() == Stage::kParse);
    CHECK(e.pos().file == "f.nnef");
    return e.pos().line * 1000 + e.pos().column;
  }
  FAIL("accepted: " << text);
  return 0;
}

TEST_CASE("lexer: rejections with line and column (3.1)") {
  CHECK(LexErrorAt("a $ b") == 1003);           // character outside the lexical elements
  CHECK(LexErrorAt("x = 'abc") == 1005);        // unterminated string
  CHECK(LexErrorAt("'a\nb'") == 1003);          // new line inside a string
  CHECK(LexErrorAt("'a\\nb'") == 1003);         // backslash escaping something other than ' or \.
  CHECK(LexErrorAt("'a\\\"b'") == 1003);        // in '...', only ' (the start quote) is escaped
  CHECK(LexErrorAt("\"tab\there\"") == 1005);   // non-printable character in a string
  CHECK(LexErrorAt("1.") == 1003);              // decimal point without fraction digits
  CHECK(LexErrorAt("1e+") == 1004);             // exponent without digits
  CHECK(LexErrorAt("12abc") == 1003);           // identifiers must not start with a digit
  CHECK(LexErrorAt("a & b") == 1003);           // '&' alone is no operator
  CHECK(LexErrorAt("\n\n  \xc3\xa9") == 3003);  // non-ASCII outside strings
}

// ---------------------------------------------------------------------------------------------
// 3.2 Syntax: every form parses
// ---------------------------------------------------------------------------------------------

TEST_CASE("syntax: flat document (3.2.1, 3.2.4, appendix A.1)") {
  FlatGraph g = Parse(R"(version 1.0;
# a flat document: no extensions, invocations only, flat right-value expressions
graph Flat( a, b ) -> ( c, d, e, i )
{
    a = external(shape = [2, 3]);
    b = external<integer>(shape = [2, 1]);
    k = constant<logical>(shape = [1, 3], value = [true, false, true]);
    v = variable(shape = [2, 3], label = "blk/w_0");
    c = pad(a, padding = [(1, 0), (0, -1)], border = 'constant', value = -2.5e-1);
    d = select(k, a, -1.0);
    [e, f] = split(a, axis = 1, ratios = [2, 1]);
    (m, i) = max_pool_with_index(a, size = [1, 2], padding = [(0, 0), (0, 1)]);
    m2, i2 = max_pool_with_index(v, size = [1, 1]);
}
)");
  CHECK(g.version == "1.0");
  CHECK(g.extensions.empty());
  CHECK(g.name == "Flat");
  CHECK(g.inputs == std::vector<std::string>{"a", "b"});
  CHECK(g.outputs == std::vector<std::string>{"c", "d", "e", "i"});
  CHECK(g.Tensor("b").dtype == TensorType::kInteger);
  CHECK(g.Tensor("k").dtype == TensorType::kLogical);
  CHECK(g.Tensor("c").shape == Extents{3, 2});  // (2+1+0, 3+0-1)
  CHECK(g.Tensor("d").shape == Extents{2, 3});  // [1,3] with [2,3] and rank 0
  CHECK(g.Tensor("e").shape == Extents{2, 2});  // ratios 2:1 of extent 3
  CHECK(g.Tensor("f").shape == Extents{2, 1});
  CHECK(g.Tensor("m").shape == Extents{2, 3});  // (3 + 1 - 2) / 1 + 1 = 3
  CHECK(g.Tensor("i").dtype == TensorType::kInteger);
  CHECK(g.Tensor("m2").shape == Extents{2, 3});
  const Invocation& pad = g.ops[g.Tensor("c").producer];
  CHECK(pad.op == "pad");
  CHECK(pad.Arg("value")->s == -0.25);
  CHECK(pad.Arg("value")->text == "-2.5e-1");  // the literal's own text, for single rounding
  CHECK(pad.Arg("padding")->ToString() == "[(1, 0), (0, -1)]");
  const Invocation& var = g.ops[g.Tensor("v").producer];
  CHECK(var.Arg("label")->str == "blk/w_0");
}

TEST_CASE("syntax: version and extension declarations (3.2.4)") {
  FlatGraph g = Parse(
      "version 1.0;\n"
      "extension KHR_enable_fragment_definitions   KHR_enable_operator_expressions;\n"
      "extension VENDOR_thing;\n"
      "graph G( x ) -> ( x ) { x = external(shape = [1]); }");
  CHECK(g.extensions == std::vector<std::string>{"KHR_enable_fragment_definitions",
                                                 "KHR_enable_operator_expressions",
                                                 "VENDOR_thing"});
  CHECK(g.outputs == std::vector<std::string>{"x"});
}

TEST_CASE("syntax: fragment declarations: generic, defaults, array/tuple/tensor types (3.2.2)") {
  FlatGraph g = Parse(R"(version 1.0;
extension KHR_enable_fragment_definitions;

fragment custom_op<? = integer>(
    a: tensor<>,                                  # unbound tensor
    b: tensor<?>[],                               # array of generic tensors
    sizes: integer[][] = [[1], [2, 3], []],       # nested arrays, empty array
    pads: (integer, integer)[] = [(0, -1)],       # array of tuples, negative literal
    pair: (scalar[], logical) = ([1.5], true),    # tuple holding an array
    name: string = "n",
    g: ? = 7 )
-> ( out: tensor<?>, more: tensor<scalar>[] );

fragment ident<?>( x: tensor<?> ) -> ( y: tensor<?> )
{
    y = copy<?>(x);
}

graph G( x ) -> ( o, p, q )
{
    x = external<integer>(shape = [3]);
    o, [p, q] = custom_op(x, [x, x]);
    r = ident(x);
}
)");
  REQUIRE(g.ops.size() == 3);
  const Invocation& c = g.ops[1];
  CHECK(c.op == "custom_op");
  CHECK(c.custom);
  CHECK(c.dtype == TensorType::kInteger);  // the generic default
  CHECK(c.Arg("sizes")->ToString() == "[[1], [2, 3], []]");
  CHECK(c.Arg("pads")->ToString() == "[(0, -1)]");
  CHECK(c.Arg("pair")->ToString() == "([1.5], true)");
  CHECK(c.Arg("name")->ToString() == "'n'");
  CHECK(c.Arg("g")->i == 7);
  CHECK(c.results[1].value.items.size() == 2);  // the left-hand side gives the array length
  CHECK_FALSE(g.Tensor("o").shape_known);       // downstream of a custom operation
  CHECK(g.ops[2].op == "copy");
  CHECK(g.ops[2].dtype == TensorType::kInteger);  // <?> propagated from the deduced binding
  REQUIRE(g.custom_declarations.size() == 1);
  CHECK(g.custom_declarations[0] ==
        "fragment custom_op<? = integer>( a: tensor<>, b: tensor<?>[], sizes: integer[][] = "
        "[[1], [2, 3], []], pads: (integer,integer)[] = [(0, -1)], pair: (scalar[],logical) = "
        "([1.5], true), name: string = 'n', g: ? = 7 ) -> ( out: tensor<?>, more: "
        "tensor<scalar>[] );");
}

TEST_CASE("syntax: left-value forms (3.2.1): identifier, tuple, parenthesized tuple, arrays") {
  FlatGraph g = Parse(Doc(R"(    a, b = max_pool_with_index(x, size = [1, 1, 2, 2]);
    (c, d) = max_pool_with_index(x, size = [1, 1, 1, 1]);
    [e, f] = split(x, axis = 1, ratios = [1, 1]);
    ([s1, s2], t) = ([e, f], relu(x));
    y = a;)"));
  CHECK(g.Tensor("a").shape == Extents{1, 2, 4, 4});  // automatic padding keeps the extent
  CHECK(g.Tensor("b").dtype == TensorType::kInteger);
  CHECK(g.Tensor("e").shape == Extents{1, 1, 4, 4});
  CHECK(g.Tensor("s1").shape == Extents{1, 1, 4, 4});
  CHECK(g.Tensor("t").shape == Extents{1, 2, 4, 4});
  CHECK(g.ops[g.Tensor("s1").producer].op == "copy");  // s1 names an existing tensor: a copy
}

TEST_CASE("syntax: operator expressions parse with the precedence of 3.3.3") {
  // Precedence lowest to highest: in, && ||, comparisons, + -, * /, ^ (right-associative); unary
  // operators bind looser than ^ on their right; if-else is the loosest.
  auto value = [](const std::string& expr, const std::string& type) {
    FlatGraph g = Parse(Doc("    y = probe(v = " + expr + ");", "y",
                            "fragment probe( v: " + type + " ) -> ( y: tensor<scalar> );\n"));
    return g.ops[1].Arg("v")->ToString();
  };
  CHECK(value("1 + 2 * 3", "integer") == "7");
  CHECK(value("(1 + 2) * 3", "integer") == "9");
  CHECK(value("2 ^ 3 ^ 2", "integer") == "512");  // 2 ^ (3 ^ 2)
  CHECK(value("-2 ^ 2", "integer") == "-4");      // -(2 ^ 2)
  CHECK(value("2.0 ^ -1.0", "scalar") == "0.5");
  CHECK(value("10 - 4 - 3", "integer") == "3");  // left-associative
  CHECK(value("12 / 3 / 2", "integer") == "2");
  CHECK(value("1 < 2 && 3 > 4 || true", "logical") == "true");  // (..&&..)||true
  CHECK(value("1 + 1 == 2", "logical") == "true");
  CHECK(value("(2 in [1, 2]) && false", "logical") == "false");
  CHECK(value("1 if false else 2 if true else 3", "integer") == "2");
  CHECK(value("!true || !false", "logical") == "true");
  CHECK(value("- - 3", "integer") == "3");
  CHECK(value("+4", "integer") == "4");
}

// The value of the compile-time expression `expr` of type `type`, as NNEF text (evaluated through
// an attribute of a custom operation). `fragments` may define helpers.
std::string Value(const std::string& expr, const std::string& type,
                  const std::string& fragments = "") {
  FlatGraph g =
      Parse(Doc("    y = probe(v = " + expr + ");", "y",
                fragments + "fragment probe( v: " + type + " ) -> ( y: tensor<scalar> );\n"));
  return g.ops.back().Arg("v")->ToString();
}

TEST_CASE("syntax: arrays, tuples, subscripts, ranges, comprehensions, built-ins (3.2.3)") {
  CHECK(Value("[1, 2] + [3]", "integer[]") == "[1, 2, 3]");
  CHECK(Value("[1, 2] * 3", "integer[]") == "[1, 2, 1, 2, 1, 2]");
  CHECK(Value("[] + [4]", "integer[]") == "[4]");
  CHECK(Value("[1, 2] * 0", "integer[]") == "[]");
  CHECK(Value("[[1], []]", "integer[][]") == "[[1], []]");
  CHECK(Value("[5, 6, 7][1]", "integer") == "6");
  CHECK(Value("[5, 6, 7][1:]", "integer[]") == "[6, 7]");
  CHECK(Value("[5, 6, 7][:2]", "integer[]") == "[5, 6]");
  CHECK(Value("[5, 6, 7][:]", "integer[]") == "[5, 6, 7]");
  CHECK(Value("[5, 6, 7][1:2]", "integer[]") == "[6]");
  CHECK(Value("[5, 6, 7][2:2]", "integer[]") == "[]");
  CHECK(Value("[5, 6, 7][3:1]", "integer[]") == "[]");  // begin >= end: empty
  CHECK(Value("(1, 'a', [true])[2]", "logical[]") == "[true]");
  CHECK(Value("[(1, 2.5)][0][1]", "scalar") == "2.5");
  CHECK(Value("'ab' + 'cd'", "string") == "'abcd'");
  CHECK(Value("'ab' * 2", "string") == "'abab'");
  CHECK(Value("'hello'[1]", "string") == "'e'");
  CHECK(Value("'hello'[1:3]", "string") == "'el'");
  CHECK(Value("'it\\'s'", "string") == "'it\\'s'");
  CHECK(Value("[for i in [1, 2, 3] yield i * i]", "integer[]") == "[1, 4, 9]");
  CHECK(Value("[for i in [1, 2, 3], j in [10, 20, 30] yield i + j]", "integer[]") ==
        "[11, 22, 33]");
  CHECK(Value("[for i in range_of([7, 8, 9]) if i != 1 yield i]", "integer[]") == "[0, 2]");
  CHECK(Value("[for i in [1, 2] if i > 5 yield i]", "integer[]") == "[]");
  // The iterated expression ends before the comprehension's 'if' (3.2.3).
  CHECK(Value("[for i in [1, 2, 3] if i in [2, 3] yield i]", "integer[]") == "[2, 3]");
  CHECK(Value("[for i in [3, 4] yield i if i > 3 else 0]", "integer[]") == "[0, 4]");
  CHECK(Value("[for p in [(1, 2), (3, 4)] yield p[1]]", "integer[]") == "[2, 4]");
  CHECK(Value("2 in [1, 2]", "logical") == "true");
  CHECK(Value("[1, 2] in [[1], [1, 2]]", "logical") == "true");  // deep comparison
  CHECK(Value("(1, 'a') == (1, 'a')", "logical") == "true");
  CHECK(Value("[1, 2] != [1, 2]", "logical") == "false");
  CHECK(Value("length_of([1, 2, 3])", "integer") == "3");
  CHECK(Value("length_of([])", "integer") == "0");
  CHECK(Value("length_of('abcd')", "integer") == "4");
  CHECK(Value("range_of([4, 4, 4])", "integer[]") == "[0, 1, 2]");
  CHECK(Value("range_of('ab')", "integer[]") == "[0, 1]");
  CHECK(Value("shape_of(x)", "integer[]") == "[1, 2, 4, 4]");
  CHECK(Value("shape_of(1.5)", "integer[]") == "[]");  // non-tensor: the singleton shape
  CHECK(Value("integer(true)", "integer") == "1");
  CHECK(Value("integer(-2.5)", "integer") == "-3");  // the closest smaller integer
  CHECK(Value("integer(2.9)", "integer") == "2");
  CHECK(Value("integer('-42')", "integer") == "-42");
  CHECK(Value("scalar(false)", "scalar") == "0.0");
  CHECK(Value("scalar(3)", "scalar") == "3.0");
  CHECK(Value("scalar('1.5e2')", "scalar") == "1.5e2");
  CHECK(Value("logical(0)", "logical") == "false");
  CHECK(Value("logical(0.5)", "logical") == "true");
  CHECK(Value("logical('')", "logical") == "false");
  CHECK(Value("logical('x')", "logical") == "true");
  CHECK(Value("string(12)", "string") == "'12'");
  CHECK(Value("string(0.1)", "string") == "'0.1'");
  CHECK(Value("string(true)", "string") == "'true'");
  CHECK(Value("string(2.0 * 3.0)", "string") == "'6.0'");
  CHECK(Value("7 / 2", "integer") == "3");
  CHECK(Value("-7 / 2", "integer") == "-4");  // integer division rounds down
  CHECK(Value("1.0 / 4.0", "scalar") == "0.25");
  CHECK(Value("2 ^ 10", "integer") == "1024");
  CHECK(Value("-1.5", "scalar") == "-1.5");
  CHECK(Value("1e-3", "scalar") == "1e-3");
  CHECK(Value("true && false || true", "logical") == "true");
  CHECK(Value("'a' == 'a'", "logical") == "true");
  CHECK(Value("1 <= 1 && 2 >= 3", "logical") == "false");
}

TEST_CASE("syntax: if-else is lazy; recursion through it terminates (3.3.3)") {
  // The unselected branch would index out of range.
  CHECK(Value("[1][5] if false else 0", "integer") == "0");
  CHECK(Value("[1][0] if true else [1][5]", "integer") == "1");
  // && and || do not evaluate their right side when the left side decides.
  CHECK(Value("false && [true][3]", "logical") == "false");
  CHECK(Value("true || [true][3]", "logical") == "true");
}

TEST_CASE("syntax: generic fragments: <?>, <? = type>, explicit <type>, deduction (3.3.1)") {
  FlatGraph g = Parse(Doc(R"(    a = copy(x);
    b = select(x > 0.0, 1, 2);
    d = fizz(shape = [3]);
    e = fizz<integer>(shape = [3]);
    f = dup(b, n = 3);
    y = a;)",
                          "y", R"(
fragment pick<?>( shape: integer[] ) -> ( output: tensor<?> );
fragment fizz<? = scalar>( shape: integer[] ) -> ( output: tensor<?> )
{
    output = pick<?>(shape = shape);
}
fragment dup<?>( x: tensor<?>, n: integer ) -> ( y: tensor<?> )
{
    y = concat([x] * n, axis = 0);
}
)"));
  CHECK(g.ops[g.Tensor("a").producer].dtype == TensorType::kScalar);  // deduced from x
  CHECK(g.Tensor("b").dtype == TensorType::kInteger);  // deduced from the literals 1 and 2
  CHECK(g.ops[g.Tensor("b").producer].op == "select");
  CHECK(g.ops[g.Tensor("d").producer].op == "pick");
  CHECK(g.ops[g.Tensor("d").producer].dtype == TensorType::kScalar);   // the default
  CHECK(g.ops[g.Tensor("e").producer].dtype == TensorType::kInteger);  // explicit, via <?>
  CHECK(g.Tensor("e").dtype == TensorType::kInteger);
  CHECK(g.Tensor("f").dtype == TensorType::kInteger);
  CHECK(g.Tensor("f").shape == Extents{3, 2, 4, 4});
  const Invocation& concat = g.ops[g.Tensor("f").producer];
  CHECK(concat.Arg("values")->ToString() == "[b, b, b]");
}

// ---------------------------------------------------------------------------------------------
// Chapter 6 document validity: one rejection test per rule.
//
//  1. Syntax errors (3.1, 3.2, appendix A): lexical errors (above), the version declaration,
//     the extension list, fragment definitions without KHR_enable_fragment_definitions,
//     operator expressions without KHR_enable_operator_expressions, the document structure
//     (graph present and last), empty lists and bodies, one-item tuples, missing ';', left-value
//     forms, literal-only default values, reserved keywords, built-ins with one argument.
//  2. Semantic errors:
//   2.1 Invalid fragment definition (3.3.2 Declarations): unique fragment names (also against
//       the standard operations), unique parameter/result names, tensor parameters before
//       attributes, tensor results only, default value type, generic declared iff used, no
//       unbound tensor results, no tuples mixing tensors and attributes (3.3.1).
//   2.2 Invalid argument structure (3.3.2 Invocations): declared operation, not more arguments
//       than parameters, every parameter without default assigned, positional before named,
//       named arguments name a parameter, unique named arguments, not named and positional,
//       attributes by name only, <type> only for generic fragments, <?> only inside generic
//       fragments, unique generic deduction.
//   2.3 Invalid type agreement (3.3.1, 3.3.3): argument casts, operator argument types (table
//       1), if-else condition and branches, array item types, subscripts, results, loops,
//       built-in argument types.
//   2.4 Invalid formal identifier usage (3.3.2 Identifier usage): parameters not assigned,
//       results assigned exactly once, defined before use, assigned once, graph identifiers are
//       tensors, graph parameters <-> external one-to-one, external/variable/update not in
//       fragments, left-hand side structurally equivalent to the result type, chaining only of
//       single-tensor operations.
//  3. Invalid operation arguments (chapter 4): expand_test.cc, one per primitive rule.
//  4. Stored tensor shapes (chapter 5): the tensor-file reader.
// ---------------------------------------------------------------------------------------------

void Rejected(const std::string& doc, Stage stage, const std::string& rule_part, int line = 0,
              int column = 0) {
  CAPTURE(doc);
  NnefError e = ErrorOf(doc);
  INFO(e.what());
  CHECK(e.stage() == stage);
  CHECK(e.pos().file == "t.nnef");
  CHECK((e.rule().find(rule_part) != std::string::npos ||
         e.message().find(rule_part) != std::string::npos));
  if (line) {
    CHECK(e.pos().line == line);
    CHECK(e.pos().column == column);
  }
}

const std::string kFlatHead =
    "version 1.0;\ngraph G( x ) -> ( y )\n{\n  x = external(shape = [2]);\n";

TEST_CASE("6.1 syntax errors") {
  Rejected("graph G( x ) -> ( x ) { x = external(shape = [1]); }", Stage::kParse, "<version>", 1,
           1);
  Rejected("version 2.0;\ngraph G( x ) -> ( x ) { x = external(shape = [1]); }", Stage::kParse,
           "unsupported NNEF version", 1, 9);
  Rejected("version 1;\ngraph G( x ) -> ( x ) { x = external(shape = [1]); }", Stage::kParse,
           "<major>.<minor>", 1, 9);
  {
    // The NNEF-Tools form (issue 14): commas between extension names are accepted with a
    // warning at the first comma, and rejected there under `strict` (the 1.0.2 grammar).
    const std::string commas =
        "version 1.0;\nextension KHR_a, KHR_b;\ngraph G( x ) -> ( x ) { x = external(shape = "
        "[1]); }";
    const FlatGraph g = Parse(commas);
    REQUIRE(g.warnings.size() == 1);
    CHECK(g.warnings[0].find("t.nnef:2:16: warning: comma-separated extension list") == 0);
    CHECK(g.extensions == std::vector<std::string>{"KHR_a", "KHR_b"});
    ParseOptions strict;
    strict.strict = true;
    try {
      (void)ParseDocument(commas, "t.nnef", strict);
      FAIL("accepted under strict");
    } catch (const NnefError& e) {
      CHECK(e.stage() == Stage::kParse);
      CHECK(e.pos().line == 2);
      CHECK(e.pos().column == 16);
      CHECK(e.rule().find("<extension>") != std::string::npos);
    }
    Rejected(
        "version 1.0;\nextension KHR_a, ;\ngraph G( x ) -> ( x ) { x = external(shape = "
        "[1]); }",
        Stage::kParse, "<extension>", 2, 18);
  }
  Rejected("version 1.0;\nextension;\ngraph G( x ) -> ( x ) { x = external(shape = [1]); }",
           Stage::kParse, "<extension>", 2, 10);
  Rejected(
      "version 1.0;\nfragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> );\ngraph G( x "
      ") -> ( x ) { x = external(shape = [1]); }",
      Stage::kParse, "KHR_enable_fragment_definitions", 2, 1);
  Rejected(kFlatHead + "  y = x;\n}", Stage::kParse, "<invocation>", 5, 7);
  Rejected(kFlatHead + "  y = relu(relu(x));\n}", Stage::kParse, "KHR_enable_operator_expressions",
           5, 12);
  Rejected(kFlatHead + "  y = add(x, 1.0 * 2.0);\n}", Stage::kParse, "flat syntax", 5, 18);
  Rejected(kFlatHead + "  y = add(x, (1.0));\n}", Stage::kParse, "flat syntax", 5, 15);
  Rejected(kFlatHead + "  y = relu(x) + 1.0;\n}", Stage::kParse, "<invocation>", 5, 7);
  Rejected("version 1.0;\n", Stage::kParse, "<document>", 2, 1);
  Rejected(
      "version 1.0;\ngraph G( x ) -> ( x ) { x = external(shape = [1]); }\ngraph H( x ) -> "
      "( x ) { x = external(shape = [1]); }",
      Stage::kParse, "<document>", 3, 1);
  Rejected(std::string("version 1.0;\n") + testing::kBothExtensions +
               "graph G( x ) -> ( x ) { x = external(shape = [1]); }\nfragment f( x: "
               "tensor<scalar> ) -> ( y: tensor<scalar> );",
           Stage::kParse, "must precede the graph", 4, 1);
  Rejected("version 1.0;\ngraph G( x ) -> ( y ) { }", Stage::kParse, "<assignment>+", 2, 25);
  Rejected(kFlatHead + "  y = relu();\n}", Stage::kParse, "<argument-list>", 5, 12);
  Rejected("version 1.0;\ngraph G( ) -> ( y ) { y = external(shape = [1]); }", Stage::kParse,
           "<identifier-list>", 2, 10);
  Rejected(Doc("y = x;", "y", "fragment f( ) -> ( y: tensor<scalar> );\n"), Stage::kParse,
           "<parameter>", 3, 13);
  Rejected(Doc("y = x;", "y", "fragment f( a: (integer) ) -> ( y: tensor<scalar> );\n"),
           Stage::kParse, "<tuple-type-spec>", 3, 24);
  Rejected(kFlatHead + "  y = relu(x)\n}", Stage::kParse, "<assignment>", 6, 1);
  Rejected(Doc("    (y) = relu(x);"), Stage::kParse, "<tuple-lvalue-expr>", 7, 5);
  Rejected(Doc("    y + 1 = relu(x);"), Stage::kParse, "<assignment>", 7, 7);
  Rejected(Doc("y = x;", "y", "fragment f( a: integer = 1 + 1 ) -> ( y: tensor<scalar> );\n"),
           Stage::kParse, "<parameter-list>", 3, 28);  // a default is a literal expression
  Rejected(Doc("y = x;", "y", "fragment f( a: integer = n ) -> ( y: tensor<scalar> );\n"),
           Stage::kParse, "<literal-expr>", 3, 26);
  Rejected(Doc("    graph = relu(x);"), Stage::kParse, "keywords are reserved", 7, 5);
  Rejected(Doc("y = x;", "y", "fragment f( in: tensor<scalar> ) -> ( y: tensor<scalar> );\n"),
           Stage::kParse, "keywords are reserved", 3, 13);
  Rejected(
      Doc("y = x;", "y", "fragment f<scalar>( a: tensor<scalar> ) -> ( y: tensor<scalar> );\n"),
      Stage::kParse, "<generic-declaration>", 3, 12);
  Rejected(Doc("y = x;", "y", "fragment f( a: tensor<scalar> ) -> ( y: tensor<scalar> = 1.0 );\n"),
           Stage::kParse, "<result>", 3, 56);
  Rejected(Doc("    y = relu(x) if length_of([1], [2]) > 0 else x;"), Stage::kParse,
           "<builtin-expr>", 7, 33);
  Rejected(Doc("y = x;", "y", "fragment f( a: tensor<float> ) -> ( y: tensor<scalar> );\n"),
           Stage::kParse, "<tensor-type-spec>", 3, 23);
  Rejected("version 1.0;\ngraph G( x ) -> ( x )\n{\n  x = external(shape = [1]);\n", Stage::kParse,
           "unterminated body", 5, 1);
  // Hostile nesting is a clear error, not a stack overflow.
  Rejected(
      Doc("    y = relu(x) + " + std::string(5000, '(') + "1.0" + std::string(5000, ')') + ";"),
      Stage::kParse, "implementation limit");
  Rejected(Doc("    y = " + std::string(5000, '-') + "x;"), Stage::kParse, "implementation limit");
}

TEST_CASE("6.2.1 invalid fragment definition (3.3.2 Declarations)") {
  const char* d = "3.3.2 Declarations";
  auto frag = [](const std::string& f) { return Doc("    y = x;", "y", f + "\n"); };
  Rejected(frag("fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> );\n"
                "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> );"),
           Stage::kValidate, "unique name", 4, 1);
  Rejected(frag("fragment relu( a: tensor<scalar> ) -> ( b: tensor<scalar> );"), Stage::kValidate,
           "a standard operation", 3, 1);
  Rejected(frag("fragment f( a: tensor<scalar>, a: integer ) -> ( b: tensor<scalar> );"),
           Stage::kValidate, "names must be unique", 3, 32);
  Rejected(frag("fragment f( a: tensor<scalar> ) -> ( a: tensor<scalar> );"), Stage::kValidate,
           "names must be unique", 3, 38);
  Rejected(frag("fragment f( n: integer, a: tensor<scalar> ) -> ( b: tensor<scalar> );"),
           Stage::kValidate, "tensor type must precede attributes", 3, 25);
  Rejected(frag("fragment f( a: tensor<scalar> ) -> ( n: integer );"), Stage::kValidate,
           "results must be all tensors", 3, 38);
  Rejected(frag("fragment f( a: tensor<scalar> ) -> ( b: (tensor<scalar>, integer) );"),
           Stage::kValidate, "both tensor and non-tensor", 3, 38);
  Rejected(frag("fragment f( a: tensor<scalar> ) -> ( b: integer[] );"), Stage::kValidate, d);
  Rejected(frag("fragment f( a: tensor<scalar>, n: integer = 1.5 ) -> ( b: tensor<scalar> );"),
           Stage::kValidate, "default value type must match", 3, 32);
  Rejected(frag("fragment f( a: tensor<scalar>, s: string = 1 ) -> ( b: tensor<scalar> );"),
           Stage::kValidate, "default value type must match");
  Rejected(frag("fragment f( a: tensor<scalar>, n: integer[] = [1, 2.0] ) -> ( b: "
                "tensor<scalar> );"),
           Stage::kValidate, "common type");
  Rejected(frag("fragment f( a: tensor<scalar>, n: integer[] = (1, 2) ) -> ( b: "
                "tensor<scalar> );"),
           Stage::kValidate, "default value type must match");
  Rejected(frag("fragment f<?>( a: tensor<scalar> ) -> ( b: tensor<scalar> );"), Stage::kValidate,
           "a generic fragment must have a generic parameter", 3, 1);
  Rejected(frag("fragment f( a: tensor<?> ) -> ( b: tensor<?> );"), Stage::kValidate,
           "must be declared generic", 3, 1);
  Rejected(frag("fragment f( a: tensor<scalar>, v: ?[] ) -> ( b: tensor<scalar> );"),
           Stage::kValidate, "must be declared generic");
  Rejected(frag("fragment f( a: tensor<scalar> ) -> ( b: tensor<> );"), Stage::kValidate,
           "unbound tensors cannot be the result", 3, 38);
  Rejected(frag("fragment f( a: (tensor<scalar>, integer) ) -> ( b: tensor<scalar> );"),
           Stage::kValidate, "both tensor and non-tensor", 3, 13);
}

TEST_CASE("6.2.2 invalid argument structure (3.3.2 Invocations)") {
  const std::string pick = "fragment pick<?>( shape: integer[] ) -> ( output: tensor<?> );\n";
  Rejected(Doc("    y = foo(x);"), Stage::kValidate, "must correspond to a declared operation", 7,
           9);
  Rejected(Doc("    y = relu(x, x);"), Stage::kValidate, "not have more arguments", 7, 17);
  Rejected(Doc("    y = reshape(x);"), Stage::kValidate, "without a default value must be assigned",
           7, 9);
  Rejected(Doc("    y = select(condition = x > 0.0, x, x);"), Stage::kValidate,
           "positional arguments must precede named arguments", 7, 37);
  Rejected(Doc("    y = relu(x, alpha = 1.0);"), Stage::kValidate,
           "must correspond to a formal parameter", 7, 17);
  Rejected(Doc("    y = reshape(x, shape = [32], shape = [32]);"), Stage::kValidate,
           "named arguments must be unique", 7, 34);
  Rejected(Doc("    y = relu(x, x = x);"), Stage::kValidate, "also assigned by a positional", 7,
           17);
  Rejected(Doc("    y = reshape(x, [32]);"), Stage::kValidate,
           "attribute values must be named arguments", 7, 20);
  Rejected(Doc("    y = relu<scalar>(x);"), Stage::kValidate, "generic fragments may be called", 7,
           9);
  Rejected(Doc("    y = copy<?>(x);"), Stage::kValidate, "name<?> propagates", 7, 9);
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = copy<?>(a); }\n"),
           Stage::kValidate, "name<?> propagates", 3, 64);
  Rejected(Doc("    y = select(x > 0.0, x, 1);"), Stage::kValidate, "must result in a unique value",
           7, 9);
  Rejected(Doc("    y = pick(shape = [1]);", "y", pick), Stage::kValidate,
           "must result in a unique value", 8, 9);
}

TEST_CASE("6.2.3 invalid type agreement (3.3.1)") {
  const char* cast = "3.3.1 Type casting";
  const char* table = "table 1";
  auto probe = [](const std::string& expr, const std::string& type) {
    return Doc("    y = probe(v = " + expr + ");", "y",
               "fragment probe( v: " + type + " ) -> ( y: tensor<scalar> );\n");
  };
  Rejected(Doc("    y = add(x, 1);"), Stage::kValidate, cast, 7, 16);
  Rejected(Doc("    y = reshape(x, shape = [1.0]);"), Stage::kValidate, cast, 7, 20);
  Rejected(Doc("    y = x + [1.0];"), Stage::kValidate, cast, 7, 13);
  Rejected(Doc("    y = relu(true);"), Stage::kValidate, cast, 7, 14);
  Rejected(Doc("    y = conv(x, x, border = 3);"), Stage::kValidate, cast, 7, 20);
  Rejected(probe("1 + 1.0", "scalar"), Stage::kValidate, table, 8, 21);
  Rejected(probe("'a' - 'b'", "string"), Stage::kValidate, table);
  Rejected(probe("!1", "logical"), Stage::kValidate, table, 8, 19);
  Rejected(probe("-true", "logical"), Stage::kValidate, table);
  Rejected(probe("1 < 'a'", "logical"), Stage::kValidate, table);
  Rejected(probe("'a' < 'b'", "logical"), Stage::kValidate, table);
  Rejected(probe("[1] * 1.5", "integer[]"), Stage::kValidate, table);
  Rejected(probe("1 == 1.0", "logical"), Stage::kValidate, table);
  Rejected(probe("1 && true", "logical"), Stage::kValidate, table);
  Rejected(probe("2 in [1, 2] && false", "logical"), Stage::kValidate, table);  // 'in' is lowest
  Rejected(probe("'a' in ['a'] == true", "logical"), Stage::kValidate, table);  // ['a'] == true
  Rejected(Doc("    y = x if x in [x] else x;"), Stage::kValidate, "not applicable to tensors");
  Rejected(probe("1 if 1 else 2", "integer"), Stage::kValidate, "must be of type logical", 8, 24);
  Rejected(probe("1 if true else 'a'", "integer"), Stage::kValidate, "common type", 8, 19);
  Rejected(probe("[1, 'a']", "integer[]"), Stage::kValidate, "common type", 8, 23);
  Rejected(probe("[1, 2.0]", "integer[]"), Stage::kValidate, "common type");
  Rejected(probe("[1][0.0]", "integer"), Stage::kValidate, "expression of type integer", 8, 23);
  Rejected(probe("(1, 2)[1 - 1]", "integer"), Stage::kValidate, "integer literals", 8, 28);
  Rejected(probe("(1, 2)[2]", "integer"), Stage::kValidate, "3.3.3 Tuples");
  Rejected(probe("(1, 2)[0:1]", "integer"), Stage::kValidate, "ranges are forbidden");
  Rejected(probe("3[0]", "integer"), Stage::kValidate, "cannot be subscripted");
  Rejected(probe("[1][true:]", "integer[]"), Stage::kValidate, "ranges are two expressions");
  Rejected(Doc("    y = x[0];"), Stage::kValidate, "cannot be subscripted");
  Rejected(probe("[for i in 3 yield i]", "integer[]"), Stage::kValidate, "must be arrays", 8, 29);
  Rejected(probe("[for i in 'abc' yield i]", "string[]"), Stage::kValidate, "must be arrays");
  Rejected(probe("[for i in [1] if i yield i]", "integer[]"), Stage::kValidate,
           "condition must be logical");
  Rejected(probe("[for i in [1], i in [2] yield i]", "integer[]"), Stage::kValidate,
           "declared twice");
  Rejected(probe("length_of(1)", "integer"), Stage::kValidate, "Built-in functions");
  Rejected(Doc("    y = probe(v = range_of(x));", "y",
               "fragment probe( v: integer[] ) -> ( y: tensor<scalar> );\n"),
           Stage::kValidate, "Built-in functions");
  Rejected(probe("integer([1])", "integer"), Stage::kValidate, "Built-in functions");
  Rejected(Doc("    y = probe(v = scalar(x));", "y",
               "fragment probe( v: scalar ) -> ( y: tensor<scalar> );\n"),
           Stage::kValidate, "Built-in functions");
  Rejected(Doc("    y = probe(v = shape_of([x]));", "y",
               "fragment probe( v: integer[] ) -> ( y: tensor<scalar> );\n"),
           Stage::kValidate, "Built-in functions");
  Rejected(Doc("    y = concat([x, 1], axis = 0);"), Stage::kValidate, "common type", 7, 20);
  Rejected(Doc("    t = (x, 1.0)[0];\n    y = x;"), Stage::kValidate, "both tensor and non-tensor",
           7, 9);
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = true; }\n"),
           Stage::kValidate, "castable to its type", 3, 60);
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = [a]; }\n"),
           Stage::kValidate, "castable to its type");
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<integer> ) -> ( b: tensor<scalar> ) { b = a; }\n"),
           Stage::kValidate, "castable to its type");  // tensor<integer> to tensor<scalar>
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<integer> ) -> ( b: tensor<integer> ) { b = a; }\n"),
           Stage::kValidate, cast, 8, 11);  // x: tensor<scalar> is not castable to tensor<integer>
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<> ) -> ( b: tensor<scalar> ) { b = relu(a); }\n"),
           Stage::kValidate, cast);  // an unbound tensor is not castable to tensor<scalar>
  Rejected(Doc("    y = constant(shape = [2], value = [1, 2]);"), Stage::kValidate,
           "defaults to scalar");
}

TEST_CASE("6.2.4 invalid formal identifier usage (3.3.2 Identifier usage)") {
  const char* u = "3.3.2 Identifier usage";
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { a = relu(a); b = a; "
               "}\n"),
           Stage::kValidate, "parameters of a fragment must not appear on the left", 3, 60);
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar>, c: tensor<scalar> ) { b = "
               "a; }\n"),
           Stage::kValidate, "must be assigned exactly once", 3, 1);
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = a; b = a; }\n"),
           Stage::kValidate, "more than once", 3, 67);
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { c = b; b = a; }\n"),
           Stage::kValidate, "used before it is assigned", 3, 64);
  Rejected(Doc("    y = relu(z);\n    z = relu(x);"), Stage::kValidate,
           "must first appear on the left-hand side", 7, 14);
  Rejected(Doc("    y = relu(x);\n    y = relu(x);"), Stage::kValidate, "more than once", 8, 5);
  Rejected(Doc("    n = length_of([1]);\n    y = x;"), Stage::kValidate, "must be of type tensor",
           7, 5);
  Rejected(Doc("    xs = [x, x];\n    y = x;"), Stage::kValidate, "must be of type tensor", 7, 5);
  Rejected(Doc("    s = 'a';\n    y = x;"), Stage::kValidate, "must be of type tensor");
  Rejected(
      "version 1.0;\ngraph G( x, z ) -> ( y )\n{\n  x = external(shape = [2]);\n  z = "
      "relu(x);\n  y = relu(z);\n}",
      Stage::kValidate, "defined as the result of an external operation", 5, 3);
  Rejected(
      "version 1.0;\ngraph G( x, z ) -> ( y )\n{\n  x = external(shape = [2]);\n  y = "
      "relu(x);\n}",
      Stage::kValidate, "defined as the result of an external operation", 2, 13);
  Rejected(
      "version 1.0;\ngraph G( x, x ) -> ( y )\n{\n  x = external(shape = [2]);\n  y = "
      "relu(x);\n}",
      Stage::kValidate, "one-to-one", 2, 13);
  Rejected(kFlatHead + "  w = external(shape = [2]);\n  y = relu(x);\n}", Stage::kValidate,
           "must be defined as graph parameters", 5, 3);
  Rejected(Doc("    y = relu(external(shape = [2]));"), Stage::kValidate,
           "must be defined as graph parameters", 7, 14);
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = "
               "external(shape = [1]); }\n"),
           Stage::kValidate, "must not be used in a fragment", 3, 64);
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = "
               "variable(shape = [1], label = 'v'); }\n"),
           Stage::kValidate, "variable and update operations must not be used inside a fragment");
  Rejected(Doc("    y = f(x);", "y",
               "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> ) { b = update(a, a); }\n"),
           Stage::kValidate, "variable and update operations must not be used inside a fragment");
  Rejected(kFlatHead + "  z = relu(x);\n}", Stage::kValidate, u, 2, 19);
  Rejected(Doc("    s = split(x, axis = 1, ratios = [1, 1]);\n    y = x;"), Stage::kValidate,
           "structurally equivalent", 7, 5);
  Rejected(Doc("    a, b = relu(x);\n    y = x;"), Stage::kValidate, "structurally equivalent", 7,
           5);
  Rejected(Doc("    [a] = relu(x);\n    y = x;"), Stage::kValidate, "structurally equivalent", 7,
           5);
  Rejected(Doc("    y = relu(max_pool_with_index(x, size = [1, 1, 1, 1]));"), Stage::kValidate,
           "chaining is only allowed", 7, 14);
  Rejected(Doc("    y = concat(split(x, axis = 1, ratios = [1, 1]), axis = 1);"), Stage::kValidate,
           "chaining is only allowed", 7, 16);
  Rejected(Doc("    a, b = (x, x, x);\n    y = x;"), Stage::kValidate, "same number of items", 7,
           5);
}

}  // namespace
}  // namespace nnref::nnef
