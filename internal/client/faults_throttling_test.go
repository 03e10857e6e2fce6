package client

// The fault matrix (see faults_helpers_test.go): 429 storms.

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

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
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
	c := newClient(t, srv, func(c *Config) { c.MaxRetries = 10 })
	var low atomicMin
	low.v.Store(int64(c.MaxParallelRequests()))
	// A storm that passes: every 3rd of the first 30 resource requests is
	// answered 429 with Retry-After: 1.
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if !isOrdersList(r) {
			return nil
		}
		low.store(c.inFlight.current())
		if i := n.Add(1); i <= 30 && i%3 == 0 {
			return &emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"}
		}
		return nil
	})
	start := time.Now()
	stats := mustList(t, srv, c, Orders, ListQuery{})
	elapsed := time.Since(start)
	st := srv.Stats()
	if st.StatusCounts[http.StatusTooManyRequests] != 10 || st.Faults != 10 {
		t.Errorf("429s = %d, faults = %d; want 10", st.StatusCounts[http.StatusTooManyRequests], st.Faults)
	}
	if got := clientRetries(c, stats); got != 10 {
		t.Errorf("client retries = %d, want one per 429 (10)", got)
	}
	if elapsed < time.Second {
		t.Errorf("listing took %v; every 429 asked for a 1s wait", elapsed)
	}
	if l := int(low.v.Load()); l >= c.MaxParallelRequests() {
		t.Errorf("concurrency limit never dropped below %d during the storm", l)
	}
	if got := c.inFlight.current(); got != c.MaxParallelRequests() {
		t.Errorf("concurrency limit is %d after the storm, want it recovered to %d", got, c.MaxParallelRequests())
	}
	t.Logf("listing took %v, lowest concurrency limit %d, %d pages, peak concurrency %d", elapsed, low.v.Load(), stats.Pages, st.MaxConcurrent)
}

func TestFault429StormBackoff(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
	c := newClient(t, srv, func(c *Config) { c.MaxRetries = 12 })
	var low atomicMin
	low.v.Store(int64(c.MaxParallelRequests()))
	every3rd := emulator.FailEveryNth(3, emulator.Fault{Status: http.StatusTooManyRequests})
	srv.SetFaults(func(r *http.Request, seq int64) *emulator.Fault {
		if isOrdersList(r) {
			low.store(c.inFlight.current())
		}
		return every3rd(r, seq)
	})
	stats := mustList(t, srv, c, Orders, ListQuery{})
	st := srv.Stats()
	if st.StatusCounts[http.StatusTooManyRequests] != st.Faults || st.Faults < 40 {
		t.Errorf("429s = %d, faults = %d; want every 3rd request (at least 40)", st.StatusCounts[http.StatusTooManyRequests], st.Faults)
	}
	if got := clientRetries(c, stats); got != st.Faults {
		t.Errorf("client retries = %d, want one per 429 (%d)", got, st.Faults)
	}
	if l := int(low.v.Load()); l >= c.MaxParallelRequests() {
		t.Errorf("concurrency limit never dropped below %d during the storm", l)
	}
	// The storm is over: a clean listing brings the limit back to the
	// maximum and actually runs requests in parallel again.
	srv.SetFaults(nil)
	srv.SetLatency(2 * time.Millisecond) // so that parallel requests overlap
	srv.ResetStats()
	mustList(t, srv, c, Orders, ListQuery{})
	if got := c.inFlight.current(); got != c.MaxParallelRequests() {
		t.Errorf("concurrency limit is %d after a clean listing, want it recovered to %d", got, c.MaxParallelRequests())
	}
	if got := srv.Stats().MaxConcurrent; got < 2 {
		t.Errorf("peak concurrency after recovery = %d, want parallel requests again", got)
	}
	t.Logf("lowest concurrency limit %d, %d 429s", low.v.Load(), st.Faults)
}
