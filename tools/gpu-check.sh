#!/usr/bin/env bash
# One command for a machine with a GPU and its Vulkan driver (docs/vulkan.md#on-a-real-gpu):
# builds nnref, lists the Vulkan devices, runs the WebNN corpus and the float32 model cases on the
# vulkan backend in the check mode (every operator judged alone against the reference) in both
# arithmetic modes, times matmul 512^3, conv2d 1x64x56x56 * 64x64x3x3 and the model blocks
# against the simd backend, and writes everything to one summary file. Runs on lavapipe too (the
# CTest vulkan.gpu_check runs it there with --quick), where the figures say nothing about a GPU.
#
# usage: tools/gpu-check.sh [--build DIR] [--device N] [--out FILE] [--validation] [--staging]
#                           [--quick]
#   --build DIR    build folder (default build-gpu; configured as Release when new)
#   --device N     the Vulkan device to use (default: the first discrete GPU, else device 0)
#   --out FILE     the summary (default BUILD/gpu-check/summary.md, with the run reports beside it)
#   --validation   run with the Khronos validation layer (NNREF_VULKAN_VALIDATION=1)
#   --staging      force the discrete-GPU memory path (device-local buffers, staging copies)
#   --quick        a few corpus files and no model blocks (a smoke run: the figures mean nothing)
# Exit status: 0 when every check-mode run passed, 1 when one failed, 2 when nothing could run.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-gpu"
device=""
out=""
quick=0
envs=()
while (($#)); do
  case "$1" in
    --build) build="$(realpath -m "$2")"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --out) out="$(realpath -m "$2")"; shift 2 ;;
    --validation) envs+=(NNREF_VULKAN_VALIDATION=1); shift ;;
    --staging) envs+=(NNREF_VULKAN_STAGING=1); shift ;;
    --quick) quick=1; shift ;;
    *) echo "gpu-check: unknown argument $1 (see the header of tools/gpu-check.sh)" >&2; exit 2 ;;
  esac
done
dir="$build/gpu-check"
[[ -n "$out" ]] || out="$dir/summary.md"
mkdir -p "$dir" "$(dirname "$out")"
start=$(date +%s)
log() { echo "gpu-check: $*" >&2; }

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null ||
    { log "cmake failed (tools/setup.sh installs the Debian packages)"; exit 2; }
fi
log "building nnref, nnref_bench, nnref_casebench in $build"
cmake --build "$build" -j"$(nproc)" --target nnref nnref_bench nnref_casebench >"$dir/build.log" 2>&1 ||
  { tail -n 20 "$dir/build.log" >&2; log "build failed ($dir/build.log)"; exit 2; }
nnref="$build/bin/nnref"

"$nnref" devices >"$dir/devices.txt" 2>&1
devices_rc=$?
if ((devices_rc != 0)); then
  cat "$dir/devices.txt" >&2
  log "no usable Vulkan device"
  exit 2
fi
if [[ -z "$device" ]]; then
  # The first discrete GPU when there is one (lines "  N: NAME (... discrete GPU ...").
  device=$(sed -n 's/^ *\([0-9][0-9]*\): .*[Dd]iscrete.*/\1/p' "$dir/devices.txt" | head -n 1)
  [[ -n "$device" ]] || device=0
fi
log "device $device of:"
cat "$dir/devices.txt" >&2

corpus=("$root/cases/webnn")
models=("$root/cases/models")
if ((quick)); then
  corpus=("$root/cases/webnn/matmul.json" "$root/cases/webnn/conv2d.json"
          "$root/cases/webnn/softmax.json" "$root/cases/webnn/layerNormalization.json")
  models=()
fi

status=0
declare -A lines
for mode in native exact; do
  for what in corpus models; do
    if [[ $what == corpus ]]; then files=("${corpus[@]}"); filter=(); else files=("${models[@]}"); filter=(-k float32); fi
    ((${#files[@]})) || continue
    log "$what, $mode arithmetic, check mode"
    report="$dir/$what.$mode.json"
    env "${envs[@]}" "$nnref" run "${files[@]}" "${filter[@]}" --backend vulkan --device "$device" \
      --vulkan-arithmetic "$mode" --against-reference --report "$report" \
      >"$dir/$what.$mode.txt" 2>&1
    rc=$?
    summary=$(grep -E '^[0-9]+ passed' "$dir/$what.$mode.txt" | tail -n 1)
    backend_line=$(grep -m1 '^backend:' "$dir/$what.$mode.txt")
    lines["$what.$mode"]="${summary:-no summary (exit $rc; see $dir/$what.$mode.txt)}"
    lines["backend.$mode"]="$backend_line"
    ((rc == 0)) || status=1
  done
done

log "timings against simd"
env "${envs[@]}" "$build/bin/nnref_bench" --vulkan --no-reference --only matmul,conv2d,softmax,layerNormalization,relu_matmul \
  --repeat 5 >"$dir/bench.txt" 2>&1 || status=1
blocks=""
if ((!quick)); then
  for m in gpt2 stable_diffusion; do
    env "${envs[@]}" "$build/bin/nnref_casebench" --case "$root/cases/models/$m.json" --filter float32 \
      --no-reference --backend vulkan:native --backend vulkan:exact --device "$device" --repeat 3 \
      >>"$dir/blocks.txt" 2>&1 || status=1
  done
  blocks=$(cat "$dir/blocks.txt")
fi

{
  echo "# nnref gpu-check"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "- host: $(uname -srm), $(nproc) CPU threads"
  echo "- options: device $device${envs[*]:+, ${envs[*]}}$( ((quick)) && echo ", --quick")"
  echo "- wall time: $(( $(date +%s) - start )) s"
  echo
  echo "## Devices"
  echo
  echo '```'
  cat "$dir/devices.txt"
  echo '```'
  echo
  echo "## Check mode (every operator against the reference)"
  echo
  echo "| run | native | exact |"
  echo "|---|---|---|"
  echo "| WebNN corpus | ${lines[corpus.native]:-} | ${lines[corpus.exact]:-} |"
  ((quick)) || echo "| model cases (float32) | ${lines[models.native]:-} | ${lines[models.exact]:-} |"
  echo
  echo "- ${lines[backend.native]:-}"
  echo "- ${lines[backend.exact]:-}"
  echo
  echo "Reports: $dir/{corpus,models}.{native,exact}.json (nnref check --html renders them)."
  echo
  echo "## Timings (ms per call; vulkan as a multiple of simd's, one run)"
  echo
  echo '```'
  cat "$dir/bench.txt"
  [[ -z "$blocks" ]] || { echo; echo "$blocks"; }
  echo '```'
} >"$out"
log "summary: $out (exit $status)"
exit $status
