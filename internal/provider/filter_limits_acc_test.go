package provider

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// filterTermsSent checks that no request the emulator received carried
// more than the service's ten filter terms (the emulator would have
// answered 400, but a test should say what it checks) and that at least
// one carried exactly ten.
func filterTermsSent(srv *emulator.Server, wantTen bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		most := 0
		for _, r := range srv.Stats().Requests {
			q, err := url.ParseQuery(r.RawQuery)
			if err != nil || !q.Has("filter") {
				continue
			}
			e, err := filter.Parse(q.Get("filter"))
			if err != nil {
				return fmt.Errorf("request %d: %v", r.Seq, err)
			}
			most = max(most, len(e))
		}
		switch {
		case most > filter.MaxTerms:
			return fmt.Errorf("a request carried %d filter terms", most)
		case wantTen && most != filter.MaxTerms:
			return fmt.Errorf("the widest request carried %d filter terms, want %d", most, filter.MaxTerms)
		}
		return nil
	}
}

// noListRequests checks that nothing reached the service's list endpoints.
func noListRequests(t *testing.T, srv *emulator.Server) {
	t.Helper()
	for name, n := range srv.Stats().ListRequests {
		if n > 0 {
			t.Errorf("%d requests reached %s", n, name)
		}
	}
}

// TestAccFilterTenTermsPastOffsetLimit: ten terms of the user's own, over
// more than 10,000 orders, in both orders; the provider's window bounds
// and the consistency buffer merge into the user's created_at terms, so
// no request carries eleven.
func TestAccFilterTenTermsPastOffsetLimit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 22000, OrderTieGroups: []int{}, RequestLogSize: 100000})
	// Six terms in filter, four in where: ten, each matching every order.
	const f = "ge(created_at,2020-01-01):lt(created_at,4102444800000):ge(with_tax,0):lt(with_tax,100000000):like(email,*@*):like(name,*)"
	where := `[
    { attribute = "updated_at", op = "ge", value = "2020-01-01T00:00:00Z" },
    { attribute = "updated_at", op = "lt", value = "2100-01-01T00:00:00.000Z" },
    { attribute = "without_tax", op = "ge", value = "0" },
    { attribute = "without_tax", op = "lt", value = "100000000" },
  ]`
	all := expected(t, srv, "orders", "", "created_at")
	newestFirst := expected(t, srv, "orders", "", "-created_at")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
data "commerce_orders" "oldest_first" {
  filter          = "` + f + `"
  where           = ` + where + `
  include_records = false
}
data "commerce_orders" "newest_first" {
  filter             = "` + f + `"
  where              = ` + where + `
  sort               = "-created_at"
  consistency_buffer = "1s"
  include_records    = false
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_orders.oldest_first", tfjsonpath.New("total"), knownvalue.Int64Exact(22000)),
				statecheck.ExpectKnownValue("data.commerce_orders.oldest_first", tfjsonpath.New("ids"), idsExact(all)),
				statecheck.ExpectKnownValue("data.commerce_orders.newest_first", tfjsonpath.New("ids"), idsExact(newestFirst)),
			},
			Check: filterTermsSent(srv, true),
		}},
	})
}

// TestAccFilterDatesAsTheVendorWritesThem: a date and epoch milliseconds,
// as the vendor's guide writes them, select what the service selects,
// also past the offset limit.
func TestAccFilterDatesAsTheVendorWritesThem(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 30000})
	orders := srv.Orders()
	day := orders[len(orders)/4].CreatedAt.UTC().Truncate(24 * time.Hour)
	byDate := "ge(created_at," + day.Format(time.DateOnly) + ")"
	until := orders[len(orders)*9/10].CreatedAt.UTC()
	byMillis := "lt(created_at," + strconv.FormatInt(until.UnixMilli(), 10) + ")"
	fromDate := expected(t, srv, "orders", byDate, "created_at")
	both := expected(t, srv, "orders", byDate+":"+byMillis, "-created_at")
	if len(fromDate) <= 10000 || len(both) <= 10000 || len(both) == len(fromDate) {
		t.Fatalf("the bounds should cut the orders past the offset limit: %d and %d of %d", len(fromDate), len(both), len(orders))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + fmt.Sprintf(`
data "commerce_orders" "since_date" {
  filter          = %q
  include_records = false
}
data "commerce_orders" "between" {
  filter          = %q
  where           = [{ attribute = "created_at", op = "lt", value = %q }]
  sort            = "-created_at"
  include_records = false
}`, byDate, byDate, strconv.FormatInt(until.UnixMilli(), 10)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_orders.since_date", tfjsonpath.New("ids"), idsExact(fromDate)),
				statecheck.ExpectKnownValue("data.commerce_orders.between", tfjsonpath.New("ids"), idsExact(both)),
			},
		}},
	})
}

