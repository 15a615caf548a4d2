#!/bin/bash
# The reference is bit-identical for every thread count (issue 12): every case file of cases/webnn
# is generated with --threads 1 and with --threads 2, and the two outputs must be byte-identical
# (generate writes every output element, so any differing bit shows). Also runs one file with
# --threads 3, more threads than cores.
# Usage: check.sh NNREF CASES_DIR
set -u
nnref=$1
cases=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
count=0
here=$(dirname "$0")
for f in "$here"/large.json "$cases"/webnn/*.json "$cases"/timeline/*.json; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .json)
  "$nnref" generate --threads 1 "$f" -o "$tmp/$name.1.json" >/dev/null 2>"$tmp/err1"
  rc1=$?
  "$nnref" generate --threads 2 "$f" -o "$tmp/$name.2.json" >/dev/null 2>"$tmp/err2"
  rc2=$?
  if [ $rc1 -ne $rc2 ] || ! cmp -s "$tmp/$name.1.json" "$tmp/$name.2.json"; then
    echo "FAIL: $f differs between --threads 1 and --threads 2 (exit $rc1 vs $rc2)"
    diff "$tmp/$name.1.json" "$tmp/$name.2.json" | head -20
    status=1
  fi
  count=$((count + 1))
done
# run --threads N agrees too (report verdicts and statistics).
for n in 1 3; do
  "$nnref" run --exact --threads $n "$cases/webnn" --report "$tmp/run.$n.json" >/dev/null 2>&1
done
if ! cmp -s "$tmp/run.1.json" "$tmp/run.3.json"; then
  echo "FAIL: run --report differs between --threads 1 and --threads 3"
  diff "$tmp/run.1.json" "$tmp/run.3.json" | head -20
  status=1
fi
if [ $count -eq 0 ]; then
  echo "FAIL: no case files under $cases"
  exit 1
fi
[ $status -eq 0 ] && echo "ok: $count case files bit-identical for 1 and 2 threads"
exit $status
