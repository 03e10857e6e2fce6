package listing

// The engine's fault cases (the transport's are internal/client's
// faults_*_test.go): writes during the listing.

import (
	"context"
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
)

func TestFaultWritesDuringListingHeavy(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000, OrderTieGroups: []int{300, 300}})
	before := map[string]bool{}
	for _, o := range srv.Orders() {
		before[o.ID] = true
	}
	victims := srv.Orders()
	var mu sync.Mutex
	inserted := map[string]bool{}
	var n, writes atomic.Int64
	// Every other list request, synchronously before it is answered: two
	// inserts, three updates of old records, two deletes.
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		i := n.Add(1)
		if !isOrdersList(r) || i%2 != 0 {
			return nil
		}
		for k := range int64(2) {
			o := srv.InsertOrder()
			mu.Lock()
			inserted[o.ID] = true
			mu.Unlock()
			_ = k
		}
		for k := range int64(3) {
			_, _ = srv.UpdateOrder(victims[int(i*37+k*1009)%len(victims)].ID)
		}
		for k := range int64(2) {
			_ = srv.DeleteOrder(victims[int(i*101+k*503+13)%len(victims)].ID)
		}
		writes.Add(7)
		return nil
	})
	c := newClient(t, srv)
	for _, sort := range []string{"created_at", "updated_at", "-created_at", "-updated_at"} {
		t.Run(sort, func(t *testing.T) {
			var got, late []string
			ctx, cancel := context.WithTimeout(context.Background(), listDeadline)
			defer cancel()
			_, err := readAlone(ctx, c, commerce.Orders, Query{Sort: sort}, alone[commerce.Order]{to: emitters[commerce.Order]{
				emit: func(r commerce.Order) error { got = append(got, r.RecordID()); return nil },
				late: func(r commerce.Order) error { late = append(late, r.RecordID()); return nil },
			}})
			if err != nil {
				t.Fatal(err)
			}
			got = append(late, got...)
			listed := map[string]bool{}
			for _, id := range got {
				if listed[id] {
					t.Fatalf("%s listed twice", id)
				}
				listed[id] = true
				mu.Lock()
				known := before[id] || inserted[id]
				mu.Unlock()
				if !known {
					t.Fatalf("%s was listed but never existed", id)
				}
			}
			after := map[string]bool{}
			for _, o := range srv.Orders() {
				after[o.ID] = true
			}
			missed := 0
			for id := range before {
				if after[id] && !listed[id] {
					missed++
				}
			}
			if missed > 0 {
				t.Fatalf("%d records existed before and after the listing but were not listed", missed)
			}
			t.Logf("%d listed (%d late), %d writes so far", len(got), len(late), writes.Load())
		})
	}
}

// An update moves its record in an order on updated_at, and every record
// between its old and new place shifts by one, while the count stays as
// it was. In updated_at, pages of a filter that names ids must overlap
// too: with pages end to end, a record slid back from the next page into
// one already read and was lost (store matrix seed 1,677,577). In
// -updated_at records only slide on, into a page still to come.
func TestUpdatesSlideNoNamedRecordBetweenPages(t *testing.T) {
	for _, sort := range []string{"updated_at", "-updated_at"} {
		t.Run(sort, func(t *testing.T) { testUpdatesSlideNoNamedRecord(t, sort) })
	}
}

func testUpdatesSlideNoNamedRecord(t *testing.T, sort string) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 300, Orders: -1, Files: -1})
	named := srv.Accounts()[:150]
	ids := make([]string, len(named))
	for i, a := range named {
		ids[i] = a.ID
	}
	q := Query{Filter: mustFilter("in(id," + strings.Join(ids, ",") + ")"), Sort: sort}
	want := wantIDs(t, srv, commerce.AccountsEndpoint, "in(id,"+strings.Join(ids, ",")+")", sort)
	// Before each list request is answered, the named record updated
	// longest ago is updated: every record it passes moves one place; one
	// request at a time, so that every update falls between two pages.
	victim := func(i int) string { return want[i] }
	if sort[0] == '-' {
		victim = func(i int) string { return want[len(want)-1-i] }
	}
	var mu sync.Mutex
	updated := map[string]bool{}
	next := 0
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != commerce.AccountsEndpoint.Path {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if next < len(want) {
			if _, err := srv.UpdateAccount(victim(next)); err == nil {
				updated[victim(next)] = true
			}
			next++
		}
		return nil
	})
	c := newClient(t, srv, func(c *testConfig) { c.PageSize = 10; c.MaxParallelRequests = 1 })
	got, _, err := listWithin(t, c, commerce.Accounts, q)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for _, id := range got {
		listed[id]++
	}
	var still []string // never updated: in the same order before, during and after
	for _, id := range want {
		if !updated[id] {
			still = append(still, id)
		}
		if listed[id] > 1 {
			t.Errorf("%s listed %d times", id, listed[id])
		}
	}
	var order []string
	for _, id := range got {
		if !updated[id] {
			order = append(order, id)
		}
	}
	if !slices.Equal(order, still) {
		t.Fatalf("of %d records no write touched, %d were listed; the first difference at place %d (%d updates)", len(still), len(order), firstDiff(order, still), len(updated))
	}
}

