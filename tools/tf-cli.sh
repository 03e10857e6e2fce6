#!/usr/bin/env bash
# Prints the path of a Terraform (or OpenTofu) CLI for the acceptance tests.
#
#   tools/tf-cli.sh terraform   # terraform on PATH, else one built from the Go module proxy
#   tools/tf-cli.sh tofu        # the same for OpenTofu
#
# terraform-plugin-testing would otherwise download a release from the
# internet, which CI machines cannot reach. Builds are cached outside the
# work tree (COMMERCE_TOOLS_CACHE, default ~/.cache/terraform-provider-commerce)
# so that a fresh clone does not rebuild them.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Pinned versions. Terraform 1.5.7 is the newest release whose module has no
# replace directives, so `go install` can build it straight from the proxy.
TERRAFORM_VERSION="${TERRAFORM_VERSION:-1.5.7}"
OPENTOFU_VERSION="${OPENTOFU_VERSION:-1.6.3}"

tool="${1:-terraform}"

case "$tool" in
  terraform) version="v${TERRAFORM_VERSION}"; package="github.com/hashicorp/terraform" ;;
  tofu)      version="v${OPENTOFU_VERSION}"; package="github.com/opentofu/opentofu/cmd/tofu" ;;
  *) echo "usage: $0 terraform|tofu" >&2; exit 2 ;;
esac

# A CLI on PATH wins, unless COMMERCE_BUILD_CLI=1 asks for the pinned build.
if [ "${COMMERCE_BUILD_CLI:-0}" != 1 ] && found="$(command -v "$tool" 2>/dev/null)"; then
  echo "$found"
  exit 0
fi

pinned_tool "$tool" "$version" "$package"
