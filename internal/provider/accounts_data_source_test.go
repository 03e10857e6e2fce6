package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccAccountsHostileNames looks every hostile account name up through
// where, so that quoting is proven end to end: HCL, provider, filter, service.
func TestAccAccountsHostileNames(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 60})
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
	largeStore(t)
	srv := emulatortest.Start(t, emulator.Options{Accounts: 11000})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerBlock(srv) + `
data "commerce_accounts" "by_name" {
  sort  = "-name"
  where = [{ attribute = "external_ref", op = "like", value = "crm-00000*" }]
}
data "commerce_accounts" "all" { sort = "name" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_accounts.by_name", tfjsonpath.New("ids"),
					idsExact(expected(t, srv, "accounts", `like(external_ref,"crm-00000*")`, "-name"))),
				statecheck.ExpectKnownValue("data.commerce_accounts.all", tfjsonpath.New("ids"), idsExact(expected(t, srv, "accounts", "", "name"))),
			},
		}},
	})
}

// TestAccAccountsServiceIgnoresSort plays a store that accepts sort= on
// accounts and ignores it: the provider notices on the first page, lists in
// the service's order and sorts the result itself. Past the offset limit,
// where offsets cannot reach every account of such a store, it lists them
// in ranges of id instead (accounts have no range attribute to cut by, but
// the service filters ids by range).
func TestAccAccountsServiceIgnoresSort(t *testing.T) {
	largeStore(t)
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, IgnoreSort: []string{"accounts"}})
	big := emulatortest.Start(t, emulator.Options{Accounts: 10500, IgnoreSort: []string{"accounts"}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerBlock(srv) + `
data "commerce_accounts" "all" {}
data "commerce_accounts" "newest" {
  sort        = "-updated_at"
  max_results = 3
}
data "commerce_accounts" "by_name" { sort = "name" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_accounts.all", tfjsonpath.New("ids"), idsExact(sortedHere(t, srv, "accounts", "", "created_at"))),
				statecheck.ExpectKnownValue("data.commerce_accounts.newest", tfjsonpath.New("ids"), idsExact(sortedHere(t, srv, "accounts", "", "-updated_at")[:3])),
				statecheck.ExpectKnownValue("data.commerce_accounts.by_name", tfjsonpath.New("ids"), idsExact(sortedHere(t, srv, "accounts", "", "name"))),
			},
		}, {
			// Past the offset limit the service's own order cannot reach
			// every account, but ranges of id can: each is one answer.
			Config: providerBlock(big) + `data "commerce_accounts" "newest" { sort = "-updated_at" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_accounts.newest", tfjsonpath.New("ids"), idsExact(sortedHere(t, big, "accounts", "", "-updated_at"))),
			},
		}},
	})
}

// TestAccAccountsTokensValidForTenRequests: the store revokes every token
// after 10 requests while 8 are in flight. Each of the 10 steps reads 5,940
// accounts (60 pages of 100 that overlap by one record, the last one short,
// so that no empty page shows the end, and a read needs whole tokens)
// several times; every read is complete, and the provider fetches no more tokens than the requests need: one per 10
// accepted requests, plus one per provider process (Configure fetches one
// before the first read).
func TestAccAccountsTokensValidForTenRequests(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5940, TokenRequests: 10})
	want := expected(t, srv, "accounts", "", "created_at")
	step := resource.TestStep{
		Config: providerConfig(t, srv, "max_parallel_requests = 8") + `data "commerce_accounts" "all" { include_records = false }`,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.commerce_accounts.all", tfjsonpath.New("ids"), idsExact(want)),
		},
	}
	steps := make([]resource.TestStep, 10)
	for i := range steps {
		steps[i] = step
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6Factories, Steps: steps})
	// Each read is a provider process of its own (a read is a first page
	// accepted at offset 0): it needs its requests' tokens, the last
	// perhaps only partly used, and fetches at most one more. The reads
	// are alike, so each sends about accepted/reads requests.
	accepted, unauthorized, reads := 0, 0, 0
	for _, r := range srv.Stats().Requests {
		if r.Path != "/v2/accounts" {
			continue
		}
		switch r.Status {
		case 401:
			unauthorized++
		case 200:
			accepted++
			if strings.Contains(r.RawQuery, "page%5Boffset%5D=0&") {
				reads++
			}
		}
	}
	tokens := srv.TokensIssued()
	t.Logf("%d reads, %d accepted requests, %d answered 401, %d tokens", reads, accepted, unauthorized, tokens)
	if minimum := (accepted + 9) / 10; tokens < minimum {
		t.Fatalf("%d tokens for %d accepted requests; each token serves at most 10", tokens, accepted)
	}
	perRead := (accepted + reads - 1) / max(reads, 1)
	if bound := reads * ((perRead+9)/10 + 1); tokens > bound {
		t.Errorf("%d tokens for %d accepted requests in %d reads; bound %d", tokens, accepted, reads, bound)
	}
}
