package refresh

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// The delete finder (locate.go) at its own level: a store in memory that
// counts and lists created_at ranges, and snapshots drawn at random.

// memoryStore is a Source over accounts held in memory. It evaluates the
// created_at bounds locate adds (the refresh's own filter is empty here),
// counts every request as the service would (a count 1, a listing its
// pages), and runs change, if set, before each request, so that a test can
// write to the store while a refresh runs.
type memoryStore struct {
	pageSize int

	mu       sync.Mutex
	recs     []commerce.Account
	requests int
	change   func(s *memoryStore)
}

func (s *memoryStore) ExactCount(_ context.Context, f filter.Parsed) (commerce.Count, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.step()
	s.requests++
	matches, err := s.match(f)
	return commerce.Count{N: len(matches), Method: commerce.CountExact}, err
}

func (s *memoryStore) FirstPage(context.Context, filter.Parsed) (commerce.Page[commerce.Account], error) {
	return commerce.Page[commerce.Account]{}, errors.New("locate asks for no first page")
}

func (s *memoryStore) List(_ context.Context, f filter.Parsed) ([]commerce.Account, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.step()
	matches, err := s.match(f)
	pages := pagesFor(len(matches), s.pageSize)
	s.requests += pages
	return matches, pages, err
}

func (s *memoryStore) NarrowFilter(base filter.Parsed, extra filter.Expr, _ string) (filter.Parsed, error) {
	return base.With(filter.And(base.Terms, extra)), nil
}

// step runs the test's write, if any. Caller holds the lock.
func (s *memoryStore) step() {
	if s.change != nil {
		s.change(s)
	}
}

// match is what f selects of the store, by its created_at bounds. Caller
// holds the lock.
func (s *memoryStore) match(f filter.Parsed) ([]commerce.Account, error) {
	var out []commerce.Account
	for _, rec := range s.recs {
		key, err := timestampKey(rec.CreatedAt)
		if err != nil {
			return nil, err
		}
		in := true
		for _, t := range f.Terms {
			switch {
			case t.Attribute != "created_at":
				return nil, fmt.Errorf("unexpected term %s", t)
			case t.Op == filter.Ge:
				in = in && key >= t.Values[0]
			case t.Op == filter.Lt:
				in = in && key < t.Values[0]
			default:
				return nil, fmt.Errorf("unexpected term %s", t)
			}
		}
		if in {
			out = append(out, rec)
		}
	}
	return out, nil
}

// snapshotAccounts draws n accounts, their created_at seconds apart from
// base or, with ties, several on one millisecond.
func snapshotAccounts(rng *rand.Rand, n int, ties bool) []commerce.Account {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]commerce.Account, n)
	at := base
	for i := range recs {
		if !ties || rng.IntN(3) == 0 {
			at = at.Add(time.Duration(1+rng.IntN(5000)) * time.Millisecond)
		}
		recs[i] = commerce.Account{Common: commerce.Common{
			ID:        fmt.Sprintf("%08x-0000-4000-8000-%012x", i, rng.Uint64()&0xffffffffffff),
			CreatedAt: at.Format(time.RFC3339Nano),
		}}
	}
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	return recs
}

// deleteSome removes d records of store at random, or one run of d
// neighbours by created_at (a range emptied), and returns what is left.
func deleteSome(rng *rand.Rand, recs []commerce.Account, d int) []commerce.Account {
	left := slices.Clone(recs)
	if rng.IntN(4) == 0 {
		slices.SortFunc(left, func(a, b commerce.Account) int { return compareCreated(a, b) })
		at := rng.IntN(len(left) - d + 1)
		return slices.Delete(left, at, at+d)
	}
	for range d {
		i := rng.IntN(len(left))
		left = slices.Delete(left, i, i+1)
	}
	return left
}

