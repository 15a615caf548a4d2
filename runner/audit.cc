#include "runner/audit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <tuple>

#include "numerics/cast.h"
#include "ops/variants/variants.h"
#include "ref/error.h"
#include "runner/case.h"
#include "runner/execute.h"
#include "runner/data.h"
#include "runner/json.h"

namespace nnref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLoose = 0.01;  // a mutant this far off (of the output's scale) must be rejected

struct Trial {
  std::string case_name;
  bool passed = false;
  // A stated rejection of a variant: its result is non-finite where the reference's is finite
  // (overflow), the reference is non-finite and the variant differs (special values), or it
  // fails only on elements where the spec's steps leave the type's range.
  bool overflow = false;
  double relative = 0;  // largest |alternative - reference| / the output's scale
  double abs = 0;       // largest |alternative - reference| (finite elements)
  // Mutants: the largest such error of the variants on the same operator output (what the data
  // lets legitimate implementations do there).
  double envelope = 0;
  double bound = 0;  // the bound of the element with the largest error, relative to the scale
  double margin = 0;  // the largest |alternative - reference| / bound over the elements
  double max_ulp = 0;
  std::string first;  // the first mismatch, when rejected
  bool Loose() const { return passed && relative >= kLoose && abs > 2 * envelope; }
};

struct Row {
  std::string op, type, name, what;
  bool legitimate = false;
  std::vector<Trial> trials;
  size_t Rejected() const {
    return static_cast<size_t>(std::count_if(trials.begin(), trials.end(), [](const Trial& t) {
      return !t.passed && !t.overflow;
    }));
  }
  size_t Overflows() const {
    return static_cast<size_t>(std::count_if(trials.begin(), trials.end(), [](const Trial& t) {
      return !t.passed && t.overflow;
    }));
  }
  const Trial* WorstAcceptedLoose() const {
    const Trial* worst = nullptr;
    for (const Trial& t : trials) {
      if (t.Loose() && (!worst || t.relative > worst->relative)) {
        worst = &t;
      }
    }
    return worst;
  }
  size_t AcceptedTight() const {
    return static_cast<size_t>(std::count_if(trials.begin(), trials.end(), [](const Trial& t) {
      return t.passed && !t.Loose();
    }));
  }
};

// The largest error of `got` against `want`, absolute and relative to want's scale (the largest
// finite |value| of the reference output), skipping elements the spec leaves open and elements
// whose bound is infinite (where the policy accepts anything); and whether `got` is non-finite
// where the reference is finite, or differs where the reference is non-finite.
void Measure(const OperandValue& want, const Tensor& got, const std::vector<double>& bounds,
             Trial& t) {
  std::vector<double> w(want.data.element_count()), g(got.element_count());
  DispatchDataType(want.data.dtype(), [&]<typename T>() {
    for (uint64_t i = 0; i < w.size(); ++i) w[i] = ToDouble(want.data.At<T>(i));
  });
  DispatchDataType(got.dtype(), [&]<typename T>() {
    for (uint64_t i = 0; i < g.size(); ++i) g[i] = ToDouble(got.At<T>(i));
  });
  const Tensor lat = want.latitude.valid() ? want.latitude.Contiguous() : Tensor();
  const auto skip = [&](size_t i) {
    return (lat.valid() && lat.base<uint8_t>()[i] != 0) ||
           (bounds.size() == w.size() && std::isinf(bounds[i]));
  };
  double scale = 0, err = 0, bound = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (!skip(i) && std::isfinite(w[i])) scale = std::max(scale, std::fabs(w[i]));
  }
  for (size_t i = 0; i < w.size(); ++i) {
    if (skip(i) || (std::isnan(w[i]) && std::isnan(g[i])) || w[i] == g[i]) continue;
    if (!std::isfinite(w[i]) || !std::isfinite(g[i])) {
      t.overflow = true;
      continue;
    }
    if (bounds.size() == w.size() && bounds[i] > 0 && std::isfinite(bounds[i])) {
      t.margin = std::max(t.margin, std::fabs(w[i] - g[i]) / bounds[i]);
    }
    if (std::fabs(w[i] - g[i]) > err) {
      err = std::fabs(w[i] - g[i]);
      bound = bounds.size() == w.size() ? bounds[i] : 0;
    }
  }
  t.abs = err;
  t.bound = scale > 0 ? bound / scale : 0;
  t.relative = err == 0 ? 0 : scale > 0 ? err / scale : kInf;
}

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// A published expected value that is not the reference's.
struct DataFinding {
  std::string case_name, output, coordinates, published, reference;
  double ulp = 0;
  double bound = 0;
  bool outside = false;  // beyond the derived bound: no legitimate implementation gives it
};

