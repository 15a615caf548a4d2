#!/usr/bin/env bash
# The case corpus must be exactly what the independent generators write, and the generators'
# self-tests must pass. Skips (exit 77) when Node.js is not installed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null; then
  echo "node not found: generator checks skipped"
  exit 77
fi
node tools/casegen/gen.mjs --check
node tools/casegen/selftest.mjs
node tools/casegen/models_selftest.mjs
node tools/casegen/models.mjs --check  # cases/models (issue 15, docs/models.md)
node tools/casegen/nnef/gen.mjs --check
node tools/casegen/nnef/selftest.mjs
