#!/usr/bin/env bash
# End-to-end checks of `nnref nnef` (run, --trace, --check, --case, errors) on a model written
# here byte by byte (chapter 5.2 layout) with hand-derived results:
#   w = [1, 2] (variable 'layer/w'), x = [3, 4]: y = x * w = [3, 8];
#   z = argmax_reduce(y, axes = [1]) = [[1]]; c = gt(y, 3.0) = [0, 1].
#   With graph.quant 'x': linear_quantize(min 0, max 4, bits 2) (levels 0, 4/3, 8/3, 4):
#   x -> [8/3, 4] (3 * 3/4 = 2.25 rounds to 2), y = [8/3, 8].
set -uo pipefail
nnref=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# tensor FILE CODE BITS SIGNED FORMAT VALUES... : header then struct-packed little-endian items.
tensor() {
  python3 - "$@" <<'PY'
import struct, sys
path, code, bits, signed, fmt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
shape = [int(v) for v in sys.argv[6].split(',')]
values = [float(v) if fmt == 'f' else int(v) for v in sys.argv[7:]]
data = b''.join(struct.pack('<' + fmt, v) for v in values)
h = bytearray(128)
h[0:4] = b'N\xef\x01\x00'
struct.pack_into('<II', h, 4, len(data), len(shape))
for k, e in enumerate(shape):
    struct.pack_into('<I', h, 12 + 4 * k, e)
struct.pack_into('<III', h, 44, bits, code, signed)
open(path, 'wb').write(bytes(h) + data)
PY
}

m="$tmp/model"
mkdir -p "$m/layer" "$tmp/expected"
cat >"$m/graph.nnef" <<'NNEF'
version 1.0;
extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;
graph G( x ) -> ( y, z, c )
{
    x = external(shape = [1, 2]);
    w = variable(shape = [1, 2], label = 'layer/w');
    y = x * w;
    z = argmax_reduce(y, axes = [1]);
    c = y > 3.0;
}
NNEF
tensor "$m/layer/w.dat" 0 32 0 f 1,2 1 2
tensor "$tmp/x.dat" 0 32 0 f 1,2 3 4
tensor "$tmp/expected/y.dat" 0 32 0 f 1,2 3 8
tensor "$tmp/expected/z.dat" 1 32 1 i 1,1 1
tensor "$tmp/expected/c.dat" 5 8 0 B 1,2 0 1

out=$("$nnref" nnef "$m" --input x="$tmp/x.dat" --output-dir "$tmp/out") || fail "run: $out"
for t in y z c; do
  cmp -s "$tmp/out/$t.dat" "$tmp/expected/$t.dat" || fail "$t.dat differs from the hand-written file"
done
grep -q "^z: tensor<integer> \[1, 1\] -> $tmp/out/z.dat" <<<"$out" || fail "output line: $out"

out=$("$nnref" nnef "$m" --input x="$tmp/x.dat" --output-dir "$tmp/out" --trace) || fail "trace"
grep -q "  w = variable (line 6) : tensor<scalar> \[1, 2\] 1, 2" <<<"$out" || fail "trace w: $out"
grep -q "  y = mul (line 7) : tensor<scalar> \[1, 2\] 3, 8" <<<"$out" || fail "trace y: $out"

# --check prints the flattened graph, which checks again to the same text.
"$nnref" nnef --check "$m" >"$tmp/flat.nnef" || fail "check"
grep -q "y = mul(x, w);" "$tmp/flat.nnef" || fail "flattened graph: $(cat "$tmp/flat.nnef")"
mkdir -p "$tmp/flat/layer" && cp "$tmp/flat.nnef" "$tmp/flat/graph.nnef"
cp "$m/layer/w.dat" "$tmp/flat/layer/"
"$nnref" nnef --check "$tmp/flat" | cmp -s - "$tmp/flat.nnef" || fail "flattened graph not stable"

