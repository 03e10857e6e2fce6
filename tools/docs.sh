#!/usr/bin/env bash
# Generates the provider documentation in docs/ with tfplugindocs, from
# templates/, examples/ and the provider's schema, or checks that docs/ is up
# to date.
#
#   tools/docs.sh generate   # rewrite docs/, then validate it
#   tools/docs.sh check      # regenerate into a temporary copy; fail with a diff if docs/ differs
#   tools/docs.sh install    # only build the pinned tfplugindocs and CLI
#
# The schema comes from the pinned OpenTofu 1.12.6 build (tools/tf-cli.sh
# tofu-ephemeral), never from whatever CLI is on PATH: it is the one pinned
# CLI that knows every kind of schema the provider serves (ephemeral
# resources need OpenTofu 1.11 or Terraform 1.10), so the docs come out the
# same on every machine. This script asks it for the schema itself, with an
# empty CLI configuration (no ~/.terraformrc, dev_overrides or mirror changes
# what it sees), checks that the schema holds every type templates/
# documents, and hands the file to tfplugindocs. COMMERCE_DOCS_CLI names
# another CLI to ask; the same checks hold it to the same standard.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TFPLUGINDOCS_VERSION="${TFPLUGINDOCS_VERSION:-v0.25.0}"
PROVIDER_NAME=commerce

mode="${1:-generate}"
case "$mode" in
  generate|check|install) ;;
  *) echo "usage: $0 generate|check|install" >&2; exit 2 ;;
esac

tfplugindocs="$(pinned_tool tfplugindocs "$TFPLUGINDOCS_VERSION" github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cli="${COMMERCE_DOCS_CLI:-$(tools/tf-cli.sh tofu-ephemeral)}"
if [ "$mode" = install ]; then
  exit 0
fi
: >"$tmp/cli.rc"
export TF_CLI_CONFIG_FILE="$tmp/cli.rc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_PLUGIN_CACHE_DIR TF_CLI_ARGS TF_CLI_ARGS_init TF_CLI_ARGS_providers
echo "docs: tfplugindocs ${TFPLUGINDOCS_VERSION} with $("$cli" version | head -n 1) ($cli)" >&2

# provider_schema FILE: the provider's schema as `providers schema -json`
# prints it, under the address tfplugindocs looks it up by.
provider_schema() {
  local ws="$tmp/schema-ws" arch
  arch="$(go env GOOS)_$(go env GOARCH)"
  mkdir -p "$ws/plugins/registry.terraform.io/hashicorp/$PROVIDER_NAME/0.0.1/$arch"
  go build -o "$ws/plugins/registry.terraform.io/hashicorp/$PROVIDER_NAME/0.0.1/$arch/terraform-provider-$PROVIDER_NAME" .
  cat >"$ws/main.tf" <<HCL
terraform {
  required_providers {
    $PROVIDER_NAME = { source = "registry.terraform.io/hashicorp/$PROVIDER_NAME" }
  }
}
HCL
  (
    cd "$ws"
    "$cli" init -input=false -no-color -plugin-dir=./plugins >"$tmp/init.log" 2>&1 || { cat "$tmp/init.log" >&2; exit 1; }
    "$cli" providers schema -json >"$1"
  )
}

# require_every_kind FILE: every type templates/ documents is in the
# schema. A CLI that does not know a kind leaves it out, and tfplugindocs
# would then render its page as "<no value>".
require_every_kind() {
  local dir name missing=0
  for dir in data-sources resources ephemeral-resources; do
    for tmpl in templates/"$dir"/*.md.tmpl; do
      [ -e "$tmpl" ] || continue
      name="${PROVIDER_NAME}_$(basename "$tmpl" .md.tmpl)"
      if ! grep -q "\"$name\"" "$1"; then
        echo "docs: $cli left $name (templates/$dir) out of the provider's schema: it does not know that kind of schema; use the pinned CLI (unset COMMERCE_DOCS_CLI)" >&2
        missing=1
      fi
    done
  done
  return "$missing"
}

schema="$tmp/schema.json"
provider_schema "$schema"
require_every_kind "$schema"

# no_gaps DIR: fails when a page holds "<no value>", what tfplugindocs
# renders for a schema it was not given.
no_gaps() {
  if grep -rl '<no value>' "$1" >&2; then
    echo "docs: the pages above hold \"<no value>\": their schema was missing when they were rendered" >&2
    return 1
  fi
}

generate() { # directory
  (cd "$1" && "$tfplugindocs" generate --provider-name "$PROVIDER_NAME" --providers-schema "$schema")
  no_gaps "$1/docs"
  (cd "$1" && "$tfplugindocs" validate --provider-name "$PROVIDER_NAME" --providers-schema "$schema")
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
(cd "$root" && "$tfplugindocs" validate --provider-name "$PROVIDER_NAME" --providers-schema "$schema")
echo "docs: docs/ is up to date" >&2
