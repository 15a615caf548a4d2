#!/usr/bin/env bash
# Configures and builds one flavour: tools/build.sh [release|asan|tsan] (default release).
# release -> build/, asan -> build-asan/ (ASan + UBSan incl. float-cast-overflow),
# tsan -> build-tsan/ (ThreadSanitizer; only the targets the timeline tests need).
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
targets=()
case "$flavour" in
  release) dir=build; args=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNNREF_SANITIZE=ON) ;;
  tsan) dir=build-tsan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNNREF_TSAN=ON)
        targets=(--target nnref ref_test webnn_api_test webnn_example verdict_example webnn_backend_test
                 simd_elementwise_test) ;;
  *) echo "usage: tools/build.sh [release|asan|tsan]" >&2; exit 2 ;;
esac
# ccache, when installed (a developer convenience, not a dependency): worktrees of the same
# repository share hits because paths are rewritten relative to the source tree.
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$dir" -G Ninja -DNNREF_WERROR=ON "${args[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
