package client

// Politeness benchmarks: the engine against a store whose rate limit it
// shares.
//
//	go test ./internal/client -run '^$' -bench '^BenchmarkListSmallStore$' -benchtime 1x
//
// (tools/bench.sh polite runs it with BenchmarkListingStart.)

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// BenchmarkListSmallStore lists from a store with a rate limit of 20 or 25
// requests per second (the vendor's development stores allow 25), 20 ms
// latency, with the default settings (max_parallel_requests 8, page size
// 100, no rate_limit), one Client as in one terraform plan:
//
//   - listings=1: 10,000 accounts;
//   - listings=3: 10,000 accounts, 12,000 orders (past the offset limit)
//     and 3,000 files at once, as three data sources of one plan.
//
// The store counts accepted requests in a sliding one-second window
// (store=lenient), or refused ones too (store=strict). Reported: the share
// of requests answered 429 (throttled_pct) and the wall time against the
// ideal, accepted requests / rate (ratio_to_ideal).
func BenchmarkListSmallStore(b *testing.B) {
	for _, rps := range []float64{20, 25} {
		for _, listings := range []int{1, 3} {
			for _, strict := range []bool{false, true} {
				store := map[bool]string{false: "lenient", true: "strict"}[strict]
				b.Run(fmt.Sprintf("rps=%g/listings=%d/store=%s", rps, listings, store), func(b *testing.B) {
					opts := emulator.Options{Accounts: 10000, Orders: -1, Files: -1, Customers: -1, Hierarchies: -1,
						Latency: 20 * time.Millisecond, RateLimit: rps, RateLimitCountsRefused: strict}
					if listings == 3 {
						opts.Orders, opts.Files = 12000, 3000
					}
					srv, err := emulator.Start(opts)
					if err != nil {
						b.Fatalf("emulator: %v", err)
					}
					defer srv.Close()
					benchSharedStore(b, srv, rps, listings)
				})
			}
		}
	}
}

func benchSharedStore(b *testing.B, srv *emulator.Server, rps float64, listings int) {
	var (
		iters                  int
		wall                   time.Duration
		tooMany, total, budget float64
	)
	for b.Loop() {
		b.StopTimer()
		// An idle store between runs, as between two plans.
		time.Sleep(1100 * time.Millisecond)
		srv.ResetStats()
		b.StartTimer()
		start := time.Now()
		c, err := New(Config{BaseURL: srv.URL(), ClientID: emulator.DefaultClientID, ClientSecret: emulator.DefaultClientSecret,
			MaxRetries: DefaultMaxRetries})
		if err != nil {
			b.Fatal(err)
		}
		stats := listConcurrently(b, c, listings)
		d := time.Since(start)
		st := srv.Stats()
		if dir := os.Getenv("COMMERCE_BENCH_TRACE"); dir != "" {
			emulatortest.WriteTrace(b, filepath.Join(dir, fmt.Sprintf("trace-smallstore-rps%g-listings%d.csv", rps, listings)), start, st.Requests)
		}
		wall += d
		iters++
		tooMany += float64(st.StatusCounts[http.StatusTooManyRequests])
		total += float64(st.TotalRequests)
		budget += stats[0].Budget
		if testing.Verbose() {
			b.Logf("run %d: %v, %d requests, %d answered 429, budget %.1f/s", iters, d.Round(time.Millisecond),
				st.TotalRequests, st.StatusCounts[http.StatusTooManyRequests], stats[0].Budget)
		}
	}
	b.StopTimer()
	n := float64(iters)
	ideal := (total - tooMany) / n / rps * 1000
	wallMS := float64(wall.Milliseconds()) / n
	b.ReportMetric(wallMS, "wall_ms/op")
	b.ReportMetric(ideal, "ideal_ms")
	b.ReportMetric(wallMS/ideal, "ratio_to_ideal")
	b.ReportMetric(100*tooMany/total, "throttled_pct")
	b.ReportMetric(total/n, "requests/op")
	b.ReportMetric(budget/n, "budget_rps")
}

// listConcurrently runs the first n of accounts, orders and files at once
// on c, each checked for completeness, and returns their stats.
func listConcurrently(tb testing.TB, c *Client, n int) []ListStats {
	tb.Helper()
	stats := make([]ListStats, n)
	errs := make([]error, n)
	counts := make([]int, n)
	var wg sync.WaitGroup
	run := func(i int, list func() (ListStats, error)) {
		wg.Go(func() { stats[i], errs[i] = list() })
	}
	ctx := context.Background()
	run(0, func() (ListStats, error) {
		return List(ctx, c, commerce.Accounts, ListQuery{}, func(commerce.Account) error { counts[0]++; return nil })
	})
	if n > 1 {
		run(1, func() (ListStats, error) {
			return List(ctx, c, commerce.Orders, ListQuery{}, func(commerce.Order) error { counts[1]++; return nil })
		})
	}
	if n > 2 {
		run(2, func() (ListStats, error) {
			return List(ctx, c, commerce.Files, ListQuery{}, func(commerce.File) error { counts[2]++; return nil })
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			tb.Fatalf("listing %d: %v", i, errs[i])
		}
		if counts[i] != stats[i].Total || stats[i].Total == 0 {
			tb.Fatalf("listing %d: %d records of %d", i, counts[i], stats[i].Total)
		}
	}
	return stats
}
