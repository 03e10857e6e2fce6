package reads

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/refresh"
)

// memSnapshots keeps snapshots in memory, as the provider's cache folder
// does on disk, and notes what the last read saved.
type memSnapshots struct {
	mu    sync.Mutex
	m     map[string][]byte
	saved []byte
}

func (s *memSnapshots) Load(name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[name], nil
}

func (s *memSnapshots) Save(name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name], s.saved = data, data
	return nil
}

// cachedRead reads q through the cache, from prev (passed through its
// encoding, as the provider keeps it), and returns the records, the stats,
// the snapshot it kept and the list requests the service received.
func cachedRead[T commerce.Record](t *testing.T, srv *emulator.Server, r *Reads, kind commerce.Kind[T], q listing.Query, prev *refresh.Snapshot) ([]T, runStats, *refresh.Snapshot, int) {
	t.Helper()
	l, err := listing.Plan(r.engine, kind, q)
	if err != nil {
		t.Fatal(err)
	}
	store := &memSnapshots{m: map[string][]byte{}}
	if prev != nil {
		b, err := prev.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		store.m[l.Name()] = b
	}
	r.snapshots = store
	defer func() { r.snapshots = nil }()
	before := srv.Stats().ListRequests[kind.Name]
	var got []T
	stats, err := readCached(context.Background(), r, l, l.Need([]listing.Query{q}), listing.Reader[T]{Emit: func(rec T) error {
		got = append(got, rec)
		return nil
	}})
	if err != nil {
		t.Fatalf("cached read: %v", err)
	}
	var kept *refresh.Snapshot
	if store.saved != nil {
		kept = &refresh.Snapshot{}
		if err := kept.UnmarshalBinary(store.saved); err != nil {
			t.Fatal(err)
		}
	}
	return got, stats, kept, srv.Stats().ListRequests[kind.Name] - before
}

// fullRead lists q in full on the engine, with every record's JSON, and
// counts requests.
func fullRead[T commerce.Record](t *testing.T, srv *emulator.Server, r *Reads, kind commerce.Kind[T], q listing.Query) ([]T, listing.Stats, int) {
	t.Helper()
	q.IncludeJSON = true
	before := srv.Stats().ListRequests[kind.Name]
	l, err := listing.Plan(r.engine, kind, q)
	if err != nil {
		t.Fatal(err)
	}
	var got []T
	stats, err := l.Read(context.Background(), l.Need([]listing.Query{q}), listing.Reader[T]{Emit: func(rec T) error {
		got = append(got, rec)
		return nil
	}})
	if err != nil {
		t.Fatalf("full read: %v", err)
	}
	return got, stats, srv.Stats().ListRequests[kind.Name] - before
}

// sameResult fails unless got is want: the same records in the same
// order, each with the same JSON, and the same total.
func sameResult[T commerce.Record](t *testing.T, got []T, gotTotal int, want []T, wantTotal int) {
	t.Helper()
	if gotTotal != wantTotal {
		t.Errorf("total %d, want %d", gotTotal, wantTotal)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].RecordID() != want[i].RecordID() {
			t.Fatalf("record %d is %s, want %s", i, got[i].RecordID(), want[i].RecordID())
		}
		if got[i].Base().JSON != want[i].Base().JSON {
			t.Fatalf("record %d (%s) differs from a full read:\n got %s\nwant %s", i, got[i].RecordID(), got[i].Base().JSON, want[i].Base().JSON)
		}
	}
}

