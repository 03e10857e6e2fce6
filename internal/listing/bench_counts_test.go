package listing

// What a store that counts lazily costs: 25,000 orders and 25,000 accounts
// listed at once, as the two data sources of one plan, at each count
// method, next to the same store counting exactly, in one run.
//
//	go test ./internal/listing -run '^$' -bench '^BenchmarkLazyCounts$' -benchtime 3x

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// lazyCountings are the count methods of the lazy counts' figures, the
// exact store first: the others are measured against it.
var lazyCountings = []struct {
	name     string
	counting emulator.Counting
}{
	{"exact", emulator.Counting{}},
	{"lower_bound_1000", emulator.Counting{Method: emulator.CountLowerBound, Cap: 1000}},
	{"lower_bound_10000", emulator.Counting{Method: emulator.CountLowerBound, Cap: 10000}},
	{"lower_bound_1000_unlabelled", emulator.Counting{Method: emulator.CountLowerBound, Cap: 1000, Unlabelled: true}},
	{"observed", emulator.Counting{Method: emulator.CountObserved}},
	{"estimate_10pct", emulator.Counting{Method: emulator.CountEstimate, Percent: 10}},
	{"none", emulator.Counting{Method: emulator.CountNone}},
}

// onePlan lists every order and every account at once on one engine, as a
// plan with both data sources does, and returns the list requests the
// store received.
func onePlan(ctx context.Context, e *Engine, srv *emulator.Server) (int, error) {
	before := srv.Stats().ListRequests
	var wg sync.WaitGroup
	var errOrders, errAccounts error
	var orders, accounts int
	wg.Go(func() {
		_, errOrders = readOnce(ctx, e, commerce.Orders, Query{}, Reader[commerce.Order]{Emit: func(commerce.Order) error { orders++; return nil }})
	})
	wg.Go(func() {
		_, errAccounts = readOnce(ctx, e, commerce.Accounts, Query{}, Reader[commerce.Account]{Emit: func(commerce.Account) error { accounts++; return nil }})
	})
	wg.Wait()
	switch {
	case errOrders != nil:
		return 0, errOrders
	case errAccounts != nil:
		return 0, errAccounts
	case orders != 25000 || accounts != 25000:
		return 0, fmt.Errorf("listed %d orders and %d accounts, want 25,000 each", orders, accounts)
	}
	after := srv.Stats().ListRequests
	return after["orders"] - before["orders"] + after["accounts"] - before["accounts"], nil
}

// TestLazyCountsCostFewRequests holds the request figure of lazy counts:
// at every count method, one plan of 25,000 orders and 25,000 accounts
// takes at most 1.10 times the list requests of an exact store, and 16.
// (The wall time's figures are BenchmarkLazyCounts'.)
func TestLazyCountsCostFewRequests(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000, Accounts: 25000, Files: -1})
	exact := 0
	for _, lc := range lazyCountings {
		srv.SetCounting(lc.counting)
		requests, err := onePlan(context.Background(), newClient(t, srv), srv)
		if err != nil {
			t.Fatalf("%s: %v", lc.name, err)
		}
		if lc.name == "exact" {
			exact = requests
			continue
		}
		bound := int(1.10*float64(exact)) + 16
		t.Logf("%s: %d list requests, the exact store's %d (bound %d)", lc.name, requests, exact, bound)
		if requests > bound {
			t.Errorf("%s: %d list requests, more than 1.10 × %d + 16 = %d", lc.name, requests, exact, bound)
		}
	}
}

// BenchmarkLazyCounts measures one plan of 25,000 orders and 25,000
// accounts at 20 ms latency, at each count method, against the exact
// store's figures of the same run: with the provider's defaults, and with
// rate_limit set to 1,000, which the budget's probe does not hold a read
// below. The probe grows a second's requests by 4% of those the reads
// expect, which a count that is not exact understates.
func BenchmarkLazyCounts(b *testing.B) {
	srv := emulatortest.Start(b, emulator.Options{Orders: 25000, Accounts: 25000, Files: -1, Latency: benchLatency})
	for _, rateLimit := range []float64{0, 1000} {
		b.Run(fmt.Sprintf("rate_limit=%g", rateLimit), func(b *testing.B) {
			benchLazyCounts(b, srv, func(c *client.Config) { c.RateLimit = rateLimit })
		})
	}
}

func benchLazyCounts(b *testing.B, srv *emulator.Server, tweak func(*client.Config)) {
	var exactRequests, exactMS float64
	for _, lc := range lazyCountings {
		b.Run(lc.name, func(b *testing.B) {
			srv.SetCounting(lc.counting)
			var requests, iters int
			var wall time.Duration
			for b.Loop() {
				e := benchClient(b, srv, benchMaxParallel, tweak)
				start := time.Now()
				n, err := onePlan(context.Background(), e, srv)
				wall += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				requests += n
				iters++
			}
			perRun, ms := float64(requests)/float64(iters), float64(wall.Milliseconds())/float64(iters)
			if lc.name == "exact" {
				exactRequests, exactMS = perRun, ms
			}
			b.ReportMetric(perRun, "list_requests/op")
			b.ReportMetric(ms, "wall_ms/op")
			if exactRequests > 0 {
				b.ReportMetric(perRun/exactRequests, "requests_vs_exact")
				b.ReportMetric(ms/exactMS, "time_vs_exact")
			}
		})
	}
}
