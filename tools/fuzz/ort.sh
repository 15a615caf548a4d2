#!/usr/bin/env bash
# Fuzzes ONNX Runtime with the reference as oracle: `nnref fuzz --external` runs each generated
# single-operator float32 graph on onnxruntime-node (CPU, one thread; tools/ort-check/
# ort_results.mjs, installed from the npm registry into BUILD/bench-ort), judges its outputs under
# the derived bounds as `nnref check` does, and shrinks each divergence to a case file.
# usage: tools/fuzz/ort.sh [--build DIR] [nnref fuzz options: --seed S --count N --seconds T
#                          --out DIR ...]
# The methods drawn are those ort_results.mjs maps to ONNX (override with --ops).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build"
if [[ "${1:-}" == --build ]]; then
  build="$(realpath -m "$2")"
  shift 2
fi
[[ -x "$build/bin/nnref" ]] || { echo "ort.sh: build nnref first (tools/build.sh)" >&2; exit 2; }
ort_dir="$build/bench-ort"
"$root/tools/bench/ort/install.sh" "$ort_dir" >&2 || { echo "ort.sh: needs node and npm" >&2; exit 2; }
ops=()
if [[ " $* " != *" --ops "* ]]; then
  # The operators tools/bench/ort/lower.mjs lowers for ort_results.mjs (its UNARY, BINARY and
  # REDUCE tables and switch cases) that the generator draws.
  for m in abs ceil floor exp log neg sqrt tanh sigmoid relu erf sin cos tan reciprocal sign \
           identity softplus softsign hardSwish roundEven add sub mul div max min pow matmul gemm \
           conv2d convTranspose2d reduceSum reduceMean reduceMax reduceMin reduceProduct reduceL1 \
           reduceL2 reduceLogSum reduceLogSumExp reduceSumSquare softmax clamp leakyRelu elu \
           hardSigmoid transpose averagePool2d maxPool2d l2Pool2d batchNormalization \
           instanceNormalization layerNormalization cumulativeSum; do
    ops+=(--ops "$m")
  done
fi
exec "$build/bin/nnref" fuzz --backend ort --max-ops 1 --types float32 \
  --external "node $(printf %q "$root/tools/ort-check/ort_results.mjs") --ort-dir $(printf %q "$ort_dir")" \
  "${ops[@]}" "$@"