// TestUpdatesWhileAPageWaits plays the order in which CI's rehearsal once
// got a window's pages: sort -updated_at over a filter that names ids,
// whose pages do not overlap (see stride), and the window's second page
// answered only after the pages behind it had come, each of them after
// an update that moved the oldest named account to the front. That page
// then starts with accounts updated during the read, behind an account
// of the first page that no write touched: the window changed, which the
// accounts it repeats show too, and no order was broken. It must be read
// again, not fail as if the service sorted wrongly.
func TestUpdatesWhileAPageWaits(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 300, Orders: -1, Files: -1})
	ids := make([]string, 150)
	for i, a := range srv.Accounts()[:150] {
		ids[i] = a.ID
	}
	in := "in(id," + strings.Join(ids, ",") + ")"
	want := wantIDs(t, srv, commerce.AccountsEndpoint, in, "-updated_at")
	var mu sync.Mutex
	updated := map[string]bool{}
	held := false
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != commerce.AccountsEndpoint.Path {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if victim := want[len(want)-1-len(updated)]; len(updated) < len(want)/2 {
			if _, err := srv.UpdateAccount(victim); err == nil {
				updated[victim] = true
			}
		}
		if !held && r.URL.Query().Get("page[offset]") == "10" {
			held = true
			return &emulator.Fault{Delay: 300 * time.Millisecond}
		}
		return nil
	})
	c := newClient(t, srv, func(c *testConfig) { c.PageSize = 10; c.MaxParallelRequests = 8 })
	got, _, err := listWithin(t, c, commerce.Accounts, Query{Filter: mustFilter(in), Sort: "-updated_at"})
	if err != nil {
		t.Fatal(err)
	}
	if !held {
		t.Fatal("no request asked for page[offset]=10: the test no longer holds the window's second page")
	}
	var still, order []string // accounts no write touched, in want's order and as listed
	for _, id := range want {
		if !updated[id] {
			still = append(still, id)
		}
	}
	listed := map[string]int{}
	for _, id := range got {
		if listed[id]++; listed[id] == 2 {
			t.Errorf("%s listed twice", id)
		}
		if !updated[id] {
			order = append(order, id)
		}
	}
	if !slices.Equal(order, still) {
		t.Fatalf("of %d accounts no write touched, %d were listed; the first difference at place %d (%d updates)", len(still), len(order), firstDiff(order, still), len(updated))
	}
	for id := range updated {
		if listed[id] == 0 {
			t.Errorf("%s, updated during the read, was not listed", id)
		}
	}
}

// TestTiesAcrossABoundaryUnderDeletes plays the store the store matrix
// found at seed 1,680,094: it gives equal sort values in another order on
// every request and no count, and the oldest account is deleted between
// the reads of a window's first two pages (one request at a time, pages
// of 10 that share their records at places 7 to 9). There a tie group
// (4 accounts at places 7 to 10) covers the shared records, so that they
// can come back in their places by the shuffle alone (1 in 24) while a
// partner of theirs is in neither page; the group is then read once more
// (completeTie). Each seed draws other shuffles (as many requests before
// the read); every account present throughout must be listed once, in
// order (ties by id). Without completeTie 7 of the 120 fail.
func TestTiesAcrossABoundaryUnderDeletes(t *testing.T) {
	for seed := int64(1); seed <= 120; seed++ {
		srv := emulatortest.Start(t, emulator.Options{Seed: seed, Accounts: 18, AccountTieGroups: []int{4},
			Orders: -1, Files: -1, ShuffleTies: true, Counting: emulator.Counting{Method: emulator.CountNone}})
		c := newClient(t, srv, func(c *testConfig) { c.PageSize = 10; c.MaxParallelRequests = 1 })
		for range seed { // each request draws the next shuffle
			if _, _, err := listWithin(t, c, commerce.Accounts, Query{Sort: "id", MaxResults: 1}); err != nil {
				t.Fatal(err)
			}
		}
		oldest := wantIDs(t, srv, commerce.AccountsEndpoint, "", "created_at")[0]
		var requests atomic.Int64
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if r.URL.Path == commerce.AccountsEndpoint.Path && requests.Add(1) == 2 {
				if err := srv.DeleteAccount(oldest); err != nil {
					t.Error(err)
				}
			}
			return nil
		})
		got, stats, err := listWithin(t, c, commerce.Accounts, Query{Sort: "created_at"})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		srv.SetFaults(nil)
		want := wantIDs(t, srv, commerce.AccountsEndpoint, "", "created_at")
		if got = slices.DeleteFunc(got, func(id string) bool { return id == oldest }); !slices.Equal(got, want) {
			t.Fatalf("seed %d: %d of %d accounts present throughout listed; the first difference at place %d (%d pages)",
				seed, len(got), len(want), firstDiff(got, want), stats.Pages)
		}
	}
}
