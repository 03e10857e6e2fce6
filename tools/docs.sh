#!/usr/bin/env bash
# Generates the provider documentation in docs/ with tfplugindocs, from
# templates/, examples/ and the provider's schema, or checks that docs/ is up
# to date.
#
#   tools/docs.sh generate   # rewrite docs/, then validate it
#   tools/docs.sh check      # regenerate into a temporary copy; fail with a diff if docs/ differs
#
# tfplugindocs builds the provider and asks a Terraform CLI for its schema. It
# gets the CLI from tools/tf-cli.sh (first on PATH), so that it never
# downloads one, and an empty CLI configuration of its own, so that no
# ~/.terraformrc (dev_overrides, mirrors) changes what it sees.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TFPLUGINDOCS_VERSION="${TFPLUGINDOCS_VERSION:-v0.25.0}"
PROVIDER_NAME=commerce

mode="${1:-generate}"
case "$mode" in
  generate|check) ;;
  *) echo "usage: $0 generate|check" >&2; exit 2 ;;
esac

tfplugindocs="$(pinned_tool tfplugindocs "$TFPLUGINDOCS_VERSION" github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Only the pinned Terraform CLI is on PATH ahead of everything else, through
# a directory of its own, so that nothing else moves up with it.
tf="$(tools/tf-cli.sh terraform)"
mkdir -p "$tmp/bin"
ln -s "$tf" "$tmp/bin/terraform"
export PATH="$tmp/bin:$PATH"
: > "$tmp/terraform.rc"
export TF_CLI_CONFIG_FILE="$tmp/terraform.rc"
export CHECKPOINT_DISABLE=1
unset TF_PLUGIN_CACHE_DIR TF_CLI_ARGS TF_CLI_ARGS_init
echo "docs: tfplugindocs ${TFPLUGINDOCS_VERSION} with $("$tf" version | head -n 1) ($tf)" >&2

generate() { # directory
  (cd "$1" && "$tfplugindocs" generate --provider-name "$PROVIDER_NAME")
  (cd "$1" && "$tfplugindocs" validate --provider-name "$PROVIDER_NAME")
}

if [ "$mode" = generate ]; then
  generate "$root"
  exit 0
fi

# check: regenerate in a copy of the work tree, from scratch, and compare.
mkdir -p "$tmp/src"
tar -C "$root" --exclude=./.git --exclude=./dist --exclude=./.terraform -cf - . | tar -C "$tmp/src" -xf -
rm -rf "$tmp/src/docs"
generate "$tmp/src" >"$tmp/generate.log" 2>&1 || { cat "$tmp/generate.log" >&2; exit 1; }
if ! diff -ru docs "$tmp/src/docs"; then
  echo "docs: docs/ is out of date; run tools/docs.sh generate and commit the result" >&2
  exit 1
fi
(cd "$root" && "$tfplugindocs" validate --provider-name "$PROVIDER_NAME")
echo "docs: docs/ is up to date" >&2
