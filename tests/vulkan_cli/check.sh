#!/usr/bin/env bash
# The vulkan backend end to end (ctest label vulkan, validation layer on):
#  - nnref devices lists the device with its features (text and JSON);
#  - the check mode runs unchanged on it and blames a deliberately wrong result (the
#    --inject-fault test hook) at the right operator and element, not the operator after it;
#  - no loader, or a device index that does not exist: a clear message, listed skips, no crash.
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
out=$("$nnref" devices --json 2>/dev/null) || fail "nnref devices --json exits $?"
grep -q '"storageBuffer8BitAccess": \(true\|false\)' <<<"$out" || fail "devices --json: $out"

out=$("$nnref" run backend_chain.json --backend vulkan --against-reference 2>&1) ||
  fail "vulkan run of the chain: $out"
grep -q "^backend: vulkan (device 0: " <<<"$out" || fail "backend line: $out"
grep -q "^1 passed, 0 failed" <<<"$out" || fail "vulkan chain summary: $out"

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
out=$(NNREF_VULKAN_LIBRARY=libnnref-no-such-loader.so "$nnref" run backend_chain.json \
  --backend vulkan 2>&1) || fail "run without a loader exits $?: $out"
grep -q "vulkan: mul: no Vulkan loader" <<<"$out" || fail "no-loader skip reason: $out"
grep -q "^0 passed, 0 failed, 1 skipped" <<<"$out" || fail "no-loader summary: $out"
out=$("$nnref" run backend_chain.json --backend vulkan --device 99 2>&1) ||
  fail "run on device 99 exits $?: $out"
grep -q "vulkan: add: no Vulkan device 99" <<<"$out" || fail "device 99 skip reason: $out"

out=$("$nnref" ops --backend vulkan)
grep -q "^gru: float32, float16$" <<<"$out" || fail "ops --backend vulkan gru: $out"
grep -q "^lstmCell: float32, float16$" <<<"$out" || fail "ops --backend vulkan lstmCell: $out"
grep -q ": 95 of 95 operators$" <<<"$out" || fail "ops --backend vulkan count: $out"
grep -q "^add: float32, float16, int32, uint32, int64, uint64, int8, uint8" <<<"$out" ||
  fail "ops --backend vulkan add: $out"

echo "vulkan cli checks passed"