std::string TypeOf(const Graph& graph, const OperatorNode& node) {
  return std::string(DataTypeName(graph.operand(node.outputs[0]).desc.dataType));
}

// The case's published expected outputs against the reference's (every operand kept in `ref`):
// the ULP distance, and the derived bound of the element (chained through the graph).
void CheckPublishedData(const Case& c, const BuiltCase& b,
                        const std::map<uint32_t, OperandValue>& ref,
                        std::vector<DataFinding>& findings,
                        std::vector<std::string>& integer_tolerances) {
  DerivedGraphBounds derived(*b.graph,
                             [&](OperandId id) -> const OperandValue& { return ref.at(id.value); });
  for (const TensorSpec& exp : c.expected_outputs) {
    if (!exp.data || !b.named.count(exp.name)) continue;
    const OperandId id = b.named.at(exp.name).id;
    const OperandValue& want = ref.at(id.value);
    if (exp.desc != OperandDescriptor{want.data.dtype(), want.data.shape()}) continue;
    if (c.tolerance && IsInteger(exp.desc.dataType) &&
        std::max(c.tolerance->ulp, c.tolerance->atol) >= 1) {
      integer_tolerances.push_back(c.name + " output " + exp.name + ": " +
                                   c.tolerance->Describe() + " on " +
                                   std::string(DataTypeName(exp.desc.dataType)));
    }
    const Tensor published = DecodeTensorData(*exp.data, exp.desc.dataType, exp.desc.shape,
                                              c.Where() + ": expectedOutputs." + exp.name,
                                              c.base_dir);
    std::string why;
    const std::optional<std::vector<double>> bounds = derived.For(id, &why);
    const Comparison cmp =
        CompareTensors(want.data, published, want.latitude, Tolerance::Ulp(1), 1,
                       want.one_of.get(), ReferenceSide::kExpected,
                       bounds ? std::span<const double>(*bounds) : std::span<const double>());
    if (cmp.mismatches == 0 && cmp.max_ulp <= 1) continue;
    // Beyond 1 ULP (and, when it failed, beyond the derived bound too).
    const Comparison strict = CompareTensors(want.data, published, want.latitude,
                                             Tolerance::Ulp(1), 1, want.one_of.get());
    DataFinding f;
    f.case_name = c.name;
    f.output = exp.name;
    f.ulp = cmp.max_ulp;
    f.outside = cmp.mismatches > 0;
    const std::vector<Mismatch>& first = f.outside ? cmp.first : strict.first;
    if (!first.empty()) {
      f.coordinates = first[0].coordinates;
      f.published = first[0].actual;
      f.reference = first[0].expected;
      f.bound = bounds && first[0].index < bounds->size() ? (*bounds)[first[0].index] : 0;
    }
    findings.push_back(std::move(f));
  }
}

}  // namespace

