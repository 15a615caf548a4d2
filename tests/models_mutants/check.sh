#!/usr/bin/env bash
# Semantic mutants of cases/models fail their case (check.mjs). Skips (exit 77) without Node.js.
set -euo pipefail
if ! command -v node >/dev/null; then
  echo "node not found: models mutant test skipped"
  exit 77
fi
exec node "$(dirname "$0")/check.mjs" "$@"