# As a case folder: passes; a wrong expected value fails with exit 1.
c="$tmp/cases/one"
mkdir -p "$c/inputs"
cp -r "$m/." "$c/" && cp -r "$tmp/expected" "$c/" && cp "$tmp/x.dat" "$c/inputs/"
cat >"$c/case.json" <<'JSON'
{"inputs": {"x": "inputs/x.dat"},
 "outputs": {"y": "expected/y.dat", "z": "expected/z.dat", "c": "expected/c.dat"},
 "tolerance": {"metricType": "ULP", "value": 0}}
JSON
out=$("$nnref" nnef --case "$tmp/cases") || fail "case: $out"
grep -q "^1 passed, 0 failed" <<<"$out" || fail "case summary: $out"
tensor "$c/expected/y.dat" 0 32 0 f 1,2 3 8.000001
out=$("$nnref" nnef --case "$c"); rc=$?
[ $rc -eq 1 ] || fail "wrong expected value exits $rc, want 1: $out"
grep -q "output 'y': 1 of 2 elements outside 0 ULP" <<<"$out" || fail "mismatch report: $out"

# On a backend (--backend simd): the whole model, argmax_reduce (an NNEF-group operator)
# included, on simd's kernels, checked operator by operator: the same output files.
out=$("$nnref" nnef "$m" --input x="$tmp/x.dat" --output-dir "$tmp/simd" --backend simd \
      --against-reference 2>&1) || fail "simd run of the model: $out"
for t in y z c; do
  cmp -s "$tmp/simd/$t.dat" "$tmp/expected/$t.dat" || fail "simd: $t.dat differs"
done
tensor "$c/expected/y.dat" 0 32 0 f 1,2 3 8
out=$("$nnref" nnef --case "$tmp/cases" --backend simd --against-reference) || fail "simd case: $out"
grep -q "^1 passed, 0 failed" <<<"$out" || fail "simd case summary: $out"
# An NNEF-group operator a backend cannot run is a listed skip naming it, never computed on the
# reference instead: vulkan with its bindings capped at 40 bytes (NNREF_VULKAN_MAX_BINDING, a
# test hook) fits box's 16-byte tensors but not its tap table (4 outputs x 3 taps x 4 bytes);
# where a Vulkan device is present.
if "$nnref" devices >/dev/null 2>&1; then
  b="$tmp/box_model"
  mkdir -p "$b"
  cat >"$b/graph.nnef" <<'NNEF'
version 1.0;
graph B( x ) -> ( y )
{
    x = external(shape = [1, 4]);
    y = box(x, size = [1, 3]);
}
NNEF
  tensor "$tmp/x4.dat" 0 32 0 f 1,4 1 2 3 4
  out=$(NNREF_VULKAN_MAX_BINDING=40 "$nnref" nnef "$b" --input x="$tmp/x4.dat" \
        --output-dir "$tmp/vk" --backend vulkan 2>&1)
  rc=$?
  [ $rc -eq 2 ] && grep -q "backend-unsupported: vulkan: box (for NNEF box): box: a tap table of 48 bytes exceeds one binding" <<<"$out" ||
    fail "vulkan unsupported run: $rc $out"
  [ ! -e "$tmp/vk/y.dat" ] || fail "vulkan unsupported run wrote an output"
  # Uncapped: the window sums [0 + 1 + 2, 1 + 2 + 3, 2 + 3 + 4, 3 + 4 + 0].
  out=$("$nnref" nnef "$b" --input x="$tmp/x4.dat" --output-dir "$tmp/vk" --backend vulkan \
        --against-reference 2>&1) || fail "vulkan box run: $out"
  tensor "$tmp/box_y.dat" 0 32 0 f 1,4 3 6 9 7
  cmp -s "$tmp/vk/y.dat" "$tmp/box_y.dat" || fail "vulkan box: y.dat differs"
else
  echo "note: no Vulkan device; the unsupported-operator skip is not exercised"
