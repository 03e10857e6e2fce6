package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccWarningsReachTheCLI: the warnings a read gives (a max_results
// that could not end the read early, a store name the key may not read)
// are what the CLI prints, with the plan going on. terraform-plugin-testing
// cannot assert a warning; the in-process tests (cost_warnings_test.go,
// store_data_source_test.go) hold their wording.
func TestAccWarningsReachTheCLI(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("an acceptance test: set TF_ACC=1")
	}
	cli := cliUnderTest(t)
	rc := localBuild(t, t.TempDir())
	srv := emulatortest.Start(t, emulator.Options{Accounts: 300, Orders: 5, Files: 5, StoreNameForbidden: true})
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "main.tf"), `terraform {
  required_providers {
    commerce = { source = "commerce-tf/commerce" }
  }
}

data "commerce_accounts" "first_by_name" {
  sort        = "name"
  max_results = 10
}

data "commerce_store" "this" {}

output "listed" {
  value = length(data.commerce_accounts.first_by_name.ids)
}
`)
	env := cliEnv(rc, srv)
	out, err := run(folder, env, cli, "plan", "-no-color", "-input=false")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	flat := oneLine(out)
	for _, want := range []string{
		"Warning: max_results did not end the read early",
		`max_results = 10 with sort = "name"`,
		"Warning: Store name not known",
		"The store's id is " + srv.StoreID(),
		"listed = 10",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the plan does not print %q:\n%s", want, out)
		}
	}
}
