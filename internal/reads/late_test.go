package reads

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// A read that comes once a listing of the same list has handed out its
// records refreshes what that listing handed out: it gets exactly what a
// listing would give now, in order (newest first), after the writes made since, for the
// refresh's requests (a count and the changes; deletes are located), not a
// second listing's 31.
func TestALateReadRefreshesTheListingBefore(t *testing.T) {
	const matching = "ge(created_at,2024-01-01T00:00:00Z)"
	q := listing.Query{Filter: mustFilter(matching), Sort: "-created_at"}
	for _, tc := range []struct {
		name   string
		write  func(srv *emulator.Server, ids []string) error
		within int // list requests the late read may send
	}{
		{"nothing written", func(*emulator.Server, []string) error { return nil }, 2},
		{"created", func(srv *emulator.Server, _ []string) error {
			for range 3 {
				if _, err := srv.Insert("accounts"); err != nil {
					return err
				}
			}
			return nil
		}, 2},
		{"updated", func(srv *emulator.Server, ids []string) error { return srv.Update("accounts", ids[1500]) }, 2},
		// One delete among 3,000 is located by counts over created_at ranges.
		{"deleted", func(srv *emulator.Server, ids []string) error { return srv.Delete("accounts", ids[700]) }, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, Orders: -1, Files: -1})
			logs := &emulatortest.Logs{}
			r := newReads(t, srv, func(c *testConfig) { c.Logger = logs })
			r.log = logs
			var first kept
			if _, err := Read(t.Context(), r, commerce.Accounts, q, keeper[commerce.Account](&first, 0)); err != nil {
				t.Fatal(err)
			}
			listed := srv.Stats().ListRequests["accounts"]
			if err := tc.write(srv, first.ids); err != nil {
				t.Fatal(err)
			}
			srv.ResetStats()
			var late kept
			late.res, late.err = Read(t.Context(), r, commerce.Accounts, q, keeper[commerce.Account](&late, 0))
			sent := srv.Stats().ListRequests["accounts"]
			want := wantIDs(t, srv, commerce.AccountsEndpoint, matching, "-created_at")
			if late.err != nil || !slices.Equal(late.ids, want) || late.res.Total != len(want) || !late.res.TotalKnown {
				t.Fatalf("the late read: %d ids (total %d, %v), want %d; first difference at %d", len(late.ids), late.res.Total, late.err, len(want), firstDiff(late.ids, want))
			}
			t.Logf("the first listing: %d list requests; the late read: %d", listed, sent)
			if sent > tc.within {
				t.Errorf("the late read sent %d list requests, want at most %d (the listing sent %d)", sent, tc.within, listed)
			}
			if got := logs.Find("INFO: listing finished"); len(got) != 2 || got[1]["cache"] != cacheRecent {
				t.Errorf("the late read's INFO line does not say it refreshed the earlier listing: %v", got)
			}
		})
	}
}

// A read that comes while a listing of the same list is still handing
// out records (its fifth page held) cannot join it: it refreshes what the
// listing handed out once it has ended (its listing waits for it:
// coalesce's TestPreviousWaitsForTheEarlierCall), and gets what a listing
// would give then, for the refresh's 2 requests.
func TestALateReadWhileTheListingRuns(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, Orders: -1, Files: -1})
	r := newReads(t, srv, func(c *testConfig) { c.MaxParallelRequests = 1 })
	held, unhold := holdListRequest(t, srv, 5)
	var first, late kept
	// The first record handed out: the workers may have sent the fifth
	// request before the traversal goroutine handed out the first page's
	// records, which it does whether or not the fifth page comes.
	handedOut := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		keep := keeper[commerce.Account](&first, 0)
		once := sync.OnceFunc(func() { close(handedOut) })
		count := func(rec commerce.Account) error { once(); return keep.Emit(rec) }
		first.res, first.err = Read(context.Background(), r, commerce.Accounts, listing.Query{}, listing.Reader[commerce.Account]{Emit: count, Late: keep.Late})
	}()
	<-held
	select {
	case <-handedOut:
	case <-done:
		t.Fatalf("the listing ended with its fifth page held: %v", first.err)
	}
	lateDone := make(chan struct{})
	go func() {
		defer close(lateDone)
		late.res, late.err = Read(context.Background(), r, commerce.Accounts, listing.Query{}, keeper[commerce.Account](&late, 0))
	}()
	unhold()
	<-done
	<-lateDone
	want := wantIDs(t, srv, commerce.AccountsEndpoint, "", "")
	for name, k := range map[string]kept{"the listing": first, "the late read": late} {
		if k.err != nil || !slices.Equal(k.ids, want) {
			t.Errorf("%s: %d ids, %v; want all %d", name, len(k.ids), k.err, len(want))
		}
	}
	if late.res.Shared {
		t.Error("the late read says another's listing served it; it came too late to join and refreshed it")
	}
	if n := late.res.Pages; n != 2 {
		t.Errorf("the late read sent %d list requests, want the refresh's 2", n)
	}
}

