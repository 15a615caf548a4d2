#!/usr/bin/env bash
# End-to-end checks of generate, run, check and trace on hand-derived values.
#   cli.add: sum = [1.5, 3, -2.5]; sq = sum*sum = [2.25, 9, 6.25]
#   cli.cast_out_of_range: trunc(1.9) = 1; 300 and -1 are outside uint8: implementation-defined.
source "$(dirname "$0")/common.sh"

"$nnref" generate cases.json -o "$tmp/filled.json" >/dev/null || fail "generate exit $?"
grep -q '"data": \[2.25, 9, 6.25\]' "$tmp/filled.json" || fail "generated sq is not [2.25, 9, 6.25]"
grep -q '"implementationDefined": \[1, 2\]' "$tmp/filled.json" || fail "cast latitude not recorded"
out=$("$nnref" run "$tmp/filled.json" --exact) || fail "run of generated file: $out"
grep -q "^3 passed, 0 failed" <<<"$out" || fail "unexpected summary: $out"

out=$("$nnref" check cases.json --actual actual.json) || fail "check of a correct result: $out"
grep -q "^2 passed, 0 failed, 1 skipped" <<<"$out" || fail "check summary: $out"

out=$("$nnref" check cases.json --actual actual_bad.json --report "$tmp/r.json"); rc=$?
[ $rc -eq 1 ] || fail "check of a wrong result exits $rc, want 1"
grep -q "at \[1\] (index 1): expected 9, got 9.5" <<<"$out" || fail "mismatch not located: $out"
grep -q '"verdict": "fail"' "$tmp/r.json" || fail "report lacks the fail verdict"

out=$("$nnref" trace cases.json --case cli.add) || true
grep -q "sum = add(a, b)" <<<"$out" || fail "trace lacks the add step: $out"
grep -q "values: 2.25 9 6.25" <<<"$out" || fail "trace lacks sq values: $out"

python3 -c 'import json,sys; d=json.load(open("cases.json")); json.dump(d["cases"][0], open(sys.argv[1],"w"))' "$tmp/one.json"
"$nnref" generate "$tmp/one.json" -o "$tmp/one_filled.json" >/dev/null || fail "generate single case"
head -c 1 "$tmp/one_filled.json" | grep -q '{' || fail "a single-case file must stay a single object"

# -k takes one value per occurrence: the paths after it are still paths.
out=$("$nnref" run -k cli.add "$tmp/filled.json" "$tmp/filled.json") || true
grep -q "^2 passed, 0 failed, 4 skipped" <<<"$out" || fail "-k swallowed paths: $out"

# WPT-style data: bare array, free-text names, "dimensions", positional enum/axis arguments,
# operand names inside options, an inline "metricType" tolerance. Values derived by hand in the file.
out=$("$nnref" run wpt_style.json --exact) || fail "wpt-style cases: $out"
grep -q "^7 passed, 0 failed" <<<"$out" || fail "wpt-style summary: $out"

# Timeline cases: a passing script, a wrong value located at its step, a missing error.
out=$("$nnref" run timeline.json --report "$tmp/t.json"); rc=$?
[ $rc -eq 1 ] || fail "timeline run exits $rc, want 1: $out"
grep -q "^1 passed, 2 failed" <<<"$out" || fail "timeline summary: $out"
grep -q "case 'cli.timeline.wrong_value': timeline\[2\] (readTensor): the data read differs" <<<"$out" ||
  fail "timeline mismatch not located: $out"
grep -q "at \[1\] (index 1): expected 9, got 8" <<<"$out" || fail "timeline mismatch element: $out"
grep -q "timeline\[1\] (writeTensor): expected TypeError, but the step succeeded" <<<"$out" ||
  fail "timeline missing error: $out"
grep -q '"timeline\[5\] readTensor y": {' "$tmp/t.json" || fail "timeline report lacks the read"
out=$("$nnref" trace timeline.json --case cli.timeline.pass) || fail "timeline trace: $out"
grep -q "\[5\] readTensor: 'y' = \[-1, 2.5\]" <<<"$out" || fail "timeline trace lacks the read: $out"

# expectedError {"name", "how"}: a thrown error is not a rejection and vice versa; checkBuffer.
out=$("$nnref" run timeline_how.json); rc=$?
[ $rc -eq 1 ] || fail "timeline_how run exits $rc, want 1: $out"
grep -q "^1 passed, 3 failed" <<<"$out" || fail "timeline_how summary: $out"
grep -q "timeline\[1\] (readTensor): expected TypeError (thrown), but the TypeError was rejected" <<<"$out" ||
  fail "a rejection passed as a throw: $out"
grep -q "timeline\[1\] (writeTensor): expected TypeError (rejected), but the TypeError was thrown" <<<"$out" ||
  fail "a throw passed as a rejection: $out"
grep -q "timeline\[1\] (checkBuffer): buffer 'b' element 1 (byte 4): expected 2, got 0" <<<"$out" ||
  fail "checkBuffer mismatch not located: $out"

out=$("$nnref" ops --json)
grep -q '"logicalNot"' <<<"$out" || fail "ops --json lacks logicalNot"
# Backends and the check mode (backend_chain.json: sum = x + y, prod = sum * x, out = relu(prod);
# by hand sum = [-2.5, -1, 0.5, 2, 3.5, 5], prod = [6.25, 1.5, -0.25, 1, 5.25, 12.5], out = relu).
out=$("$nnref" run backend_chain.json --backend simd --against-reference) ||
  fail "simd run of the chain: $out"
grep -q "^1 passed, 0 failed" <<<"$out" || fail "simd chain summary: $out"
out=$("$nnref" run backend_chain.json --backend simd --against-reference --inject-fault mul:4:9 \
  --report "$tmp/b.json"); rc=$?
[ $rc -eq 1 ] || fail "an injected fault exits $rc, want 1: $out"
grep -q "first divergence: operator 1 mul -> 'prod'" <<<"$out" || fail "divergence not named: $out"
grep -q "at \[1, 1\] (index 4): expected 5.25, got 9" <<<"$out" || fail "divergence element: $out"
grep -q "ok   operator 2 relu -> 'out'" <<<"$out" || fail "relu downstream was blamed: $out"
grep -q '"firstDivergence": 1' "$tmp/b.json" || fail "report lacks firstDivergence"
out=$("$nnref" run backend_chain.json --backend nosuch 2>&1); rc=$?
[ $rc -eq 2 ] || fail "an unknown backend exits $rc, want 2"
grep -q "no such backend (choose one of: reference, simd, vulkan)" <<<"$out" || fail "backend list: $out"
out=$("$nnref" ops --backend simd --json)
grep -q '"backend": "simd"' <<<"$out" || fail "ops --backend simd --json: $out"
out=$("$nnref" ops --backend simd)
grep -q "^gru: float32, float16$" <<<"$out" || fail "ops --backend lists gru: $out"
grep -q ": \([0-9]*\) of \1 operators$" <<<"$out" || fail "ops --backend coverage: $out"

echo "cli checks passed"
