#!/usr/bin/env bash
# Prints CHANGELOG.md's section for a release tag: the lines under the
# version's heading up to the next `## ` heading, blank lines at either end
# trimmed. The release workflow hands them to goreleaser's --release-notes.
#
#   tools/release-notes.sh v1.2.3                # the section under "## 1.2.3 (2026-09-01)"
#   tools/release-notes.sh v1.2.3 path/to/CHANGELOG.md
#
# It fails, and nothing is released, when the tag is not v<version>, when
# the changelog has no heading for that version (a tag pushed before
# "## Unreleased" was renamed, or with a typo on either side), when it has
# two, or when the section is empty: the heading names the tag that
# releases it, and every release says what changed.
set -euo pipefail

usage="usage: $0 vX.Y.Z [CHANGELOG.md]"
tag="${1:?$usage}"
changelog="${2:-$(dirname "${BASH_SOURCE[0]}")/../CHANGELOG.md}"

case "$tag" in
  v[0-9]*) ;;
  *) echo "release-notes.sh: tag $tag is not v<version> (v1.2.3); $usage" >&2; exit 1 ;;
esac
version="${tag#v}"
[ -r "$changelog" ] || { echo "release-notes.sh: cannot read $changelog" >&2; exit 1; }

# A heading is "## <version>" alone or followed by " (" and the date; the
# comparison is on strings, so 1.2.3 matches neither 1.2.30 nor 1.2.3-rc.1.
notes="$(awk -v v="$version" '
  /^## / {
    if (in_section) { in_section = 0 }
    h = substr($0, 4)
    sub(/[ \t]+$/, "", h)
    if (h == v || index(h, v " (") == 1) { found++; in_section = 1; next }
  }
  in_section { lines[++n] = $0 }
  END {
    if (found != 1) { print found + 0; exit 3 }
    first = 1; while (first <= n && lines[first] ~ /^[ \t]*$/) first++
    last = n;  while (last >= first && lines[last] ~ /^[ \t]*$/) last--
    for (i = first; i <= last; i++) print lines[i]
  }
' "$changelog")" || {
  status=$?
  if [ "$status" -eq 3 ]; then
    case "$notes" in
      0) echo "release-notes.sh: $changelog has no \"## $version (date)\" heading for tag $tag: move the Unreleased entries under it, commit, then tag that commit" >&2 ;;
      *) echo "release-notes.sh: $changelog has $notes \"## $version\" headings; a version is released once" >&2 ;;
    esac
  fi
  exit 1
}

if [ -z "${notes//[[:space:]]/}" ]; then
  echo "release-notes.sh: the \"## $version\" section of $changelog is empty: say what changed in $tag" >&2
  exit 1
fi
printf '%s\n' "$notes"
