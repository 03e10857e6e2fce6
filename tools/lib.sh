# shellcheck shell=bash
# The preamble every tools/ script shares: strict mode, the work tree as the
# current directory, and pinned tools built once from the Go module proxy
# into a cache outside the work tree, so that a fresh clone reuses them and
# nothing is ever downloaded from anywhere else.
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#   bin="$(pinned_tool golangci-lint v2.15.0 github.com/golangci/golangci-lint/v2/cmd/golangci-lint)"
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cache="${COMMERCE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-commerce}"

# pinned_tool NAME VERSION PACKAGE [DIR-SUFFIX]: prints the path of NAME
# built from PACKAGE@VERSION, building it on first use. DIR-SUFFIX keeps
# builds apart that must differ by more than the version (e.g. the Go
# toolchain they were built with).
pinned_tool() {
  local name="$1" version="$2" package="$3" suffix="${4:-}"
  local dir="$cache/$name-$version$suffix"
  if [ ! -x "$dir/$name" ]; then
    echo "$(basename "$0"): building $name $version (one time, cached in $dir)" >&2
    mkdir -p "$dir"
    GOBIN="$dir" GOFLAGS=-buildvcs=false go install "$package@$version" >&2
  fi
  echo "$dir/$name"
}
