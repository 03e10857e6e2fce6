#!/usr/bin/env bash
# make demo: the provider against the local emulator, end to end.
#
# Builds the provider and the emulator, starts the emulator with sample data
# on 127.0.0.1, writes a Terraform CLI configuration of its own with
# dev_overrides (pointing TF_CLI_CONFIG_FILE at it; ~/.terraformrc is never
# touched), runs plan and apply on examples/demo, prints the outputs, and
# stops the emulator. Nothing is left running or written outside a temp dir.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tf="$(tools/tf-cli.sh terraform)"
work="$(mktemp -d)"
emulator_pid=""
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "== installing the provider as the README's \"Use a local build\" says"
# The README's block, run as it stands, with HOME and GOBIN pointing into the
# temp dir so that nothing outside it changes (Go keeps its real caches).
snippet="$(awk '/make demo\) runs this block/{found=1; next} found && /^```sh/{inblock=1; next} inblock && /^```/{exit} inblock' README.md)"
[ -n "$snippet" ] || { echo "README.md has no local-build block for the demo to run"; exit 1; }
GOPATH="$(go env GOPATH)" GOMODCACHE="$(go env GOMODCACHE)" GOCACHE="$(go env GOCACHE)"
export GOPATH GOMODCACHE GOCACHE
mkdir -p "$work/home" "$work/bin"
(
  export HOME="$work/home" GOBIN="$work/bin"
  eval "$snippet"
  [ "$TF_CLI_CONFIG_FILE" = "$work/home/.commerce-dev.tfrc" ] && grep -q "\"$work/bin\"" "$TF_CLI_CONFIG_FILE"
) || { echo "the README's local-build block did not install the provider and write its CLI configuration"; exit 1; }
[ -x "$work/bin/terraform-provider-commerce" ] || { echo "make install left no provider binary in GOBIN"; exit 1; }
go build -o "$work/bin/commerce-emulator" ./cmd/commerce-emulator

echo "== starting the emulator on 127.0.0.1"
"$work/bin/commerce-emulator" -addr 127.0.0.1:0 -ready-file "$work/url" >"$work/emulator.log" 2>&1 &
emulator_pid=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
[ -s "$work/url" ] || { echo "the emulator did not start:"; cat "$work/emulator.log"; exit 1; }
base_url="$(cat "$work/url")"
echo "   $base_url"

export TF_CLI_CONFIG_FILE="$work/home/.commerce-dev.tfrc"
export TF_IN_AUTOMATION=1 TF_INPUT=0
export COMMERCE_BASE_URL="$base_url"
export COMMERCE_CLIENT_ID=emulator-client-id
export COMMERCE_CLIENT_SECRET=emulator-client-secret

cp examples/demo/*.tf "$work/"
cd "$work"
echo "== terraform plan"
"$tf" plan -no-color -compact-warnings -out=demo.tfplan
echo "== terraform apply"
"$tf" apply -no-color -auto-approve demo.tfplan >apply.log 2>&1 || { cat apply.log; exit 1; }
echo "== outputs"
"$tf" output -no-color
