package listing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// expectIDs lists resource through c and compares with the emulator's own
// answer for the same filter and sort, in order.
func expectIDs[T commerce.Record](t *testing.T, srv *emulator.Server, c *Engine, kind commerce.Kind[T], q Query) Stats {
	t.Helper()
	got, stats, err := listIDs(t, c, kind, q)
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	want := wantIDs(t, srv, kind.Endpoint, q.Filter.Text(), q.Sort)
	if q.MaxResults > 0 && len(want) > q.MaxResults {
		want = want[:q.MaxResults]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %d ids, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	return stats
}

// pageBudget is the request ceiling of a listing at pages of 100 records
// (the tests' and benchmarks' size): one request per 97 records, as
// overlapping pages share three (sharedRecords), one more per
// 10,000-record window, one spare, and one per 50,000 records for the
// page boundaries whose three shared records tie (completeTie): at the
// emulator's stores, where one record in 25 shares its predecessor's
// time, about one boundary in 625.
func pageBudget(n, windows int) int {
	const newPerPage = 100 - 3
	return (n+newPerPage-1)/newPerPage + windows + 1 + n/50000
}

func TestListPastOffsetLimit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000})
	c := newClient(t, srv)
	stats := expectIDs(t, srv, c, commerce.Orders, Query{})
	if stats.Total != 25000 || stats.Listed != 25000 {
		t.Errorf("total %d, listed %d; want 25000", stats.Total, stats.Listed)
	}
	if stats.Windows != 3 {
		t.Errorf("windows = %d, want 3", stats.Windows)
	}
	if budget := pageBudget(25000, stats.Windows); stats.Pages > budget {
		t.Errorf("page requests = %d, budget %d", stats.Pages, budget)
	}
	if got := srv.Stats().ListRequests["orders"]; got != stats.Pages {
		t.Errorf("emulator saw %d list requests, engine counted %d", got, stats.Pages)
	}
}

// A store may set its offset limit below the documented 10,000 (a soft
// limit is the store's setting). The first window that meets the lower
// limit ends at the last page the store served, the listing goes on from
// there, and the engine's later windows of that endpoint stay below it.
func TestListPastAStoresLowerOffsetLimit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5000, Orders: 5000, Files: 5000, OffsetLimit: 1234})
	c := newClient(t, srv)
	for _, tc := range []struct {
		name string
		list func(*testing.T) Stats
	}{
		{"accounts by created_at", func(t *testing.T) Stats { return expectIDs(t, srv, c, commerce.Accounts, Query{Sort: "created_at"}) }},
		{"accounts by name", func(t *testing.T) Stats { return expectIDs(t, srv, c, commerce.Accounts, Query{Sort: "-name"}) }},
		{"orders", func(t *testing.T) Stats { return expectIDs(t, srv, c, commerce.Orders, Query{}) }},
		{"files", func(t *testing.T) Stats { return expectIDs(t, srv, c, commerce.Files, Query{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.Stats().StatusCounts[400]
			stats := tc.list(t)
			if stats.Listed != 5000 {
				t.Errorf("listed %d, want 5000", stats.Listed)
			}
			t.Logf("%d windows, %d page requests, %d refused", stats.Windows, stats.Pages, srv.Stats().StatusCounts[400]-before)
		})
	}
	// The engine remembers: a second listing meets no refusal.
	before := srv.Stats().StatusCounts[400]
	expectIDs(t, srv, c, commerce.Accounts, Query{Sort: "updated_at"})
	if refused := srv.Stats().StatusCounts[400] - before; refused != 0 {
		t.Errorf("the second listing of accounts met %d refusals; want 0", refused)
	}
}

func TestListSortOrders(t *testing.T) {
	longTest(t)
	// 20,000 orders put the default tie group of 350 in the middle, across
	// the first window boundary.
	srv := emulatortest.Start(t, emulator.Options{Orders: 20000, OrderTieGroups: []int{350, 350, 350}})
	c := newClient(t, srv)
	for _, sort := range []string{"created_at", "-created_at", "updated_at", "-updated_at", "id", "-id"} {
		t.Run(sort, func(t *testing.T) {
			expectIDs(t, srv, c, commerce.Orders, Query{Sort: sort})
		})
	}
}

func TestListAccountsByName(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 12000})
	c := newClient(t, srv)
	expectIDs(t, srv, c, commerce.Accounts, Query{Sort: "name"})
	expectIDs(t, srv, c, commerce.Accounts, Query{Sort: "-name"})
}

func TestListTieGroupAcrossPages(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 1000, OrderTieGroups: []int{333}})
	c := newClient(t, srv, func(c *testConfig) { c.PageSize = 30 })
	stats := expectIDs(t, srv, c, commerce.Orders, Query{})
	if stats.Listed != 1000 {
		t.Errorf("listed %d", stats.Listed)
	}
	expectIDs(t, srv, c, commerce.Orders, Query{Sort: "-created_at"})
}

