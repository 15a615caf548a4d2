#!/usr/bin/env bash
# Builds the case fuzzer with clang (libFuzzer + ASan + UBSan) into build-fuzz/ and runs it for
# SECONDS (default 300) on a seed corpus of small case files. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-300}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNNREF_SANITIZE=ON -DNNREF_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target case_fuzzer
mkdir -p build-fuzz/corpus
cp tests/bad_input/*.json tests/cli/cases.json build-fuzz/corpus/ 2>/dev/null || true
rm -f build-fuzz/corpus/deep.json
for f in cases/webnn/*.json; do  # the first case of each file as a small seed
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump({"cases": d["cases"][:2]}, open(sys.argv[2], "w"))' \
    "$f" "build-fuzz/corpus/seed_$(basename "$f")"
done
build-fuzz/bin/case_fuzzer build-fuzz/corpus -max_total_time="$seconds" -max_len=4096 \
  -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 2> >(grep -v "^warning: fuzz.json" >&2)
