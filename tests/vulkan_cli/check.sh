#!/usr/bin/env bash
# The vulkan backend end to end (ctest label vulkan, validation layer on):
#  - nnref devices lists the device with its features (text and JSON);
#  - the check mode runs unchanged on it and blames a deliberately wrong result (the
#    --inject-fault test hook) at the right operator and element, not the operator after it;
#  - no loader, no driver, a device index that does not exist or a missing validation layer:
#    exit 2 with the cause and what to do; with --allow-unavailable-backend, listed skips, exit 0.
# The case is ../cli/backend_chain.json: sum = x + y, prod = sum * x, out = relu(prod); by hand
# prod = [6.25, 1.5, -0.25, 1, 5.25, 12.5].
set -uo pipefail
nnref=$1
cd "$(dirname "$0")/../cli"
fail() { echo "FAIL: $*"; exit 1; }
export NNREF_VULKAN_VALIDATION=1

out=$("$nnref" devices 2>&1) || fail "nnref devices exits $?: $out"
grep -q "^device 0: " <<<"$out" || fail "no device 0: $out"
grep -q "  maxStorageBufferRange: [0-9]" <<<"$out" || fail "no maxStorageBufferRange: $out"
grep -q "  shaderInt64: \(yes\|no\)" <<<"$out" || fail "no shaderInt64: $out"
# The float controls (VkPhysicalDeviceFloatControlsProperties), by their Vulkan names.
for f in DenormPreserve DenormFlushToZero SignedZeroInfNanPreserve RoundingModeRTE RoundingModeRTZ; do
  for w in 16 32 64; do
    grep -q "^  shader${f}Float$w: \(yes\|no\)$" <<<"$out" || fail "no shader${f}Float$w: $out"
  done
done
grep -q "^  denormBehaviorIndependence: \(32-bit only\|all\|none\)$" <<<"$out" ||
  fail "no denormBehaviorIndependence: $out"
grep -q "^  roundingModeIndependence: \(32-bit only\|all\|none\)$" <<<"$out" ||
  fail "no roundingModeIndependence: $out"
devices=$out
out=$("$nnref" devices --json 2>/dev/null) || fail "nnref devices --json exits $?"
grep -q '"storageBuffer8BitAccess": \(true\|false\)' <<<"$out" || fail "devices --json: $out"
grep -q '"shaderDenormPreserveFloat32": \(true\|false\)' <<<"$out" || fail "devices --json: $out"
grep -q '"roundingModeIndependence": "' <<<"$out" || fail "devices --json: $out"

out=$("$nnref" run backend_chain.json --backend vulkan --against-reference 2>&1) ||
  fail "vulkan run of the chain: $out"
grep -q "^backend: vulkan (device 0: " <<<"$out" || fail "backend line: $out"
grep -q "^1 passed, 0 failed" <<<"$out" || fail "vulkan chain summary: $out"
# The arithmetic mode: exact by default, native on request, named on the backend: line.
grep -q "; exact arithmetic (compensated sums, precise functions))$" <<<"$out" ||
  fail "backend line does not name the default exact arithmetic: $out"
out=$("$nnref" run backend_chain.json --backend vulkan --vulkan-arithmetic native \
  --against-reference 2>&1) || fail "vulkan native run of the chain: $out"
grep -q "; native arithmetic (float32 accumulation, tiled matmul/gemm/conv; float16 computed in \(float16\|float32\): [^)]*))$" \
  <<<"$out" ||
  fail "backend line does not name the native arithmetic: $out"
grep -q "^1 passed, 0 failed" <<<"$out" || fail "vulkan native chain summary: $out"
out=$("$nnref" run backend_chain.json --backend vulkan --vulkan-arithmetic fast 2>&1)
rc=$?
[[ $rc == 2 ]] || fail "--vulkan-arithmetic fast exits $rc, not 2: $out"
grep -q -- "--vulkan-arithmetic" <<<"$out" || fail "--vulkan-arithmetic fast: no message: $out"
out=$("$nnref" run backend_chain.json --backend vulkan --against-reference 2>&1) ||
  fail "vulkan run of the chain: $out"
