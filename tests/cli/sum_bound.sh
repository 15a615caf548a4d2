#!/usr/bin/env bash
# `nnref check` judges sums with the sum bound (docs/numerics.md, "The sum bound"), end to end on
# the corpus's matmul cancellation cases. By hand:
#   float32 a = [[1e8, 1, -1e8], [1, 1e8, -1e8]], b = ones(3, 2): exactly 1 everywhere. A float32
#   accumulator adds in order: 1e8 + 1 and 1 + 1e8 round to 1e8 (spacing 8), then - 1e8 gives 0.
#   matmul's row for K = 3 is 6 ULP; M = 2e8 + 1, so the bound is 6 * (2e8 + 1) * 2^-24 = 71.5.
#   float16 a = [[2048, 1, -2048], [1, 2048, -2048]]: 2048 + 1 rounds to 2048 (spacing 2, ties to
#   even), so 0 again; bound 6 * 4097 * 2^-11 = 12.0.
# So the float32 answers [0, 0, 0, 0] pass (4 elements within the sum bound each), and an answer
# off by more than the bound (100 for float32, 14 for float16) fails at that element.
source "$(dirname "$0")/common.sh"

python3 - "$tmp/cases.json" <<'PY' || fail "extracting the cases"
import json, sys
d = json.load(open("../../cases/webnn/matmul.json"))
keep = [c for c in d["cases"] if c["name"].endswith(".cancellation")]
assert len(keep) == 2, [c["name"] for c in keep]
d["cases"] = keep
json.dump(d, open(sys.argv[1], "w"))
PY
cat >"$tmp/float32_sums.json" <<'J'
{"cases": [
  {"name": "webnn.matmul.float32.cancellation", "outputs": {"output": [0, 0, 0, 0]}},
  {"name": "webnn.matmul.float16.cancellation", "outputs": {"output": [0, 0, 0, 0]}}
]}
J
cat >"$tmp/wrong.json" <<'J'
{"cases": [
  {"name": "webnn.matmul.float32.cancellation", "outputs": {"output": [0, 0, 0, 100]}},
  {"name": "webnn.matmul.float16.cancellation", "outputs": {"output": [0, 14, 0, 0]}}
]}
J

out=$("$nnref" check "$tmp/cases.json" --actual "$tmp/float32_sums.json" --report "$tmp/r.json" \
  --tolerances wpt)
rc=$?
[ $rc -eq 0 ] || fail "float32 sums: exit $rc: $out"
grep -q "^2 passed, 0 failed$" <<<"$out" || fail "float32 sums summary: $out"
grep -q "^8 elements of sums passed by the sum bound alone (2 passing cases needed it)$" <<<"$out" ||
  fail "float32 sums: the summary does not count the sum bound: $out"
python3 - "$tmp/r.json" <<'PY' || fail "report of the float32 sums"
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cases"]:
    o = c["outputs"]["output"]
    assert o["sumBoundAccepted"] == 4 and o["mismatches"] == 0, (c["name"], o)
assert r["summary"]["sumBoundElements"] == 8 and r["summary"]["sumBoundCases"] == 2, r["summary"]
PY

out=$("$nnref" check "$tmp/cases.json" --actual "$tmp/wrong.json" --tolerances wpt)
rc=$?
[ $rc -eq 1 ] || fail "wrong sums: exit $rc: $out"
grep -q "^0 passed, 2 failed$" <<<"$out" || fail "wrong sums summary: $out"
grep -q "1 of 4 elements outside 6 ULP (.*); 3 within the sum bound" <<<"$out" ||
  fail "wrong sums: the accepted elements are not counted: $out"
grep -q "at \[1, 1\] (index 3): expected 1, got 100 (ulp 5.50502e+07, abs 99, bound 71.5256)" <<<"$out" ||
  fail "float32 element: $out"
grep -q "at \[0, 1\] (index 1): expected 1, got 14" <<<"$out" || fail "float16 element: $out"
# The derived policy (the default) agrees: float32 and float16 accumulators' 0 for the exact 1
# pass, within the bound of two roundings of partial sums up to (M + |S|) / 2 = 1e8 (about 12,
# plus the products' roundings), and 100 and 14 do not.
out=$("$nnref" check "$tmp/cases.json" --actual "$tmp/float32_sums.json")
[ $? -eq 0 ] || fail "float32 sums, derived: $out"
grep -q "^2 passed, 0 failed$" <<<"$out" || fail "float32 sums summary, derived: $out"
out=$("$nnref" check "$tmp/cases.json" --actual "$tmp/wrong.json")
[ $? -eq 1 ] || fail "wrong sums, derived: $out"
grep -q "^0 passed, 2 failed$" <<<"$out" || fail "wrong sums summary, derived: $out"
grep -q "1 of 4 elements outside derived bounds (per element)" <<<"$out" ||
  fail "wrong sums, derived: $out"
echo "sum bound checks passed"
