#!/usr/bin/env bash
# Runs golangci-lint (configured by .golangci.yml) over the module.
#
#   tools/lint.sh              # lint ./...
#   tools/lint.sh ./internal/client/...
#   tools/lint.sh install      # only build the pinned golangci-lint
#
# The pinned golangci-lint is built once from the Go module proxy with the Go
# toolchain this module selects: golangci-lint refuses to lint code written
# for a newer Go than the one it was built with.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GOLANGCI_LINT_VERSION="${GOLANGCI_LINT_VERSION:-v2.15.0}"

toolchain="$(go env GOVERSION)"
lint="$(GOTOOLCHAIN="$toolchain" pinned_tool golangci-lint "$GOLANGCI_LINT_VERSION" \
  github.com/golangci/golangci-lint/v2/cmd/golangci-lint "-$toolchain")"

if [ "${1:-}" = install ]; then
  exit 0
fi
"$lint" config verify
if [ "$#" -eq 0 ]; then
  set -- ./...
fi
exec "$lint" run "$@"