# The backend: line states what device 0 promises, as nnref devices lists it.
f16=$(sed -n 's/^  shaderFloat16: //p' <<<"$devices" | head -1)
i64=$(sed -n 's/^  shaderInt64: //p' <<<"$devices" | head -1)
grep -q "^backend: vulkan (device 0: .*; shaderFloat16 $f16, shaderInt64 $i64; " <<<"$out" ||
  fail "backend line lacks shaderFloat16 $f16 / shaderInt64 $i64: $out"
if grep -q "^  shaderDenormPreserveFloat32: no" <<<"$devices"; then
  grep -q "float32 subnormals may be flushed to zero (no shaderDenormPreserveFloat32)" <<<"$out" ||
    fail "backend line does not say float32 subnormals may be flushed: $out"
else
  grep -q "may be flushed" <<<"$out" && fail "backend line says flushed, device preserves: $out"
fi
# The native mode names its float16 path, as nnref devices does (docs/vulkan.md#arithmetic-modes).
path=$(sed -n 's/^  native arithmetic computes float16 in: //p' <<<"$devices" | head -1)
[ -n "$path" ] || fail "nnref devices lacks the native float16 path: $devices"
out=$("$nnref" run backend_chain.json --backend vulkan --vulkan-arithmetic native 2>&1) ||
  fail "native run of the chain: $out"
if [ "$f16" = yes ]; then
  [ "$path" = "float16 (shaderFloat16)" ] || fail "devices: float16 path $path with shaderFloat16"
  grep -q "float16 computed in float16: shaderFloat16))" <<<"$out" || fail "native line: $out"
  out=$(NNREF_VULKAN_FLOAT16=float32 "$nnref" run backend_chain.json --backend vulkan \
    --vulkan-arithmetic native 2>&1) || fail "native float32 run of the chain: $out"
  grep -q "float16 computed in float32: NNREF_VULKAN_FLOAT16=float32))" <<<"$out" ||
    fail "native float32 line: $out"
  out=$(NNREF_VULKAN_FLOAT16=float32 "$nnref" devices 2>&1)
  grep -q "^  native arithmetic computes float16 in: float32 (NNREF_VULKAN_FLOAT16=float32)" \
    <<<"$out" || fail "devices with NNREF_VULKAN_FLOAT16=float32: $out"
else
  grep -q "float16 computed in float32: no shaderFloat16))" <<<"$out" || fail "native line: $out"
fi
out=$(NNREF_VULKAN_FLOAT16=half "$nnref" run backend_chain.json --backend vulkan \
  --vulkan-arithmetic native 2>&1); rc=$?
[ $rc -eq 2 ] || fail "NNREF_VULKAN_FLOAT16=half exits $rc, want 2: $out"
grep -q "NNREF_VULKAN_FLOAT16 is 'half'" <<<"$out" || fail "NNREF_VULKAN_FLOAT16=half: $out"
report=$(mktemp)
trap 'rm -f "$report"' EXIT
"$nnref" run backend_chain.json --backend vulkan --report "$report" >/dev/null 2>&1 ||
  fail "vulkan run with --report"
grep -q '"backend": "vulkan (device 0: .*shaderFloat16' "$report" || fail "report: $(cat "$report")"

out=$("$nnref" run backend_chain.json --backend vulkan --against-reference --inject-fault mul:4:9 \
  2>&1); rc=$?
[ $rc -eq 1 ] || fail "an injected fault exits $rc, want 1: $out"
grep -q "first divergence: operator 1 mul -> 'prod'" <<<"$out" || fail "divergence not named: $out"
grep -q "at \[1, 1\] (index 4): expected 5.25, got 9" <<<"$out" || fail "divergence element: $out"
grep -q "ok   operator 0 add -> 'sum'" <<<"$out" || fail "add upstream was blamed: $out"
grep -q "ok   operator 2 relu -> 'out'" <<<"$out" || fail "relu downstream was blamed: $out"

