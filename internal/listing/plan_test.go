package listing

// Window planning against fakeOrders: no emulator, token, budget or HTTP,
// so that what these tests see is the engine's own doing.

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

var fakeBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// newFakeEngine is an Engine on f with the service's page size.
func newFakeEngine(t *testing.T, f *fakeOrders) *Engine {
	t.Helper()
	e, err := New(f, Options{MaxParallelRequests: 32})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// shuffled puts recs in a fixed pseudo-random order: the service's own.
func shuffled(recs []fakeOrder) []fakeOrder {
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	return recs
}

func listFake(t *testing.T, e *Engine, q Query) ([]commerce.Order, Stats) {
	t.Helper()
	var got []commerce.Order
	stats, err := List(context.Background(), e, commerce.Orders, q, func(o commerce.Order) error {
		got = append(got, o)
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return got, stats
}

// checkOffsets fails on a request past the service's offset limit.
func checkOffsets(t *testing.T, f *fakeOrders) {
	t.Helper()
	for _, q := range f.sent() {
		if off, _ := strconv.Atoi(q.Get("page[offset]")); off+100 > commerce.OffsetLimit {
			t.Fatalf("a request at offset %d, past the service's limit: %v", off, q)
		}
	}
}

// A listing of 25,000 orders in created_at order reads three windows, each
// within the offset limit, the later ones bounded by the last created_at of
// the one before; every order comes once, in order, at one request a page.
func TestPlanWindowPastOffsetLimit(t *testing.T) {
	const n = 25000
	recs := make([]fakeOrder, n)
	for i := range recs {
		recs[i] = fakeOrder{id: fakeID(i), created: fakeBase.Add(time.Duration(i) * time.Millisecond), withTax: int64(i)}
	}
	f := &fakeOrders{records: shuffled(slices.Clone(recs))}
	got, stats := listFake(t, newFakeEngine(t, f), Query{Sort: "created_at"})
	if len(got) != n || stats.Total != n || stats.Listed != n {
		t.Fatalf("%d orders, total %d, listed %d; want %d", len(got), stats.Total, stats.Listed, n)
	}
	for i, o := range got {
		if o.ID != fakeID(i) {
			t.Fatalf("order %d is %s, want %s", i, o.ID, fakeID(i))
		}
	}
	if stats.Strategy != strategyKeyset || stats.Windows != 3 {
		t.Errorf("strategy %q over %d windows, want keyset over 3", stats.Strategy, stats.Windows)
	}
	checkOffsets(t, f)
	// One request a page of 97 new orders (pages share three), and one
	// more per window (its boundary page is read again as the next
	// window's first); no tie, so no tie group is read again.
	if sent, budget := len(f.sent()), pageBudget(n, stats.Windows)-1; sent != stats.Pages || sent > budget {
		t.Errorf("%d requests for %d pages, want at most %d", sent, stats.Pages, budget)
	}
	var bounds []string
	for _, q := range f.sent() {
		if fl := q.Get("filter"); fl != "" && q.Get("page[offset]") == "0" {
			bounds = append(bounds, fl)
		}
	}
	want := []string{"ge(created_at,2024-01-01T00:00:09.999Z)", "ge(created_at,2024-01-01T00:00:19.998Z)"}
	if !slices.Equal(bounds, want) {
		t.Errorf("windows start at %q, want %q", bounds, want)
	}
}

// 12,000 orders share one created_at, more than a window reaches: the
// group is listed on its own in windows of with_tax (orders cannot be
// sorted by id), and the traversal goes on strictly after it.
func TestPlanTieGroupLargerThanWindow(t *testing.T) {
	const before, tie, after = 300, 12000, 300
	var recs []fakeOrder
	tieAt := fakeBase.Add(time.Hour)
	for i := range before + tie + after {
		o := fakeOrder{id: fakeID(i), withTax: int64(i*7919) % 100000}
		switch {
		case i < before:
			o.created = fakeBase.Add(time.Duration(i) * time.Millisecond)
		case i < before+tie:
			o.created = tieAt
		default:
			o.created = tieAt.Add(time.Duration(i) * time.Millisecond)
		}
		recs = append(recs, o)
	}
	f := &fakeOrders{records: shuffled(slices.Clone(recs))}
	got, stats := listFake(t, newFakeEngine(t, f), Query{Sort: "created_at"})
	if len(got) != len(recs) || stats.Listed != len(recs) {
		t.Fatalf("%d orders, listed %d; want %d", len(got), stats.Listed, len(recs))
	}
	seen := map[string]bool{}
	for i, o := range got {
		if seen[o.ID] {
			t.Fatalf("order %s twice", o.ID)
		}
		seen[o.ID] = true
		if i > 0 && o.CreatedAt < got[i-1].CreatedAt {
			t.Fatalf("order %d (%s) comes before %s", i, o.CreatedAt, got[i-1].CreatedAt)
		}
	}
	if got[before].CreatedAt != "2024-01-01T01:00:00.000Z" || got[before+tie].CreatedAt <= got[before].CreatedAt {
		t.Errorf("the tie group is not where it belongs: %s, %s", got[before].CreatedAt, got[before+tie].CreatedAt)
	}
	checkOffsets(t, f)
	ranged := 0
	for _, q := range f.sent() {
		fl := q.Get("filter")
		if strings.Contains(fl, "with_tax") {
			ranged++
			if q.Has("sort") || !strings.Contains(fl, "ge(created_at,2024-01-01T01:00:00.000Z)") {
				t.Errorf("a with_tax window of the tie group: sort=%q filter=%q", q.Get("sort"), fl)
			}
		}
	}
	if ranged == 0 {
		t.Error("no request cut the tie group by with_tax")
	}
}

// A service that accepts sort= and ignores it shows it on the first page,
// before anything is handed out: the engine lists in the service's own
// order and sorts by itself, and remembers, so that the next listing on
// the same engine asks no sort at all.
func TestPlanServiceIgnoresSort(t *testing.T) {
	const n = 3000
	recs := make([]fakeOrder, n)
	for i := range recs {
		recs[i] = fakeOrder{id: fakeID(i), created: fakeBase.Add(time.Duration(i) * time.Second), withTax: int64(i)}
	}
	f := &fakeOrders{records: shuffled(slices.Clone(recs)), ignoreSort: true}
	e := newFakeEngine(t, f)
	for run := range 2 {
		got, stats := listFake(t, e, Query{Sort: "-created_at", MaxResults: 1000})
		if len(got) != 1000 || stats.Strategy != strategyWindowsSortedHere {
			t.Fatalf("run %d: %d orders by %q, want 1000 sorted by the provider", run, len(got), stats.Strategy)
		}
		for i, o := range got {
			if o.ID != fakeID(n-1-i) {
				t.Fatalf("run %d: order %d is %s, want %s", run, i, o.ID, fakeID(n-1-i))
			}
		}
		sorted := 0
		for _, q := range f.sent() {
			if q.Has("sort") {
				sorted++
			}
		}
		if sorted != 1 {
			t.Errorf("run %d: %d requests with sort=, want only the first listing's first", run, sorted)
		}
	}
	if !e.sortUnusable(commerce.OrdersEndpoint.Path) {
		t.Error("the engine forgot that orders ignore sort=")
	}
}

// With a limit that ends inside such a tie group, the group is still read
// whole before its first records by id are taken: reading only as many as
// the limit wants, in the service's order, would take others than the
// first by id.
func TestPlanTieGroupCutByMaxResults(t *testing.T) {
	const tie, limit = 12000, 10100
	tieAt := fakeBase.Add(time.Hour)
	var recs []fakeOrder
	for i := range tie {
		recs = append(recs, fakeOrder{id: fakeID(i), created: tieAt, withTax: int64(i*7919) % 100000})
	}
	f := &fakeOrders{records: shuffled(slices.Clone(recs))}
	got, stats := listFake(t, newFakeEngine(t, f), Query{Sort: "created_at", MaxResults: limit})
	if len(got) != limit || stats.Listed != limit {
		t.Fatalf("%d orders, listed %d; want %d", len(got), stats.Listed, limit)
	}
	// The first window hands out 10,000 of the group in the service's
	// order; the rest come by id, the smallest of those not yet listed.
	listed := map[string]bool{}
	for _, o := range got[:commerce.OffsetLimit] {
		listed[o.ID] = true
	}
	var rest []string
	for i := range tie {
		if !listed[fakeID(i)] {
			rest = append(rest, fakeID(i))
		}
	}
	var after []string
	for _, o := range got[commerce.OffsetLimit:] {
		after = append(after, o.ID)
	}
	if want := rest[:limit-commerce.OffsetLimit]; !slices.Equal(after, want) {
		t.Errorf("after the first window: %d orders from %s, want the %d smallest remaining ids from %s",
			len(after), after[0], len(want), want[0])
	}
}

// TestMaxResultsInsideTheLastTieGroup: the last records in the order share
// one created_at, so the sink takes them by id, holding them until a
// record with another value or the end comes. A max_results that falls
// inside that group, or on the record that closes the group before it,
// fills the sink with matches still in hand: the listing saw more than
// max_results, and total is then no longer the records listed (it was, as
// a store-matrix draw found: 418 where 419 matched). Every limit from 1 to
// all, over stores whose last group has 1 to 4 records, on pages of 10.
func TestMaxResultsInsideTheLastTieGroup(t *testing.T) {
	for size := 21; size <= 24; size++ {
		for group := 1; group <= 4; group++ {
			var recs []fakeOrder
			for i := range size {
				at := fakeBase.Add(time.Duration(i) * time.Second)
				if i >= size-group {
					at = fakeBase.Add(time.Duration(size) * time.Second)
				}
				recs = append(recs, fakeOrder{id: fakeID(i), created: at})
			}
			e, err := New(&fakeOrders{records: shuffled(slices.Clone(recs))}, Options{PageSize: 10, MaxParallelRequests: 4})
			if err != nil {
				t.Fatal(err)
			}
			for limit := 1; limit <= size; limit++ {
				got, stats := listFake(t, e, Query{Sort: "created_at", MaxResults: limit})
				if len(got) != limit {
					t.Fatalf("%d orders, last %d tied, max_results %d: listed %d", size, group, limit, len(got))
				}
				switch {
				case stats.TotalKnown && stats.Total != size:
					t.Errorf("%d orders, last %d tied, max_results %d: total %d given as known", size, group, limit, stats.Total)
				case limit == size && !stats.TotalKnown:
					t.Errorf("%d orders, last %d tied, max_results %d: every match listed and the end seen, but total unknown", size, group, limit)
				}
			}
		}
	}
}

// expectingOrders is fakeOrders that hears what the engine expects to
// send, as the transport's Meter does.
type expectingOrders struct {
	*fakeOrders
	expected []int
}

func (f *expectingOrders) Expect(requests int) { f.expected = append(f.expected, requests) }

// A listing tells its Getter, once its first page has a count, how many
// pages it expects: the matches over the page size, within MaxResults,
// once however many times it opens its query. The transport probes a store's rate limit by a share of that.
func TestListingSaysHowManyPagesItExpects(t *testing.T) {
	recs := make([]fakeOrder, 2550)
	for i := range recs {
		recs[i] = fakeOrder{id: fakeID(i), created: fakeBase.Add(time.Duration(i) * time.Millisecond)}
	}
	for _, tc := range []struct {
		maxResults, listed int
		ignoreSort         bool
		want               []int
	}{
		{0, 2550, false, []int{26}},
		{150, 150, false, []int{2}},
		// A store that ignores sort= is opened twice, by keyset and then
		// by range; the listing's pages are hinted once.
		{0, 2550, true, []int{26}},
	} {
		f := &expectingOrders{fakeOrders: &fakeOrders{records: shuffled(slices.Clone(recs)), ignoreSort: tc.ignoreSort}}
		e, err := New(f, Options{MaxParallelRequests: 32})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := listFake(t, e, Query{Sort: "created_at", MaxResults: tc.maxResults})
		if len(got) != tc.listed {
			t.Fatalf("max_results %d: listed %d, want %d", tc.maxResults, len(got), tc.listed)
		}
		if !slices.Equal(f.expected, tc.want) {
			t.Errorf("max_results %d: the engine expected %v pages, want %v", tc.maxResults, f.expected, tc.want)
		}
	}
}
