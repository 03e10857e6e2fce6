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

func TestAccOrdersAllPastOffsetLimit(t *testing.T) {
	largeStore(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000})
	want := expected(t, srv, "orders", "", "created_at")
	if len(want) != 25000 {
		t.Fatalf("emulator has %d orders", len(want))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerBlock(srv) + `data "commerce_orders" "all" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_orders.all", tfjsonpath.New("total"), knownvalue.Int64Exact(25000)),
				statecheck.ExpectKnownValue("data.commerce_orders.all", tfjsonpath.New("ids"), idsExact(want)),
				statecheck.ExpectKnownValue("data.commerce_orders.all", tfjsonpath.New("orders").AtSliceIndex(0).AtMapKey("order_number"), knownvalue.StringExact(srv.Orders()[0].OrderNumber)),
			},
		}},
	})
}

func TestAccOrdersTieGroupAcrossPages(t *testing.T) {
	// 333 orders share one created_at; pages of 30 split the group eleven
	// times. Every order must come exactly once, the group by id.
	srv := emulatortest.Start(t, emulator.Options{Orders: 1200, OrderTieGroups: []int{333}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv, "page_size = 30") + `
data "commerce_orders" "asc" {}
data "commerce_orders" "desc" { sort = "-created_at" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_orders.asc", tfjsonpath.New("ids"), idsExact(expected(t, srv, "orders", "", "created_at"))),
				statecheck.ExpectKnownValue("data.commerce_orders.desc", tfjsonpath.New("ids"), idsExact(expected(t, srv, "orders", "", "-created_at"))),
			},
		}},
	})
}

func TestAccOrdersFilterWhereSortMax(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 3000})
	const f = "ge(created_at,2024-02-01T00:00:00.000Z):eq(status,complete)"
	where := `like(email,"*@example.org")`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
data "commerce_orders" "recent" {
  filter = "` + f + `"
  where  = [{ attribute = "email", op = "like", value = "*@example.org" }]
  sort   = "-updated_at"
}
data "commerce_orders" "first_ten" {
  max_results  = 10
  include_json = true
}
data "commerce_orders" "none" {
  filter = "eq(status,no-such-status)"
}
data "commerce_orders" "ids_only" {
  max_results     = 10
  include_records = false
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_orders.recent", tfjsonpath.New("ids"), idsExact(sortedHere(t, srv, "orders", f+":"+where, "-updated_at"))),
				statecheck.ExpectKnownValue("data.commerce_orders.first_ten", tfjsonpath.New("ids"), idsExact(expected(t, srv, "orders", "", "created_at")[:10])),
				statecheck.ExpectKnownValue("data.commerce_orders.first_ten", tfjsonpath.New("total"), knownvalue.Int64Exact(3000)),
				statecheck.ExpectKnownValue("data.commerce_orders.first_ten", tfjsonpath.New("orders").AtSliceIndex(0).AtMapKey("json"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.commerce_orders.none", tfjsonpath.New("ids"), knownvalue.ListExact([]knownvalue.Check{})),
				statecheck.ExpectKnownValue("data.commerce_orders.none", tfjsonpath.New("total"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue("data.commerce_orders.none", tfjsonpath.New("orders"), knownvalue.ListExact([]knownvalue.Check{})),
				statecheck.ExpectKnownValue("data.commerce_orders.ids_only", tfjsonpath.New("ids"), idsExact(expected(t, srv, "orders", "", "created_at")[:10])),
				statecheck.ExpectKnownValue("data.commerce_orders.ids_only", tfjsonpath.New("orders"), knownvalue.Null()),
			},
		}},
	})
}
