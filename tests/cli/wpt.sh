#!/usr/bin/env bash
# WPT in and out: `generate --format wpt` writes WPT conformance test files; tools/wpt-import
# (Node.js) reads them back; the round trip gives the same verdicts. Exit 77 without Node.js.
source "$(dirname "$0")/common.sh"
root=$PWD/../..
import=$root/tools/wpt-import
command -v node >/dev/null || { echo "node is not installed: skipped"; exit 77; }

# A file in the WPT style (single quotes, unquoted keys, BigInt, -Infinity, harness helpers the
# importer does not know): two cases pass, the third states a wrong value (see its comments).
out=$("$import" wpt_handwritten.https.any.js -o "$tmp/hand.json") || fail "import: $out"
grep -q "wrote $tmp/hand.json (3 cases from 1 files)" <<<"$out" || fail "import message: $out"
out=$("$nnref" run "$tmp/hand.json" --exact); rc=$?
[ $rc -eq 1 ] || fail "hand-written WPT file exits $rc, want 1: $out"
grep -q "^2 passed, 1 failed$" <<<"$out" || fail "hand-written summary: $out"
grep -q "FAIL $tmp/hand.json: relu float32 wrong expectation" <<<"$out" || fail "wrong case: $out"

# Out: the structure of a WPT conformance file, special values as JavaScript literals.
sources=("$root/cases/webnn/sign.json" "$root/cases/webnn/add.json" "$PWD/cases.json")
i=0
for src in "${sources[@]}"; do
  i=$((i + 1))
  out=$("$nnref" generate "$src" --format wpt -o "$tmp/t$i.https.any.js") || fail "generate $src: $out"
  "$nnref" generate "$src" -o "$tmp/filled$i.json" >/dev/null || fail "generate $src"
done
head -1 "$tmp/t1.https.any.js" | grep -q "^// META: title=test WebNN API operations: sign$" ||
  fail "META title: $(head -1 "$tmp/t1.https.any.js")"
grep -q "^// META: script=../resources/utils.js$" "$tmp/t1.https.any.js" || fail "META script"
grep -q "^const signTests = \[$" "$tmp/t1.https.any.js" || fail "tests array"
grep -q "^webnn_conformance_test(signTests, buildAndExecuteGraph, getPrecisionTolerance);$" \
  "$tmp/t1.https.any.js" || fail "harness call"
grep -q '"data": \[NaN, Infinity, -Infinity, -0, 0, 1' "$tmp/t1.https.any.js" || fail "special values"
grep -q "expectedError" "$tmp/t2.https.any.js" && fail "an error case in a conformance file"
# Inputs given by a data form are written as arrays (the harness reads arrays only):
# webnn.add.float32.broadcast_rank6 has b = range(start -1.5, step 0.5) of shape [2, 1, 3, 1].
grep -qE '"(random|range|fill|npy)":' "$tmp"/t*.https.any.js && fail "a data form in a conformance file"
"$nnref" generate "$root/cases/webnn/add.json" --inline-data -o "$tmp/inline.json" >/dev/null ||
  fail "generate --inline-data"
python3 - "$tmp/inline.json" <<'PY' || fail "--inline-data values"
import json, sys
cases = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
b = cases["webnn.add.float32.broadcast_rank6"]["graph"]["inputs"]["b"]["data"]
assert b == [-1.5, -1, -0.5, 0, 0.5, 1], b
for c in cases.values():
    for v in c["graph"]["inputs"].values():
        assert isinstance(v.get("data"), list), (c["name"], v.get("data"))
PY
# An input too large to write as an array (more than 2^22 values) is refused, naming the field,
# and its case is left out of the file (exit 2).
cat >"$tmp/large.json" <<'J'
{"cases": [{"name": "large.relu", "graph": {
  "inputs": {"x": {"data": {"fill": 1}, "descriptor": {"shape": [2049, 2048], "dataType": "float32"}}},
  "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}]}}]}
J
out=$("$nnref" generate "$tmp/large.json" --format wpt -o "$tmp/large.https.any.js" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "a too large input: exit $rc: $out"
grep -q "case 'large.relu': graph.inputs.x.data: 4196352 values are too many to write as an array (at most 4194304)" <<<"$out" ||
  fail "a too large input: message: $out"
grep -q "large.relu" "$tmp/large.https.any.js" && fail "a refused case was written"
# The file is JavaScript a plain Node.js evaluates, with -0 and NaN as numbers.
node -e '
  const vm = require("vm"); let got;
  vm.runInNewContext(require("fs").readFileSync(process.argv[1], "utf8"),
                     {webnn_conformance_test: (t) => { got = t; },
                      buildAndExecuteGraph: null, getPrecisionTolerance: null});
  const c = got.find((t) => t.name === "webnn.sign.float32.special_values");
  const d = c.graph.inputs.x.data;
  if (!Number.isNaN(d[0]) || d[1] !== Infinity || !Object.is(d[3], -0)) throw new Error(String(d));
' "$tmp/t1.https.any.js" || fail "the generated file is not the JavaScript expected"

# Round trip: generate -> import -> run gives the verdicts of running the generated case files,
# for every case a conformance file can hold (not error, timeline or reference-only cases).
"$import" "$tmp"/t*.https.any.js -o "$tmp/round.json" >/dev/null || fail "import of generated files"
"$nnref" run "$tmp/round.json" --report "$tmp/round_report.json" >/dev/null
"$nnref" run "$tmp"/filled*.json --report "$tmp/direct_report.json" >/dev/null
python3 - "$tmp" "${sources[@]}" <<'PY' || fail "round trip verdicts differ"
import json, sys
t = sys.argv[1]
want = set()
for src in sys.argv[2:]:
    d = json.load(open(src))
    for c in (d["cases"] if isinstance(d, dict) else d):
        if not ("expectedError" in c or "timeline" in c or "referenceOnly" in c):
            want.add(c["name"])
direct = {c["name"]: c["verdict"] for c in json.load(open(t + "/direct_report.json"))["cases"]}
round_ = {c["name"]: c["verdict"] for c in json.load(open(t + "/round_report.json"))["cases"]}
assert set(round_) == want, (sorted(set(round_) ^ want))
assert all(round_[n] == direct[n] for n in want), [n for n in want if round_[n] != direct[n]]
assert len(want) > 70 and all(v == "pass" for v in round_.values())
PY
# The verdicts come from the file's data: a changed expected value fails that case alone.
sed 's/"data": \[2.25, 9, 6.25\]/"data": [2.25, 9.5, 6.25]/' "$tmp/t3.https.any.js" >"$tmp/m.https.any.js"
cmp -s "$tmp/t3.https.any.js" "$tmp/m.https.any.js" && fail "the mutation did not apply"
"$import" "$tmp/m.https.any.js" -o "$tmp/m.json" >/dev/null || fail "import of the mutated file"
out=$("$nnref" run "$tmp/m.json"); rc=$?
[ $rc -eq 1 ] || fail "mutated round trip exits $rc: $out"
grep -q "^1 passed, 1 failed$" <<<"$out" || fail "mutated summary: $out"
grep -q "at \[1\] (index 1): expected 9.5, got 9" <<<"$out" || fail "mutated element: $out"

out=$("$import" "$tmp/nosuch.js" -o "$tmp/x.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "a missing input exits $rc: $out"
out=$("$nnref" generate cases.json --format nosuch -o "$tmp/x" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "--format nosuch exits $rc"
echo "wpt checks passed"
