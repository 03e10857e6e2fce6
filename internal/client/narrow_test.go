package client

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
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
	textual := Resource{Name: "things", Filters: map[string]FilterAttribute{
		"name": {Kind: KindString, Ops: ranges},
	}}
	const (
		idLow  = "10000000-0000-4000-8000-000000000000"
		idHigh = "f0000000-0000-4000-8000-000000000000"
	)
	cases := []struct {
		name      string
		r         Resource
		base, add string
		want      string
	}{
		// Timestamps, in every form the service takes.
		{"window replaces looser date", OrdersResource, "eq(status,complete):ge(created_at,2024-01-02)", "ge(created_at,2024-03-01T10:00:00.000Z)",
			"eq(status,complete):ge(created_at,2024-03-01T10:00:00.000Z)"},
		{"tighter user bound stays", OrdersResource, "ge(created_at,2024-06-01)", "ge(created_at,2024-03-01T10:00:00.000Z)", "ge(created_at,2024-06-01)"},
		{"epoch millis compared as instants", OrdersResource, "gt(created_at,1709287200000)", "ge(created_at,2024-03-01T10:00:00.001Z)", "ge(created_at,2024-03-01T10:00:00.001Z)"},
		{"same instant, strict stays", OrdersResource, "gt(created_at,2024-03-01T10:00:00Z)", "ge(created_at,2024-03-01T10:00:00.000Z)", "gt(created_at,2024-03-01T10:00:00Z)"},
		{"same instant, strict replaces", OrdersResource, "ge(created_at,2024-03-01T11:00:00+01:00)", "gt(created_at,2024-03-01T10:00:00.000Z)", "gt(created_at,2024-03-01T10:00:00.000Z)"},
		{"same bound in another form", OrdersResource, "ge(created_at,1709287200000)", "ge(created_at,2024-03-01T10:00:00.000Z)", "ge(created_at,2024-03-01T10:00:00.000Z)"},
		{"upper: window replaces looser", OrdersResource, "le(created_at,2025-01-01)", "lt(created_at,2024-03-01T10:00:00.000Z)", "lt(created_at,2024-03-01T10:00:00.000Z)"},
		{"upper: tighter user bound stays", OrdersResource, "lt(created_at,2024-02-01)", "lt(created_at,2024-03-01T10:00:00.000Z)", "lt(created_at,2024-02-01)"},
		{"upper: le and lt at one instant", OrdersResource, "le(updated_at,2024-03-01T10:00:00.000Z)", "lt(updated_at,2024-03-01T10:00:00.000Z)", "lt(updated_at,2024-03-01T10:00:00.000Z)"},
		{"other side is appended", OrdersResource, "lt(created_at,2025-01-01)", "ge(created_at,2024-03-01T10:00:00.000Z)", "lt(created_at,2025-01-01):ge(created_at,2024-03-01T10:00:00.000Z)"},
		{"other attribute is appended", OrdersResource, "ge(updated_at,2024-01-01)", "ge(created_at,2024-03-01T10:00:00.000Z)", "ge(updated_at,2024-01-01):ge(created_at,2024-03-01T10:00:00.000Z)"},
		{"tie group into both user bounds", OrdersResource, "ge(created_at,2024-01-01):lt(created_at,2025-01-01)", "ge(created_at,2024-03-01T10:00:00.000Z):lt(created_at,2024-03-01T10:00:00.001Z)",
			"ge(created_at,2024-03-01T10:00:00.000Z):lt(created_at,2024-03-01T10:00:00.001Z)"},
		{"eq holds the bound", OrdersResource, "eq(created_at,2024-03-01T10:00:00.000Z)", "ge(created_at,2024-03-01)", "eq(created_at,2024-03-01T10:00:00.000Z)"},
		{"eq outside the bound keeps it", OrdersResource, "eq(created_at,2024-02-01T10:00:00.000Z)", "ge(created_at,2024-03-01)", "eq(created_at,2024-02-01T10:00:00.000Z):ge(created_at,2024-03-01)"},
		// Numbers, whole and decimal.
		{"number: window replaces looser", OrdersResource, "ge(with_tax,100)", "ge(with_tax,5000)", "ge(with_tax,5000)"},
		{"number: tighter user bound stays", OrdersResource, "lt(with_tax,100)", "lt(with_tax,5000)", "lt(with_tax,100)"},
		{"number: decimal compared exactly", OrdersResource, "gt(with_tax,4999.5)", "ge(with_tax,5000)", "ge(with_tax,5000)"},
		{"number: range window in user range", FilesResource, "ge(file_size,0):lt(file_size,30000000)", "ge(file_size,1024):lt(file_size,2048)", "ge(file_size,1024):lt(file_size,2048)"},
		// Ids compare as the lowercase UUIDs they are; other text does not.
		{"id: window replaces looser", AccountsResource, "gt(id," + idLow + ")", "gt(id," + idHigh + ")", "gt(id," + idHigh + ")"},
		{"id: not a UUID is kept", AccountsResource, "gt(id,ABC)", "gt(id," + idHigh + ")", "gt(id,ABC):gt(id," + idHigh + ")"},
		{"text is not compared", textual, "ge(name,a)", "ge(name,b)", "ge(name,a):ge(name,b)"},
		{"identical term is not repeated", textual, "ge(name,a)", "ge(name,a)", "ge(name,a)"},
		// The user's text stays as written.
		{"quoted operand stays quoted", OrdersResource, `eq(name,'Ron'):ge(created_at,"2024-01-02")`, "ge(created_at,2024-03-01T10:00:00.000Z)",
			`eq(name,'Ron'):ge(created_at,2024-03-01T10:00:00.000Z)`},
		{"empty base", OrdersResource, "", "ge(created_at,2024-03-01T10:00:00.000Z)", "ge(created_at,2024-03-01T10:00:00.000Z)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := mustParse(t, tc.base)
			before := base.String()
			got := tc.r.narrow(base, mustParse(t, tc.add)).Render(tc.base)
			if got != tc.want {
				t.Errorf("narrow(%s, %s) = %s, want %s", tc.base, tc.add, got, tc.want)
			}
			if base.String() != before {
				t.Errorf("narrow modified its base: %s", base)
			}
		})
	}
}