fi
# Without z, simd computes the graph: the same outputs; with a fault injected into the lowered
# mul, the check mode names the NNEF operation, its line and its tensor, and exits 1.
s="$tmp/simd_model"
mkdir -p "$s/layer" && cp "$m/layer/w.dat" "$s/layer/"
sed -e 's/-> ( y, z, c )/-> ( y, c )/' -e '/argmax_reduce/d' "$m/graph.nnef" >"$s/graph.nnef"
out=$("$nnref" nnef "$s" --input x="$tmp/x.dat" --output-dir "$tmp/simd" --backend simd \
      --against-reference) || fail "simd run: $out"
grep -q "every lowered operator is within its tolerance" <<<"$out" || fail "simd check: $out"
cmp -s "$tmp/simd/y.dat" "$tmp/expected/y.dat" || fail "simd: y.dat differs"
cmp -s "$tmp/simd/c.dat" "$tmp/expected/c.dat" || fail "simd: c.dat differs"
out=$("$nnref" nnef "$s" --input x="$tmp/x.dat" --output-dir "$tmp/simd" --backend simd \
      --against-reference --inject-fault mul:1:9); rc=$?
[ $rc -eq 1 ] && grep -q "^first divergence: NNEF mul (graph.nnef line 7) -> 'y'" <<<"$out" &&
  grep -q "at \[0, 1\] (index 1): expected 8, got 9" <<<"$out" || fail "simd divergence: $rc $out"
