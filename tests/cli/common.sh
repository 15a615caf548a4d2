# Sourced by the tests/cli scripts (`source "$(dirname "$0")/common.sh"`, with the script's own
# arguments): strict mode, $nnref (the first argument), the working directory tests/cli, $tmp (a
# temporary directory removed on exit) and fail MESSAGE.
set -uo pipefail
nnref=$1
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