out=$(NNREF_VULKAN_LIBRARY=libnnref-no-such-loader.so "$nnref" devices 2>&1); rc=$?
[ $rc -eq 4 ] || fail "devices without a loader exits $rc, want 4: $out"
grep -q "no Vulkan loader" <<<"$out" || fail "no-loader message: $out"
# A backend that cannot run is an error (exit 2, the cause and what to do), never a run of skips
# that exits 0; --allow-unavailable-backend opts in to the skips, counted as backend-unavailable.
unavailable() {  # unavailable WHAT WANT-IN-MESSAGE ENV... -- ARGS...
  local what=$1 want=$2 envs=() out rc
  shift 2
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  out=$(env "${envs[@]}" "$nnref" run backend_chain.json --backend vulkan "$@" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "$what: run exits $rc, want 2: $out"
  grep -q "^error: --backend vulkan cannot run: $want" <<<"$out" || fail "$what message: $out"
  grep -q "allow-unavailable-backend" <<<"$out" || fail "$what: the opt-in is not named: $out"
  grep -q "passed" <<<"$out" && fail "$what: cases ran: $out"
  out=$(env "${envs[@]}" "$nnref" run backend_chain.json --backend vulkan "$@" \
    --allow-unavailable-backend 2>&1) || fail "$what, opted in: run exits $?: $out"
  grep -q "^0 passed, 0 failed, 1 skipped" <<<"$out" || fail "$what, opted in: summary: $out"
  grep -q "^  1  backend-unavailable: " <<<"$out" || fail "$what, opted in: skip reason: $out"
  grep -q "^backend: vulkan (unavailable: $want" <<<"$out" || fail "$what, opted in: $out"
}
unavailable "no loader" "no Vulkan loader (.*apt install libvulkan1" \
  NNREF_VULKAN_LIBRARY=libnnref-no-such-loader.so --
unavailable "device 99" "no Vulkan device 99: there is 1 device (index 0); choose one with --device" \
  -- --device 99
# Timeline cases exercise the backend's context: opted in, they are skips too, not failed builds.
timeline=../../cases/timeline/ordering.json  # (the script runs in tests/cli)
out=$("$nnref" run "$timeline" --backend vulkan --device 99 --allow-unavailable-backend 2>&1) ||
  fail "timeline, opted in: run exits $?: $out"
grep -q "^0 passed, 0 failed, [1-9][0-9]* skipped" <<<"$out" || fail "timeline, opted in: $out"
# No driver: the loader (1.3.239 on Debian 12) reads the driver manifests VK_DRIVER_FILES names
# (VK_ICD_FILENAMES is its older name, still honoured); each alone pointed at nothing hides lavapipe.
nodriver="no Vulkan driver (ICD) was found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER): .*mesa-vulkan-drivers"
unavailable "VK_DRIVER_FILES=/nonexistent" "$nodriver" VK_DRIVER_FILES=/nonexistent.json --
unavailable "VK_ICD_FILENAMES=/nonexistent" "$nodriver" VK_ICD_FILENAMES=/nonexistent.json --
# The validation layer asked for but missing (VK_LAYER_PATH replaces the layer search folders).
unavailable "no validation layer" "the validation layer was asked for (NNREF_VULKAN_VALIDATION) but" \
  VK_LAYER_PATH=/nonexistent --

# nnref devices without a driver says so in plain words: what is missing, the Debian package and
# the environment variables that matter.
out=$(VK_DRIVER_FILES=/nonexistent.json "$nnref" devices 2>&1); rc=$?
[ $rc -eq 4 ] || fail "devices without a driver exits $rc, want 4: $out"
grep -q "no Vulkan driver (ICD) was found" <<<"$out" || fail "no-driver devices message: $out"
grep -q "apt install mesa-vulkan-drivers" <<<"$out" || fail "no-driver package: $out"
grep -q "VK_DRIVER_FILES or VK_ICD_FILENAMES" <<<"$out" || fail "no-driver variables: $out"

out=$("$nnref" ops --backend vulkan)
grep -q "^gru: float32, float16$" <<<"$out" || fail "ops --backend vulkan gru: $out"
grep -q "^lstmCell: float32, float16$" <<<"$out" || fail "ops --backend vulkan lstmCell: $out"
grep -q ": 95 of 95 operators$" <<<"$out" || fail "ops --backend vulkan count: $out"
grep -q "^GPU interop (importableToWebGPU): contexts created from an application's Vulkan device" \
  <<<"$out" || fail "ops --backend vulkan GPU interop: $out"
grep -q "^add: float32, float16, int32, uint32, int64, uint64, int8, uint8" <<<"$out" ||
  fail "ops --backend vulkan add: $out"

echo "vulkan cli checks passed"
