package listing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// rangeBudget is the request bound of a listing in range windows: every
// window costs its records' pages, which share three records (pageSize-3
// new records a page), and a window that had to be cut costs its first
// page on top. Summed over the windows that were listed, that is at most
// ceil(N/(pageSize-3)) plus one per window.
func rangeBudget(n, pageSize, windows int) int { return (n+pageSize-4)/(pageSize-3) + windows }

func TestListFilesInRangeWindows(t *testing.T) {
	for _, n := range []int{50, 3000, 25000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Files: n})
			c := newClient(t, srv)
			stats := expectIDs(t, srv, c, commerce.Files, Query{})
			if stats.Total != n || stats.Listed != n || stats.Strategy != strategyWindowsSortedHere {
				t.Errorf("total %d, listed %d, strategy %q; want %d, %d, %q", stats.Total, stats.Listed, stats.Strategy, n, n, strategyWindowsSortedHere)
			}
			if budget := rangeBudget(n, 100, stats.Windows); stats.Pages > budget {
				t.Errorf("%d page requests in %d windows; bound %d", stats.Pages, stats.Windows, budget)
			}
			if n <= commerce.OffsetLimit && stats.Windows != 1 {
				t.Errorf("%d files took %d windows; one offset window holds them", n, stats.Windows)
			}
			for _, r := range srv.Stats().Requests {
				if strings.Contains(r.RawQuery, "sort=") {
					t.Fatalf("a request asked files for a sort: %s", r.RawQuery)
				}
			}
			t.Logf("%d files: %d page requests, %d windows", n, stats.Pages, stats.Windows)
		})
	}
}

func TestListFilesSortedByTheProvider(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Files: 12000, FileSizeTieGroups: []int{40}})
	c := newClient(t, srv)
	for _, q := range []Query{
		{Sort: "-created_at"},
		{Sort: "file_size"},
		{Sort: "-file_size", MaxResults: 25},
		{Sort: "id", Filter: mustFilter("like(file_name,*.png)")},
		{Filter: mustFilter("ge(file_size,1048576):lt(file_size,4194304)"), MaxResults: 10001},
	} {
		t.Run(fmt.Sprintf("%s %s %d", q.Sort, q.Filter, q.MaxResults), func(t *testing.T) {
			stats := expectIDs(t, srv, c, commerce.Files, q)
			if want := emulatortest.SortedIDs(t, srv, "files", q.Filter.Text(), "id"); stats.Total != len(want) {
				t.Errorf("total %d, want %d", stats.Total, len(want))
			}
		})
	}
}

func TestListFilesTieGroupOverTheLimit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Files: 10500, FileSizeTieGroups: []int{10001}})
	c := newClient(t, srv)
	_, stats, err := listIDs(t, c, commerce.Files, Query{})
	var ue *UnlistableError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v, want an UnlistableError", err)
	}
	for _, want := range []string{"10001 files have file_size = ", "10000", "like(file_name,...)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if stats.Pages > 20 {
		t.Errorf("%d page requests before giving up; the cuts should isolate the tie group at once", stats.Pages)
	}
	// A filter that leaves fewer than 10,001 of them makes it listable.
	expectIDs(t, srv, c, commerce.Files, Query{Filter: mustFilter("like(file_name,*.png)")})
}

// TestListFilesWritesDuringRangeWindows inserts and deletes files while a
// listing of 25,000 runs in range windows: every file that existed before
// and after is listed, once, and no file that never existed.
func TestListFilesWritesDuringRangeWindows(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Files: 25000})
	before := map[string]bool{}
	victims := srv.Files()
	for _, f := range victims {
		before[f.ID] = true
	}
	var mu sync.Mutex
	inserted := map[string]bool{}
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		i := n.Add(1)
		if r.URL.Path != commerce.FilesEndpoint.Path || i%3 != 0 {
			return nil
		}
		f := srv.InsertFile()
		mu.Lock()
		inserted[f.ID] = true
		mu.Unlock()
		_ = srv.DeleteFile(victims[int(i*7919)%len(victims)].ID)
		return nil
	})
	c := newClient(t, srv)
	got, stats, err := listWithin(t, c, commerce.Files, Query{})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, id := range got {
		mu.Lock()
		known := before[id] || inserted[id]
		mu.Unlock()
		if listed[id] || !known {
			t.Fatalf("%s listed twice or never existed", id)
		}
		listed[id] = true
	}
	missed := 0
	for _, f := range srv.Files() {
		if before[f.ID] && !listed[f.ID] {
			missed++
		}
	}
	if missed > 0 {
		t.Fatalf("%d files existed before and after the listing but were not listed", missed)
	}
	t.Logf("%d listed in %d pages and %d windows, %d requests in all", len(got), stats.Pages, stats.Windows, n.Load())
}

