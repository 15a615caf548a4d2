#!/usr/bin/env bash
# Configures and builds one flavour: tools/build.sh [release|asan] (default release).
# release -> build/, asan -> build-asan/ (ASan + UBSan incl. float-cast-overflow).
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
case "$flavour" in
  release) dir=build; args=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNNREF_SANITIZE=ON) ;;
  *) echo "usage: tools/build.sh [release|asan]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" -G Ninja -DNNREF_WERROR=ON "${args[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
