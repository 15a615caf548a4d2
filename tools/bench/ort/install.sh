#!/usr/bin/env bash
# Installs onnxruntime-node and protobufjs (pinned in tools/bench/ort/package.json) from the npm
# registry into DIR (nothing in the source tree), unless they are there already.
# usage: tools/bench/ort/install.sh DIR     (exit 3 when node or npm is missing)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ort_dir=$1
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "node/npm not found" >&2
  exit 3
fi
mkdir -p "$ort_dir"
modules="$ort_dir/node_modules"
if ! cmp -s "$here/package.json" "$ort_dir/package.json" ||
   [[ ! -d "$modules/onnxruntime-node" || ! -d "$modules/protobufjs" ]]; then
  cp "$here/package.json" "$ort_dir/package.json"
  echo "installing onnxruntime-node and protobufjs into $ort_dir" >&2
  # The CPU binaries ship inside the package; skip its post-install download of GPU providers.
  (cd "$ort_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund \
     --loglevel=error >&2)
fi