out=$("$nnref" nnef "$m" --input x="$tmp/x.dat" --against-reference 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "needs --backend" <<<"$out" || fail "--against-reference alone: $rc $out"

# graph.quant is applied to x before it is used.
printf "'x': linear_quantize(min = 0.0, max = 4.0, bits = 2);\n" >"$m/graph.quant"
"$nnref" nnef "$m" --input x="$tmp/x.dat" --output-dir "$tmp/q" >/dev/null || fail "quant run"
python3 - "$tmp/q/y.dat" <<'PY' || fail "quantized y"
import struct, sys
b = open(sys.argv[1], 'rb').read()
y = struct.unpack('<2f', b[128:136])
assert y == (struct.unpack('<f', struct.pack('<f', 8 / 3))[0], 8.0), y
PY

# Errors exit 2 with the file and what is wrong.
out=$("$nnref" nnef "$m" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "no data given for the graph input 'x'" <<<"$out" || fail "missing input: $rc $out"
out=$("$nnref" nnef "$m" --input q="$tmp/x.dat" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "has no input 'q'" <<<"$out" || fail "unknown input: $rc $out"
head -c 100 "$tmp/x.dat" >"$tmp/short.dat"
out=$("$nnref" nnef "$m" --input x="$tmp/short.dat" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "short.dat: tensor-file error: truncated: 100 bytes" <<<"$out" ||
  fail "truncated input: $rc $out"
printf "'x': linear_quantize(min = 0.0, max = 4.0);\n" >"$m/graph.quant"
out=$("$nnref" nnef "$m" --input x="$tmp/x.dat" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "graph.quant:1:6: quant-file error: linear_quantize: missing argument 'bits'" <<<"$out" ||
  fail "quant error: $rc $out"
rm -f "$m/graph.quant"

# The NNEF-Tools form of the extension list (issue 14): accepted with a warning naming the form,
# rejected under --strict. The model's whitespace-separated list stays valid under --strict.
"$nnref" nnef --check --strict "$m" >/dev/null || fail "--strict rejects the 1.0.2 form"
sed -i 's/KHR_enable_fragment_definitions KHR_enable/KHR_enable_fragment_definitions, KHR_enable/' "$m/graph.nnef"
out=$("$nnref" nnef --check "$m" 2>&1) || fail "comma-separated extension list: $out"
grep -q "graph.nnef:2:42: warning: comma-separated extension list" <<<"$out" || fail "no note: $out"
out=$("$nnref" nnef "$m" --input x="$tmp/x.dat" --output-dir "$tmp/comma" 2>/dev/null) || fail "comma run"
cmp -s "$tmp/comma/y.dat" "$tmp/expected/y.dat" || fail "comma form: y.dat differs"
out=$("$nnref" nnef --check --strict "$m" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "graph.nnef:2:42: parse error: extension names are separated by white space" <<<"$out" ||
  fail "--strict: $rc $out"
# A case's expectedWarning must be met, and "strict" turns the accepted form into the error.
cf="$tmp/comma_case"
mkdir -p "$cf/inputs" "$cf/expected"
cp -r "$m"/* "$cf/"
cp "$tmp/x.dat" "$cf/inputs/x.dat"
cp "$tmp/expected/y.dat" "$cf/expected/y.dat"
printf '{"inputs": {"x": "inputs/x.dat"}, "outputs": {"y": "expected/y.dat"}, "expectedWarning": "comma-separated"}\n' >"$cf/case.json"
out=$("$nnref" nnef --case "$cf") || fail "expectedWarning met: $out"
printf '{"inputs": {"x": "inputs/x.dat"}, "outputs": {"y": "expected/y.dat"}, "expectedWarning": "no such note"}\n' >"$cf/case.json"
out=$("$nnref" nnef --case "$cf"); rc=$?
[ $rc -eq 1 ] && grep -q 'no parse warning mentions "no such note"' <<<"$out" || fail "expectedWarning unmet: $rc $out"
printf '{"inputs": {"x": "inputs/x.dat"}, "outputs": {"y": "expected/y.dat"}, "strict": true}\n' >"$cf/case.json"
out=$("$nnref" nnef --case "$cf"); rc=$?
[ $rc -eq 2 ] && grep -q "not commas" <<<"$out" || fail "strict case: $rc $out"
# --actual: another runtime's outputs, DIR/<case>/<output>.dat, judged against the reference's.
printf '{"inputs": {"x": "inputs/x.dat"}, "outputs": {"y": "expected/y.dat"}}\n' >"$cf/case.json"
act="$tmp/actual/comma_case"
mkdir -p "$act"
out=$("$nnref" nnef --case "$cf" --actual "$tmp/actual"); rc=$?
[ $rc -eq 0 ] && grep -q "no-result" <<<"$out" || fail "--actual without a result: $rc $out"
cp "$tmp/expected/y.dat" "$act/y.dat"
out=$("$nnref" nnef --case "$cf" --actual "$tmp/actual" -v) || fail "--actual right: $out"
grep -q "1 passed" <<<"$out" || fail "--actual right: $out"
tensor "$act/y.dat" 0 32 0 f 1,2 3 8.001
out=$("$nnref" nnef --case "$cf" --actual "$tmp/actual"); rc=$?
[ $rc -eq 1 ] && grep -q "1 failed" <<<"$out" || fail "--actual wrong value: $rc $out"
tensor "$act/y.dat" 0 32 0 f 2 3 8
out=$("$nnref" nnef --case "$cf" --actual "$tmp/actual"); rc=$?
[ $rc -eq 1 ] && grep -q "has shape \[2\]" <<<"$out" || fail "--actual wrong shape: $rc $out"
rm "$act/y.dat"
echo execute >"$act/error"
out=$("$nnref" nnef --case "$cf" --actual "$tmp/actual"); rc=$?
[ $rc -eq 1 ] && grep -q "the implementation rejected the model (execute" <<<"$out" ||
  fail "--actual error on a valid model: $rc $out"
# An expected rejection: the runtime must reject at the case's stage.
ec="$(cd "$(dirname "$0")/../.." && pwd)/cases/nnef/error.tensor_file.truncated_data"
mkdir -p "$tmp/actual/error.tensor_file.truncated_data"
echo tensor-file >"$tmp/actual/error.tensor_file.truncated_data/error"
out=$("$nnref" nnef --case "$ec" --actual "$tmp/actual") || fail "--actual expected error: $out"
echo parse >"$tmp/actual/error.tensor_file.truncated_data/error"
out=$("$nnref" nnef --case "$ec" --actual "$tmp/actual"); rc=$?
[ $rc -eq 1 ] && grep -q "rejected at parse" <<<"$out" || fail "--actual other stage: $rc $out"
echo "nnef cli: all checks passed"
