#!/usr/bin/env bash
# `cmake --install` gives a usable package: nnref --version, the API headers, and
# find_package(nnref) -> nnref::api, used by docs/examples built as a separate project.
#   check.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
  fail "cmake --install: $(tail -5 "$tmp/install.log")"
want=$(sed -n 's/^project(nnref VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
out=$("$prefix/bin/nnref" --version) || fail "nnref --version exits $?"
[ "$out" = "nnref $want" ] || fail "nnref --version says '$out', want 'nnref $want'"
[ -f "$prefix/include/nnref/runner/api/webnn.h" ] || fail "webnn.h not installed"
[ -f "$prefix/lib/cmake/nnref/nnrefConfig.cmake" ] || fail "no package config"
# Only what the API needs: no runner internals, no simd backend, no third-party JSON/CLI headers.
[ -e "$prefix/include/nnref/runner/commands.h" ] && fail "runner internals installed"
[ -e "$prefix/include/nnref/ops/simd" ] && fail "simd headers installed"
# Every installed header compiles on its own from the installed tree alone.
for h in runner/api/webnn.h runner/api/verdict.h ref/graph/graph.h ops/backend.h; do
  echo "#include \"$h\"" | c++ -std=c++20 -fsyntax-only -x c++ -I"$prefix/include/nnref" - ||
    fail "$h does not compile from the installed headers"
done

# docs/examples as a project of its own, in a separate build tree, against the installed package.
cmake -S "$src/docs/examples" -B "$tmp/examples" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$tmp/configure.log" 2>&1 ||
  fail "configure docs/examples: $(tail -20 "$tmp/configure.log")"
grep -q "nnref" "$tmp/examples/CMakeCache.txt" || fail "no nnref in the examples' cache"
grep -q "^nnref_DIR:PATH=$prefix/lib/cmake/nnref$" "$tmp/examples/CMakeCache.txt" ||
  fail "find_package did not use the installed package: $(grep nnref_DIR "$tmp/examples/CMakeCache.txt")"
cmake --build "$tmp/examples" >"$tmp/build.log" 2>&1 || fail "build docs/examples: $(tail -20 "$tmp/build.log")"
# The example must not have seen the source tree's headers.
[ -f "$tmp/examples/compile_commands.json" ] || fail "no compile_commands.json"
grep -q -- "-isystem $prefix/include/nnref" "$tmp/examples/compile_commands.json" ||
  fail "the installed headers are not on the include path: $(cat "$tmp/examples/compile_commands.json")"
grep -Eq -- "(-I|-isystem )$src([/ \"]|$)" "$tmp/examples/compile_commands.json" &&
  fail "the source tree is on the include path"
out=$("$tmp/examples/webnn_example") || fail "webnn_example exits $?: $out"
grep -q "Output value: 1 1 1 1" <<<"$out" || fail "webnn_example: $out"
(cd "$tmp/examples" && ctest --output-on-failure >"$tmp/ctest.log" 2>&1) || fail "ctest: $(cat "$tmp/ctest.log")"
echo "install checks passed"
