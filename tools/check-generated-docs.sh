#!/usr/bin/env bash
# Fails when docs/operator-coverage.md or docs/tolerance-table.md differs from what the registry and corpus generate.
# Regenerate with: build/bin/nnref coverage cases/ > docs/operator-coverage.md
set -euo pipefail
nnref=$1
cd "$(dirname "$0")/.."
if ! diff -u docs/operator-coverage.md <("$nnref" coverage cases/); then
  echo "docs/operator-coverage.md is stale: run build/bin/nnref coverage cases/ > docs/operator-coverage.md" >&2
  exit 1
fi
if ! diff -u docs/tolerance-table.md <("$nnref" tolerance --markdown); then
  echo "docs/tolerance-table.md is stale: run build/bin/nnref tolerance --markdown > docs/tolerance-table.md" >&2
  exit 1
fi
