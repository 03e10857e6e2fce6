package client

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// farLatency is a store in another region from the runner.
const farLatency = 150 * time.Millisecond

// BenchmarkFarStore lists orders, ids only, from a store 150 ms away, one
// Client as in one terraform plan: a production store (100 requests/s), a
// development store (25/s), and a store with no limit. Reported: wall
// time, the ideal (accepted requests / the store's rate; none without a
// limit), their ratio, the wall against the bound 1.3 × ideal + 0.45 s,
// and the share answered 429.
//
// Each store runs twice in one run: with the default (up to 32 requests in
// flight, the probe pacing the start: parallel=auto) and with
// max_parallel_requests = 8 (parallel=8). orders=100000 at 100/s is the run
// a million ids is projected from (ten times its time).
func BenchmarkFarStore(b *testing.B) {
	for _, tc := range []struct {
		orders int
		rps    float64
	}{{20000, 100}, {20000, 25}, {20000, 0}, {100000, 100}} {
		for _, parallel := range []int{0, 8} {
			name := map[int]string{0: "auto", 8: "8"}[parallel]
			b.Run(fmt.Sprintf("orders=%d/rps=%g/parallel=%s", tc.orders, tc.rps, name), func(b *testing.B) {
				benchFarStore(b, tc.orders, tc.rps, parallel)
			})
		}
	}
}

func benchFarStore(b *testing.B, orders int, rps float64, parallel int) {
	srv, err := emulator.Start(emulator.Options{Orders: orders, Accounts: -1, Files: -1, Customers: -1, Hierarchies: -1,
		Latency: farLatency, RateLimit: rps})
	if err != nil {
		b.Fatalf("emulator: %v", err)
	}
	defer srv.Close()
	var wall time.Duration
	var tooMany, total, iters float64
	for b.Loop() {
		b.StopTimer()
		time.Sleep(1100 * time.Millisecond) // an idle store between plans
		srv.ResetStats()
		b.StartTimer()
		start := time.Now()
		c, err := New(Config{BaseURL: srv.URL(), ClientID: emulator.DefaultClientID, ClientSecret: emulator.DefaultClientSecret,
			MaxRetries: DefaultMaxRetries, MaxParallelRequests: parallel})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if _, err := List(context.Background(), c, commerce.Orders, ListQuery{}, func(commerce.Order) error { n++; return nil }); err != nil || n != orders {
			b.Fatalf("listed %d orders: %v", n, err)
		}
		wall += time.Since(start)
		st := srv.Stats()
		tooMany += float64(st.StatusCounts[http.StatusTooManyRequests])
		total += float64(st.TotalRequests)
		iters++
	}
	b.StopTimer()
	wallMS := float64(wall.Milliseconds()) / iters
	b.ReportMetric(wallMS, "wall_ms/op")
	b.ReportMetric(total/iters, "requests/op")
	b.ReportMetric(100*tooMany/total, "throttled_pct")
	if rps > 0 {
		ideal := (total - tooMany) / iters / rps * 1000
		b.ReportMetric(ideal, "ideal_ms")
		b.ReportMetric(wallMS/ideal, "ratio_to_ideal")
		b.ReportMetric(wallMS/(1.3*ideal+450), "wall_to_bound")
	}
}