// An unchanged store: the second read asks the service two questions.
// (The provider's tests hold 60,000 orders to the same.)
func TestRefreshUnchangedOrders(t *testing.T) {
	n := 6000
	srv := emulatortest.Start(t, emulator.Options{Orders: n})
	r := newReads(t, srv)
	q := listing.Query{}
	_, first, snap, full := cachedRead(t, srv, r, commerce.Orders, q, nil)
	if snap == nil || first.Cache != cacheFull {
		t.Fatalf("first read: snapshot %v, cache %q", snap != nil, first.Cache)
	}
	got, stats, snap2, requests := cachedRead(t, srv, r, commerce.Orders, q, snap)
	t.Logf("%d orders: first read %d requests, second %d (%s, %d changed)", n, full, requests, stats.Cache, stats.Changed)
	if stats.Cache != cacheRefreshed || requests > 5 {
		t.Errorf("second read: %s (%s), %d requests; want a refresh of at most 5", stats.Cache, stats.CacheReason, requests)
	}
	if snap2 == nil {
		t.Error("no snapshot after the refresh")
	}
	want, wantStats, _ := fullRead(t, srv, r, commerce.Orders, q)
	sameResult(t, got, stats.Total, want, wantStats.Total)
}

// The line that ends a refresh of an unchanged store says nothing
// changed: the records its look-back read again (updated shortly before
// the snapshot's newest update, which the service may show late) are
// counted as such, not as changes.
func TestUnchangedRefreshSaysNothingChanged(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, Orders: -1, Files: -1})
	// Give the look-back something to read again: 40 accounts updated a
	// moment before the read.
	ids := srv.Accounts()
	for i := range 40 {
		if err := srv.Update("accounts", ids[i*50].ID); err != nil {
			t.Fatal(err)
		}
	}
	logs := &emulatortest.Logs{}
	r := newReads(t, srv, func(c *testConfig) { c.Logger = logs })
	r.snapshots = &memSnapshots{m: map[string][]byte{}}
	for range 2 {
		newRun(r) // each run configures the provider afresh
		if _, err := Read(t.Context(), r, commerce.Accounts, listing.Query{}, listing.Reader[commerce.Account]{Emit: func(commerce.Account) error { return nil }}); err != nil {
			t.Fatal(err)
		}
	}
	lines := logs.Lines()
	var last string
	for _, l := range lines {
		if strings.HasPrefix(l, "INFO: listing finished") {
			last = l
		}
	}
	want := "INFO: listing finished: 3000 accounts in 2 requests, refreshed from the cache: nothing changed (40 read again by the look-back, unchanged)"
	if last != want {
		t.Errorf("the refresh's line:\n%s\nwant:\n%s", last, want)
	}
}

// 25 accounts created and 30 updated: a refresh of at most 8 requests,
// exact, with the updated values. (The provider's tests hold 20,000
// accounts to the same.)
func TestRefreshAccountsAfterCreatesAndUpdates(t *testing.T) {
	n := 3000
	srv := emulatortest.Start(t, emulator.Options{Accounts: n})
	r := newReads(t, srv)
	for _, sort := range []string{"", "-updated_at", "name"} {
		t.Run("sort="+sort, func(t *testing.T) {
			q := listing.Query{Sort: sort}
			_, _, snap, _ := cachedRead(t, srv, r, commerce.Accounts, q, nil)
			ids, _, _ := fullRead(t, srv, r, commerce.Accounts, q)
			var updated []string
			for i := range 30 {
				id := ids[(i*397)%len(ids)].RecordID()
				if err := srv.Update("accounts", id); err != nil {
					t.Fatal(err)
				}
				updated = append(updated, id)
			}
			for range 25 {
				if _, err := srv.Insert("accounts"); err != nil {
					t.Fatal(err)
				}
			}
			got, stats, _, requests := cachedRead(t, srv, r, commerce.Accounts, q, snap)
			t.Logf("refresh: %d requests, %d changed, %s", requests, stats.Changed, stats.Cache)
			if stats.Cache != cacheRefreshed || requests > 8 {
				t.Errorf("%s (%s), %d requests; want a refresh of at most 8", stats.Cache, stats.CacheReason, requests)
			}
			want, wantStats, _ := fullRead(t, srv, r, commerce.Accounts, q)
			sameResult(t, got, stats.Total, want, wantStats.Total)
			for _, id := range updated {
				i := slices.IndexFunc(got, func(a commerce.Account) bool { return a.ID == id })
				if i < 0 || got[i].ExternalRef[:5] != "crm-u" {
					t.Fatalf("updated account %s: not listed with its new external_ref", id)
				}
			}
		})
	}
}

