package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// The state the server writes directly, through a real Terraform CLI: a
// read deferred to apply by a value unknown at plan, with include_json,
// max_results and a timeouts block; an ids-only listing; and a plan after
// apply that finds nothing to change.
func TestAccDirectStateThroughTerraform(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 400, Files: 150, Accounts: 10})
	complete := expected(t, srv, "orders", "eq(status,complete)", "-created_at")[:5]
	files := sortedHere(t, srv, "files", "", "created_at")
	config := providerConfig(t, srv) + `
resource "terraform_data" "status" {
  input = "complete"
}

data "commerce_orders" "deferred" {
  filter       = "eq(status,${terraform_data.status.output})"
  sort         = "-created_at"
  max_results  = 5
  include_json = true
  timeouts {
    read = "5m"
  }
}

data "commerce_files" "ids_only" {
  include_records = false
}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("data.commerce_orders.deferred", tfjsonpath.New("ids")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_orders.deferred", tfjsonpath.New("ids"), idsExact(complete)),
				statecheck.ExpectKnownValue("data.commerce_orders.deferred", tfjsonpath.New("orders").AtSliceIndex(0).AtMapKey("id"), knownvalue.StringExact(complete[0])),
				statecheck.ExpectKnownValue("data.commerce_orders.deferred", tfjsonpath.New("orders").AtSliceIndex(4).AtMapKey("json"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.commerce_orders.deferred", tfjsonpath.New("orders").AtSliceIndex(4).AtMapKey("status"), knownvalue.StringExact("complete")),
				statecheck.ExpectKnownValue("data.commerce_orders.deferred", tfjsonpath.New("timeouts").AtMapKey("read"), knownvalue.StringExact("5m")),
				statecheck.ExpectKnownValue("data.commerce_orders.deferred", tfjsonpath.New("consistency_buffer"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.commerce_files.ids_only", tfjsonpath.New("ids"), idsExact(files)),
				statecheck.ExpectKnownValue("data.commerce_files.ids_only", tfjsonpath.New("files"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.commerce_files.ids_only", tfjsonpath.New("total"), knownvalue.Int64Exact(150)),
			},
		}, {
			Config:   config,
			PlanOnly: true,
		}},
	})
}
