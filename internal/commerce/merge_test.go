package commerce

import (
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

func mustParse(t *testing.T, s string) filter.Expr {
	t.Helper()
	if s == "" {
		return nil
	}
	e, err := filter.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNarrowMergesBounds(t *testing.T) {
	textual := Endpoint{Name: "things", Filters: map[string]FilterAttribute{
		"name": {Kind: StringValue, Ops: ranges},
	}}
	const (
		idLow  = "10000000-0000-4000-8000-000000000000"
		idHigh = "f0000000-0000-4000-8000-000000000000"
	)
	cases := []struct {
		name      string
		r         Endpoint
		base, add string
		want      string
	}{
		// Timestamps, in every form the service takes.
		{"window replaces looser date", OrdersEndpoint, "eq(status,complete):ge(created_at,2024-01-02)", "ge(created_at,2024-03-01T10:00:00.000Z)",
			"eq(status,complete):ge(created_at,2024-03-01T10:00:00.000Z)"},
		{"tighter user bound stays", OrdersEndpoint, "ge(created_at,2024-06-01)", "ge(created_at,2024-03-01T10:00:00.000Z)", "ge(created_at,2024-06-01)"},
		{"epoch millis compared as instants", OrdersEndpoint, "gt(created_at,1709287200000)", "ge(created_at,2024-03-01T10:00:00.001Z)", "ge(created_at,2024-03-01T10:00:00.001Z)"},
		{"same instant, strict stays", OrdersEndpoint, "gt(created_at,2024-03-01T10:00:00Z)", "ge(created_at,2024-03-01T10:00:00.000Z)", "gt(created_at,2024-03-01T10:00:00Z)"},
		{"same instant, strict replaces", OrdersEndpoint, "ge(created_at,2024-03-01T11:00:00+01:00)", "gt(created_at,2024-03-01T10:00:00.000Z)", "gt(created_at,2024-03-01T10:00:00.000Z)"},
		{"same bound in another form", OrdersEndpoint, "ge(created_at,1709287200000)", "ge(created_at,2024-03-01T10:00:00.000Z)", "ge(created_at,2024-03-01T10:00:00.000Z)"},
		{"upper: window replaces looser", OrdersEndpoint, "le(created_at,2025-01-01)", "lt(created_at,2024-03-01T10:00:00.000Z)", "lt(created_at,2024-03-01T10:00:00.000Z)"},
		{"upper: tighter user bound stays", OrdersEndpoint, "lt(created_at,2024-02-01)", "lt(created_at,2024-03-01T10:00:00.000Z)", "lt(created_at,2024-02-01)"},
		{"upper: le and lt at one instant", OrdersEndpoint, "le(updated_at,2024-03-01T10:00:00.000Z)", "lt(updated_at,2024-03-01T10:00:00.000Z)", "lt(updated_at,2024-03-01T10:00:00.000Z)"},
		{"other side is appended", OrdersEndpoint, "lt(created_at,2025-01-01)", "ge(created_at,2024-03-01T10:00:00.000Z)", "lt(created_at,2025-01-01):ge(created_at,2024-03-01T10:00:00.000Z)"},
		{"other attribute is appended", OrdersEndpoint, "ge(updated_at,2024-01-01)", "ge(created_at,2024-03-01T10:00:00.000Z)", "ge(updated_at,2024-01-01):ge(created_at,2024-03-01T10:00:00.000Z)"},
		{"tie group into both user bounds", OrdersEndpoint, "ge(created_at,2024-01-01):lt(created_at,2025-01-01)", "ge(created_at,2024-03-01T10:00:00.000Z):lt(created_at,2024-03-01T10:00:00.001Z)",
			"ge(created_at,2024-03-01T10:00:00.000Z):lt(created_at,2024-03-01T10:00:00.001Z)"},
		{"eq holds the bound", OrdersEndpoint, "eq(created_at,2024-03-01T10:00:00.000Z)", "ge(created_at,2024-03-01)", "eq(created_at,2024-03-01T10:00:00.000Z)"},
		{"eq outside the bound keeps it", OrdersEndpoint, "eq(created_at,2024-02-01T10:00:00.000Z)", "ge(created_at,2024-03-01)", "eq(created_at,2024-02-01T10:00:00.000Z):ge(created_at,2024-03-01)"},
		// Numbers, whole and decimal.
		{"number: window replaces looser", OrdersEndpoint, "ge(with_tax,100)", "ge(with_tax,5000)", "ge(with_tax,5000)"},
		{"number: tighter user bound stays", OrdersEndpoint, "lt(with_tax,100)", "lt(with_tax,5000)", "lt(with_tax,100)"},
		{"number: decimal compared exactly", OrdersEndpoint, "gt(with_tax,4999.5)", "ge(with_tax,5000)", "ge(with_tax,5000)"},
		{"number: range window in user range", FilesEndpoint, "ge(file_size,0):lt(file_size,30000000)", "ge(file_size,1024):lt(file_size,2048)", "ge(file_size,1024):lt(file_size,2048)"},
		// Ids compare as the lowercase UUIDs they are; other text does not.
		{"id: window replaces looser", AccountsEndpoint, "gt(id," + idLow + ")", "gt(id," + idHigh + ")", "gt(id," + idHigh + ")"},
		{"id: not a UUID is kept", AccountsEndpoint, "gt(id,ABC)", "gt(id," + idHigh + ")", "gt(id,ABC):gt(id," + idHigh + ")"},
		{"text is not compared", textual, "ge(name,a)", "ge(name,b)", "ge(name,a):ge(name,b)"},
		{"identical term is not repeated", textual, "ge(name,a)", "ge(name,a)", "ge(name,a)"},
		// The user's text stays as written.
		{"quoted operand stays quoted", OrdersEndpoint, `eq(name,'Ron'):ge(created_at,"2024-01-02")`, "ge(created_at,2024-03-01T10:00:00.000Z)",
			`eq(name,'Ron'):ge(created_at,2024-03-01T10:00:00.000Z)`},
		{"empty base", OrdersEndpoint, "", "ge(created_at,2024-03-01T10:00:00.000Z)", "ge(created_at,2024-03-01T10:00:00.000Z)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := mustParse(t, tc.base)
			before := base.String()
			got := tc.r.Narrow(base, mustParse(t, tc.add)).Render(tc.base)
			if got != tc.want {
				t.Errorf("narrow(%s, %s) = %s, want %s", tc.base, tc.add, got, tc.want)
			}
			if base.String() != before {
				t.Errorf("narrow modified its base: %s", base)
			}
		})
	}
}
