#!/usr/bin/env bash
# CI conventions of run and check: --junit, --shard K/N with merge-reports, the progress line.
source "$(dirname "$0")/common.sh"
root=$PWD/../..
files=("$root/cases/webnn/add.json" "$root/cases/webnn/relu.json" "$PWD/timeline.json")

# --shard K/N: disjoint parts whose union is the whole run; a case's part is the FNV-1a hash of its
# name modulo N (computed here independently).
"$nnref" run "${files[@]}" --report "$tmp/all.json" >/dev/null
for k in 1 2 3; do
  "$nnref" run "${files[@]}" --shard $k/3 --report "$tmp/r$k.json" >/dev/null
done
python3 - "$tmp" <<'PY' || fail "shards"
import json, sys
t = sys.argv[1]
def fnv(s):
    h = 0xcbf29ce484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001b3) % 2**64
    return h
whole = {(c["file"], c["name"]): c["verdict"] for c in json.load(open(t + "/all.json"))["cases"]}
seen = {}
for k in (1, 2, 3):
    for c in json.load(open("%s/r%d.json" % (t, k)))["cases"]:
        key = (c["file"], c["name"])
        assert key not in seen, ("in two shards", key)
        assert fnv(c["name"]) % 3 == k - 1, ("wrong shard", key, k)
        seen[key] = c["verdict"]
assert seen == whole, (len(seen), len(whole))
assert len(whole) > 90
PY
out=$("$nnref" merge-reports "$tmp/r1.json" "$tmp/r2.json" "$tmp/r3.json" -o "$tmp/m.json"); rc=$?
[ $rc -eq 1 ] || fail "merge exits $rc, want 1 (timeline.json has two failing cases): $out"
python3 - "$tmp" <<'PY' || fail "merged report differs from the whole run's"
import json, sys
t = sys.argv[1]
a, m = json.load(open(t + "/all.json")), json.load(open(t + "/m.json"))
assert a["summary"] == m["summary"], (a["summary"], m["summary"])
for op, row in a["operators"].items():
    for k, v in row.items():
        assert abs(m["operators"][op][k] - v) <= 1e-9 * max(1, abs(v)), (op, k, v, m["operators"][op][k])
assert sorted(c["name"] for c in a["cases"]) == sorted(c["name"] for c in m["cases"])
PY
out=$("$nnref" merge-reports "$tmp/r1.json" "$tmp/r1.json" -o "$tmp/m2.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "overlapping shards merge with exit $rc"
grep -q "is also in .*r1.json (do the shards overlap?)" <<<"$out" || fail "overlap message: $out"
for bad in 0/3 4/3 3 a/b; do
  out=$("$nnref" run "${files[@]}" --shard $bad 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "--shard $bad exits $rc"
done

# --junit: one testcase a case, failures with the first mismatch, results-file errors, skips.
"$nnref" check known.json --actual actual_known.json --junit "$tmp/j.xml" >/dev/null
python3 - "$tmp/j.xml" <<'PY' || fail "junit"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("8", "3", "3", "1"), root.attrib
cases = {c.get("name"): c for c in root.iter("testcase")}
assert len(cases) == 8, sorted(cases)
assert cases["known.error_right"].find("*") is None
f = cases["known.sign_flip"].find("failure")
assert f.get("message") == "output 'd' at [1]: expected -3, got 3", f.get("message")
assert "opposite signs" in f.text, f.text
f = cases["known.error_type"].find("failure")
assert f.get("message") == "expected TypeError, the implementation threw DataError: exp: int32 input", f.get("message")
e = cases["known.misspelled"].find("error")
assert "/cases/3/outputs/summ" in e.get("message"), e.get("message")
s = cases["known.no_result"].find("skipped")
assert s.get("message").startswith("no-result: "), s.get("message")
for c in cases.values():
    assert c.get("classname").endswith("known.json"), c.attrib
    float(c.get("time"))
PY

# The progress line: on a terminal only (script(1) gives the command a pseudo-terminal; the
# one-second delay is set to 0 by the test hook).
out=$("$nnref" run "${files[@]}")
grep -q "cases\]" <<<"$out" && fail "progress line without a terminal: $out"
[[ "$out" == *$'\r'* ]] && fail "carriage return without a terminal"
if script -qc true /dev/null >/dev/null 2>&1; then
  out=$(NNREF_PROGRESS_AFTER_MS=0 script -qec "$nnref run ${files[*]}" /dev/null)
  grep -q $'\r\\[1/[0-9]* cases\\] 0 failed, [0-9.]* s' <<<"$out" || fail "no progress line on a terminal: $out"
  total=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$tmp/all.json")
  grep -q "^\[1/$total cases\]" < <(tr '\r' '\n' <<<"$out") || fail "progress total is not $total: $out"
  out=$(script -qec "$nnref run ${files[*]}" /dev/null)
  grep -q "cases\]" <<<"$out" && fail "a short run printed progress: $out"
else
  echo "script(1) cannot open a pseudo-terminal here: progress line not tested"
fi
echo "reports checks passed"
