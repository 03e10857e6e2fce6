package emulator

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestFilterTermLimit(t *testing.T) {
	c := startServer(t, Options{Orders: 50, Files: -1, Accounts: -1, Customers: -1, Hierarchies: -1})
	term := "ge(with_tax,0)"
	ten := strings.TrimSuffix(strings.Repeat(term+":", 10), ":")
	if lb := c.list("orders", q("filter", ten)); *lb.Meta.Results.Total != 50 {
		t.Fatalf("10 terms: total %d, want 50", *lb.Meta.Results.Total)
	}
	resp, body := c.get("/v2/orders", url.Values{"filter": {ten + ":" + term}}.Encode())
	e := c.wantError(400, resp, body)
	if !strings.Contains(e.Detail, "11 terms") || !strings.Contains(e.Detail, "at most 10") {
		t.Errorf("detail %q", e.Detail)
	}
	// Colons inside values and quotes do not join terms.
	quoted := ten[:len(ten)-len(term)] + `eq(name,"a:b:c")`
	resp, body = c.get("/v2/orders", url.Values{"filter": {quoted}}.Encode())
	if resp.StatusCode != 200 {
		t.Errorf("10 terms with colons in a quoted value: %d %s", resp.StatusCode, body)
	}
}

func TestFilterRequestSizeLimit(t *testing.T) {
	c := startServer(t, Options{Orders: 50, Files: -1, Accounts: 50, Customers: -1, Hierarchies: -1})
	ids := make([]string, 0, 300)
	for i := range 300 {
		ids = append(ids, "0e835fd9-f6f2-4816-9aee-"+strings.Repeat("0", 8)+itoa(1000+i))
	}
	// About 200 ids fit, as the vendor says; 300 do not.
	fits := "in(id," + strings.Join(ids[:200], ",") + ")"
	if resp, body := c.get("/v2/accounts", url.Values{"filter": {fits}}.Encode()); resp.StatusCode != 200 {
		t.Fatalf("200 ids: %d %s", resp.StatusCode, body)
	}
	resp, body := c.get("/v2/accounts", url.Values{"filter": {"in(id," + strings.Join(ids, ",") + ")"}}.Encode())
	e := c.wantError(400, resp, body)
	if !strings.Contains(e.Detail, "8192") {
		t.Errorf("detail %q", e.Detail)
	}
	// A long query without a filter is not the filter limit's business.
	if resp, body := c.get("/v2/orders", "page[limit]=5&x="+strings.Repeat("a", 9000)); resp.StatusCode == 400 && strings.Contains(string(body), "8192") {
		t.Errorf("request without filter refused by the filter limit: %s", body)
	}
}

// Every documented timestamp form selects the same records as the
// canonical form of the same instant.
func TestFilterDateForms(t *testing.T) {
	// The orders begin an hour before midnight, so a date cuts them.
	day := DefaultBaseTime.AddDate(0, 0, 1) // midnight UTC
	c := startServer(t, Options{Orders: 3000, BaseTime: day.Add(-time.Hour), Files: -1, Accounts: -1, Customers: -1, Hierarchies: -1})
	canonical := *c.list("orders", q("filter", "ge(created_at,"+day.Format("2006-01-02T15:04:05.000Z")+")")).Meta.Results.Total
	if canonical == 0 || canonical == 3000 {
		t.Fatalf("the bound should cut the orders, total %d", canonical)
	}
	for _, v := range []string{
		day.Format("2006-01-02"),
		itoa(int(day.UnixMilli())),
		day.Format("2006-01-02T15:04:05Z"),
		day.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.000-07:00"),
	} {
		if got := *c.list("orders", q("filter", "ge(created_at,"+v+")")).Meta.Results.Total; got != canonical {
			t.Errorf("ge(created_at,%s): total %d, want %d", v, got, canonical)
		}
	}
	if n := countTerms(`eq(a,1):eq(b,"x:y"):ge(created_at,2024-01-01T00:00:00Z):eq(c,'q\':')`); n != 4 {
		t.Errorf("countTerms = %d, want 4", n)
	}
}
