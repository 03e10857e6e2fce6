#!/usr/bin/env bash
# Runs golangci-lint (configured by .golangci.yml) over the module.
#
#   tools/lint.sh              # lint ./...
#   tools/lint.sh ./internal/client/...
#
# The pinned golangci-lint is built once from the Go module proxy with the Go
# toolchain this module selects: golangci-lint refuses to lint code written
# for a newer Go than the one it was built with.
set -euo pipefail

GOLANGCI_LINT_VERSION="${GOLANGCI_LINT_VERSION:-v2.15.0}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cache="${COMMERCE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-commerce}"

toolchain="$(go env GOVERSION)"
bin="$cache/golangci-lint-${GOLANGCI_LINT_VERSION}-${toolchain}"
if [ ! -x "$bin/golangci-lint" ]; then
  echo "lint: building golangci-lint ${GOLANGCI_LINT_VERSION} with ${toolchain} (one time, cached in $bin)" >&2
  mkdir -p "$bin"
  GOBIN="$bin" GOTOOLCHAIN="$toolchain" GOFLAGS=-buildvcs=false \
    go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@${GOLANGCI_LINT_VERSION}"
fi

"$bin/golangci-lint" config verify
if [ "$#" -eq 0 ]; then
  set -- ./...
fi
exec "$bin/golangci-lint" run "$@"
