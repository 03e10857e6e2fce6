#!/usr/bin/env bash
# Reads `go test -v` output on stdin, passes it through, and fails when the
# tests ran but none matching PATTERN passed: a CLI that made them all skip
# must not turn the step green.
#
#   go test -v -run PATTERN ... | tools/require-ran.sh PATTERN
set -uo pipefail
pattern="${1:?usage: require-ran.sh PATTERN}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
tee "$out"
status=${PIPESTATUS[0]}
if grep -q '^FAIL' "$out"; then
  exit 1
fi
if ! grep -E -- "^--- PASS: ${pattern#^}" "$out" >/dev/null; then
  echo "require-ran.sh: no test matching $pattern passed (all skipped?)" >&2
  exit 1
fi
exit "$status"
