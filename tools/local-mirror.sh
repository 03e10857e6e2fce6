#!/usr/bin/env bash
# make install-mirror: the provider built from this source, installed so that
# `terraform init` works in a configuration that uses other providers too.
#
# dev_overrides (the README's "Use a local build") serves plan and apply, but
# `terraform init` still looks commerce-tf/commerce up in the registry, where
# it is not published: a configuration that needs init for another provider
# cannot be initialised. This builds the provider into a filesystem mirror
# and writes a CLI configuration that installs commerce-tf/commerce from the
# mirror and every other provider from its registry, under both the
# Terraform and the OpenTofu registry's name.
#
#   tools/local-mirror.sh [DIR]
#
# DIR defaults to ~/.cache/terraform-provider-commerce/mirror; the CLI
# configuration is DIR/cli.tfrc (~/.terraformrc is never touched).
# The mirror offers one version, LOCAL_VERSION, by default 99.0.<seconds
# since 1970>: far above any release, so it is never taken for one, and new
# with every build, so that a rebuilt provider is never mistaken for the
# one .terraform.lock.hcl recorded (its checksum would no longer match, and
# only editing the lock file would get past that): after a rebuild,
# `terraform init -upgrade` takes the new build. Not a pre-release, which
# init picks only when a configuration names it exactly. A configuration
# that pins a version needs a LOCAL_VERSION its constraint accepts.
caller="$PWD" # lib.sh moves to the work tree; DIR is the caller's
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dir="${1:-$cache/mirror}"
case "$dir" in /*) ;; *) dir="$caller/$dir" ;; esac
version="${LOCAL_VERSION:-99.0.$(date +%s)}"
platform="$(go env GOOS)_$(go env GOARCH)"
hosts=(registry.terraform.io registry.opentofu.org)

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
go build -trimpath -o "$build/terraform-provider-commerce_v$version" .
patterns=""
for host in "${hosts[@]}"; do
  # Earlier builds go: init must not keep using one the lock file names.
  rm -rf "$dir/$host/commerce-tf/commerce"
  target="$dir/$host/commerce-tf/commerce/$version/$platform"
  mkdir -p "$target"
  cp "$build/terraform-provider-commerce_v$version" "$target/"
  patterns="$patterns${patterns:+, }\"$host/commerce-tf/commerce\""
done

cat > "$dir/cli.tfrc" <<TFRC
# Written by tools/local-mirror.sh: commerce-tf/commerce from the local
# build in this folder, every other provider from its registry.
provider_installation {
  filesystem_mirror {
    path    = "$dir"
    include = [$patterns]
  }
  direct {
    exclude = [$patterns]
  }
}
TFRC

cat <<MSG
commerce-tf/commerce $version ($platform) is in the mirror $dir.
Point Terraform or OpenTofu at it, then run init as usual:

  export TF_CLI_CONFIG_FILE="$dir/cli.tfrc"

After the next rebuild, \`terraform init -upgrade\` takes the new build
(a plain init then says the locked version is not available).
MSG
