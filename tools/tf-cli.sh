#!/usr/bin/env bash
# Prints the path of a Terraform (or OpenTofu) CLI for the acceptance tests,
# the docs and the demo.
#
#   tools/tf-cli.sh newest          # make test's CLI: terraform on PATH, else OpenTofu 1.12.6, built
#   tools/tf-cli.sh terraform       # terraform on PATH, else Terraform 1.5.7, built
#   tools/tf-cli.sh tofu            # tofu on PATH, else OpenTofu 1.6.3, built
#   tools/tf-cli.sh tofu-ephemeral  # always OpenTofu 1.12.6, built: every kind of schema the provider serves
#
# With COMMERCE_BUILD_CLI=1 (CI exports it) no CLI is taken from PATH: every
# name gives its pinned build, so that a commit passes or fails the same
# way on every machine, whatever it has installed.
#
# terraform-plugin-testing would otherwise download a release from the
# internet, which CI machines cannot reach. Builds are cached outside the
# work tree (COMMERCE_TOOLS_CACHE, default ~/.cache/terraform-provider-commerce)
# so that a fresh clone does not rebuild them.
#
# Why these versions: Terraform 1.5.7 is the newest release that builds from
# the Go module proxy (later modules replace nested modules the proxy's zip
# does not hold), so no newer Terraform can be pinned here; OpenTofu 1.12.6
# builds inside a writable copy of its module (about four minutes, once) and
# knows ephemeral resources (OpenTofu 1.11 and later, Terraform 1.10 and
# later), which 1.5.7 and 1.6.3 do not.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TERRAFORM_VERSION="${TERRAFORM_VERSION:-1.5.7}"
OPENTOFU_VERSION="${OPENTOFU_VERSION:-1.6.3}"
OPENTOFU_EPHEMERAL_VERSION="${OPENTOFU_EPHEMERAL_VERSION:-1.12.6}"

tool="${1:-terraform}"

# on_path NAME: prints NAME's path on PATH, unless COMMERCE_BUILD_CLI=1 asks
# for pinned builds only.
on_path() {
  [ "${COMMERCE_BUILD_CLI:-0}" != 1 ] && command -v "$1" 2>/dev/null
}

# built_in_module_copy VERSION: OpenTofu VERSION built inside a writable copy
# of its module, whose replace directives `go install` cannot follow.
built_in_module_copy() {
  local dir="$cache/tofu-v$1"
  with_build_lock "$dir" build_in_module_copy "v$1" "$dir"
  echo "$dir/tofu"
}

build_in_module_copy() {
  local version="$1" dir="$2" src work
  [ -x "$dir/tofu" ] && return
  echo "$(basename "$0"): building OpenTofu $version from a copy of its module (one time, about four minutes, cached in $dir)" >&2
  src="$(go mod download -json "github.com/opentofu/opentofu@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -n "$src" ] || { echo "$(basename "$0"): cannot download github.com/opentofu/opentofu@$version" >&2; return 1; }
  work="$(mktemp -d)"
  # The trap runs when the lock's subshell exits, after this function's
  # locals are gone: it takes the folder's name now.
  # shellcheck disable=SC2064
  trap "chmod -R u+w '$work' 2>/dev/null; rm -rf '$work'" EXIT
  cp -R "$src/." "$work/" && chmod -R u+w "$work" || return 1
  # Into a temporary name first: an interrupted build leaves no binary
  # that a later run would take for a finished one.
  (cd "$work" && GOFLAGS=-buildvcs=false go build -trimpath -o "$dir/tofu.partial" ./cmd/tofu) >&2 || return 1
  mv "$dir/tofu.partial" "$dir/tofu"
}

case "$tool" in
  newest)
    on_path terraform || built_in_module_copy "$OPENTOFU_EPHEMERAL_VERSION" ;;
  terraform)
    on_path terraform || pinned_tool terraform "v$TERRAFORM_VERSION" github.com/hashicorp/terraform ;;
  tofu)
    on_path tofu || pinned_tool tofu "v$OPENTOFU_VERSION" github.com/opentofu/opentofu/cmd/tofu ;;
  tofu-ephemeral)
    built_in_module_copy "$OPENTOFU_EPHEMERAL_VERSION" ;;
  *) echo "usage: $0 newest|terraform|tofu|tofu-ephemeral" >&2; exit 2 ;;
esac
