#!/usr/bin/env bash
# Prints the path of a Terraform (or OpenTofu) CLI for the acceptance tests.
#
#   tools/tf-cli.sh terraform   # terraform on PATH, else one built from the Go module proxy
#   tools/tf-cli.sh tofu        # the same for OpenTofu
#   tools/tf-cli.sh tofu-ephemeral  # OpenTofu 1.12.6, built: ephemeral resources
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

# OpenTofu with ephemeral resources (1.11 and later), for the tests of
# commerce_access_token on a machine whose Terraform is older than 1.10 or
# missing. Its module has replace directives, so `go install` cannot build
# it: it is built inside a writable copy of the module instead (about four
# minutes, once).
OPENTOFU_EPHEMERAL_VERSION="${OPENTOFU_EPHEMERAL_VERSION:-1.12.6}"
if [ "$tool" = tofu-ephemeral ]; then
  version="v${OPENTOFU_EPHEMERAL_VERSION}"
  dir="$cache/tofu-$version"
  if [ ! -x "$dir/tofu" ]; then
    echo "$(basename "$0"): building OpenTofu $version from a copy of its module (one time, cached in $dir)" >&2
    src="$(go mod download -json "github.com/opentofu/opentofu@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    [ -n "$src" ] || { echo "$(basename "$0"): cannot download github.com/opentofu/opentofu@$version" >&2; exit 1; }
    work="$(mktemp -d)"
    trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
    cp -R "$src/." "$work/"
    chmod -R u+w "$work"
    mkdir -p "$dir"
    (cd "$work" && GOFLAGS=-buildvcs=false go build -trimpath -o "$dir/tofu" ./cmd/tofu) >&2
  fi
  echo "$dir/tofu"
  exit 0
fi

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
