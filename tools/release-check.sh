#!/usr/bin/env bash
# Checks the release configuration (.goreleaser.yml) with the pinned goreleaser.
#
#   tools/release-check.sh            # goreleaser check
#   tools/release-check.sh snapshot   # also build every platform's zip into dist/, unsigned
#
# The pinned goreleaser is built once with `go install` from the Go module
# proxy (v2.15.1 is known to install that way) and cached outside the work
# tree.
set -euo pipefail

GORELEASER_VERSION="${GORELEASER_VERSION:-v2.15.1}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cache="${COMMERCE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-commerce}"

mode="${1:-check}"
case "$mode" in
  check|snapshot) ;;
  *) echo "usage: $0 [check|snapshot]" >&2; exit 2 ;;
esac

bin="$cache/goreleaser-${GORELEASER_VERSION}"
if [ ! -x "$bin/goreleaser" ]; then
  echo "release-check: building goreleaser ${GORELEASER_VERSION} (one time, cached in $bin)" >&2
  mkdir -p "$bin"
  GOBIN="$bin" GOFLAGS=-buildvcs=false go install "github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION}"
fi

"$bin/goreleaser" check
if [ "$mode" = snapshot ]; then
  # No GPG key is needed for a snapshot; dist/ is ignored by git.
  "$bin/goreleaser" release --snapshot --clean --skip=sign
fi
