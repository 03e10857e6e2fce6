package listing

// A page that stalls holds up only itself: the pages and spans after it
// are requested while it waits, where the listing knows it needs them.

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// stallWatch holds the first request that held matches for stallFor, and
// counts the requests of path that arrive before it is answered.
type stallWatch struct {
	path string
	held func(r *http.Request) bool

	mu      sync.Mutex
	until   time.Time // when the held request is answered; zero before
	during  int       // requests that arrived while it was held
	arrived int       // requests of path, all told
}

const stallFor = time.Second

// stallClient sends up to 8 requests at once and says the store takes
// 1,000 a second: the budget's probe, which holds a store it does not know
// to 20 requests a second at first, would bound the requests during the
// stall otherwise.
func stallClient(c *testConfig) { c.MaxParallelRequests, c.RateLimit = 8, 1000 }

func (s *stallWatch) fault(r *http.Request, _ int64) *emulator.Fault {
	if r.URL.Path != s.path {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrived++
	switch {
	case s.until.IsZero() && s.held(r):
		s.until = time.Now().Add(stallFor)
		return &emulator.Fault{Delay: stallFor}
	case !s.until.IsZero() && time.Now().Before(s.until):
		s.during++
	}
	return nil
}

// TestAStalledPageHoldsUpOnlyItsPage: a window read ahead (the store gives
// no count) goes on past a page that stalls. Extended in order alone, it
// stopped ahead pages (10) past it until it came.
func TestAStalledPageHoldsUpOnlyItsPage(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, Orders: -1, Files: -1,
		Counting: emulator.Counting{Method: emulator.CountNone}})
	want := wantIDs(t, srv, commerce.AccountsEndpoint, "", "created_at")
	watch := &stallWatch{path: commerce.AccountsEndpoint.Path,
		held: func(r *http.Request) bool { return r.URL.Query().Get("page[offset]") == "194" }} // the third page
	srv.SetFaults(watch.fault)
	c := newClient(t, srv, stallClient)
	got, stats, err := listWithin(t, c, commerce.Accounts, Query{Sort: "created_at"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d accounts, want %d in order; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if watch.until.IsZero() {
		t.Fatal("no request asked for page[offset]=194: the test no longer stalls the window's third page")
	}
	t.Logf("%d of %d requests arrived while the third page stalled", watch.during, stats.Pages)
	if watch.during < 3*lazyReadAhead {
		t.Errorf("%d requests arrived while the third page stalled for %s: the window waited for it", watch.during, stallFor)
	}
}

// TestAStalledSpanHoldsUpOnlyItsSpan: past the offset limit of a store
// that ignores sort=, spans of ids are cut as their pages come, not in
// turn: while the first span's page stalls, the others are cut and read.
func TestAStalledSpanHoldsUpOnlyItsSpan(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1500, Orders: -1, Files: -1, OffsetLimit: 500,
		Counting: emulator.Counting{Method: emulator.CountNone}, IgnoreSort: []string{"accounts"}})
	want := wantIDs(t, srv, commerce.AccountsEndpoint, "", "created_at")
	spans := 0
	watch := &stallWatch{path: commerce.AccountsEndpoint.Path, held: func(r *http.Request) bool {
		return strings.Contains(r.URL.Query().Get("filter"), "(id,")
	}}
	srv.SetFaults(func(r *http.Request, seq int64) *emulator.Fault {
		if strings.Contains(r.URL.Query().Get("filter"), "(id,") {
			watch.mu.Lock()
			spans++
			watch.mu.Unlock()
		}
		return watch.fault(r, seq)
	})
	c := newClient(t, srv, stallClient)
	got, _, err := listWithin(t, c, commerce.Accounts, Query{Sort: "created_at"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d accounts, want %d in order; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if watch.until.IsZero() {
		t.Fatal("no request named a range of ids: the test no longer reads spans of ids")
	}
	t.Logf("%d of %d requests of spans arrived while the first stalled", watch.during, spans)
	if watch.during < spans*8/10 {
		t.Errorf("%d of %d requests of spans arrived while the first stalled for %s: the spans waited for it", watch.during, spans, stallFor)
	}
}

// TestAStalledKeysetPageIsAskedAgain: a window that changed while it was
// read goes on by keyset pages, one after another, each waited on alone. The
// first of them stalls until the same request comes again: the pass sends
// it beside the stalled one (hedged) rather than wait for the request
// timeout, and takes its answer. Waited out, every stall held the whole
// read for the timeout (nightly seed 4000435).
func TestAStalledKeysetPageIsAskedAgain(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, Orders: -1, Files: -1})
	// On the first page: the second, answered after the delete, then no
	// longer starts with the three records the first ends with.
	victim := wantIDs(t, srv, commerce.AccountsEndpoint, "", "created_at")[50]
	var (
		mu             sync.Mutex
		deleted        bool
		held           string // the keyset page's query, once held
		askedAgain     bool   // the same request came while it was held
		againArrived   = make(chan struct{})
		againArrivedOK sync.Once
	)
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != commerce.AccountsEndpoint.Path {
			return nil
		}
		q := r.URL.Query()
		mu.Lock()
		switch {
		case !deleted && q.Get("page[offset]") == "97":
			// The window's second page: the delete shifts it.
			deleted = true
			mu.Unlock()
			if err := srv.DeleteAccount(victim); err != nil {
				t.Error(err)
			}
			return nil
		case held == "" && strings.Contains(q.Get("filter"), "ge(created_at,"):
			held = r.URL.RawQuery
			mu.Unlock()
			select {
			case <-againArrived:
				mu.Lock()
				askedAgain = true
				mu.Unlock()
			case <-r.Context().Done():
			}
			return &emulator.Fault{Reset: true} // the stalled request never answers
		case held != "" && r.URL.RawQuery == held:
			mu.Unlock()
			againArrivedOK.Do(func() { close(againArrived) })
			return nil
		}
		mu.Unlock()
		return nil
	})
	c := newClient(t, srv, stallClient)
	got, stats, err := listWithin(t, c, commerce.Accounts, Query{Sort: "created_at"})
	if err != nil {
		t.Fatal(err)
	}
	want := wantIDs(t, srv, commerce.AccountsEndpoint, "", "created_at")
	if i := slices.Index(got, victim); i >= 0 {
		got = slices.Delete(got, i, i+1) // deleted during the read: listed or not
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d accounts, want %d in order; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	mu.Lock()
	defer mu.Unlock()
	if held == "" {
		t.Fatalf("no keyset page was requested (%d windows, %d requests): the delete no longer changes the window", stats.Windows, stats.Pages)
	}
	if !askedAgain {
		t.Errorf("the stalled keyset page %q was not asked again while it stalled: the read waited for the request timeout", held)
	}
}
