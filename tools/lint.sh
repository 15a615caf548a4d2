#!/usr/bin/env bash
# clang-format check and clang-tidy (bugprone, narrowing, performance) over the project's sources.
# Needs a configured build/ (compile_commands.json). Not part of CI's time budget.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cc' '*.h')
clang-format --dry-run -Werror $files
run-clang-tidy -p build -quiet '(numerics|ref|ops|runner)/[^/]*\.cc$' 2>&1 | grep -E "warning:|error:" || true
