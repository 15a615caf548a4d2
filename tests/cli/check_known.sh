#!/usr/bin/env bash
# `nnref check` on a results file that differs from the reference in known ways (issue 13's
# "Done when"): each difference must give exactly one finding, attributed to the results file.
# known.json, by hand:
#   known.error_type    exp(int32) -> TypeError; the result says DataError          -> FAIL
#   known.error_right   the same; the result says TypeError                         -> pass
#   known.missing_error float32 + int32 -> TypeError; the result gives outputs      -> FAIL
#   known.misspelled    outputs 'summ' but the case's operand is 'sum'              -> ERROR /cases/3/outputs/summ
#   known.duplicate     given at /cases/4 and /cases/6                               -> ERROR /cases/6/name
#   known.sign_flip     d = x - y = [1.5-0.5, -2-1, 4-4] = [1, -3, 0]; result [1, 3, 0] -> FAIL at [1]
#   known.empty         outputs {}                                                  -> ERROR /cases/7/outputs
#   known.no_result     absent                                                      -> skip (no-result)
#   known.not_a_case    not in known.json                                           -> warning /cases/8/name
source "$(dirname "$0")/common.sh"
root_cases=$PWD/../../cases/webnn

out=$("$nnref" check known.json --actual actual_known.json --report "$tmp/r.json"); rc=$?
[ $rc -eq 2 ] || fail "check exits $rc, want 2 (errors in the results file): $out"
grep -q "^1 passed, 3 failed, 3 errors, 1 skipped$" <<<"$out" || fail "summary: $out"
# Exactly six findings: three FAIL and three ERROR headers, nothing else.
[ "$(grep -c '^FAIL ' <<<"$out")" -eq 3 ] || fail "want 3 FAIL lines: $out"
[ "$(grep -c '^ERROR ' <<<"$out")" -eq 3 ] || fail "want 3 ERROR lines: $out"
grep -q "^FAIL known.json: known.error_type  \[result: actual_known.json /cases/0\]$" <<<"$out" ||
  fail "wrong error type not attributed: $out"
grep -q "expected TypeError, the implementation threw DataError: exp: int32 input" <<<"$out" ||
  fail "wrong error type message: $out"
grep -q "^FAIL known.json: known.missing_error  \[result: actual_known.json /cases/2\]$" <<<"$out" ||
  fail "missing error not a failure: $out"
grep -q "^ERROR actual_known.json: case 'known.misspelled' (of known.json)$" <<<"$out" ||
  fail "misspelled output blamed on the case file: $out"
grep -q "actual_known.json: /cases/3/outputs/summ: the case has no operand named 'summ' (the case's outputs: sum; its other operands: a, b)" <<<"$out" ||
  fail "misspelled output: pointer or choices: $out"
grep -q "actual_known.json: /cases/6/name: the case is given again (first at /cases/4)" <<<"$out" ||
  fail "duplicate not reported: $out"
grep -q "actual_known.json: /cases/7/outputs: is empty: give at least one output (the case's outputs: y" <<<"$out" ||
  fail "empty outputs: $out"
grep -q "rejects" <<<"$out" && fail "an empty result blamed on the reference: $out"
# float32 -3 is 0xC0400000 and 3 is 0x40400000: 2 * 0x40400000 = 2155872256 values apart across
# zero; abs |3 - -3| = 6.
ulp=$(python3 -c 'import struct; b=struct.unpack("<I", struct.pack("<f", 3.0))[0]; print("%g" % (2*b))')
grep -q "at \[1\] (index 1): expected -3, got 3 (opposite signs: abs 6, $ulp ulp counted across zero" <<<"$out" ||
  fail "sign flip not shown as such (want $ulp): $out"
grep -q "warning: actual_known.json: /cases/8/name: no case named 'known.not_a_case'" <<<"$out" ||
  fail "unknown case: $out"
grep -q "^  1  no-result: " <<<"$out" || fail "skip reason count: $out"
# The per-operator table: relu has duplicate, empty (errors) and no_result (skip); sub one fail
# whose max abs is 6 and mean ULP (0 + 2155872256 + 0) / 3.
grep -qE "^relu +3 +0 +0 +2 +1 " <<<"$out" || fail "relu row: $out"
mean=$(python3 -c "print('%.4g' % ($ulp/3))")
[ "$(awk '$1 == "sub" {print $2, $3, $4, $5, $6, $7, $8, $9}' <<<"$out")" = "1 0 1 0 0 $ulp $mean 6" ] ||
  fail "sub row (mean $mean): $out"

