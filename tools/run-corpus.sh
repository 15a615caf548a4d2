#!/usr/bin/env bash
# README command 1: install, build, run the built-in case corpus (WebNN graph and timeline cases,
# then the NNEF case folders) and show the report summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh release
status=0
build/bin/nnref run cases/ --report build/corpus-report.json || status=$?
echo "report: build/corpus-report.json"
build/bin/nnref nnef --case cases/nnef || status=$?
exit "$status"