// termsOf counts the terms of every filter the emulator received.
func maxTermsSent(t *testing.T, srv *emulator.Server) int {
	t.Helper()
	most := 0
	for _, r := range srv.Stats().Requests {
		q, err := url.ParseQuery(r.RawQuery)
		if err != nil || !q.Has("filter") {
			continue
		}
		most = max(most, len(mustParse(t, q.Get("filter"))))
	}
	return most
}

// tenTerms is a filter of ten terms that every generated order matches,
// with bounds on created_at and with_tax for the engine's bounds to merge
// into.
const tenTerms = "ge(created_at,2020-01-01):lt(created_at,4102444800000):ge(with_tax,0):lt(with_tax,100000000):" +
	"ge(without_tax,0):lt(without_tax,100000000):ge(updated_at,2020-01-01T00:00:00Z):lt(updated_at,2100-01-01T00:00:00.000Z):" +
	"like(email,*@*):like(name,*)"

func TestListTenTermsPastOffsetLimit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000, OrderTieGroups: []int{}})
	c := newClient(t, srv)
	if n := len(mustParse(t, tenTerms)); n != filter.MaxTerms {
		t.Fatalf("the test filter has %d terms", n)
	}
	for _, q := range []ListQuery{
		{Filter: tenTerms},
		{Filter: tenTerms, Sort: "-created_at"},
		// The consistency buffer merges into the user's created_at bound.
		{Filter: tenTerms, Sort: "-created_at", CreatedBefore: time.Now()},
	} {
		stats := expectIDs(t, srv, c, Orders, q)
		if stats.Listed != 25000 || stats.Windows < 3 {
			t.Errorf("%+v: listed %d in %d windows", q, stats.Listed, stats.Windows)
		}
	}
	if n := maxTermsSent(t, srv); n > filter.MaxTerms {
		t.Errorf("a request carried %d filter terms", n)
	}
}

