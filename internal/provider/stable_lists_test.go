package provider

// Lists a plan can rely on: a store that gives records sharing a sort value
// in another order on every request (emulator.Options.ShuffleTies) must not
// change what a data source reads, or every plan that feeds its ids into a
// resource would show an update.

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// shuffledStore has tie groups in every listing strategy: orders and
// accounts sorted by the service (keyset windows; one orders group larger
// than a window, listed in with_tax ranges), files sorted by the provider.
func shuffledStore(t *testing.T) *emulator.Server {
	t.Helper()
	return emulatortest.Start(t, emulator.Options{
		Orders: 12500, OrderTieGroups: []int{300, 10400},
		Accounts: 900, AccountTieGroups: []int{120, 45},
		Files: 500, FileTieGroups: []int{80},
		ShuffleTies: true,
	})
}

// TestReadsGiveTheSameState: two reads of an unchanged store give the same
// state, byte for byte, in every order a data source can ask for.
func TestReadsGiveTheSameState(t *testing.T) {
	if testing.Short() {
		t.Skip("long: lists 12,500 orders nine times; runs in make test, not in make unit (-short)")
	}
	srv := shuffledStore(t)
	p := serveInProcess(t, srv)
	for _, tc := range []struct {
		dataSource string
		set        map[string]tftypes.Value
	}{
		{"commerce_orders", nil},
		{"commerce_orders", map[string]tftypes.Value{"sort": tftypes.NewValue(tftypes.String, "-created_at")}},
		{"commerce_orders", map[string]tftypes.Value{"max_results": tftypes.NewValue(tftypes.Number, 10350)}},
		{"commerce_accounts", nil},
		{"commerce_accounts", map[string]tftypes.Value{"sort": tftypes.NewValue(tftypes.String, "-updated_at")}},
		{"commerce_files", nil},
		{"commerce_list", map[string]tftypes.Value{"path": tftypes.NewValue(tftypes.String, "/v2/accounts")}},
	} {
		first := p.readState(t, tc.dataSource, tc.set)
		for range 2 {
			if again := p.readState(t, tc.dataSource, tc.set); !bytes.Equal(again, first) {
				t.Fatalf("%s %v: a second read of the same store gave another state", tc.dataSource, tc.set)
			}
		}
	}
}

// TestAccPlansStayEmptyWithShuffledTies applies a configuration whose
// resources consume the ids and the records' ids of orders, accounts and
// files, then plans it three times: each plan must be empty. Pages of 30
// split every tie group several times; max_results cuts one in the middle.
// (TestReadsGiveTheSameState covers a group larger than a window.)
func TestAccPlansStayEmptyWithShuffledTies(t *testing.T) {
	largeStore(t)
	srv := emulatortest.Start(t, emulator.Options{
		Orders: 1500, OrderTieGroups: []int{333, 95},
		Accounts: 400, AccountTieGroups: []int{70},
		Files: 300, FileTieGroups: []int{45},
		ShuffleTies: true,
	})
	orders := expected(t, srv, "orders", "", "")
	cut := insideLargestTieGroup(t, srv, orders)
	config := providerBlock(srv, "page_size = 30") + fmt.Sprintf(`
data "commerce_orders" "all" {}
data "commerce_accounts" "all" {}
data "commerce_files" "all" {}
data "commerce_orders" "first" { max_results = %d }

resource "terraform_data" "order_ids" { input = data.commerce_orders.all.ids }
resource "terraform_data" "order_records" { input = [for o in data.commerce_orders.all.orders : o.id] }
resource "terraform_data" "account_ids" { input = data.commerce_accounts.all.ids }
resource "terraform_data" "account_records" { input = [for a in data.commerce_accounts.all.accounts : a.id] }
resource "terraform_data" "file_ids" { input = data.commerce_files.all.ids }
resource "terraform_data" "first_orders" { input = data.commerce_orders.first.ids }
`, cut)
	plan := resource.TestStep{Config: config, PlanOnly: true}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("terraform_data.order_ids", tfjsonpath.New("output"), idsExact(orders)),
					statecheck.ExpectKnownValue("terraform_data.account_ids", tfjsonpath.New("output"), idsExact(expected(t, srv, "accounts", "", ""))),
					statecheck.ExpectKnownValue("terraform_data.file_ids", tfjsonpath.New("output"), idsExact(expected(t, srv, "files", "", ""))),
					statecheck.ExpectKnownValue("terraform_data.first_orders", tfjsonpath.New("output"), idsExact(orders[:cut])),
				},
			},
			plan, plan, plan,
		},
	})
}

// insideLargestTieGroup is a max_results that ends in the middle of the
// largest group of orders sharing one created_at (ids in created_at order).
func insideLargestTieGroup(t *testing.T, srv *emulator.Server, ids []string) int {
	t.Helper()
	created := map[string]time.Time{}
	for _, o := range srv.Orders() {
		created[o.ID] = o.CreatedAt.Truncate(time.Millisecond)
	}
	bestStart, bestLen := 0, 0
	for start := 0; start < len(ids); {
		end := start + 1
		for end < len(ids) && created[ids[end]].Equal(created[ids[start]]) {
			end++
		}
		if end-start > bestLen {
			bestStart, bestLen = start, end-start
		}
		start = end
	}
	if bestLen < 2 {
		t.Fatal("the store has no tie group")
	}
	return bestStart + bestLen/3
}
