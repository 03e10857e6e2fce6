package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestLookUpGuideFigures holds the "Look up ids in HCL" guide to its
// figures: a lookup by name is one request; one listing of every account
// is ⌈accounts / 100⌉ + 1 (the last page is found empty), 201 for 20,000.
func TestLookUpGuideFigures(t *testing.T) {
	const accounts = 2000
	srv := emulatortest.Start(t, emulator.Options{Accounts: accounts, Orders: 1, Files: 1})
	clearEnv(t)
	p := serveInProcess(t, srv)
	name := srv.Accounts()[1234].Name
	p.readAttributes(t, "commerce_account", map[string]tftypes.Value{"name": str(name)}) // the token, once
	for _, tc := range []struct {
		what       string
		dataSource string
		set        map[string]tftypes.Value
		want       int
	}{
		{"a lookup by name", "commerce_account", map[string]tftypes.Value{"name": str(name)}, 1},
		{"one listing", "commerce_accounts", nil, accounts/100 + 1},
	} {
		srv.ResetStats()
		p.readAttributes(t, tc.dataSource, tc.set)
		if got := srv.Stats().TotalRequests; got != tc.want {
			t.Errorf("%s: %d requests, the guide says %d", tc.what, got, tc.want)
		}
	}
}