// TestListServiceIgnoresSort plays a store that accepts sort= on accounts
// and ignores it: the engine sees the first page out of order (timestamps
// and ids, which it can check), switches once, and lists in the service's
// order, sorting the result itself.
func TestListServiceIgnoresSort(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, IgnoreSort: []string{"accounts"}})
	logs := &emulatortest.Logs{}
	c := newClient(t, srv, func(cfg *testConfig) { cfg.Logger = logs })
	stats := expectSortedHere(t, srv, c, commerce.Accounts, Query{})
	if stats.Strategy != strategyWindowsSortedHere {
		t.Errorf("strategy %q, want %q", stats.Strategy, strategyWindowsSortedHere)
	}
	expectSortedHere(t, srv, c, commerce.Accounts, Query{Sort: "-updated_at", MaxResults: 10})
	if got := logs.Count("does not sort this endpoint as documented"); got != 1 {
		t.Errorf("the switch was logged %d times, want once per endpoint and client", got)
	}
	expectSortedHere(t, srv, c, commerce.Accounts, Query{Sort: "-name"})
	// A fresh client must find out again, also when the order asked for is
	// by id, a text the engine checks bytewise (ids are UUIDs): before, a
	// store ignoring sort=id lost records silently past the offset limit.
	fresh := newClient(t, srv)
	stats = expectSortedHere(t, srv, fresh, commerce.Accounts, Query{Sort: "-id"})
	if stats.Strategy != strategyWindowsSortedHere {
		t.Errorf("sort -id on a store that ignores it: strategy %q", stats.Strategy)
	}
}

// TestListServiceIgnoresSortBehindAnOrderedFirstPage plays a store that
// ignores sort= whose own order (newest first) gives a first page in the
// order asked for: the accounts created last were never updated, so they
// come in -updated_at order too, and the records out of it come pages
// later, after the listing handed records out (nightly seed 2002551). One
// request for one record in the reverse order tells the two apart; a store
// that sorts pays that request only where the first page is in creation
// order.
func TestListServiceIgnoresSortBehindAnOrderedFirstPage(t *testing.T) {
	for _, ignores := range []bool{true, false} {
		t.Run(fmt.Sprintf("ignores=%v", ignores), func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Accounts: 3000})
			for range 150 { // more than a page of 100
				srv.InsertAccount()
			}
			if ignores {
				srv.SetIgnoreSort("accounts")
			}
			want := strategyKeyset
			if ignores {
				want = strategyWindowsSortedHere
			}
			for _, q := range []Query{{Sort: "-updated_at", MaxResults: 2000}, {Sort: "-id"}, {Sort: "created_at"}} {
				srv.ResetStats()
				stats := expectSortedHere(t, srv, newClient(t, srv), commerce.Accounts, q)
				if stats.Strategy != want {
					t.Errorf("sort %s: strategy %q, want %q", q.Sort, stats.Strategy, want)
				}
				probes := 0
				for _, r := range srv.Stats().Requests {
					if q, _ := url.ParseQuery(r.RawQuery); q.Get("page[limit]") == "1" {
						probes++
					}
				}
				// Only the first page of -updated_at is in creation order
				// too; a first page out of order needs no probe.
				wantProbes := 0
				if q.Sort == "-updated_at" {
					wantProbes = 1
				}
				if probes != wantProbes {
					t.Errorf("sort %s: %d requests for one record in the reverse order, want %d", q.Sort, probes, wantProbes)
				}
			}
		})
	}
}

func TestListServiceIgnoresSortPastTheLimit(t *testing.T) {
	// Accounts have no range attribute to cut by, but the service bounds
	// their ids: past the offset limit a store that ignores sort is listed
	// in spans of ids, completely, whatever the order asked for; before,
	// the engine could only say that it could not.
	srv := emulatortest.Start(t, emulator.Options{Accounts: 10500, IgnoreSort: []string{"accounts"}})
	// (-created_at is the store's own order, so ignoring it changes nothing.)
	for _, sort := range []string{"", "created_at", "id", "-id", "name", "-updated_at"} {
		t.Run(sort, func(t *testing.T) {
			stats := expectSortedHere(t, srv, newClient(t, srv), commerce.Accounts, Query{Sort: sort, MaxResults: 10001})
			t.Logf("%d pages", stats.Pages)
		})
	}
}

