#!/usr/bin/env bash
# One command for the side-by-side benchmark of docs/performance.md ("Backends vs ONNX Runtime"):
# builds nnref_bench and nnref (Release; nnref judges ONNX Runtime's model-block outputs), installs onnxruntime-node and protobufjs from the npm registry into
# BUILD/bench-ort (pinned in tools/bench/ort/package.json; nothing is installed in the source
# tree), then times, per benchmark and in one run, the reference, the simd backend (1 thread and
# all threads) and ONNX Runtime (1 thread and all threads) and prints the table, the ratios and
# the targets. The table is also written to BUILD/bench/results.md and results.json.
#
# usage: tools/bench/run.sh [--build DIR] [--repeat N] [--reference-repeat N] [--warmup N]
#                           [--min-sample-ms X] [--rounds N] [--threads N] [--only ID,ID]
#                           [--small] [--no-reference] [--vulkan | --vulkan-native]
#   --build DIR   build folder (default: build; configured as Release when it has no CMakeCache)
#   --repeat N    timed samples per variant (default 21); the figure is their median
#   --reference-repeat N  samples of the reference (default 3, after 1 warm-up call)
#   --warmup N    untimed calls first (default 2)
#   --min-sample-ms X  a sample is back-to-back calls for at least X ms (default 0: one call)
#   --rounds N    time every benchmark N times over and report the median of the rounds
#                 (default 3; the reference runs in the first round only)
#   --threads N   "all threads" (default: every core)
#   --only IDs    conv2d,matmul,add,softmax,layerNormalization,relu_matmul,overhead,
#                 gpt2_block,sd_resblock (the model blocks of cases/models as whole graphs)
#   --small       tiny shapes (a quick check that everything runs; the figures mean nothing);
#                 leaves out the model blocks unless --only names them
#   --no-reference  skip the reference (its conv2d and relu(matmul) take seconds per call)
#   --vulkan      also the vulkan backend (first device) in both arithmetic modes: columns with
#                 its time and its ratio to simd 1T (docs/vulkan.md#arithmetic-modes)
#   --vulkan-native  the native mode only (the exact mode takes about a second per call on
#                 matmul and conv2d)
# Without node/npm it runs build/bin/nnref_bench alone (reference and simd only).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build"
args=()
while (($#)); do
  case "$1" in
    --build) build="$(realpath -m "$2")"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")"
if [[ "$build_type" != Release ]] ||
   grep -q '^NNREF_\(SANITIZE\|TSAN\|FUZZ\):BOOL=ON' "$build/CMakeCache.txt"; then
  echo "run.sh: warning: $build is not a plain Release build; its figures are not comparable" >&2
fi
cmake --build "$build" --target nnref_bench nnref >&2

ort_dir="$build/bench-ort"
if ! "$root/tools/bench/ort/install.sh" "$ort_dir"; then
  echo "run.sh: node/npm not found: ONNX Runtime skipped, reference and simd only" >&2
  exec "$build/bin/nnref_bench" "${args[@]}"
fi

exec node --expose-gc "$root/tools/bench/ort/compare.mjs" --bench "$build/bin/nnref_bench" --nnref "$build/bin/nnref" \
  --ort-dir "$ort_dir" --out "$build/bench" "${args[@]}"