// A late read that keeps JSON the earlier listing did not fetch, or that
// stops at max_results, lists on its own, as it did before; a read in a
// new run (a new Reads: each run configures the provider afresh) finds
// nothing to refresh.
func TestALateReadListsWhereTheEarlierListingCannotServeIt(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, Orders: -1, Files: -1})
	r := newReads(t, srv)
	read := func(r *Reads, q listing.Query) (kept, int) {
		srv.ResetStats()
		var k kept
		k.res, k.err = Read(t.Context(), r, commerce.Accounts, q, keeper[commerce.Account](&k, 0))
		if k.err != nil {
			t.Fatal(k.err)
		}
		return k, srv.Stats().ListRequests["accounts"]
	}
	_, full := read(r, listing.Query{})
	for _, tc := range []struct {
		name string
		r    *Reads
		q    listing.Query
		want int
	}{
		{"JSON", r, listing.Query{IncludeJSON: true}, full},
		{"a new run", newReads(t, srv), listing.Query{}, full},
	} {
		k, sent := read(tc.r, tc.q)
		if sent != tc.want || (tc.q.IncludeJSON && k.withJSON != len(k.ids)) {
			t.Errorf("%s: %d list requests, want a listing's %d", tc.name, sent, tc.want)
		}
	}
	// max_results stops where it is reached: its first page, not a refresh.
	if k, sent := read(r, listing.Query{MaxResults: 7}); sent != 1 || len(k.ids) != 7 {
		t.Errorf("max_results = 7: %d ids in %d list requests, want 7 in 1", len(k.ids), sent)
	}
}

// A listing whose first page counts more records than keptBound holds
// keeps none of them, from its first record on: its late reads list in
// full anyway. A smaller one keeps what it hands out.
func TestAListingTooLargeToKeepKeepsNothing(t *testing.T) {
	for _, tc := range []struct {
		accounts int
		keeps    bool
	}{{30000, false}, {3000, true}} {
		srv := emulatortest.Start(t, emulator.Options{Accounts: tc.accounts, Orders: -1, Files: -1})
		r := newReads(t, srv)
		var most int64
		var got kept
		reader := keeper[commerce.Account](&got, 0)
		emit := reader.Emit
		reader.Emit = func(rec commerce.Account) error {
			most = max(most, r.keptBytes.Load())
			return emit(rec)
		}
		if _, err := Read(t.Context(), r, commerce.Accounts, listing.Query{}, reader); err != nil {
			t.Fatal(err)
		}
		if len(got.ids) != tc.accounts {
			t.Fatalf("%d accounts: listed %d", tc.accounts, len(got.ids))
		}
		if kept := most > 0; kept != tc.keeps {
			t.Errorf("%d accounts (%d bytes at %d a record, bound %d): kept up to %d bytes while listing, want keeping %v",
				tc.accounts, tc.accounts*decodedCost, decodedCost, keptBound, most, tc.keeps)
		}
	}
}
