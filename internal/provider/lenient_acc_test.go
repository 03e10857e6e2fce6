package provider

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// An order whose order_number the service sends as a number (the vendor's
// own example, 1234) is listed with the others and shown as "1234", in the
// listing, by its id and with its JSON as the service sent it.
func TestAccLenientOrderNumber(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 1500, Files: -1, Accounts: -1})
	want := expected(t, srv, "orders", "", "created_at")
	odd := srv.Orders()[700].ID
	at := slices.Index(want, odd)
	srv.SetFaults(numericOrderNumber(odd))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
data "commerce_orders" "all" {}
data "commerce_order" "odd" {
  id           = ` + hcl(odd) + `
  include_json = true
}
output "json_order_number" {
  value = jsondecode(data.commerce_order.odd.json).order_number
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_orders.all", tfjsonpath.New("ids"), idsExact(want)),
				statecheck.ExpectKnownValue("data.commerce_orders.all", tfjsonpath.New("orders").AtSliceIndex(at).AtMapKey("order_number"), knownvalue.StringExact("1234")),
				statecheck.ExpectKnownValue("data.commerce_order.odd", tfjsonpath.New("order_number"), knownvalue.StringExact("1234")),
				statecheck.ExpectKnownOutputValue("json_order_number", knownvalue.Int64Exact(1234)),
			},
		}},
	})
}
