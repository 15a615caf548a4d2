// nnref command line. The only translation unit that includes CLI11.
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <string>

#include "ref/error.h"
#include "ref/parallel/parallel.h"
#include "runner/audit.h"
#include "runner/backends.h"
#include "runner/commands.h"
#include "runner/fuzz/fuzz.h"
#include "runner/nnef_command.h"

int main(int argc, char** argv) {
  CLI::App app{
      "nnref: reference interpreter for WebNN graphs (case files in the WPT graph format)"};
  app.set_version_flag("--version", std::string("nnref ") + NNREF_VERSION);
  app.require_subcommand(1);
  uint64_t max_bytes = uint64_t{1} << 31;
  app.add_option("--max-tensor-bytes", max_bytes,
                 "largest tensor the builder accepts (check dimensions), default 2 GiB");

  nnref::RunOptions run;
  auto* run_cmd =
      app.add_subcommand("run", "run case files and compare with their expected outputs");
  run_cmd->add_option("paths", run.paths, "case files or directories (searched for *.json)")
      ->required();
  // One value per occurrence (repeat the flag for more), so that paths are never swallowed.
  run_cmd->add_option("--filter,-k", run.filters, "run only cases whose name contains this text")
      ->allow_extra_args(false);
  run_cmd->add_option("--label,-l", run.labels, "run only cases carrying this label")
      ->allow_extra_args(false);
  run_cmd->add_option("--report", run.report, "write a JSON report here");
  run_cmd->add_flag("--verbose,-v", run.verbose, "print passing cases too");
  run_cmd->add_flag("--exact", run.exact, "compare bit-exactly (0 ULP) instead of with tolerances");
  run_cmd->add_option("--backend", run.backend,
                      "compute with this kernel set: " + nnref::BackendChoices(run.backend));
  run_cmd->add_flag("--against-reference", run.against_reference,
                    "with --backend: also compare every operand with the reference, operator by "
                    "operator, and name the first divergence");
  run_cmd->add_option("--threads", run.threads,
                      "worker threads of the reference and of the backend (default: every core); "
                      "results are bit-identical for every count");
  // The backends that run on devices (their registrations list them for `nnref devices`).
  std::string device_backends, device_kinds;
  for (const nnref::BackendRegistration* b : nnref::RegisteredBackends()) {
    if (b->list_devices == nullptr) continue;
    device_backends += (device_backends.empty() ? "" : "|") + std::string(b->name);
    device_kinds += (device_kinds.empty() ? "" : "/") + std::string(b->device_kind);
  }
  run_cmd->add_option(
      "--device", run.device,
      "with --backend " + device_backends + ": the device index of `nnref devices` (default 0)");
  // --vulkan-arithmetic (BackendOptions::arithmetic; docs/vulkan.md#arithmetic-modes).
  // The value is checked and turned into the enum's number here (a CheckedTransformer would print
  // the uint8_t enum values as characters in --help and in its error).
  const CLI::Validator arithmetic_names(
      [](std::string& v) -> std::string {
        if (v == "exact")
          v = std::to_string(static_cast<int>(nnref::Arithmetic::kExact));
        else if (v == "native")
          v = std::to_string(static_cast<int>(nnref::Arithmetic::kNative));
        else
          return "must be exact or native, not '" + v + "'";
        return "";
      },
      "", "arithmetic");
  const std::string arithmetic_help =
      "with --backend vulkan: exact (default; near correctly rounded: compensated sums, precise "
      "functions) or native (as a production GPU backend: float32 accumulation with fma, tiled "
      "shaders, float16 in float16 where the device has shaderFloat16; NNREF_VULKAN_FLOAT16="
      "float32 widens it), judged by the same tolerances";
  run_cmd->add_option("--vulkan-arithmetic", run.arithmetic, arithmetic_help)
      ->transform(arithmetic_names)
      ->option_text("exact|native");
  run_cmd->add_flag("--allow-unavailable-backend", run.allow_unavailable_backend,
                    "with --backend: when the backend cannot run (no loader, no driver, no such "
                    "--device, validation layer missing), skip its graph cases instead of "
                    "exiting with code 2");
  run_cmd->add_option("--inject-fault", run.inject_fault,
                      "test hook: with --backend, set element ELEMENT of every OP output to "
                      "VALUE (OP:ELEMENT:VALUE), to see the check mode blame it");

  std::string run_max_mismatches;
  run_cmd->add_option("--max-mismatches", run_max_mismatches,
                      "mismatch samples kept per output: a count or 'all' (default 5)");
  run_cmd->add_flag("--per-operator", run.per_operator,
                    "print the per-operator table (cases by verdict, max/mean ULP, max abs)");

  run_cmd->add_option("--dump", run.dump,
                      "write expected, actual and difference tensors of failing outputs here as "
                      ".npy files");

  std::string run_shard, check_shard;
  run_cmd->add_option("--junit", run.junit, "write a JUnit XML file here (one testcase a case)");
  std::string run_policy = "derived";
  run_cmd
      ->add_option("--tolerances", run_policy,
                   "the tolerance policy: wpt (the per-operator table and sum bound) or derived "
                   "(per-element bounds of the operators' error models)")
      ->check(CLI::IsMember({"derived", "wpt"}));
  run_cmd->add_option("--html", run.html,
                      "write a self-contained HTML page here (tables, error histograms)");
  run_cmd->add_option("--shard", run_shard,
                      "run only part K of N disjoint parts of the cases (K/N; nnref merge-reports "
                      "joins their reports)");

  std::string gen_in, gen_out;
  auto* gen_cmd = app.add_subcommand("generate", "fill expectedOutputs with the reference results");
  gen_cmd->add_option("input", gen_in, "case file")->required();
  gen_cmd->add_option("-o,--output", gen_out, "where to write the completed case file")->required();
  unsigned gen_threads = 0;
  gen_cmd->add_option("--threads", gen_threads,
                      "worker threads of the reference (default: every core); results are "
                      "bit-identical for every count");
  std::string gen_format = "nnref";
  gen_cmd->add_option("--format", gen_format,
                      "nnref (the case file, default) or wpt (a WPT conformance .https.any.js)");
  bool gen_inline = false;
  gen_cmd->add_flag("--inline-data", gen_inline,
                    "write inputs given by a data form (random, range, fill, npy) as explicit "
                    "arrays (always so for --format wpt)");

  nnref::CheckOptions check;
  std::string check_max_mismatches;
  auto* check_cmd = app.add_subcommand("check", "judge another implementation's outputs");
  check_cmd->add_option("cases", check.paths, "case files or directories")->required();
  check_cmd
      ->add_option("--actual", check.actual,
                   "results file {\"cases\": [{name, outputs} or {name, error, message}]}")
      ->required();
  check_cmd->add_option("--report", check.report, "write a JSON report here");
  check_cmd->add_option("--max-mismatches", check_max_mismatches,
                        "mismatch samples kept per output: a count or 'all' (default 10)");
  check_cmd->add_option("--dump", check.dump,
                        "write expected, actual and difference tensors of failing outputs here as "
                        ".npy files");

  check_cmd->add_option("--junit", check.junit,
                        "write a JUnit XML file here (one testcase a case)");
  std::string check_policy = "derived";
  check_cmd
      ->add_option("--tolerances", check_policy,
                   "the tolerance policy: wpt (the per-operator table and sum bound) or derived "
                   "(per-element bounds of the operators' error models)")
      ->check(CLI::IsMember({"derived", "wpt"}));
  check_cmd->add_option("--html", check.html,
                        "write a self-contained HTML page here (tables, error histograms)");
  check_cmd->add_option("--shard", check_shard, "check only part K of N disjoint parts (K/N)");

  std::vector<std::string> merge_inputs;
  std::string merge_output;
  auto* merge_cmd = app.add_subcommand("merge-reports",
                                       "merge the JSON reports of shards (--shard K/N) into one");
  merge_cmd->add_option("reports", merge_inputs, "report files")->required();
  merge_cmd->add_option("-o,--output", merge_output, "the merged report")->required();

  std::string trace_file, trace_case;
  size_t trace_values = 8;
  auto* trace_cmd =
      app.add_subcommand("trace", "print every operand of one case as it is computed");
  trace_cmd->add_option("file", trace_file, "case file")->required();
  trace_cmd->add_option("--case", trace_case, "case name")->required();
  trace_cmd->add_option("--values", trace_values, "how many leading values to print (default 8)");

  bool ops_json = false;
  auto* ops_cmd = app.add_subcommand("ops", "list operators and their data types");
  ops_cmd->add_flag("--json", ops_json, "print opSupportLimits-shaped JSON");
  std::string ops_backend = "reference";
  ops_cmd->add_option("--backend", ops_backend, "list what this backend covers (e.g. simd)");

  bool devices_json = false;
  auto* devices_cmd =
      app.add_subcommand("devices", "list the " + device_kinds + " devices (for --backend " +
                                        device_backends + " --device N)");
  devices_cmd->add_flag("--json", devices_json, "print JSON");

  bool tol_markdown = false;
  auto* tol_cmd = app.add_subcommand("tolerance", "print the default tolerance table");
  tol_cmd->add_flag("--markdown", tol_markdown,
                    "print it as the markdown of docs/tolerance-table.md");
  nnref::AuditOptions audit;
  std::string audit_policy = "derived";
  tol_cmd
      ->add_option("--audit", audit.paths,
                   "hold the policy against the operators' variants and mutants on these "
                   "case files or directories")
      ->allow_extra_args(false);
  tol_cmd->add_option("--tolerances", audit_policy, "the policy to audit: derived or wpt")
      ->check(CLI::IsMember({"derived", "wpt"}));
  tol_cmd->add_option("--filter,-k", audit.filters, "audit only cases whose name contains this")
      ->allow_extra_args(false);
  tol_cmd->add_option("--json", audit.json, "write the audit rows as JSON here");
  tol_cmd->add_flag("--verbose,-v", audit.verbose, "list every row");

  nnref::AuditOptions suite;
  suite.suite = true;
  auto* audit_cmd = app.add_subcommand(
      "audit",
      "audit a conformance suite's data and tolerances: published values against the reference, "
      "case tolerances against the operators' variants and mutants");
  audit_cmd->add_option("paths", suite.paths, "case files or directories")->required();
  audit_cmd->add_option("--filter,-k", suite.filters, "audit only cases whose name contains this")
      ->allow_extra_args(false);
  audit_cmd->add_option("--json", suite.json, "write the tolerance rows as JSON here");
  audit_cmd->add_flag("--verbose,-v", suite.verbose, "list every row");

  std::vector<std::string> cov_paths;
  auto* cov_cmd = app.add_subcommand("coverage", "print the operator coverage table (markdown)");
  cov_cmd->add_option("paths", cov_paths, "case files or directories")->required();

  nnref::NnefOptions nnef;
  auto* nnef_cmd = app.add_subcommand(
      "nnef", "run an NNEF model folder (graph.nnef, variable .dat files, graph.quant)");
  nnef_cmd
      ->add_option("model", nnef.path,
                   "model folder or graph.nnef; with --case a case folder or a folder of them")
      ->required();
  nnef_cmd->add_option("--input,-i", nnef.inputs, "NAME=FILE.dat (repeat for each input)")
      ->allow_extra_args(false);
  nnef_cmd->add_option("--output-dir,-o", nnef.output_dir,
                       "where the outputs are written as NAME.dat (default: .)");
  nnef_cmd->add_flag("--check", nnef.check, "only parse and validate; print the flattened graph");
  nnef_cmd->add_flag("--strict", nnef.strict,
                     "the pure NNEF 1.0.2 grammar: reject the NNEF-Tools forms accepted otherwise "
                     "(a comma-separated extension list)");
  nnef_cmd->add_flag("--case", nnef.cases,
                     "MODEL is a case folder of cases/nnef (or a folder of them): run and compare");
  nnef_cmd->add_flag("--trace", nnef.trace, "print every tensor as it is computed");
  nnef_cmd->add_option("--values", nnef.values, "leading values printed by --trace (default 8)");
  nnef_cmd->add_flag("--verbose,-v", nnef.verbose, "with --case: print passing cases too");
  std::string nnef_shard;
  nnef_cmd->add_option("--actual", nnef.actual,
                       "with --case: judge another runtime's outputs, DIR/<case>/<output>.dat "
                       "(or DIR/<case>/error naming the stage it rejected the model at)");
  nnef_cmd->add_option("--report", nnef.files.report, "with --case: write a JSON report here");
  nnef_cmd->add_option("--junit", nnef.files.junit, "with --case: write a JUnit XML file here");
  nnef_cmd->add_option("--html", nnef.files.html, "with --case: write an HTML page here");
  nnef_cmd->add_option("--shard", nnef_shard, "with --case: run only part K of N (K/N)");
  nnef_cmd->add_option(
      "--backend", nnef.backend,
      "compute the lowered graph with this kernel set: " + nnref::BackendChoices(nnef.backend));
  nnef_cmd->add_flag("--against-reference", nnef.against_reference,
                     "with --backend: judge every lowered operator alone against the reference "
                     "and name the first divergence by its NNEF operation, line and tensor");
  nnef_cmd->add_option("--threads", nnef.threads,
                       "worker threads of the reference and of the backend (default: every core)");
  nnef_cmd->add_option(
      "--device", nnef.device,
      "with --backend " + device_backends + ": the device index of `nnref devices` (default 0)");
  nnef_cmd->add_option("--vulkan-arithmetic", nnef.arithmetic, arithmetic_help)
      ->transform(arithmetic_names)
      ->option_text("exact|native");
  nnef_cmd->add_option("--inject-fault", nnef.inject_fault,
                       "test hook: with --backend, set element ELEMENT of every OP output of the "
                       "lowered graph to VALUE (OP:ELEMENT:VALUE)");

  nnref::fuzz::FuzzOptions fuzz;
  auto* fuzz_cmd = app.add_subcommand(
      "fuzz", "run random valid graphs on a backend against the reference; shrink divergences");
  fuzz_cmd->add_option("--backend", fuzz.backend, "simd (default) or vulkan");
  fuzz_cmd->add_option("--seed", fuzz.seed, "first seed (graph i uses seed + i), default 1");
  fuzz_cmd->add_option("--count", fuzz.count, "graphs to run (default 100 without --seconds)");
  fuzz_cmd->add_option("--seconds", fuzz.seconds, "stop after this many seconds");
  fuzz_cmd->add_option("--out", fuzz.out, "write each shrunk failing graph here as a case file");
  fuzz_cmd->add_option("--max-ops", fuzz.max_ops, "operators per graph: 1 to this (default 30)");
  fuzz_cmd->add_option("--ops", fuzz.only, "generate only these builder methods (repeatable)")
      ->allow_extra_args(false);
  fuzz_cmd->add_option("--threads", fuzz.threads, "worker threads (default: every core)");
  fuzz_cmd->add_option("--device", fuzz.device, "with --backend vulkan: the device index");
  fuzz_cmd->add_option("--vulkan-arithmetic", fuzz.arithmetic, arithmetic_help)
      ->transform(arithmetic_names)
      ->option_text("exact|native");
  fuzz_cmd->add_option("--inject-fault", fuzz.inject_fault,
                       "test hook: OP:ELEMENT:VALUE as for run (the shrinker must find OP)");
  fuzz_cmd->add_flag("--no-shrink", fuzz.no_shrink, "write failing graphs as generated");
  fuzz_cmd->add_flag(
      "--graph-outputs", fuzz.graph_outputs,
      "also judge the graph outputs (the backend's dispatch) under the graph bounds");
  fuzz_cmd->add_flag("--all-failures", fuzz.all_failures,
                     "shrink and write every failure (default: the first of each signature)");
  fuzz_cmd->add_flag("--quiet,-q", fuzz.quiet, "no progress line");
  fuzz_cmd->add_option("--emit", fuzz.emit,
                       "write the generated graphs here as case files and run nothing (for "
                       "another runtime: tools/ort-check.sh DIR)");
  fuzz_cmd->add_option("--external", fuzz.external,
                       "run each graph with this command instead of a backend: COMMAND --out "
                       "RESULTS CASE (tools/fuzz/ort.sh runs ONNX Runtime so)");
  fuzz_cmd->add_option("--types", fuzz.types, "draw only these data types for first operands")
      ->allow_extra_args(false);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  run.max_tensor_bytes = max_bytes;
  check.max_tensor_bytes = max_bytes;
  try {
    if (!run_max_mismatches.empty()) {
      run.max_mismatches = nnref::ParseMaxMismatches(run_max_mismatches);
    }
    if (!run_shard.empty()) run.shard = nnref::ParseShard(run_shard);
    if (!check_shard.empty()) check.shard = nnref::ParseShard(check_shard);
    if (!nnef_shard.empty()) nnef.shard = nnref::ParseShard(nnef_shard);
    if (!check_max_mismatches.empty()) {
      check.max_mismatches = nnref::ParseMaxMismatches(check_max_mismatches);
    }
    run.tolerances = *nnref::ParseTolerancePolicy(run_policy);
    check.tolerances = *nnref::ParseTolerancePolicy(check_policy);
    if (*run_cmd) return nnref::CommandRun(run);
    if (*gen_cmd) {
      nnref::SetReferenceThreads(gen_threads);
      return nnref::CommandGenerate(gen_in, gen_out, max_bytes, gen_format, gen_inline);
    }
    if (*check_cmd) return nnref::CommandCheck(check);
    if (*merge_cmd) return nnref::CommandMergeReports(merge_inputs, merge_output);
    if (*trace_cmd) return nnref::CommandTrace(trace_file, trace_case, trace_values, max_bytes);
    if (*ops_cmd) return nnref::CommandOps(ops_json, ops_backend);
    if (*devices_cmd) return nnref::CommandDevices(devices_json);
    if (*audit_cmd) return nnref::CommandAudit(suite);
    if (*tol_cmd && !audit.paths.empty()) {
      audit.policy = *nnref::ParseTolerancePolicy(audit_policy);
      return nnref::CommandAudit(audit);
    }
    if (*tol_cmd) return nnref::CommandTolerance(tol_markdown);
    if (*cov_cmd) return nnref::CommandCoverage(cov_paths);
    if (*fuzz_cmd) return nnref::fuzz::CommandFuzz(fuzz);
    if (*nnef_cmd) {
      nnef.max_tensor_bytes = max_bytes;
      return nnref::CommandNnef(nnef);
    }
  } catch (const nnref::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
