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
#
# A build holds a lock beside its folder (with_build_lock): .ci/run builds
# the tools beside the tests, and a step that needs one still being built
# waits for it rather than building it again into the same place.
pinned_tool() {
  local name="$1" version="$2" package="$3" suffix="${4:-}"
  local dir="$cache/$name-$version$suffix"
  with_build_lock "$dir" build_pinned_tool "$name" "$version" "$package" "$dir"
  echo "$dir/$name"
}

build_pinned_tool() {
  local name="$1" version="$2" package="$3" dir="$4"
  [ -x "$dir/$name" ] && return
  echo "$(basename "$0"): building $name $version (one time, cached in $dir)" >&2
  GOBIN="$dir" GOFLAGS=-buildvcs=false go install "$package@$version" >&2
}

# with_build_lock DIR COMMAND...: runs COMMAND holding DIR.lock, so that one
# build of DIR runs at a time and nobody takes a half-written binary. It
# exits when COMMAND fails, also where a caller's `||` turns errexit off.
with_build_lock() {
  local dir="$1"
  shift
  mkdir -p "$dir"
  if ! (flock 9 && "$@") 9>"$dir.lock"; then
    echo "$(basename "$0"): building into $dir failed" >&2
    exit 1
  fi
}
