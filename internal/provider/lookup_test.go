package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// configOf is a configuration of ds that sets the given attributes and
// leaves every other null.
func configOf(t *testing.T, ds datasource.DataSource, set map[string]tftypes.Value) tfsdk.Config {
	t.Helper()
	ctx := context.Background()
	var resp datasource.SchemaResponse
	ds.Schema(ctx, datasource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema: %v", resp.Diagnostics)
	}
	return tfsdk.Config{Schema: resp.Schema, Raw: nullObject(resp.Schema.Type().TerraformType(ctx), set)}
}

func TestLookupSelected(t *testing.T) {
	ds := &lookupDataSource[commerce.Order]{rt: orderType}
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	cases := []struct {
		name       string
		set        map[string]tftypes.Value
		sel, value string
		ok         bool
		diags      []wantDiag
	}{
		{"none", nil, "", "", false, nil},
		{"id", map[string]tftypes.Value{"id": str("o-1")}, "id", "o-1", true, nil},
		{"unique key", map[string]tftypes.Value{"order_number": str("ORD-1")}, "order_number", "ORD-1", true, nil},
		{"second unique key", map[string]tftypes.Value{"external_ref": str("ext 1")}, "external_ref", "ext 1", true, nil},
		{"filter", map[string]tftypes.Value{"filter": str("eq(status,complete)")}, "filter", "eq(status,complete)", true, nil},
		{"unknown", map[string]tftypes.Value{"external_ref": unknown}, "", "", false, nil},
		{"unknown before a set one", map[string]tftypes.Value{"id": unknown, "filter": str("eq(a,b)")}, "", "", false, nil},
		{"empty", map[string]tftypes.Value{"order_number": str("")}, "", "", false, []wantDiag{
			errorAt("order_number", "Empty order_number", "order_number is an empty string; give the value to look the order up by.")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sel, value, ok, diags := ds.selected(context.Background(), configOf(t, ds, tc.set))
			if sel != tc.sel || value != tc.value || ok != tc.ok {
				t.Errorf("selected = %q, %q, %v; want %q, %q, %v", sel, value, ok, tc.sel, tc.value, tc.ok)
			}
			checkDiags(t, diags, tc.diags...)
		})
	}
}

func TestLookupSelectors(t *testing.T) {
	ds := &lookupDataSource[commerce.Account]{rt: accountType}
	got := backticks(ds.selectors())
	if want := "`id`, `name`, `legal_name`, `registration_id`, `filter`"; got != want {
		t.Errorf("selectors = %s, want %s", got, want)
	}
}

func TestLookupFilter(t *testing.T) {
	cases := []struct {
		name, value    string
		expr, searched string
	}{
		{"filter", "eq(status,complete):eq(currency,USD)", "eq(status,complete):eq(currency,USD)", "the filter eq(status,complete):eq(currency,USD)"},
		{"order_number", "ORD-0000123", "eq(order_number,ORD-0000123)", `order_number = "ORD-0000123"`},
		{"name", "Acme, Inc.", `eq(name,"Acme, Inc.")`, `name = "Acme, Inc."`},
		{"name", `All,the:(hard)'bits"\*`, `eq(name,"All,the:(hard)'bits\"\\*")`, `name = "All,the:(hard)'bits\"\\*"`},
		{"file_name", "* and ünïcode", `eq(file_name,"* and ünïcode")`, `file_name = "* and ünïcode"`},
	}
	for _, tc := range cases {
		parsedExpr, searched, diags := lookupFilter(tc.name, tc.value, &commerce.OrdersEndpoint, orderType.example)
		expr := parsedExpr.Text()
		if expr != tc.expr || searched != tc.searched || diags.HasError() {
			t.Errorf("lookupFilter(%s, %q) = %s, %s, %v; want %s, %s", tc.name, tc.value, expr, searched, diags, tc.expr, tc.searched)
		}
		if tc.name == "filter" {
			continue
		}
		parsed, err := filter.Parse(expr)
		if err != nil || len(parsed) != 1 || parsed[0].Attribute != tc.name || parsed[0].Values[0] != tc.value {
			t.Errorf("%s parses to %+v, %v; want %s equal to %q", expr, parsed, err, tc.name, tc.value)
		}
	}
}

func TestOnlyMatch(t *testing.T) {
	a, b := order("a"), order("b")
	cases := []struct {
		name   string
		found  []commerce.Order
		count  reads.Result
		wantID string
		diags  []wantDiag
	}{
		{"one", []commerce.Order{a}, reads.Result{Count: commerce.Count{N: 1}}, "a", nil},
		// A service that does not count is taken at its records.
		{"one, uncounted", []commerce.Order{a}, reads.Result{Count: commerce.Count{Method: commerce.CountNone}}, "a", nil},
		{"none", nil, reads.Result{}, "", []wantDiag{errorAt("order_number", "No order found",
			`No order matches order_number = "ORD-1" (the service was asked for filter=eq(order_number,ORD-1)). Check the value, including spaces and case.`)}},
		{"two", []commerce.Order{a, b}, reads.Result{Count: commerce.Count{Method: commerce.CountNone}}, "", []wantDiag{errorAt("order_number", "More than one order found",
			`at least 2 orders match order_number = "ORD-1", but this data source reads exactly one.`, "use commerce_orders to list them all")}},
		{"two, counted", []commerce.Order{a, b}, reads.Result{Count: commerce.Count{N: 7}}, "", []wantDiag{errorAt("order_number", "More than one order found", "7 orders match")}},
		{"two, a lower bound", []commerce.Order{a, b}, reads.Result{Count: commerce.Count{N: 1000, Method: commerce.CountLowerBound}}, "", []wantDiag{
			errorAt("order_number", "More than one order found", "at least 1000 orders match")}},
		// The records decide: a count is a guess.
		{"one listed, more counted", []commerce.Order{a}, reads.Result{Count: commerce.Count{N: 7}}, "a", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, diags := onlyMatch(search{endpoint: commerce.OrdersEndpoint, attr: "order_number", expr: filter.Parsed{Terms: filter.Expr{filter.NewTerm(filter.Eq, "order_number", "ORD-1")}},
				searched: `order_number = "ORD-1"`, lister: "commerce_orders"}, tc.found, matchCount(tc.count, len(tc.found)))
			if rec.ID != tc.wantID {
				t.Errorf("record %q, want %q", rec.ID, tc.wantID)
			}
			checkDiags(t, diags, tc.diags...)
		})
	}
}