// Deletes, and updates that move records out of the filter: exact, and
// never more requests than a full read and 5%. Pages of 20 make 4,000
// accounts the 200 pages of 20,000 at the default page size, for a tenth
// of the decoding.
func TestRefreshAfterDeletesAndRecordsLeavingTheFilter(t *testing.T) {
	n := 4000
	for _, tc := range []struct {
		name   string
		filter string
		write  func(srv *emulator.Server, ids []string, k int) error
		writes int
	}{
		{"1 delete", "", del, 1},
		{"20 deletes", "", del, 20},
		{"200 deletes", "", del, 200},
		{"3 leave the filter", "like(external_ref,crm-0*)", upd, 3},
		{"40 leave the filter", "like(external_ref,crm-0*)", upd, 40},
		{"half leave the filter", "like(external_ref,crm-0*)", upd, -2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Accounts: n})
			r := newReads(t, srv, smallPages)
			q := listing.Query{Filter: mustFilter(tc.filter)}
			_, _, snap, _ := cachedRead(t, srv, r, commerce.Accounts, q, nil)
			recs, _, _ := fullRead(t, srv, r, commerce.Accounts, q)
			ids := make([]string, len(recs))
			for i, r := range recs {
				ids[i] = r.ID
			}
			writes := tc.writes
			if writes < 0 {
				writes = len(ids) / -writes
			}
			for k := range writes {
				if err := tc.write(srv, ids, k*(len(ids)/writes)+len(ids)/writes/2); err != nil {
					t.Fatal(err)
				}
			}
			want, wantStats, fullRequests := fullRead(t, srv, r, commerce.Accounts, q)
			got, stats, _, requests := cachedRead(t, srv, r, commerce.Accounts, q, snap)
			t.Logf("%s: refresh %d requests (%s %s; %d changed, %d removed), full read %d", tc.name, requests, stats.Cache, stats.CacheReason, stats.Changed, stats.Removed, fullRequests)
			sameResult(t, got, stats.Total, want, wantStats.Total)
			// A refresh that gives way to a full read has spent its first
			// two requests (a count and the changes' first page).
			if bound := max(1.05*float64(fullRequests), float64(fullRequests+2)); float64(requests) > bound {
				t.Errorf("%d requests, a full read takes %d: more than 5%% (or 2 requests) over", requests, fullRequests)
			}
		})
	}
}

// smallPages sets the engine's page size to 20: 4,000 accounts make the
// 200 pages of 20,000 at the default size, for a tenth of the decoding.
func smallPages(c *testConfig) { c.PageSize = 20 }

func del(srv *emulator.Server, ids []string, k int) error { return srv.Delete("accounts", ids[k]) }
func upd(srv *emulator.Server, ids []string, k int) error { return srv.Update("accounts", ids[k]) }

