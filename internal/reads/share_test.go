package reads

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// kept is what one reader got: ids in order, late ones apart, and how
// many records carried JSON.
type kept struct {
	ids, late []string
	withJSON  int
	res       Result
	err       error
}

// keeper is a Reader that keeps what it gets in k, and fails after
// failAfter records when that is set.
func keeper[T commerce.Record](k *kept, failAfter int) listing.Reader[T] {
	take := func(into *[]string) func(T) error {
		return func(rec T) error {
			if failAfter > 0 && len(k.ids)+len(k.late) >= failAfter {
				return errors.New("this reader had enough")
			}
			*into = append(*into, rec.RecordID())
			if rec.Base().JSON != "" {
				k.withJSON++
			}
			return nil
		}
	}
	return listing.Reader[T]{Emit: take(&k.ids), Late: take(&k.late)}
}

// readTogether reads every query at once on r, as the provider reads the
// data sources Terraform starts together: each read announced first, then
// all of them sent, so that they gather into one listing where they need
// one. It returns what each kept.
func readTogether[T commerce.Record](r *Reads, kind commerce.Kind[T], qs []listing.Query, failAfter []int) []kept {
	// However busy the machine, every read announced joins.
	ahead := &coalesce.Announced{Patience: time.Minute}
	r.shared.Ahead = ahead
	defer func() { r.shared.Ahead = nil }()
	for i := range qs {
		ahead.Announce(strconv.Itoa(i))
	}
	out := make([]kept, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		fail := 0
		if failAfter != nil {
			fail = failAfter[i]
		}
		wg.Go(func() {
			ctx, arrival := coalesce.WithArrival(context.Background(), ahead, strconv.Itoa(i))
			defer arrival.Arrive()
			out[i].res, out[i].err = Read(ctx, r, kind, q, keeper[T](&out[i], fail))
		})
	}
	wg.Wait()
	return out
}

// Reads of one listing that keep different things share it: one listing
// for all, and each gets the records it gets alone, up to its own limit.
// The records carry JSON when any reader keeps it; the provider's state
// writer leaves it out for the readers that did not ask (the provider's
// TestReadsOfOneListingShareIt compares the states).
func TestReadsOfOneListingShareIt(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1})
	r := newReads(t, srv)
	qs := []listing.Query{{}, {IncludeJSON: true}, {MaxResults: 7}, {MaxResults: 250, Sort: "created_at"}}
	alone := make([]kept, len(qs))
	srv.ResetStats()
	for i, q := range qs {
		newRun(r) // each in a run of its own
		alone[i].res, alone[i].err = Read(context.Background(), r, commerce.Accounts, q, keeper[commerce.Account](&alone[i], 0))
	}
	separately := srv.Stats().ListRequests["accounts"]
	srv.ResetStats()
	newRun(r)
	together := readTogether(r, commerce.Accounts, qs, nil)
	sent := srv.Stats().ListRequests["accounts"]
	t.Logf("list requests: %d read one by one, %d together", separately, sent)
	// 1,000 accounts fill 11 pages of 97 new ones, the last short, which
	// shows the end; a 12th reads the tie group of 30 accounts (the
	// emulator's bulk import) that a page boundary falls in.
	if sent != 12 {
		t.Errorf("%d list requests together, want the 12 of one listing", sent)
	}
	shared := 0
	for i := range qs {
		got, want := together[i], alone[i]
		if got.err != nil || !slices.Equal(got.ids, want.ids) || got.res.Total != want.res.Total || got.res.TotalKnown != want.res.TotalKnown || got.res.Listed != len(want.ids) {
			t.Errorf("read %+v: %d ids (total %d, %v), alone %d (total %d)", qs[i], len(got.ids), got.res.Total, got.err, len(want.ids), want.res.Total)
		}
		if got.res.Shared {
			shared++
		}
	}
	if shared != len(qs)-1 {
		t.Errorf("%d reads say another's listing served them, want %d", shared, len(qs)-1)
	}
	if together[1].withJSON != 1000 {
		t.Errorf("the read that keeps JSON got it with %d records, want 1000", together[1].withJSON)
	}
}

