#!/usr/bin/env bash
# tools/ort-check end to end on three case files (docs/ort-check.md): ONNX Runtime's results are
# judged by `nnref check`. Known outcomes: every matmul case it runs passes, the float32 cancellation case
# by the sum bound (4 elements: ONNX Runtime gives 0 for 1); gemm with beta = 0 and C = Infinity
# fails (ONNX Runtime leaves C out; the spec gives NaN); sigmoid's tails fail (0 for sigmoid(-20)).
# Skipped (77) without node or without onnxruntime-node in ORT_DIR (tools/bench/ort/install.sh).
# usage: tests/ort/check.sh NNREF ORT_DIR
set -uo pipefail
nnref=$1
ort_dir=$2
root="$(cd "$(dirname "$0")/../.." && pwd)"
command -v node >/dev/null || { echo "node is not installed: skipped"; exit 77; }
[ -d "$ort_dir/node_modules/onnxruntime-node" ] ||
  { echo "no onnxruntime-node in $ort_dir (tools/bench/ort/install.sh): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cases=("$root/cases/webnn/matmul.json" "$root/cases/webnn/gemm.json" "$root/cases/webnn/sigmoid.json")
for f in "${cases[@]}"; do
  "$nnref" generate "$f" --inline-data -o "$tmp/$(basename "$f")" >/dev/null || fail "generate $f"
done
node "$root/tools/ort-check/ort_results.mjs" --ort-dir "$ort_dir" --out "$tmp/results.json" \
  "$tmp"/*.json >"$tmp/ort.txt" 2>&1 || fail "ort_results: $(cat "$tmp/ort.txt")"
out=$("$nnref" check "${cases[@]}" --actual "$tmp/results.json" --report "$tmp/r.json"); rc=$?
[ $rc -eq 1 ] || fail "check exits $rc, want 1 (failures, no errors): $out"
python3 - "$tmp/r.json" <<'PY' || fail "outcomes"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["summary"]["errors"] == 0, r["summary"]
v = {c["name"]: c for c in r["cases"]}
m = [c for n, c in v.items() if n.startswith("webnn.matmul.float32.") and c["verdict"] != "skip"]
assert len(m) >= 20 and all(c["verdict"] == "pass" for c in m), [c["name"] for c in m if c["verdict"] != "pass"]
o = v["webnn.matmul.float32.cancellation"]["outputs"]["output"]
assert o["sumBoundAccepted"] == 4 and o["mismatches"] == 0, o
assert v["webnn.gemm.float32.special_values_beta_zero_c_infinity"]["verdict"] == "fail"
assert v["webnn.sigmoid.float32.tails"]["verdict"] == "fail"
assert r["summary"]["sumBoundCases"] >= 10, r["summary"]
PY
echo "ort check passed"
