#!/usr/bin/env bash
# Builds a byte-level fuzz target with clang (libFuzzer + ASan + UBSan) into build-fuzz/ and runs
# it for SECONDS (default 300) on a seed corpus of its input kind (docs/fuzzing.md); crashes,
# leaks and timeouts are written to build-fuzz/artifacts/TARGET/. Not part of CI (CTest replays
# the seeds on the ordinary build: label fuzz).
#   tools/fuzz/run.sh [TARGET] [SECONDS]
# TARGET: case_fuzzer (default), timeline_fuzzer, nnef_text_fuzzer, nnef_tensor_fuzzer,
# quant_fuzzer, npy_fuzzer, results_fuzzer.
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:-case_fuzzer}
seconds=${2:-300}
if [[ "$target" =~ ^[0-9]+$ ]]; then seconds=$target; target=case_fuzzer; fi  # old usage: SECONDS
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNNREF_SANITIZE=ON -DNNREF_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "$target"
corpus=build-fuzz/corpus/$target
mkdir -p "$corpus"
case "$target" in
  case_fuzzer)
    cp tests/bad_input/*.json tests/cli/cases.json "$corpus"/ 2>/dev/null || true
    rm -f "$corpus"/deep.json
    for f in cases/webnn/*.json; do  # the first cases of each file as a small seed
      python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump({"cases": d["cases"][:2]}, open(sys.argv[2], "w"))' \
        "$f" "$corpus/seed_$(basename "$f")"
    done ;;
  timeline_fuzzer) cp cases/timeline/*.json tests/cli/timeline*.json "$corpus"/ ;;
  nnef_text_fuzzer)
    for d in cases/nnef/*/; do cp "$d/graph.nnef" "$corpus/$(basename "$d").nnef" 2>/dev/null || true; done ;;
  nnef_tensor_fuzzer)
    for f in cases/nnef/*/*.dat; do cp "$f" "$corpus/$(basename "$(dirname "$f")").$(basename "$f")"; done ;;
  quant_fuzzer)
    for d in cases/nnef/*/; do cp "$d/graph.quant" "$corpus/$(basename "$d").quant" 2>/dev/null || true; done ;;
  npy_fuzzer) cp tools/fuzz/seeds/npy/* "$corpus"/ ;;
  results_fuzzer) cp tests/cli/actual*.json tools/fuzz/seeds/results/* "$corpus"/ ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
artifacts=build-fuzz/artifacts/$target
mkdir -p "$artifacts"
build-fuzz/bin/"$target" "$corpus" -max_total_time="$seconds" -max_len=4096 \
  -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" 2> >(grep -v "^warning: fuzz.json" >&2)
