#!/usr/bin/env bash
# Checks the release configuration (.goreleaser.yml) with the pinned goreleaser.
#
#   tools/release-check.sh            # goreleaser check
#   tools/release-check.sh snapshot   # also build every platform's zip into dist/, unsigned
#   tools/release-check.sh install    # only build the pinned goreleaser
#
# The pinned goreleaser is built once with `go install` from the Go module
# proxy (v2.15.1 is known to install that way) and cached outside the work
# tree.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GORELEASER_VERSION="${GORELEASER_VERSION:-v2.15.1}"

mode="${1:-check}"
case "$mode" in
  check|snapshot|install) ;;
  *) echo "usage: $0 [check|snapshot|install]" >&2; exit 2 ;;
esac

goreleaser="$(pinned_tool goreleaser "$GORELEASER_VERSION" github.com/goreleaser/goreleaser/v2)"
if [ "$mode" = install ]; then
  exit 0
fi
"$goreleaser" check
if [ "$mode" = snapshot ]; then
  # No GPG key is needed for a snapshot; dist/ is ignored by git.
  "$goreleaser" release --snapshot --clean --skip=sign
fi
