package listing

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
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
	longTest(t) // filter terms past the limit; the race detector has the windows in TestPlanWindowPastOffsetLimit
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000, OrderTieGroups: []int{}})
	c := newClient(t, srv)
	if n := len(mustParse(t, tenTerms)); n != filter.MaxTerms {
		t.Fatalf("the test filter has %d terms", n)
	}
	for _, q := range []Query{
		{Filter: mustFilter(tenTerms)},
		{Filter: mustFilter(tenTerms), Sort: "-created_at"},
		// The consistency buffer merges into the user's created_at bound.
		{Filter: mustFilter(tenTerms), Sort: "-created_at", ConsistencyBuffer: time.Nanosecond},
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
	_, stats, err := listIDs(t, c, commerce.Orders, Query{Filter: mustFilter(tenTerms)})
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
	_, stats, err := listIDs(t, c, commerce.Orders, Query{Filter: mustFilter(ten)})
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
	expectIDs(t, srv, c, commerce.Orders, Query{Filter: mustFilter(nine)})
	// And the consistency buffer, with no room for its term, is applied
	// by the provider instead.
	stats = expectIDs(t, srv, c, commerce.Orders, Query{Filter: mustFilter(ten), MaxResults: 50, ConsistencyBuffer: time.Nanosecond})
	if stats.Listed != 50 {
		t.Errorf("listed %d", stats.Listed)
	}
	if n := maxTermsSent(t, srv); n > filter.MaxTerms {
		t.Errorf("a request carried %d filter terms", n)
	}
}

// An in() of 1,000 ids is split into requests within the service's 8 KB
// (the emulator refuses longer ones with 400) and lists exactly: the ids in
// order, the total the sum of the parts', at a request a page.
func TestListSplitsLongIn(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, Orders: -1, Files: -1})
	c := newClient(t, srv)
	var ids []string
	for i, a := range srv.Accounts() {
		if i%3 == 0 {
			ids = append(ids, a.ID)
		}
	}
	ids = ids[:1000]
	in := "in(id," + strings.Join(ids, ",") + ")"
	for _, sort := range []string{"created_at", "-updated_at", "name"} {
		srv.ResetStats()
		split, err := splitIn(commerce.AccountsEndpoint.Path, mustFilter(in), sort, commerce.DefaultPageSize)
		if err != nil || len(split.Parts) < 5 {
			t.Fatalf("split into %d parts: %v", len(split.Parts), err)
		}
		for i, part := range split.Parts[:len(split.Parts)-1] {
			if n := strings.Count(part.Text(), ","); n%commerce.DefaultPageSize != 0 {
				t.Errorf("sort %s: part %d holds %d ids, not whole pages of %d", sort, i+1, n, commerce.DefaultPageSize)
			}
		}
		got, stats, err := listIDs(t, c, commerce.Accounts, Query{Filter: mustFilter(in), Sort: sort})
		if err != nil {
			t.Fatalf("sort %s: %v", sort, err)
		}
		want := wantAmong(t, srv, ids, sort)
		if !slices.Equal(got, want) || stats.Total != 1000 || stats.Listed != 1000 {
			t.Fatalf("sort %s: %d ids (total %d), want the 1000 in order; first difference at %d", sort, len(got), stats.Total, firstDiff(got, want))
		}
		// Parts of whole pages take the 10 pages the 1,000 records fill;
		// -updated_at's catch-up pass asks once more a part.
		if sent := srv.Stats().ListRequests["accounts"]; sent > 10+len(split.Parts) || sent < 10 {
			t.Errorf("sort %s: %d requests for %d parts", sort, sent, len(split.Parts))
		}
		if n := srv.Stats().StatusCounts[http.StatusBadRequest]; n != 0 {
			t.Errorf("sort %s: %d requests refused", sort, n)
		}
	}
	// max_results over the merged list.
	got, _, err := listIDs(t, c, commerce.Accounts, Query{Filter: mustFilter(in), MaxResults: 250})
	if want := wantAmong(t, srv, ids, "created_at")[:250]; err != nil || !slices.Equal(got, want) {
		t.Errorf("max_results 250: %d ids, %v", len(got), err)
	}
}