func TestListTieGroupLargerThanWindow(t *testing.T) {
	longTest(t)
	// 12,000 orders share one created_at: no keyset bound on created_at can
	// split them, and orders cannot be sorted or bounded by id, so the
	// engine lists them in windows of with_tax, then goes on after them.
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000, OrderTieGroups: []int{12000}})
	c := newClient(t, srv)
	for _, sort := range []string{"created_at", "-created_at"} {
		t.Run(sort, func(t *testing.T) {
			got, stats, err := listIDs(t, c, commerce.Orders, Query{Sort: sort})
			if err != nil {
				t.Fatal(err)
			}
			// The tie group comes in id order, which the service does not
			// promise; compare as sets within each created_at, and in order
			// across them.
			want := emulatortest.ExpectedIDs(t, srv, "orders", "", sort)
			if len(got) != len(want) || stats.Listed != 25000 {
				t.Fatalf("listed %d, want %d", len(got), len(want))
			}
			created := map[string]string{}
			for _, o := range srv.Orders() {
				created[o.ID] = o.CreatedAt.Format(filter.TimestampLayout)
			}
			seen := map[string]bool{}
			for i, id := range got {
				if seen[id] {
					t.Fatalf("%s listed twice", id)
				}
				seen[id] = true
				if created[id] != created[want[i]] {
					t.Fatalf("position %d has created_at %s, want %s", i, created[id], created[want[i]])
				}
			}
		})
	}
}

func TestListMaxResults(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000})
	c := newClient(t, srv)
	for _, limit := range []int{1, 150, 10000, 10001, 12345} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			srv.ResetStats()
			stats := expectIDs(t, srv, c, commerce.Orders, Query{MaxResults: limit, CountMatches: true})
			if stats.Total != 25000 || !stats.TotalKnown || !stats.Count.Exact() {
				t.Errorf("total = %d (known %v, count %+v), want the service's exact 25000", stats.Total, stats.TotalKnown, stats.Count)
			}
			// The cut needs the records up to the limit, the rest of the
			// tie group it falls in (which come by id), and one record
			// past them that shows the group ended.
			reach := min(limit+tieTail(t, srv, limit)+1, 25000)
			// One page more where that record opens a window: its plan
			// reads a page past the repeated boundary group.
			if budget := pageBudget(reach, stats.Windows) + 1; stats.Pages > budget {
				t.Errorf("max_results %d cost %d page requests, budget %d", limit, stats.Pages, budget)
			}
			// Within one window, not one page more than the records need.
			if need := (reach + 99) / 100; reach <= commerce.OffsetLimit && stats.Pages != need {
				t.Errorf("max_results %d cost %d page requests, want %d", limit, stats.Pages, need)
			}
		})
	}
}

func TestListEmpty(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 100})
	c := newClient(t, srv)
	ids, stats, err := listIDs(t, c, commerce.Orders, Query{Filter: mustFilter("eq(status,no-such-status)")})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 0 || stats.Total != 0 || stats.Pages != 1 {
		t.Errorf("ids %v, total %d, pages %d; want none, 0, and a single request", ids, stats.Total, stats.Pages)
	}
}

func TestListHostileNames(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 100})
	c := newClient(t, srv)
	for _, a := range srv.Accounts()[:25] {
		expr := filter.Expr{filter.NewTerm(filter.Eq, "name", a.Name)}.String()
		ids, _, err := listIDs(t, c, commerce.Accounts, Query{Filter: mustFilter(expr)})
		if err != nil {
			t.Fatalf("name %q (filter %s): %v", a.Name, expr, err)
		}
		if len(ids) != 1 || ids[0] != a.ID {
			t.Errorf("name %q (filter %s): got %v, want [%s]", a.Name, expr, ids, a.ID)
		}
	}
}

func TestListFlatForm(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000, FlatTimestamps: true})
	c := newClient(t, srv)
	expectIDs(t, srv, c, commerce.Orders, Query{})
}

func TestListFilteredPastOffsetLimit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 40000})
	c := newClient(t, srv)
	expectIDs(t, srv, c, commerce.Orders, Query{Filter: mustFilter("eq(status,complete):like(email,*@example.com)"), Sort: "-created_at"})
}

func TestListKeysetRefused(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if strings.Contains(r.URL.Query().Get("filter"), "created_at") {
			return &emulator.Fault{Status: http.StatusBadRequest}
		}
		return nil
	})
	c := newClient(t, srv)
	_, stats, err := listIDs(t, c, commerce.Orders, Query{})
	var limitErr *OffsetLimitError
	if !errors.As(err, &limitErr) {
		t.Fatalf("error = %v, want *OffsetLimitError", err)
	}
	if limitErr.Count.N != 12000 || limitErr.Matches() != "12000" || limitErr.Listed != 10000 || stats.Listed != 10000 {
		t.Errorf("count %v, listed %d", limitErr.Count, limitErr.Listed)
	}
}

func TestListStopsOnCancel(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5000})
	c := newClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	listed := 0
	_, err := List(ctx, c, commerce.Orders, Query{}, func(commerce.Order) error {
		if listed++; listed == 300 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

// tieTail is how many orders after the first limit (in created_at order)
// share the created_at of the last of them.
func tieTail(t testing.TB, srv *emulator.Server, limit int) int {
	created := map[string]time.Time{}
	for _, o := range srv.Orders() {
		created[o.ID] = o.CreatedAt.Truncate(time.Millisecond)
	}
	ids := emulatortest.SortedIDs(t, srv, "orders", "", "created_at")
	n := 0
	for j := limit; j < len(ids) && created[ids[j]].Equal(created[ids[limit-1]]); j++ {
		n++
	}
	return n
}
