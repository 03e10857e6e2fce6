#!/usr/bin/env bash
# Checks the GitHub workflows (.github/workflows) with actionlint: YAML and
# workflow syntax, expressions and the contexts they read, job and step
# references, the inputs of the local action and of well-known actions.
#
#   tools/actionlint.sh                               # every workflow, and the guides' example
#   tools/actionlint.sh .github/workflows/test.yml
#   tools/actionlint.sh install                       # only build the pinned actionlint
#
# The pinned actionlint is built once from the Go module proxy and cached
# outside the work tree. Its shellcheck and pyflakes passes over `run:`
# scripts are off: they use whichever shellcheck the machine has, or none,
# and a commit must pass or fail the same way on every machine.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ACTIONLINT_VERSION="${ACTIONLINT_VERSION:-v1.7.12}"

actionlint="$(pinned_tool actionlint "$ACTIONLINT_VERSION" github.com/rhysd/actionlint/cmd/actionlint)"

if [ "${1:-}" = install ]; then
  exit 0
fi
# With no arguments: the repository's workflows, and the example workflow
# the pipeline guide shows (templates/guides), which users copy.
if [ "$#" -eq 0 ]; then
  set -- .github/workflows/*.yml examples/guides/validate-in-pipelines/github-actions.yml
fi
exec "$actionlint" -shellcheck= -pyflakes= "$@"
