package provider

import (
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// A development store (25 requests per second, shared by every endpoint and
// the token endpoint) read by several list data sources of one plan at
// once, through the Terraform CLI, with the provider's default settings:
// every list is complete, and the store answers at most 5% of all
// requests 429. With the stricter store, which counts refused requests
// too, and max_retries = 0, the plan completes as well: throttling uses up
// no retry.
//
// Each Terraform command starts the provider anew, so each read learns the
// store's budget from scratch; the lists are large enough (about 200 and
// 300 requests per read) that the first burst of refusals, before the
// provider has heard from the store, stays a small share.
func TestAccSharedStoreBudget(t *testing.T) {
	three := `
data "commerce_accounts" "all" {
  include_records = false
}

data "commerce_orders" "all" {
  include_records = false
}

data "commerce_files" "all" {
  include_records = false
}
`
	six := three + `
data "commerce_orders" "complete" {
  filter          = "eq(status,complete)"
  include_records = false
}

data "commerce_accounts" "by_name" {
  sort            = "name"
  include_records = false
}

data "commerce_list" "customers" {
  path            = "/v2/customers"
  include_records = false
}
`
	clearEnv(t)
	for _, tc := range []struct {
		name    string
		config  string
		strict  bool
		setting string
	}{
		{name: "three data sources", config: three},
		{name: "six data sources", config: six},
		{name: "three data sources, strict store, no retries", config: three, strict: true, setting: "max_retries = 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each case has a store of its own, and most of its two minutes
			// waits on that store's 25 requests per second: side by side,
			// the three take the time of the longest.
			t.Parallel()
			srv := emulatortest.Start(t, emulator.Options{Accounts: 6000, Orders: 12000, Files: 2000, Customers: 1500, Hierarchies: -1,
				Latency: 20 * time.Millisecond, RateLimit: 25, RateLimitCountsRefused: tc.strict})
			checks := []statecheck.StateCheck{
				listSize("data.commerce_accounts.all", 6000),
				listSize("data.commerce_orders.all", 12000),
				listSize("data.commerce_files.all", 2000),
			}
			if tc.config == six {
				checks = append(checks,
					listSize("data.commerce_orders.complete", len(expected(t, srv, "orders", "eq(status,complete)", "created_at"))),
					listSize("data.commerce_accounts.by_name", 6000),
					listSize("data.commerce_list.customers", 1500))
			}
			srv.ResetStats()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config:            providerBlock(srv, tc.setting) + tc.config,
					ConfigStateChecks: checks,
				}},
			})
			st := srv.Stats()
			refused := st.StatusCounts[http.StatusTooManyRequests]
			share := float64(refused) / float64(st.TotalRequests)
			t.Logf("%d requests, %d answered 429 (%.1f%%)", st.TotalRequests, refused, 100*share)
			if share > 0.05 {
				t.Errorf("%d of %d requests answered 429 (%.1f%%), want at most 5%%", refused, st.TotalRequests, 100*share)
			}
		})
	}
}

func listSize(address string, n int) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(address, tfjsonpath.New("ids"), knownvalue.ListSizeExact(n))
}