// TestAccFilterLimitsBeforeSending: an eleventh term, and an in() longer
// than the provider splits, fail at plan time and send nothing; ten terms
// that leave no room for the bound past the offset limit fail after the
// first page, with the fix.
func TestAccFilterLimitsBeforeSending(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000, Accounts: 50})
	eleven := strings.TrimSuffix(strings.Repeat("like(email,*@*):", 7), ":")
	ids := make([]string, filter.MaxInValues+1)
	for i := range ids {
		ids[i] = fmt.Sprintf("10000000-0000-4000-8000-%012d", i)
	}
	noRoom := strings.TrimSuffix(strings.Repeat("ge(with_tax,0):", 5)+strings.Repeat("like(email,*@*):", 5), ":")
	srv.ResetStats()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: providerConfig(t, srv) + `
data "commerce_orders" "x" {
  filter = "` + eleven + `"
  where = [
    { attribute = "status", op = "eq", value = "complete" },
    { attribute = "currency", op = "eq", value = "USD" },
    { attribute = "payment", op = "eq", value = "paid" },
    { attribute = "shipping", op = "eq", value = "fulfilled" },
  ]
}`,
				ExpectError: regexp.MustCompile(`(?s)Too many filter terms.*where:\s+filter\s+has\s+7\s+terms\s+and\s+where\s+4,\s+11\s+in\s+all;\s+the\s+service\s+takes\s+at\s+most\s+10\s+terms.*Remove\s+1`),
			},
			{
				Config: providerConfig(t, srv) + `
data "commerce_accounts" "x" {
  where = [{ attribute = "id", op = "in", values = ["` + strings.Join(ids, `", "`) + `"] }]
}`,
				ExpectError: regexp.MustCompile(`(?s)Filter too long for one request.*where:\s+the\s+request\s+for\s+this\s+filter\s+would\s+be\s+\d+\s+bytes\s+long.*at\s+most\s+8192\s+bytes.*10001\s+values;\s+the\s+provider\s+splits\s+at\s+most\s+10000`),
			},
			{
				PreConfig: func() { noListRequests(t, srv) },
				Config: providerConfig(t, srv) + `
data "commerce_orders" "x" { filter = "` + noRoom + `" }`,
				ExpectError: regexp.MustCompile(`(?s)Filter too large for the service.*11\s+filter\s+terms.*at\s+most\s+10\s+per\s+request.*bound\s+created_at.*at\s+most\s+9\s+terms.*a\s+ge\s+or\s+gt\s+bound\s+on\s+created_at`),
			},
		},
	})
	// The last read stopped after each attempt's first page.
	if n := srv.Stats().ListRequests["orders"]; n == 0 || n > 4 {
		t.Errorf("%d order list requests, want one per read attempt", n)
	}
}

// TestAccFilterLongInSplit: 450 account ids from elsewhere in one where
// in(), over the service's 8 KB for one request, list exactly: the provider
// splits the in() over several requests, each within the limit (the
// emulator refuses longer ones), and merges them in order.
func TestAccFilterLongInSplit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1200, Orders: -1, Files: -1})
	var ids []string
	for i, a := range srv.Accounts() {
		if i%2 == 0 && len(ids) < 450 {
			ids = append(ids, a.ID)
		}
	}
	chosen := map[string]bool{}
	for _, id := range ids {
		chosen[id] = true
	}
	var want []string
	for _, id := range expected(t, srv, "accounts", "", "-created_at") {
		if chosen[id] {
			want = append(want, id)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
data "commerce_accounts" "x" {
  sort  = "-created_at"
  where = [{ attribute = "id", op = "in", values = ["` + strings.Join(ids, `", "`) + `"] }]
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_accounts.x", tfjsonpath.New("ids"), idsExact(want)),
				statecheck.ExpectKnownValue("data.commerce_accounts.x", tfjsonpath.New("total"), knownvalue.Int64Exact(450)),
			},
		}},
	})
	if n := srv.Stats().StatusCounts[http.StatusBadRequest]; n != 0 {
		t.Errorf("%d requests refused with 400", n)
	}
}