// Orders that enter a filter (an update advances status) are found.
func TestRefreshRecordsEnteringTheFilter(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 8000})
	r := newReads(t, srv)
	q := listing.Query{Filter: mustFilter("eq(status,processing)")}
	_, _, snap, _ := cachedRead(t, srv, r, commerce.Orders, q, nil)
	incomplete, _, _ := fullRead(t, srv, r, commerce.Orders, listing.Query{Filter: mustFilter("eq(status,incomplete)")})
	for i := 0; i < len(incomplete) && i < 30; i++ {
		if err := srv.Update("orders", incomplete[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	got, stats, _, requests := cachedRead(t, srv, r, commerce.Orders, q, snap)
	want, wantStats, _ := fullRead(t, srv, r, commerce.Orders, q)
	t.Logf("%d entered: %d requests, %s", min(30, len(incomplete)), requests, stats.Cache)
	sameResult(t, got, stats.Total, want, wantStats.Total)
	if stats.Cache != cacheRefreshed {
		t.Errorf("read in full: %s", stats.CacheReason)
	}
}

// Writes while the refresh runs: the result is exact, or the refresh
// gives way to a full read, whose result is.
func TestRefreshWithWritesDuringTheRead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(srv *emulator.Server, ids []string) error
	}{
		{"create", func(srv *emulator.Server, _ []string) error { _, err := srv.Insert("accounts"); return err }},
		{"delete", func(srv *emulator.Server, ids []string) error { return srv.Delete("accounts", ids[len(ids)/2]) }},
		{"update", func(srv *emulator.Server, ids []string) error { return srv.Update("accounts", ids[len(ids)/3]) }},
	} {
		for _, at := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s before request %d", tc.name, at), func(t *testing.T) {
				srv := emulatortest.Start(t, emulator.Options{Accounts: 4000})
				r := newReads(t, srv, smallPages)
				q := listing.Query{Filter: mustFilter("like(external_ref,crm-0*)")}
				_, _, snap, _ := cachedRead(t, srv, r, commerce.Accounts, q, nil)
				recs, _, _ := fullRead(t, srv, r, commerce.Accounts, q)
				ids := make([]string, len(recs))
				for i, r := range recs {
					ids[i] = r.ID
				}
				// A second, unrelated deletion before the refresh, so that
				// locate runs too.
				if err := srv.Delete("accounts", ids[10]); err != nil {
					t.Fatal(err)
				}
				var seen atomic.Int32
				srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
					if r.URL.Path == "/v2/accounts" && int(seen.Add(1)) == at {
						if err := tc.write(srv, ids); err != nil {
							t.Error(err)
						}
					}
					return nil
				})
				got, stats, _, _ := cachedRead(t, srv, r, commerce.Accounts, q, snap)
				srv.SetFaults(nil)
				want, wantStats, _ := fullRead(t, srv, r, commerce.Accounts, q)
				t.Logf("%s (%s)", stats.Cache, stats.CacheReason)
				sameResult(t, got, stats.Total, want, wantStats.Total)
			})
		}
	}
}

// A record whose update the snapshot missed (the service showed it late),
// with an updated_at inside the overlap before the high-water mark, is
// read again.
func TestRefreshRecordUpdatedWithinTheOverlap(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000})
	r := newReads(t, srv)
	q := listing.Query{}
	before, _, _ := fullRead(t, srv, r, commerce.Accounts, q)
	late, other := before[100], before[200]
	if err := srv.Update("accounts", late.ID); err != nil { // the update the snapshot misses
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	if err := srv.Update("accounts", other.ID); err != nil { // the newest it sees
		t.Fatal(err)
	}
	_, _, snap, _ := cachedRead(t, srv, r, commerce.Accounts, q, nil)
	// The snapshot as it would be had the service shown the first update
	// only after it was taken: the old record, and the high-water mark of
	// the second update.
	for i, raw := range snap.Records {
		if rec, _, _ := commerce.Accounts.DecodeRecord(raw, true); rec.ID == late.ID {
			snap.Records[i] = []byte(late.JSON)
		}
	}
	got, stats, _, _ := cachedRead(t, srv, r, commerce.Accounts, q, snap)
	want, wantStats, _ := fullRead(t, srv, r, commerce.Accounts, q)
	sameResult(t, got, stats.Total, want, wantStats.Total)
	if stats.Cache != cacheRefreshed {
		t.Errorf("read in full: %s", stats.CacheReason)
	}
}

