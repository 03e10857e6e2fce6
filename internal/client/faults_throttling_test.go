package client

// The fault matrix (see faults_helpers_test.go): 429 storms.

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// atomicMin keeps the smallest value stored.
type atomicMin struct{ v atomic.Int64 }

func (m *atomicMin) store(x int) {
	for {
		old := m.v.Load()
		if int64(x) >= old || m.v.CompareAndSwap(old, int64(x)) {
			return
		}
	}
}

func TestFault429StormWithRetryAfter(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 3000})
	c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 0 })
	var low atomicMin
	low.v.Store(int64(c.MaxParallelRequests()))
	// A storm that passes: every 3rd of the first 15 resource requests is
	// answered 429 with Retry-After: 1. It uses up no retry.
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if !isOrdersList(r) {
			return nil
		}
		low.store(c.inFlight.current())
		if i := n.Add(1); i <= 15 && i%3 == 0 {
			return &emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"}
		}
		return nil
	})
	start := time.Now()
	stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
	elapsed := time.Since(start)
	st := srv.Stats()
	if st.StatusCounts[http.StatusTooManyRequests] != 5 || st.Faults != 5 {
		t.Errorf("429s = %d, faults = %d; want 5", st.StatusCounts[http.StatusTooManyRequests], st.Faults)
	}
	if got := clientRetries(c, stats); got != 5 {
		t.Errorf("client retries = %d, want one per 429 (5)", got)
	}
	if elapsed < time.Second {
		t.Errorf("listing took %v; every 429 asked for a 1s wait", elapsed)
	}
	if l := int(low.v.Load()); l >= c.MaxParallelRequests() {
		t.Errorf("concurrency limit never dropped below %d during the storm", l)
	}
	t.Logf("listing took %v, lowest concurrency limit %d, %d pages, peak concurrency %d", elapsed, low.v.Load(), stats.Pages, st.MaxConcurrent)
}

// TestFault429StormBackoff: a storm of 429s without Retry-After (as the
// real service sends them) costs no retry, lowers both the concurrency
// limit and the request budget, and passes: the listing completes with
// max_retries 0, and a clean listing afterwards runs in parallel again.
func TestFault429StormBackoff(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 3000})
	c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 0 })
	var low atomicMin
	low.v.Store(int64(c.MaxParallelRequests()))
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if !isOrdersList(r) {
			return nil
		}
		low.store(c.inFlight.current())
		if i := n.Add(1); i <= 15 && i%3 == 0 {
			return &emulator.Fault{Status: http.StatusTooManyRequests}
		}
		return nil
	})
	stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
	st := srv.Stats()
	if st.StatusCounts[http.StatusTooManyRequests] != 5 || st.Faults != 5 {
		t.Errorf("429s = %d, faults = %d; want every 3rd of the first 15 requests", st.StatusCounts[http.StatusTooManyRequests], st.Faults)
	}
	if got := clientRetries(c, stats); got != 5 || stats.Throttled != 5 {
		t.Errorf("client retries = %d, throttled = %d; want one per 429 (5)", got, stats.Throttled)
	}
	if l := int(low.v.Load()); l >= c.MaxParallelRequests() {
		t.Errorf("concurrency limit never dropped below %d during the storm", l)
	}
	if stats.Budget <= 0 {
		t.Errorf("no request budget learned from the storm (stats %+v)", stats)
	}
	// The storm is over: clean listings bring the concurrency limit back
	// to max_parallel_requests, one slot per limit-many answers (about
	// 500 answers from 1 to 32: 17 listings of 30 pages), and the budget
	// up again.
	srv.SetFaults(nil)
	listings := 0
	for ; listings < 25 && c.inFlight.current() < c.MaxParallelRequests(); listings++ {
		mustList(t, srv, c, commerce.Orders, ListQuery{})
	}
	if got := c.inFlight.current(); got != c.MaxParallelRequests() {
		t.Errorf("concurrency limit is %d after %d clean listings, want it recovered to %d", got, listings, c.MaxParallelRequests())
	}
	if got := c.budget.rate(); got <= stats.Budget {
		t.Errorf("budget %.1f/s after clean listings, want it above the %.1f/s the storm left", got, stats.Budget)
	}
	t.Logf("lowest concurrency limit %d, budget after the storm %.1f/s, now %.1f/s; recovered in %d listings", low.v.Load(), stats.Budget, c.budget.rate(), listings)
}

// TestProbeAt20PerSecond: one listing of 10,000 accounts at a store of 20
// requests per second, whose limit the client has not learned: at most 5%
// of its requests are answered 429 (the probe lets 4 of its 100 pages go
// beyond what the store has shown it takes; 3 of 106 were refused), and
// the budget it learns is 90% of what the store took.
func TestProbeAt20PerSecond(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Accounts: 10000, Orders: -1, Files: -1, Customers: -1, Hierarchies: -1,
		Latency: 20 * time.Millisecond, RateLimit: 20})
	c := newClient(t, srv)
	stats := mustList(t, srv, c, commerce.Accounts, ListQuery{})
	st := srv.Stats()
	refused := st.StatusCounts[http.StatusTooManyRequests]
	if 20*refused > st.TotalRequests {
		t.Errorf("%d of %d requests answered 429 (%.1f%%), want at most 5%%", refused, st.TotalRequests, 100*float64(refused)/float64(st.TotalRequests))
	}
	if stats.Budget < 17 {
		t.Errorf("learned a budget of %.1f/s at a store that takes 20/s, want at least 90%% of it less a little", stats.Budget)
	}
	t.Logf("%d requests, %d answered 429, budget %.1f/s", st.TotalRequests, refused, stats.Budget)
}

// TestA429RightAfterARetryAfterWait: a store (a gateway, a storefront's
// surge) that answers 429 with Retry-After: 1 twice in quick succession,
// three times over, and accepts every other request at any pace. The
// second 429 of each pair comes a few requests after the wait the first
// asked for: the window before it is mostly that wait. The budget it sets
// counts the answers over the part of the window the client was free to
// send, so the pace does not collapse; counted over the whole window it
// fell to 4 requests/s, and the listing took 19.6 s instead of 10.7 (a
// store matrix draw, 25,483 files with one answer in 20 so refused,
// crawled at under 2 requests/s).
func TestA429RightAfterARetryAfterWait(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 15000})
	c := newClient(t, srv)
	var low atomicMin
	low.v.Store(1 << 30)
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if !isOrdersList(r) {
			return nil
		}
		if b := c.budget.rate(); b > 0 {
			low.store(int(b))
		}
		switch n.Add(1) {
		case 30, 36, 70, 76, 110, 116:
			return &emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"}
		}
		return nil
	})
	start := time.Now()
	mustList(t, srv, c, commerce.Orders, ListQuery{})
	st := srv.Stats()
	t.Logf("%d requests, %d answered 429, %v; the budget as low as %d/s", st.TotalRequests,
		st.StatusCounts[http.StatusTooManyRequests], time.Since(start).Round(time.Millisecond), low.v.Load())
	if l := low.v.Load(); l < 10 {
		t.Errorf("the budget fell to %d requests/s after 429s right after a wait the store asked for", l)
	}
}
