#!/usr/bin/env bash
# README command 1: install, build, run the built-in case corpus and show the report summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh release
build/bin/nnref run cases/ --report build/corpus-report.json
echo "report: build/corpus-report.json"