int CommandAudit(const AuditOptions& o) {
  std::map<std::tuple<std::string, std::string, std::string>, Row> rows;
  std::vector<DataFinding> data_findings;
  std::vector<std::string> integer_tolerances;
  size_t cases = 0, operators = 0, trials = 0, errors = 0;
  for (const std::string& file : CollectFiles(o.paths)) {
    CaseFile f;
    try {
      f = LoadCaseFile(file);
    } catch (const InputError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      ++errors;
      continue;
    }
    for (const Case& c : f.cases) {
      if (c.timeline || c.expected_error) continue;
      if (!o.filters.empty() &&
          std::none_of(o.filters.begin(), o.filters.end(), [&](const std::string& s) {
            return c.name.find(s) != std::string::npos;
          })) {
        continue;
      }
      try {
        const BuiltCase b = BuildCase(c, RequestedOutputs(c));
        std::map<uint32_t, OperandValue> ref;
        b.graph->Compute(b.input_values,
                         [&](OperandId id, const OperandValue& v) { ref[id.value] = v; });
        ++cases;
        const Graph& graph = *b.graph;
        if (o.suite) {
          CheckPublishedData(c, b, ref, data_findings, integer_tolerances);
        }
        // A case tolerance judges the graph's outputs: per operator it is the suite's only for
        // one-operator cases.
        const bool own_tolerance = o.suite && c.tolerance && graph.operators().size() == 1;
        for (size_t index = 0; index < graph.operators().size(); ++index) {
          const OperatorNode& node = graph.operators()[index];
          std::vector<const OperandValue*> in;
          for (OperandId id : node.inputs) in.push_back(&ref.at(id.value));
          std::vector<OperandValue> out;
          for (OperandId id : node.outputs) out.push_back(ref.at(id.value));
          ++operators;
          // Per output: the trials of this operator, so that mutants see the variants' errors.
          std::vector<std::vector<std::pair<const Alternative*, Trial>>> by_output(out.size());
          for (const Alternative* alt : AlternativesFor(node.op)) {
            std::optional<std::vector<Tensor>> got;
            try {
              got = alt->compute(graph, index, in);
            } catch (const std::exception& e) {
              std::fprintf(stderr, "%s: operator %zu (%s): alternative %s threw: %s\n",
                           c.Where().c_str(), index, std::string(OpName(node.op)).c_str(), alt->name.c_str(),
                           e.what());
              ++errors;
              continue;
            }
            if (!got) continue;
            for (size_t k = 0; k < out.size() && k < got->size(); ++k) {
              const Tensor& g = (*got)[k];
              if (!IsFloat(out[k].data.dtype()) || g.dtype() != out[k].data.dtype() ||
                  g.shape() != out[k].data.shape()) {
                continue;
              }
              Judgement j;
              if (own_tolerance) {
                j.tolerance = *c.tolerance;
              } else {
                j = OperatorJudgement(o.suite ? TolerancePolicy::kWpt : o.policy, graph, index, k,
                                      in, out);
              }
              const Comparison cmp =
                  CompareTensors(out[k].data, g, out[k].latitude, j.tolerance, 1,
                                 out[k].one_of.get(), ReferenceSide::kExpected, j.bounds);
              Trial t;
              t.case_name = c.name + (out.size() > 1 ? " output " + std::to_string(k) : "");
              t.passed = cmp.passed();
              t.max_ulp = cmp.max_ulp;
              if (!cmp.first.empty()) {
                const Mismatch& m = cmp.first[0];
                char bound[48] = "";
                if (m.sum_bound > 0) std::snprintf(bound, sizeof bound, " (bound %.3g)", m.sum_bound);
                t.first = m.coordinates + " expected " + m.expected + " got " + m.actual + bound;
              }
              Measure(out[k], g, j.bounds, t);
              if (!t.passed && !t.overflow && !j.overflow.empty()) {
                // Rejected only where the spec's steps overflow the type: stated.
                Tensor lat = Tensor::Allocate(DataType::kUint8, out[k].data.shape());
                const Tensor old = out[k].latitude.valid() ? out[k].latitude.Contiguous() : Tensor();
                for (size_t i = 0; i < j.overflow.size(); ++i) {
                  lat.base<uint8_t>()[i] =
                      j.overflow[i] ? static_cast<uint8_t>(Latitude::kAny)
                                    : (old.valid() ? old.base<uint8_t>()[i] : uint8_t{0});
                }
                t.overflow = CompareTensors(out[k].data, g, lat, j.tolerance, 1,
                                            out[k].one_of.get(), ReferenceSide::kExpected, j.bounds)
                                 .passed();
              }
              by_output[k].emplace_back(alt, std::move(t));
            }
          }
          for (auto& trials_k : by_output) {
            double envelope = 0;
            for (const auto& [alt, t] : trials_k) {
              if (alt->legitimate && !t.overflow) envelope = std::max(envelope, t.abs);
            }
            for (auto& [alt, t] : trials_k) {
              t.envelope = envelope;
              const std::string type = TypeOf(graph, node);
              const std::string op_name(OpName(node.op));
              Row& row = rows[{op_name, type, alt->name}];
              row.op = op_name;
              row.type = type;
              row.name = alt->name;
              row.what = alt->what;
              row.legitimate = alt->legitimate;
              row.trials.push_back(std::move(t));
              ++trials;
            }
          }
        }
      } catch (const InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        ++errors;
      } catch (const WebnnError& e) {
        std::fprintf(stderr, "%s: %s\n", c.Where().c_str(), e.what());
        ++errors;
      }
    }
  }

  size_t tight = 0, loose = 0, blind = 0, overflow = 0, data_off = 0;
  if (o.suite) {
    std::printf("suite audit: %zu cases, %zu operators, %zu trials\n", cases, operators, trials);
    std::printf("\npublished expected values more than 1 ULP from the reference (correctly rounded):\n");
    for (const DataFinding& f : data_findings) {
      if (f.outside) ++data_off;
      std::printf("  %s %s%s: %s published %s, reference %s (%.3g ULP%s)\n",
                  f.outside ? "OUTSIDE" : "inside ", f.case_name.c_str(),
                  f.output.empty() ? "" : (" " + f.output).c_str(), f.coordinates.c_str(),
                  f.published.c_str(), f.reference.c_str(), f.ulp,
                  f.outside ? (", beyond the derived bound " + Fmt(f.bound)).c_str()
                            : ", within the derived bound");
    }
    if (data_findings.empty()) std::printf("  none\n");
    std::printf("\ninteger outputs with a nonzero case tolerance (they accept off-by-one):\n");
    for (const std::string& s : integer_tolerances) std::printf("  %s\n", s.c_str());
    if (integer_tolerances.empty()) std::printf("  none\n");
    std::printf("\nthe suite's tolerances (a case's own, else its table) against the variants "
                "and mutants:\n");
  } else {
    std::printf("tolerance audit, policy %s: %zu cases, %zu operators, %zu trials\n",
                PolicyName(o.policy), cases, operators, trials);
  }
  std::printf("\nvariants rejected (too tight):\n");
  for (const auto& [key, row] : rows) {
    if (!row.legitimate || row.Rejected() == 0) continue;
    ++tight;
    const Trial* first = nullptr;
    for (const Trial& t : row.trials) {
      if (!t.passed && !t.overflow) {
        first = &t;
        break;
      }
    }
    std::printf("  %s %s %s: %zu of %zu, e.g. %s: %s (%.3g ULP, abs %.3g)\n", row.op.c_str(),
                row.type.c_str(), row.name.c_str(), row.Rejected(), row.trials.size(),
                first->case_name.c_str(), first->first.c_str(), first->max_ulp, first->abs);
  }
  if (tight == 0) std::printf("  none\n");
  std::printf(
      "\nmutants accepted with an error of 1%% or more of the output's scale and more than twice "
      "the variants' (too loose):\n");
  for (const auto& [key, row] : rows) {
    if (row.legitimate) continue;
    const Trial* worst = row.WorstAcceptedLoose();
    if (!worst) continue;
    ++loose;
    std::printf("  %s %s %s: e.g. %s, error %.3g of the scale (bound there %.3g, variants %.3g)\n",
                row.op.c_str(), row.type.c_str(), row.name.c_str(), worst->case_name.c_str(),
                worst->relative, worst->bound,
                worst->relative * worst->envelope / std::max(worst->abs, 1e-300));
  }
  if (loose == 0) std::printf("  none\n");
  std::printf(
      "\nmutants accepted below 1%% of the scale or within twice the variants' error there (the "
      "data cannot tell them apart):\n");
  for (const auto& [key, row] : rows) {
    if (row.legitimate || row.AcceptedTight() == 0) continue;
    ++blind;
    if (o.verbose) {
      std::printf("  %s %s %s: %zu of %zu cases\n", row.op.c_str(), row.type.c_str(),
                  row.name.c_str(), row.AcceptedTight(), row.trials.size());
    }
  }
  std::printf("  %zu (operator, type, mutant) rows%s\n", blind,
              o.verbose ? "" : " (--verbose lists them)");
  for (const auto& [key, row] : rows) {
    if (row.legitimate && row.Overflows() > 0) ++overflow;
  }
  std::printf(
      "\nvariants rejected only where the operand type overflows or at special values (stated "
      "rejections): %zu rows\n",
      overflow);
  // How close the variants come to their bounds (the margin of the policy), and how far beyond
  // them the rejected mutants are.
  double variant_margin = 0, mutant_margin = std::numeric_limits<double>::infinity();
  std::string variant_at, mutant_at;
  for (const auto& [key, row] : rows) {
    for (const Trial& t : row.trials) {
      const std::string at = row.op + " " + row.type + " " + row.name + " on " + t.case_name;
      if (row.legitimate && t.passed && t.margin > variant_margin) {
        variant_margin = t.margin;
        variant_at = at;
      }
      if (!row.legitimate && !t.passed && !t.overflow && t.relative >= kLoose &&
          t.margin > 0 && t.margin < mutant_margin) {
        mutant_margin = t.margin;
        mutant_at = at;
      }
    }
  }
  if (!variant_at.empty()) {
    std::printf("largest variant error relative to its element's bound: %.3g (%s)\n",
                variant_margin, variant_at.c_str());
    // Per operator and type, so that the sums' probabilistic bounds show their margin too.
    std::map<std::string, double> per_op;
    for (const auto& [key, row] : rows) {
      if (!row.legitimate) continue;
      for (const Trial& t : row.trials) {
        if (t.passed) {
          double& m = per_op[row.op + " " + row.type];
          m = std::max(m, t.margin);
        }
      }
    }
    std::printf("  per operator:");
    size_t k = 0;
    for (const auto& [op, m] : per_op) {
      std::printf("%s %s %.2g", k++ % 6 == 0 ? "\n   " : ",", op.c_str(), m);
    }
    std::printf("\n");
  }
  if (!mutant_at.empty()) {
    std::printf("smallest excess of a rejected mutant of 1%% or more over its bound: %.3g (%s)\n",
                mutant_margin, mutant_at.c_str());
  }
  if (o.verbose) {
    std::printf("\nall rows (operator type alternative kind: rejected/applied, largest error of the scale):\n");
    for (const auto& [key, row] : rows) {
      double worst = 0;
      for (const Trial& t : row.trials) worst = std::max(worst, t.relative);
      std::printf("  %s %s %s %s: %zu/%zu, %.3g\n", row.op.c_str(), row.type.c_str(),
                  row.name.c_str(), row.legitimate ? "variant" : "mutant", row.Rejected(),
                  row.trials.size(), worst);
    }
  }
  if (!o.json.empty()) {
    std::ofstream js(o.json);
    js << "[\n";
    bool first_row = true;
    for (const auto& [key, row] : rows) {
      js << (first_row ? "" : ",\n") << "  {\"op\": \"" << row.op << "\", \"type\": \""
         << row.type << "\", \"alternative\": \"" << row.name << "\", \"legitimate\": "
         << (row.legitimate ? "true" : "false") << ", \"applied\": " << row.trials.size()
         << ", \"rejected\": " << row.Rejected() << ", \"overflows\": " << row.Overflows()
         << "}";
      first_row = false;
    }
    js << "\n]\n";
  }
  if (o.suite) {
    std::printf("\n%zu published values outside their derived bound, %zu more than 1 ULP off\n",
                data_off, data_findings.size());
  }
  std::printf("\n%zu variants rejected, %zu mutants of 1%% or more accepted, %zu errors\n", tight,
              loose, errors);
  return tight == 0 && loose == 0 && errors == 0 && data_off == 0 ? 0 : 1;
}

}  // namespace nnref