python3 - "$tmp/r.json" <<'PY' || fail "report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["skippedByReason"] == {"no-result": 1}, d["summary"]
by = {c["name"]: c for c in d["cases"]}
assert by["known.misspelled"]["resultsFileProblems"] == [{"file": "actual_known.json", "pointer": "/cases/3/outputs/summ", "message": "the case has no operand named 'summ' (the case's outputs: sum; its other operands: a, b)"}], by["known.misspelled"]
assert by["known.duplicate"]["resultsFileProblems"][0]["pointer"] == "/cases/6/name"
assert by["known.empty"]["resultsFileProblems"][0]["pointer"] == "/cases/7/outputs"
assert by["known.error_type"]["result"] == {"file": "actual_known.json", "pointer": "/cases/0"}
assert by["known.error_right"]["verdict"] == "pass"
assert by["known.no_result"]["skipReason"] == "no-result"
fm = by["known.sign_flip"]["outputs"]["d"]["firstMismatch"]
assert fm["oppositeSigns"] is True and fm["abs"] == 6, fm
ops = d["operators"]
assert ops["sub"]["failed"] == 1 and ops["sub"]["maxAbs"] == 6, ops["sub"]
assert ops["exp"] == {"cases": 2, "passed": 1, "failed": 1, "errors": 0, "skipped": 0, "maxUlp": 0, "meanUlp": 0, "maxAbs": 0, "compared": 0}, ops["exp"]
PY

# --dump: expected, actual and actual - expected (float64) of the failing output, as .npy files,
# read here with a parser of the .npy format written from its specification.
out=$("$nnref" check known.json --actual actual_known.json --dump "$tmp/dump")
grep -q "wrote $tmp/dump/known.sign_flip.d.{expected,actual,diff}.npy" <<<"$out" || fail "dump line: $out"
[ "$(ls "$tmp/dump" | wc -l)" -eq 3 ] || fail "dump writes only the failing output: $(ls "$tmp/dump")"
python3 - "$tmp/dump/known.sign_flip.d" <<'PY' || fail "dumped .npy files"
import ast, struct, sys
def load(path):
    b = open(path, "rb").read()
    assert b[:8] == b"\x93NUMPY\x01\x00", b[:8]
    n = struct.unpack("<H", b[8:10])[0]
    assert (10 + n) % 64 == 0, n
    h = ast.literal_eval(b[10:10 + n].decode("latin1"))
    fmt = {"<f4": "f", "<f8": "d"}[h["descr"]]
    count = 1
    for d in h["shape"]:
        count *= d
    return h["shape"], list(struct.unpack("<%d%s" % (count, fmt), b[10 + n:]))
base = sys.argv[1]
assert load(base + ".expected.npy") == ((3,), [1.0, -3.0, 0.0]), load(base + ".expected.npy")
assert load(base + ".actual.npy") == ((3,), [1.0, 3.0, 0.0]), load(base + ".actual.npy")
assert load(base + ".diff.npy") == ((3,), [0.0, 6.0, 0.0]), load(base + ".diff.npy")
PY

# Malformed entries: each member at its pointer, with the valid choices.
cat > "$tmp/bad.json" <<'JSON'
{"cases": [
  {"name": "known.error_right", "error": "TypoError"},
  {"name": "known.duplicate", "output": {"y": [0, 2]}},
  {"name": "known.sign_flip", "outputs": {"d": [1, -3, 0]}, "error": "TypeError"},
  {"outputs": {"y": [0]}},
  {"name": "known.misspelled", "outputs": {"sum": [4]}},
  {"name": "known.sign_flp", "outputs": {"d": [1, -3, 0]}}
]}
JSON
out=$("$nnref" check known.json --actual "$tmp/bad.json"); rc=$?
[ $rc -eq 2 ] || fail "malformed results exit $rc, want 2: $out"
grep -q "/cases/0/error: 'TypoError' is not an error name (choose one of: TypeError, RangeError, DataError" <<<"$out" ||
  fail "bad error name: $out"
grep -q "/cases/1/output: unknown member (choose one of: name, outputs, error, message)" <<<"$out" ||
  fail "unknown member: $out"
