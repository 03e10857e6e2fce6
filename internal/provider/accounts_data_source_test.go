package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// TestAccAccountsHostileNames looks every hostile account name up through
// where, so that quoting is proven end to end: HCL, provider, filter, service.
func TestAccAccountsHostileNames(t *testing.T) {
	srv := startEmulator(t, emulator.Options{Accounts: 60})
	accounts := srv.Accounts()[:20]
	var cfg strings.Builder
	var checks []statecheck.StateCheck
	for i, a := range accounts {
		name := fmt.Sprintf("data.commerce_accounts.n%d", i)
		fmt.Fprintf(&cfg, "data \"commerce_accounts\" \"n%d\" {\n  where = [{ attribute = \"name\", op = \"eq\", value = %s }]\n}\n", i, hcl(a.Name))
		checks = append(checks, statecheck.ExpectKnownValue(name, tfjsonpath.New("ids"), idsExact([]string{a.ID})))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config:            providerConfig(t, srv) + cfg.String(),
			ConfigStateChecks: checks,
		}},
	})
}

func TestAccAccountsSortedByNamePastOffsetLimit(t *testing.T) {
	srv := startEmulator(t, emulator.Options{Accounts: 11000})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
data "commerce_accounts" "by_name" {
  sort  = "-name"
  where = [{ attribute = "registration_id", op = "in", values = ["RC01048274", "RC01096545", "RC01144816"] }]
}
data "commerce_accounts" "all" { sort = "name" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_accounts.by_name", tfjsonpath.New("ids"),
					idsExact(expected(t, srv, "accounts", "in(registration_id,RC01048274,RC01096545,RC01144816)", "-name"))),
				statecheck.ExpectKnownValue("data.commerce_accounts.all", tfjsonpath.New("ids"), idsExact(expected(t, srv, "accounts", "", "name"))),
			},
		}},
	})
}