func TestListTenTermsTieGroupInRangeWindows(t *testing.T) {
	longTest(t)
	// 12,000 orders share one created_at: the tie group's bounds merge
	// into the created_at terms, the with_tax windows into the with_tax
	// terms, and no request carries more than ten.
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000, OrderTieGroups: []int{12000}})
	c := newClient(t, srv)
	_, stats, err := listIDs(t, c, Orders, ListQuery{Filter: tenTerms})
	if err != nil || stats.Listed != 25000 {
		t.Fatalf("listed %d: %v", stats.Listed, err)
	}
	if n := maxTermsSent(t, srv); n > filter.MaxTerms {
		t.Errorf("a request carried %d filter terms", n)
	}
}

func TestListNoRoomForWindowBound(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
	c := newClient(t, srv)
	// Ten terms, none on created_at: the first window is fine, the second
	// would need an eleventh term.
	ten := strings.TrimSuffix(strings.Repeat("ge(with_tax,0):", 5)+strings.Repeat("like(email,*@*):", 5), ":")
	srv.ResetStats()
	_, stats, err := listIDs(t, c, Orders, ListQuery{Filter: ten})
	var limit *FilterLimitError
	if !errors.As(err, &limit) {
		t.Fatalf("err = %v, want a FilterLimitError", err)
	}
	for _, want := range []string{"11 filter terms", "at most 10", "created_at", "at most 9 terms", "a ge or gt bound on created_at"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Only the first page went out: the limit shows as soon as the first
	// page tells that a second window is needed.
	if got := srv.Stats().ListRequests["orders"]; got != 1 || stats.Pages != 1 {
		t.Errorf("%d list requests (engine: %d pages), want 1", got, stats.Pages)
	}
	// Nine of them leave room for the window's bound.
	nine := ten[len("ge(with_tax,0):"):]
	expectIDs(t, srv, c, Orders, ListQuery{Filter: nine})
	// And the consistency buffer, with no room for its term, is applied
	// by the provider instead.
	stats = expectIDs(t, srv, c, Orders, ListQuery{Filter: ten, MaxResults: 50, CreatedBefore: time.Now()})
	if stats.Listed != 50 {
		t.Errorf("listed %d", stats.Listed)
	}
	if n := maxTermsSent(t, srv); n > filter.MaxTerms {
		t.Errorf("a request carried %d filter terms", n)
	}
}

func TestListRefusesOverLongRequestBeforeSending(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 100})
	c := newClient(t, srv)
	ids := make([]string, 230)
	for i := range ids {
		ids[i] = "10000000-0000-4000-8000-" + strings.Repeat("0", 9) + itoa3(i)
	}
	srv.ResetStats()
	_, _, err := listIDs(t, c, Accounts, ListQuery{Filter: "in(id," + strings.Join(ids, ",") + ")"})
	var limit *FilterLimitError
	if !errors.As(err, &limit) || !strings.Contains(err.Error(), "8192") || !strings.Contains(err.Error(), "200 ids") {
		t.Fatalf("err = %v, want a FilterLimitError over 8192 bytes", err)
	}
	if got := srv.Stats().ListRequests["accounts"]; got != 0 {
		t.Errorf("%d list requests went out", got)
	}
	// 200 ids fit.
	if _, _, err := listIDs(t, c, Accounts, ListQuery{Filter: "in(id," + strings.Join(ids[:200], ",") + ")"}); err != nil {
		t.Errorf("200 ids: %v", err)
	}
}

func TestListDateFormsPastOffsetLimit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 30000})
	c := newClient(t, srv)
	orders := srv.Orders()
	mid := orders[len(orders)/4].CreatedAt.UTC()
	day := mid.Truncate(24 * time.Hour)
	for _, f := range []string{
		"ge(created_at," + day.Format(time.DateOnly) + ")",
		"ge(created_at," + strconv.FormatInt(day.UnixMilli(), 10) + ")",
		"lt(created_at," + day.AddDate(0, 0, 40).Format("2006-01-02T15:04:05Z") + ")",
	} {
		for _, sort := range []string{"created_at", "-created_at"} {
			stats := expectIDs(t, srv, c, Orders, ListQuery{Filter: f, Sort: sort})
			if stats.Total <= OffsetLimit {
				t.Errorf("%s matches %d orders; the test needs more than %d", f, stats.Total, OffsetLimit)
			}
		}
	}
}

func itoa3(i int) string {
	return string([]byte{byte('0' + i/100), byte('0' + i/10%10), byte('0' + i%10)})
}