grep -q "/cases/2: has both 'outputs' and 'error'" <<<"$out" || fail "outputs and error: $out"
grep -q "^ERROR .*bad.json: case '(unnamed)'" <<<"$out" || fail "unnamed entry: $out"
grep -q "/cases/3: missing 'name'" <<<"$out" || fail "missing name: $out"
grep -q "bad.json: /cases/4/outputs/sum: has 1 values but shape \[2\] needs 2" <<<"$out" ||
  fail "wrong element count not at its pointer: $out"
grep -q "^0 passed, 0 failed, 5 errors, 4 skipped$" <<<"$out" || fail "malformed summary: $out"
grep -q "bad.json: /cases/5/name: no case named 'known.sign_flp' in the case files given (did you mean 'known.sign_flip'?)" <<<"$out" ||
  fail "misspelled case name: $out"
grep -q "no case named 'known.not_a_case' in the case files given$" \
  < <("$nnref" check known.json --actual actual_known.json) || fail "a far name got a suggestion"
grep -q "^(none)" <<<"$out" && fail "an entry naming no case counted under an operator: $out"

# --max-mismatches: all three elements of d wrong; 1 sample by default... 'all' shows every one.
cat > "$tmp/three.json" <<'JSON'
{"cases": [{"name": "known.sign_flip", "outputs": {"d": [2, -4, 1]}}]}
JSON
out=$("$nnref" check known.json --actual "$tmp/three.json" --max-mismatches 2)
[ "$(grep -c '^      at ' <<<"$out")" -eq 2 ] || fail "--max-mismatches 2: $out"
out=$("$nnref" check known.json --actual "$tmp/three.json" --max-mismatches all)
[ "$(grep -c '^      at ' <<<"$out")" -eq 3 ] || fail "--max-mismatches all: $out"
out=$("$nnref" check known.json --actual "$tmp/three.json" --max-mismatches x 2>&1); rc=$?
[ $rc -eq 2 ] || fail "--max-mismatches x exits $rc"

# Integer outputs: the exact difference, not a ULP distance rounded through a double. The sum is
# computed here from the case's inputs; element 0 is given as INT64_MAX.
python3 - "$root_cases/add.json" "$tmp/i64.json" <<'PY' || fail "int64 results"
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == "webnn.add.int64.basic"][0]
i = c["graph"]["inputs"]
s = [x + y for x, y in zip(i["a"]["data"], i["b"]["data"])]
json.dump({"cases": [{"name": c["name"], "outputs": {"output": [str(2**63 - 1)] + s[1:]}}]},
          open(sys.argv[2], "w"))
open(sys.argv[2] + ".want", "w").write("expected %d, got %d (difference %d)" % (s[0], 2**63 - 1, 2**63 - 1 - s[0]))
PY
out=$("$nnref" check "$root_cases/add.json" --actual "$tmp/i64.json" --report "$tmp/i64r.json")
grep -qF "$(cat "$tmp/i64.json.want")" <<<"$out" || fail "int64 difference (want $(cat "$tmp/i64.json.want")): $out"
grep -q "1 of 6 elements outside 0 ULP (max difference 9.22337e+18)" <<<"$out" || fail "int64 summary line: $out"
python3 - "$tmp/i64r.json" "$tmp/i64.json.want" <<'PY' || fail "int64 difference in the report"
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cases"] if c["verdict"] == "fail"][0]
want = open(sys.argv[2]).read().split("difference ")[1].rstrip(")")
assert c["outputs"]["output"]["firstMismatch"]["difference"] == want, (c, want)
PY

# check prints the builder's warnings, as run does (roundingType is the older name).
echo '{"cases": [{"name": "webnn.maxPool2d.float32.rounding_type_alias_ceil", "outputs": {"output": [0]}}]}' >"$tmp/w.json"
out=$("$nnref" check "$root_cases/maxPool2d.json" --actual "$tmp/w.json" 2>&1 >/dev/null)
grep -q "^warning: .*options.roundingType is the older name of outputShapeRounding" <<<"$out" ||
  fail "check lacks the builder warning: $out"

# run: skip reasons by code (filtered), per-operator table on request.
out=$("$nnref" run -k known.error known.json --per-operator); rc=$?
grep -q "^  6  filtered: excluded by the name/label filter$" <<<"$out" || fail "run skip reasons: $out"
grep -qE "^exp +2 +2 +0 +0 +0 " <<<"$out" || fail "run per-operator: $out"
echo "check_known checks passed"
