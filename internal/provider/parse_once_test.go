package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// TestOneParsePerRead: a read's filter is parsed once, where the provider
// checks it, and travels parsed from there to each request, through the
// plan, the windows past the offset limit, their keyset bounds, the
// consistency cut and the tie groups. A where alone is never parsed.
func TestOneParsePerRead(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000, OrderTieGroups: []int{400}, Accounts: 10, Files: -1})
	p := serveInProcess(t, srv)
	where := whereList(p.schemas, "commerce_orders", map[string]tftypes.Value{"attribute": str("email"), "op": str("like"), "value": str("*@*")})
	for _, tc := range []struct {
		name       string
		dataSource string
		set        map[string]tftypes.Value
		parses     int64
	}{
		{"a list past the offset limit", "commerce_orders", map[string]tftypes.Value{
			"filter": str("ge(created_at,2024-01-01T00:00:00Z)"), "where": where, "sort": str("-created_at"),
			"consistency_buffer": str("1s"), "include_records": tftypes.NewValue(tftypes.Bool, false)}, 1},
		{"where alone", "commerce_orders", map[string]tftypes.Value{"where": where, "include_records": tftypes.NewValue(tftypes.Bool, false)}, 0},
		{"a lookup by filter", "commerce_account", map[string]tftypes.Value{"filter": str(filter.Expr{filter.NewTerm(filter.Eq, "name", srv.Accounts()[3].Name)}.String())}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := filter.Parses()
			resp := p.readResponse(t, tc.dataSource, tc.set)
			for _, d := range resp.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					t.Fatalf("read: %s: %s", d.Summary, d.Detail)
				}
			}
			if n := filter.Parses() - before; n != tc.parses {
				t.Errorf("the read parsed a filter %d times, want %d", n, tc.parses)
			}
		})
	}
}
