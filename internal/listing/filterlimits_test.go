package listing

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

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
	for _, q := range []Query{
		{Filter: tenTerms},
		{Filter: tenTerms, Sort: "-created_at"},
		// The consistency buffer merges into the user's created_at bound.
		{Filter: tenTerms, Sort: "-created_at", CreatedBefore: time.Now()},
	} {
		stats := expectIDs(t, srv, c, commerce.Orders, q)
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
	_, stats, err := listIDs(t, c, commerce.Orders, Query{Filter: tenTerms})
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
	_, stats, err := listIDs(t, c, commerce.Orders, Query{Filter: ten})
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
	expectIDs(t, srv, c, commerce.Orders, Query{Filter: nine})
	// And the consistency buffer, with no room for its term, is applied
	// by the provider instead.
	stats = expectIDs(t, srv, c, commerce.Orders, Query{Filter: ten, MaxResults: 50, CreatedBefore: time.Now()})
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
	_, _, err := listIDs(t, c, commerce.Accounts, Query{Filter: "in(id," + strings.Join(ids, ",") + ")"})
	var limit *FilterLimitError
	if !errors.As(err, &limit) || !strings.Contains(err.Error(), "8192") || !strings.Contains(err.Error(), "200 ids") {
		t.Fatalf("err = %v, want a FilterLimitError over 8192 bytes", err)
	}
	if got := srv.Stats().ListRequests["accounts"]; got != 0 {
		t.Errorf("%d list requests went out", got)
	}
	// 200 ids fit.
	if _, _, err := listIDs(t, c, commerce.Accounts, Query{Filter: "in(id," + strings.Join(ids[:200], ",") + ")"}); err != nil {
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
			stats := expectIDs(t, srv, c, commerce.Orders, Query{Filter: f, Sort: sort})
			if stats.Total <= commerce.OffsetLimit {
				t.Errorf("%s matches %d orders; the test needs more than %d", f, stats.Total, commerce.OffsetLimit)
			}
		}
	}
}

func itoa3(i int) string {
	return string([]byte{byte('0' + i/100), byte('0' + i/10%10), byte('0' + i%10)})
}