// 4,000 ids in one in(): parts of whole pages, so the read costs the 40
// pages the records fill, not a third page for a 201st id in every part
// (59 requests); exact and in order.
func TestListLongInAlongPages(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5000, Orders: -1, Files: -1})
	c := newClient(t, srv)
	var ids []string
	for _, a := range srv.Accounts()[:4000] {
		ids = append(ids, a.ID)
	}
	in := "in(id," + strings.Join(ids, ",") + ")"
	split, err := splitIn(commerce.AccountsEndpoint.Path, mustFilter(in), "", commerce.DefaultPageSize)
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetStats()
	got, stats, err := listIDs(t, c, commerce.Accounts, Query{Filter: mustFilter(in)})
	if err != nil {
		t.Fatal(err)
	}
	if want := wantAmong(t, srv, ids, "created_at"); !slices.Equal(got, want) {
		t.Fatalf("%d ids, want the 4000 in order; first difference at %d", len(got), firstDiff(got, want))
	}
	sent := srv.Stats().ListRequests["accounts"]
	t.Logf("4000 ids: %d parts, %d list requests (%d counted by the engine)", len(split.Parts), sent, stats.Pages)
	if sent > 2*len(split.Parts)+4 || sent != stats.Pages {
		t.Errorf("%d list requests for %d parts (the engine counted %d): want at most %d", sent, len(split.Parts), stats.Pages, 2*len(split.Parts)+4)
	}
}

// wantAmong is the accounts with the given ids in the order sort promises
// (the emulator's oracle takes no filter longer than one request).
func wantAmong(t *testing.T, srv *emulator.Server, ids []string, sort string) []string {
	t.Helper()
	in := map[string]bool{}
	for _, id := range ids {
		in[id] = true
	}
	var out []string
	for _, id := range wantIDs(t, srv, commerce.AccountsEndpoint, "", sort) {
		if in[id] {
			out = append(out, id)
		}
	}
	return out
}

// What no split fixes is refused before anything is sent: an in() of more
// than filter.MaxInValues values, and a filter too long without the in().
func TestListRefusesWhatNoSplitFixes(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 100})
	c := newClient(t, srv)
	many := make([]string, filter.MaxInValues+1)
	for i := range many {
		many[i] = fmt.Sprintf("10000000-0000-4000-8000-%012d", i)
	}
	srv.ResetStats()
	_, _, err := listIDs(t, c, commerce.Accounts, Query{Filter: mustFilter("in(id," + strings.Join(many, ",") + ")")})
	var limit *FilterLimitError
	if !errors.As(err, &limit) || !strings.Contains(err.Error(), "8192") || !strings.Contains(err.Error(), "10000 values") {
		t.Errorf("err = %v, want a FilterLimitError over 8192 bytes naming the 10000 values a split takes", err)
	}
	long := "like(name," + strings.Repeat("x", 8200) + ")"
	if _, _, err := listIDs(t, c, commerce.Accounts, Query{Filter: mustFilter(long)}); !errors.As(err, &limit) {
		t.Errorf("err = %v, want a FilterLimitError", err)
	}
	if got := srv.Stats().ListRequests["accounts"]; got != 0 {
		t.Errorf("%d list requests went out", got)
	}
}

func TestListDateFormsPastOffsetLimit(t *testing.T) {
	longTest(t) // filter terms past the limit; the race detector has the windows in TestPlanWindowPastOffsetLimit
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
			stats := expectIDs(t, srv, c, commerce.Orders, Query{Filter: mustFilter(f), Sort: sort})
			if stats.Total <= commerce.OffsetLimit {
				t.Errorf("%s matches %d orders; the test needs more than %d", f, stats.Total, commerce.OffsetLimit)
			}
		}
	}
}
