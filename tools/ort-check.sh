#!/usr/bin/env bash
# Validates ONNX Runtime against the reference: the single-operator float32 cases of CASES (case
# files or folders; default cases/webnn) whose operator maps to ONNX run on onnxruntime-node
# (CPU, one thread; installed from the npm registry into BUILD/bench-ort), and `nnref check`
# judges its results with the default tolerances (docs/ort-check.md).
# usage: tools/ort-check.sh [--build DIR] [CASES...]
# Writes BUILD/ort-check/{results.json,report.json,report.html}; exits as `nnref check` does.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
if [[ "${1:-}" == --build ]]; then
  build="$(realpath -m "$2")"
  shift 2
fi
(($#)) || set -- "$root/cases/webnn"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target nnref >&2
nnref="$build/bin/nnref"
ort_dir="$build/bench-ort"
"$root/tools/bench/ort/install.sh" "$ort_dir" || { echo "ort-check: needs node and npm" >&2; exit 2; }

out="$build/ort-check"
rm -rf "$out" && mkdir -p "$out/inline"
files=()
for arg in "$@"; do
  if [[ -d "$arg" ]]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$arg" -maxdepth 1 -name '*.json' | sort)
  else
    files+=("$arg")
  fi
done
# ONNX Runtime needs the input values themselves: the data forms (random, range, ...) inlined.
inline=()
for f in "${files[@]}"; do
  dst="$out/inline/$(basename "$f")"
  "$nnref" generate "$f" --inline-data -o "$dst" >/dev/null 2>&1 || true
  [[ -s "$dst" ]] && inline+=("$dst")
done
node "$root/tools/ort-check/ort_results.mjs" --ort-dir "$ort_dir" --out "$out/results.json" \
  "${inline[@]}"
exec "$nnref" check "${files[@]}" --actual "$out/results.json" --report "$out/report.json" \
  --html "$out/report.html"