// TestListServiceRefusesSort plays a store that answers 400 to sort= on
// accounts, as the real service does on files.
func TestListServiceRefusesSort(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 500})
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path == commerce.AccountsEndpoint.Path && r.URL.Query().Has("sort") {
			return &emulator.Fault{Status: http.StatusBadRequest,
				Body: `{"errors":[{"status":400,"title":"Bad Request","detail":"Sorting is not supported on this endpoint"}]}`, ContentType: "application/json"}
		}
		return nil
	})
	c := newClient(t, srv)
	stats := expectSortedHere(t, srv, c, commerce.Accounts, Query{Sort: "-created_at"})
	if stats.Strategy != strategyWindowsSortedHere {
		t.Errorf("strategy %q", stats.Strategy)
	}
	sorted := 0
	for _, r := range srv.Stats().Requests {
		if strings.Contains(r.RawQuery, "sort=") {
			sorted++
		}
	}
	if sorted != 1 {
		t.Errorf("%d requests carried sort=; after the first refusal none should", sorted)
	}
}

func TestListConsistencyBuffer(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 3000, Files: 3000})
	c := newClient(t, srv)
	for _, tc := range []struct {
		name    string
		kind    string
		times   func() []time.Time
		listAll func(cut time.Time) ([]string, Stats, error)
	}{
		{"orders, filtered by the service", "orders", func() (out []time.Time) {
			for _, o := range srv.Orders() {
				out = append(out, o.CreatedAt)
			}
			return out
		}, func(cut time.Time) ([]string, Stats, error) { return idsCutAt(c, commerce.Orders, cut) }},
		{"files, dropped by the provider", "files", func() (out []time.Time) {
			for _, f := range srv.Files() {
				out = append(out, f.CreatedAt)
			}
			return out
		}, func(cut time.Time) ([]string, Stats, error) { return idsCutAt(c, commerce.Files, cut) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			times := tc.times()
			slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
			cut := times[len(times)*2/3]
			got, stats, err := tc.listAll(cut)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if tc.kind != "files" {
				want = emulatortest.SortedIDs(t, srv, tc.kind, "lt(created_at,"+cut.UTC().Format(filter.TimestampLayout)+")", "created_at")
			} else {
				// Files cannot be filtered by time: compute it from the records.
				all := emulatortest.SortedIDs(t, srv, "files", "", "created_at")
				created := map[string]time.Time{}
				for _, f := range srv.Files() {
					created[f.ID] = f.CreatedAt
				}
				for _, id := range all {
					if created[id].Before(cut) {
						want = append(want, id)
					}
				}
			}
			if !slices.Equal(got, want) || stats.Total != len(want) {
				t.Fatalf("listed %d (total %d), want %d created before %v", len(got), stats.Total, len(want), cut)
			}
		})
	}
}

// expectSortedHere is expectIDs for a listing the provider sorts itself,
// whatever the capability table says: ties by id.
func expectSortedHere[T commerce.Record](t *testing.T, srv *emulator.Server, c *Engine, kind commerce.Kind[T], q Query) Stats {
	t.Helper()
	got, stats, err := listIDs(t, c, kind, q)
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	sort := q.Sort
	if sort == "" {
		sort = kind.DefaultSort
	}
	want, err := srv.SortedIDs(kind.Name, q.Filter.Text(), sort)
	if err != nil {
		t.Fatal(err)
	}
	if q.MaxResults > 0 && len(want) > q.MaxResults {
		want = want[:q.MaxResults]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %d ids, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	return stats
}

// idsCutAt lists every record of kind created before cut.
func idsCutAt[T commerce.Record](c *Engine, kind commerce.Kind[T], cut time.Time) ([]string, Stats, error) {
	var ids []string
	stats, err := readAlone(context.Background(), c, kind, Query{}, alone[T]{cut: cut, to: emitters[T]{emit: func(r T) error {
		ids = append(ids, r.RecordID())
		return nil
	}}})
	return ids, stats, err
}
