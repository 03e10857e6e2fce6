package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccLazyCounts plans at a store whose counts stop at 1,000 (a lower
// bound, labelled or not), with page[total_method]=exact honoured and
// not: every list is whole and total is its length; cut at max_results,
// total is the service's exact count where it gives one, else null; a
// lookup finds its one record.
func TestAccLazyCounts(t *testing.T) {
	for name, counting := range map[string]emulator.Counting{
		"lower bound":                            {Method: emulator.CountLowerBound, Cap: 1000},
		"lower bound, unlabelled, exact ignored": {Method: emulator.CountLowerBound, Cap: 1000, Unlabelled: true, IgnoreExact: true},
	} {
		t.Run(name, func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Orders: 3000, Accounts: 1200, Customers: 1500, Files: -1, Counting: counting})
			orders := expected(t, srv, "orders", "", "")
			customers := expected(t, srv, "customers", "", "")
			account := srv.Accounts()[700]
			var cutTotal knownvalue.Check = knownvalue.Int64Exact(3000)
			if counting.IgnoreExact {
				cutTotal = knownvalue.Null()
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: providerConfig(t, srv) + `
data "commerce_orders" "all"   { include_records = false }
data "commerce_orders" "first" {
  include_records = false
  max_results     = 10
}
data "commerce_list" "customers" {
  path            = "/v2/customers"
  include_records = false
}
data "commerce_account" "one" { name = ` + hcl(account.Name) + ` }`,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("data.commerce_orders.all", tfjsonpath.New("ids"), idsExact(orders)),
						statecheck.ExpectKnownValue("data.commerce_orders.all", tfjsonpath.New("total"), knownvalue.Int64Exact(3000)),
						statecheck.ExpectKnownValue("data.commerce_orders.first", tfjsonpath.New("ids"), idsExact(orders[:10])),
						statecheck.ExpectKnownValue("data.commerce_orders.first", tfjsonpath.New("total"), cutTotal),
						statecheck.ExpectKnownValue("data.commerce_list.customers", tfjsonpath.New("ids"), idsExact(customers)),
						statecheck.ExpectKnownValue("data.commerce_list.customers", tfjsonpath.New("total"), knownvalue.Int64Exact(1500)),
						statecheck.ExpectKnownValue("data.commerce_account.one", tfjsonpath.New("id"), knownvalue.StringExact(account.ID)),
					},
				}},
			})
		})
	}
}