// A reader that stops taking records stops only itself: the others get
// their whole list, and it gets its own error.
func TestReaderThatFailsLeavesTheOthers(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1})
	r := newReads(t, srv)
	want := wantIDs(t, srv, commerce.AccountsEndpoint, "", "")
	got := readTogether(r, commerce.Accounts, []listing.Query{{}, {}, {}}, []int{0, 150, 0})
	for i, k := range got {
		switch {
		case i == 1 && (k.err == nil || !strings.Contains(k.err.Error(), "had enough") || len(k.ids) != 150):
			t.Errorf("the failing reader: %d ids, %v", len(k.ids), k.err)
		case i != 1 && (k.err != nil || !slices.Equal(k.ids, want)):
			t.Errorf("reader %d: %d ids, %v; want all %d", i, len(k.ids), k.err, len(want))
		}
	}
}

// Alone, a reader that stops taking records stops the listing: in its
// first window, not 120 pages later.
func TestReaderThatFailsAloneStopsTheListing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 12000, Orders: -1, Files: -1})
	r := newReads(t, srv)
	var k kept
	_, err := Read(context.Background(), r, commerce.Accounts, listing.Query{}, keeper[commerce.Account](&k, 150))
	if sent := srv.Stats().ListRequests["accounts"]; err == nil || sent > 100+2 {
		t.Errorf("the failing reader's listing sent %d requests (%v); want it stopped within its first window of 100 pages", sent, err)
	}
}

// A read of the same listing that arrives once the listing has started,
// but before it has handed out a record, takes it over: both reads get
// their whole list from one new listing, and the first listing's request,
// whose answer the store still held, is all that is lost.
func TestAReadTakesOverAListingThatHandedNothingOut(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1})
	r := newReads(t, srv)
	want := wantIDs(t, srv, commerce.AccountsEndpoint, "", "")
	evaluated, unhold := holdListRequest(t, srv, 1)
	srv.ResetStats()
	var first, second kept
	done := make(chan struct{})
	go func() {
		defer close(done)
		first.res, first.err = Read(context.Background(), r, commerce.Accounts, listing.Query{}, keeper[commerce.Account](&first, 0))
	}()
	<-evaluated
	second.res, second.err = Read(context.Background(), r, commerce.Accounts, listing.Query{IncludeJSON: true}, keeper[commerce.Account](&second, 0))
	unhold() // were the first listing not taken over, it would end now
	<-done
	for name, k := range map[string]kept{"first": first, "second": second} {
		if k.err != nil || !slices.Equal(k.ids, want) {
			t.Errorf("%s read: %d ids, %v; want all %d", name, len(k.ids), k.err, len(want))
		}
	}
	if !second.res.Shared || second.withJSON != len(want) {
		t.Errorf("the second read: shared %v, %d records with JSON; want the new listing, with JSON for all %d", second.res.Shared, second.withJSON, len(want))
	}
	// One listing of 1,000 accounts sends 12 (TestReadsOfOneListingShareIt);
	// the held request is lost.
	if sent := srv.Stats().ListRequests["accounts"]; sent != 13 {
		t.Errorf("%d list requests, want 13: the first listing's one and the new listing's 12", sent)
	}
}

// A listing that fails says so in its log line, with what it had listed,
// and no total: it did not reach the end (it said "listing finished" with
// a total before).
func TestAFailedListingDoesNotSayFinished(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 500, Orders: -1, Files: -1})
	logs := &emulatortest.Logs{}
	r := newReads(t, srv, func(c *testConfig) { c.Logger = logs })
	r.log = logs
	var k kept
	if _, err := Read(context.Background(), r, commerce.Accounts, listing.Query{}, keeper[commerce.Account](&k, 150)); err == nil {
		t.Fatal("the read succeeded, want the reader's error")
	}
	if f := logs.Find("INFO: listing finished"); len(f) > 0 {
		t.Errorf("a failed listing logged %d \"listing finished\" lines: %v", len(f), f)
	}
	stopped := logs.Find("INFO: listing stopped")
	if len(stopped) != 1 {
		t.Fatalf("%d \"listing stopped\" lines, want 1", len(stopped))
	}
	if _, ok := stopped[0]["total"]; ok {
		t.Errorf("the line of a failed listing has a total: %v", stopped[0])
	}
	if e, _ := stopped[0]["error"].(string); !strings.Contains(e, "had enough") {
		t.Errorf("the line does not say why the listing stopped: %v", stopped[0])
	}
}