func compareCreated(a, b commerce.Account) int {
	if c := compareStrings(a.CreatedAt, b.CreatedAt); c != 0 {
		return c
	}
	return compareStrings(a.ID, b.ID)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func newLocateRefresher(store *memoryStore) *refresher[commerce.Account] {
	return &refresher[commerce.Account]{Request: Request[commerce.Account]{Kind: commerce.Accounts, PageSize: store.pageSize, Source: store}}
}

// ids is the sorted ids of recs, to compare sets.
func ids(recs []commerce.Account) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	slices.Sort(out)
	return out
}

// TestLocateFindsDeletesWithinAFullRead draws snapshots (sizes, page sizes,
// ties on one millisecond), deletes some of their records at random or a
// whole run of neighbours, and holds locate to its promise: exactly the
// records the store holds now, or a NotProvable; and never more requests
// than a full read and 5%. A failure prints its seed.
func TestLocateFindsDeletesWithinAFullRead(t *testing.T) {
	const draws = 300
	provable := 0
	for seed := uint64(1); seed <= draws; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x10ca7e))
		ps := []int{10, 25, 100}[rng.IntN(3)]
		n := 3*ps + rng.IntN(40*ps)
		// Mostly a few deletes for the pages, as between two plans; one
		// draw in five as many as a tenth of the records.
		d := 1 + rng.IntN(1+pagesFor(n, ps)/8)
		if rng.IntN(5) == 0 {
			d = 1 + rng.IntN(n/10)
		}
		known := snapshotAccounts(rng, n, rng.IntN(2) == 0)
		store := &memoryStore{pageSize: ps, recs: deleteSome(rng, known, d)}
		total := len(store.recs)
		got, err := newLocateRefresher(store).locate(context.Background(), known, total)
		full := pagesFor(total, ps)
		budget := full + max(1, full/20)
		what := fmt.Sprintf("seed %d: %d records, page size %d, %d deleted", seed, n, ps, d)
		var np NotProvable
		switch {
		case errors.As(err, &np) && store.requests > 0:
			// Nothing changed while it ran: it may decline before it
			// sends anything, never after.
			t.Fatalf("%s: not provable after %d requests: %s", what, store.requests, np.Reason)
		case errors.As(err, &np):
		case err != nil:
			t.Fatalf("%s: %v", what, err)
		case !slices.Equal(ids(got), ids(store.recs)):
			t.Fatalf("%s: located %d records, the store holds %d, or other ones", what, len(got), total)
		default:
			provable++
		}
		if store.requests > budget {
			t.Errorf("%s: %d requests, more than a full read (%d) and 5%%", what, store.requests, full)
		}
	}
	// Most draws are provable; a finder that gave up on all would pass the
	// checks above.
	if provable < 2*draws/3 {
		t.Errorf("only %d of %d draws located their deletes; the rest were not provable", provable, draws)
	}
	t.Logf("%d of %d draws located their deletes", provable, draws)
}

// TestLocateOneDeleteCostsAFewCounts: one account deleted among 10,000,
// 100 a page. A full read is 100 requests; the finder counts three parts a
// level (log₃ of the pages levels) and reads the one page that differs.
func TestLocateOneDeleteCostsAFewCounts(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		known := snapshotAccounts(rng, 10000, false)
		store := &memoryStore{pageSize: 100, recs: deleteSome(rng, known, 1)}
		got, err := newLocateRefresher(store).locate(context.Background(), known, len(store.recs))
		if err != nil || len(got) != 9999 {
			t.Fatalf("seed %d: %d records, %v", seed, len(got), err)
		}
		if store.requests > 20 {
			t.Errorf("seed %d: one delete among 10,000 took %d requests, more than 20", seed, store.requests)
		}
	}
}

