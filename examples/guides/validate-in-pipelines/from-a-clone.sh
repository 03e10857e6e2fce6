#!/usr/bin/env bash
# From a clone of the provider, before a release or to try a change: build
# the provider and the emulator, start the emulator, and run a module's
# tests against both, with no terraform init (dev_overrides). Run it in the
# provider's folder:
#
#   MODULE=path/to/module bash from-a-clone.sh
#
# MODULE is the module's folder; EMULATOR_ADDR (default 127.0.0.1:8080)
# where the emulator listens; TERRAFORM the CLI (default terraform; tofu
# works the same).
set -euo pipefail
module="$(cd "${MODULE:?set MODULE to the folder of the module}" && pwd)"
addr="${EMULATOR_ADDR:-127.0.0.1:8080}"
work="$(mktemp -d)"

go build -o "$work/bin/" . ./cmd/commerce-emulator
"$work/bin/commerce-emulator" -addr "$addr" >"$work/emulator.out" 2>&1 &
emulator=$!
trap 'kill "$emulator"; rm -rf "$work"' EXIT
until grep -q '^export COMMERCE_CLIENT_SECRET=' "$work/emulator.out"; do
  kill -0 "$emulator" || { cat "$work/emulator.out"; exit 1; }
  sleep 0.2
done
# The four COMMERCE_* variables the emulator prints.
eval "$(grep '^export COMMERCE_' "$work/emulator.out")"

cat >"$work/dev.tfrc" <<RC
provider_installation {
  dev_overrides {
    "commerce-tf/commerce" = "$work/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/dev.tfrc"

cd "$module"
"${TERRAFORM:-terraform}" test -filter=tests/emulator.tftest.hcl
