#include "runner/nnef/parser.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "runner/nnef/check.h"
#include "runner/nnef/expand.h"
#include "runner/nnef/syntax.h"

namespace nnref::nnef {

extern const std::string_view kStandardLibraryText;  // stdlib.cc (generated from stdlib.nnef)

namespace {

struct StandardLibrary {
  Document doc;
  FragmentTable table;
};

// The standard fragments, parsed and checked once (the checker annotates their bodies).
const StandardLibrary& Standard() {
  static const StandardLibrary lib = [] {
    StandardLibrary l;
    l.doc = ParseLibrary(kStandardLibraryText, kStandardLibraryFile);
    for (auto& f : l.doc.fragments) {
      f->standard = true;
      f->id = ParseNnefOp(f->name);
    }
    CheckDocument(l.doc, FragmentTable{}, &l.table, nullptr);
    return l;
  }();
  return lib;
}

std::string Declaration(const Fragment& f) {
  std::string s = "fragment " + f.name;
  if (f.generic) {
    s += f.generic_default ? "<? = " + std::string(PrimName(*f.generic_default)) + ">" : "<?>";
  }
  auto params = [](const std::vector<Param>& ps) {
    std::string r;
    for (size_t i = 0; i < ps.size(); ++i) {
      r += (i ? ", " : "") + ps[i].name + ": " + ps[i].type.ToString();
      if (ps[i].default_value) r += " = " + ps[i].default_value->ToString();
    }
    return r;
  };
  return s + "( " + params(f.params) + " ) -> ( " + params(f.results) + " );";
}

}  // namespace

FlatGraph ParseDocument(std::string_view text, const std::string& file,
                        const ParseOptions& options) {
  const StandardLibrary& std_lib = Standard();
  Document doc = ParseSyntax(text, file, options.strict);
  FragmentTable table;
  std::vector<std::string> warnings = std::move(doc.warnings);
  CheckDocument(doc, std_lib.table, &table, &warnings);
  FlatGraph g = Expand(doc, options);
  g.warnings = std::move(warnings);
  std::set<std::string> custom;
  for (const Invocation& op : g.ops) {
    if (op.custom && custom.insert(op.op).second) {
      g.custom_declarations.push_back(Declaration(*table.at(op.op)));
    }
  }
  return g;
}

FlatGraph ParseModel(const std::string& path, const ParseOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (fs::is_directory(p, ec)) p /= "graph.nnef";
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    throw NnefError(Stage::kParse, SourcePos{p.string(), 0, 0}, "cannot open the file",
                    "5.1: the structure description is named 'graph.nnef'");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ParseDocument(ss.str(), p.string(), options);
}

}  // namespace nnref::nnef