// TestLocateUnderWrites: a record created, or one more deleted, while
// locate counts and reads its ranges. The result holds every record the
// store held throughout, once, and nothing the store never held (a record
// written meanwhile may be in it or not, as in a full listing), or it is
// NotProvable: the parts' counts disagree with their range's, or the
// result's size with the total, and a full read follows.
func TestLocateUnderWrites(t *testing.T) {
	provable := 0
	for seed := uint64(1); seed <= 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2))
		known := snapshotAccounts(rng, 3000, seed%2 == 0)
		store := &memoryStore{pageSize: 100, recs: deleteSome(rng, known, 1+rng.IntN(5))}
		before := store.recs
		total := len(store.recs)
		writeAt := 1 + rng.IntN(12)
		create := rng.IntN(2) == 0
		var written string
		store.change = func(s *memoryStore) {
			if s.requests != writeAt || written != "" {
				return
			}
			if create {
				newest := snapshotAccounts(rng, 1, false)[0]
				newest.CreatedAt = known[rng.IntN(len(known))].CreatedAt
				s.recs, written = append(slices.Clone(s.recs), newest), newest.ID
				return
			}
			i := rng.IntN(len(s.recs))
			written = s.recs[i].ID
			s.recs = slices.Delete(slices.Clone(s.recs), i, i+1)
		}
		got, err := newLocateRefresher(store).locate(context.Background(), known, total)
		var np NotProvable
		switch {
		case errors.As(err, &np):
			continue
		case err != nil:
			t.Fatalf("seed %d: %v", seed, err)
		}
		provable++
		what := fmt.Sprintf("seed %d: a write at request %d (create %v)", seed, writeAt, create)
		throughout := slices.DeleteFunc(ids(before), func(id string) bool { return id == written })
		ever := append(ids(before), written)
		listed := ids(got)
		if len(slices.Compact(slices.Clone(listed))) != len(listed) {
			t.Fatalf("%s: a record located twice", what)
		}
		for _, id := range throughout {
			if _, ok := slices.BinarySearch(listed, id); !ok {
				t.Fatalf("%s: %s, held throughout, is missing", what, id)
			}
		}
		for _, id := range listed {
			if !slices.Contains(ever, id) {
				t.Fatalf("%s: %s was never in the store", what, id)
			}
		}
	}
	t.Logf("%d of 100 located under a write; the others were not provable", provable)
}

// TestCutsFallWhereCreatedAtChanges: a part holds exactly a created_at
// range only if no cut falls inside a run of one value, and parts of whole
// pages keep their reads few.
func TestCutsFallWhereCreatedAtChanges(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		ps := []int{10, 25, 100}[rng.IntN(3)]
		known := snapshotAccounts(rng, ps+rng.IntN(30*ps), true)
		sorted, keys, err := byCreatedAt(known)
		if err != nil {
			t.Fatal(err)
		}
		l := &locator[commerce.Account]{sorted: sorted, keys: keys, ps: ps}
		lo := rng.IntN(len(keys))
		sp := createdRange{lo: lo, hi: lo + rng.IntN(len(keys)-lo+1)}
		n := 2 + rng.IntN(7)
		cuts := l.cuts(sp, n)
		step := pagesFor(pagesFor(sp.hi-sp.lo, ps), n) * ps
		if sp.hi-sp.lo <= ps && cuts != nil {
			t.Fatalf("seed %d: a range of one page [%d,%d) cut at %v", seed, sp.lo, sp.hi, cuts)
		}
		if len(cuts) > n {
			t.Fatalf("seed %d: %d cuts asked, %d made", seed, n, len(cuts))
		}
		for i, c := range cuts {
			switch {
			case i == 0 && c != sp.lo:
				t.Fatalf("seed %d: the first part starts at %d, not at the range's %d", seed, c, sp.lo)
			case i > 0 && (c <= cuts[i-1] || c >= sp.hi):
				t.Fatalf("seed %d: cuts %v out of order or outside [%d,%d)", seed, cuts, sp.lo, sp.hi)
			case i > 0 && keys[c] == keys[c-1]:
				t.Fatalf("seed %d: cut %d falls inside a run of created_at %s", seed, c, keys[c])
			case i > 0 && c != cuts[i-1]+step && keys[c-1] != keys[cuts[i-1]+step-1]:
				// Whole pages after the cut before, or just past the run
				// of one value that straddles that boundary.
				t.Fatalf("seed %d: cut %d is neither %d pages after the one before (%d) nor at the end of a run of one created_at",
					seed, c, step/ps, cuts[i-1])
			}
		}
	}
}