// The machine's clock plays no part: with the service's clock an hour
// ahead of or behind the machine's, refreshes are exact.
func TestRefreshWithAClockOffByAnHour(t *testing.T) {
	for _, skew := range []time.Duration{time.Hour, -time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Accounts: 4000, Now: func() time.Time { return time.Now().Add(skew) }})
			r := newReads(t, srv, smallPages)
			q := listing.Query{Sort: "-updated_at"}
			_, _, snap, _ := cachedRead(t, srv, r, commerce.Accounts, q, nil)
			recs, _, _ := fullRead(t, srv, r, commerce.Accounts, q)
			for i := range 5 {
				if err := srv.Update("accounts", recs[i*50].ID); err != nil {
					t.Fatal(err)
				}
				if _, err := srv.Insert("accounts"); err != nil {
					t.Fatal(err)
				}
			}
			if err := srv.Delete("accounts", recs[7].ID); err != nil {
				t.Fatal(err)
			}
			got, stats, _, _ := cachedRead(t, srv, r, commerce.Accounts, q, snap)
			want, wantStats, _ := fullRead(t, srv, r, commerce.Accounts, q)
			sameResult(t, got, stats.Total, want, wantStats.Total)
			if stats.Cache != cacheRefreshed {
				t.Errorf("read in full: %s", stats.CacheReason)
			}
		})
	}
}

// Queries a refresh cannot prove exact are read in full, and say why.
func TestRefreshableSaysWhy(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Files: 10, Accounts: 300})
	r := newReads(t, srv)
	for _, tc := range []struct {
		ok   bool
		want string
		fn   func() string
	}{
		{false, "updated_at", func() string { return whyNotRefreshable(t, r, commerce.Files, listing.Query{}) }},
		{false, "max_results", func() string { return whyNotRefreshable(t, r, commerce.Orders, listing.Query{MaxResults: 10}) }},
		{false, "in parts", func() string {
			return whyNotRefreshable(t, r, commerce.Accounts, listing.Query{Filter: mustFilter(longIn(t, srv))})
		}},
		{true, "", func() string { return whyNotRefreshable(t, r, commerce.Accounts, listing.Query{Sort: "name"}) }},
		{true, "", func() string { return whyNotRefreshable(t, r, commerce.Orders, listing.Query{Sort: "-created_at"}) }},
	} {
		why := tc.fn()
		if ok := why == ""; ok != tc.ok || (tc.want != "" && !strings.Contains(why, tc.want)) {
			t.Errorf("got %v %q, want %v naming %q", ok, why, tc.ok, tc.want)
		}
	}
}

// whyNotRefreshable plans q and says why it cannot be refreshed.
func whyNotRefreshable[T commerce.Record](t *testing.T, r *Reads, kind commerce.Kind[T], q listing.Query) string {
	t.Helper()
	l, err := listing.Plan(r.engine, kind, q)
	if err != nil {
		t.Fatal(err)
	}
	return notRefreshable(l, l.Need([]listing.Query{q}))
}

// longIn is an in() of 300 account ids, which one request cannot hold.
func longIn(t *testing.T, srv *emulator.Server) string {
	t.Helper()
	var ids []string
	for _, a := range srv.Accounts()[:300] {
		ids = append(ids, a.ID)
	}
	return "in(id," + strings.Join(ids, ",") + ")"
}

// The count is answered before the changes are asked for. Were both in
// flight at once, a record created between the changes' answer and the
// count's would be in the count alone and hide a record deleted before
// the refresh: the counts would agree on a stale list.
func TestRefreshCountsBeforeAskingForChanges(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000})
	r := newReads(t, srv)
	_, _, snap, _ := cachedRead(t, srv, r, commerce.Accounts, listing.Query{}, nil)
	var early atomic.Int32
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != "/v2/accounts" || !strings.Contains(r.URL.RawQuery, "updated_at") {
			return nil
		}
		counted := false
		for _, done := range srv.Stats().Requests {
			if done.Path == "/v2/accounts" && strings.Contains(done.RawQuery, "page%5Blimit%5D=1&") && done.Status == http.StatusOK {
				counted = true
			}
		}
		if !counted {
			early.Add(1)
		}
		return nil
	})
	for range 5 {
		srv.ResetStats()
		_, stats, _, _ := cachedRead(t, srv, r, commerce.Accounts, listing.Query{}, snap)
		if stats.Cache != cacheRefreshed {
			t.Fatalf("read in full: %s", stats.CacheReason)
		}
	}
	if n := early.Load(); n > 0 {
		t.Fatalf("%d of 5 refreshes asked for the changes before the count was answered", n)
	}
}
