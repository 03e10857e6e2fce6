package provider

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccLocalMirrorInitsBesideAnotherProvider: a configuration that uses
// this provider and another one inits and plans from a local build
// installed by tools/local-mirror.sh (make install-mirror), on the CLI
// under test; after a rebuild, init names the stale version and init
// -upgrade takes the new one, as the script says. With dev_overrides,
// init looks commerce-tf/commerce up in the registry and fails.
//
// This machine has no registry, so the second provider comes from a
// mirror of its own, put before the script's `direct` (and excluded from
// it), where a user's would come from the registry: a copy of this
// provider's binary under another address, which Terraform installs and
// starts as a provider of its own.
func TestAccLocalMirrorInitsBesideAnotherProvider(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("an acceptance test: set TF_ACC=1")
	}
	cli := cliUnderTest(t)
	srv := emulatortest.Start(t, emulator.Options{Seed: 2, Orders: 10, Files: 10, Accounts: 10})
	work := t.TempDir()
	mirror, second, folder := filepath.Join(work, "mirror"), filepath.Join(work, "second"), filepath.Join(work, "config")
	install := func(version string) {
		t.Helper()
		out, err := run("../..", append(os.Environ(), "LOCAL_VERSION="+version), "bash", "tools/local-mirror.sh", mirror)
		if err != nil || !strings.Contains(out, "commerce-tf/commerce "+version) {
			t.Fatalf("tools/local-mirror.sh: %v\n%s", err, out)
		}
	}
	install("99.0.1")
	platform := runtime.GOOS + "_" + runtime.GOARCH
	built := filepath.Join(mirror, "registry.terraform.io", "commerce-tf", "commerce", "99.0.1", platform, "terraform-provider-commerce_v99.0.1")
	for _, host := range []string{"registry.terraform.io", "registry.opentofu.org"} {
		copyFile(t, built, filepath.Join(second, host, "example", "second", "1.0.0", platform, "terraform-provider-second_v1.0.0"))
	}
	rc, err := os.ReadFile(filepath.Join(mirror, "cli.tfrc"))
	if err != nil {
		t.Fatal(err)
	}
	config := string(rc)
	for _, want := range []string{"  direct {\n", "    exclude = ["} {
		if !strings.Contains(config, want) {
			t.Fatalf("cli.tfrc has no %q:\n%s", want, config)
		}
	}
	config = strings.Replace(config, "  direct {\n", "  filesystem_mirror {\n    path    = "+hcl(second)+"\n    include = [\"example/second\"]\n  }\n  direct {\n", 1)
	config = strings.Replace(config, "    exclude = [", "    exclude = [\"example/second\", ", 1)
	writeFile(t, filepath.Join(work, "cli.tfrc"), config)
	writeFile(t, filepath.Join(folder, "main.tf"), `terraform {
  required_providers {
    commerce = { source = "commerce-tf/commerce" }
    second   = { source = "example/second" }
  }
}

provider "commerce" {}
provider "second" {}

data "commerce_store" "this" {}

data "commerce_store" "through_second" {
  provider = second
}

output "one_store" {
  value = data.commerce_store.this.id == data.commerce_store.through_second.id
}
`)
	env := cliEnv(filepath.Join(work, "cli.tfrc"), srv)
	step := func(want string, fails bool, args ...string) {
		t.Helper()
		out, err := run(folder, env, cli, append(args, "-no-color")...)
		if (err != nil) != fails || !strings.Contains(oneLine(out), want) {
			t.Fatalf("%s %s: %v (want failure: %v), want %q in:\n%s", filepath.Base(cli), strings.Join(args, " "), err, fails, want, out)
		}
	}
	step("Installed commerce-tf/commerce v99.0.1", false, "init")
	step("one_store = true", false, "plan")
	install("99.0.2")
	step("99.0.1 is no longer available", true, "init")
	step("Installed commerce-tf/commerce v99.0.2", false, "init", "-upgrade")
	step("one_store = true", false, "plan")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	body, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, body, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
