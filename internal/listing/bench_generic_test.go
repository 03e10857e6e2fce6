package listing

// The generic listing against the typed one on the same endpoint, in one
// run:
//
//	go test ./internal/client -run '^$' -bench 'BenchmarkListGeneric' -benchtime 3x

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// BenchmarkListGeneric lists N orders with the typed kind (Orders), without
// and with each record's JSON, and with GenericKind over the same
// capability row (which always keeps the JSON), in turns within each
// iteration so that all see the same emulator and machine state, and
// reports their requests and wall times side by side.
func BenchmarkListGeneric(b *testing.B) {
	for _, n := range []int{10000, 60000} {
		srv, err := emulator.Start(emulator.Options{Orders: n, Files: -1, Accounts: -1, Customers: -1, Hierarchies: -1, Latency: benchLatency})
		if err != nil {
			b.Fatalf("emulator: %v", err)
		}
		want, err := srv.SortedIDs("orders", "", "created_at")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var iters int
			var reqs, wall [3]float64 // typed, generic, typed with JSON
			for b.Loop() {
				for k := range 3 {
					which := (iters + k) % 3 // rotate which goes first
					d, r := benchListOnce(b, srv, want, which)
					wall[which] += float64(d.Milliseconds())
					reqs[which] += float64(r)
				}
				iters++
			}
			it := float64(iters)
			b.ReportMetric(reqs[0]/it, "typed_requests/op")
			b.ReportMetric(reqs[1]/it, "generic_requests/op")
			b.ReportMetric(wall[0]/it, "typed_wall_ms/op")
			b.ReportMetric(wall[2]/it, "typed_json_wall_ms/op")
			b.ReportMetric(wall[1]/it, "generic_wall_ms/op")
			b.ReportMetric(wall[1]/wall[0], "generic/typed_wall")
			b.ReportMetric(wall[1]/wall[2], "generic/typed_json_wall")
		})
		srv.Close()
	}
}

// benchListOnce lists every order with a fresh client, typed (0), generic
// (1) or typed with each record's JSON (2), checks the ids and returns the
// wall time and the list requests sent.
func benchListOnce(b *testing.B, srv *emulator.Server, want []string, variant int) (time.Duration, int) {
	b.Helper()
	srv.ResetStats()
	start := time.Now()
	c := benchClient(b, srv, benchMaxParallel)
	ids := make([]string, 0, len(want))
	var err error
	if variant == 1 {
		records := make([]commerce.Generic, 0, 1024)
		_, err = List(context.Background(), c, commerce.GenericKind(commerce.OrdersEndpoint), Query{}, func(g commerce.Generic) error {
			records = append(records, g)
			ids = append(ids, g.ID)
			return nil
		})
	} else {
		records := make([]commerce.Order, 0, 1024)
		_, err = List(context.Background(), c, commerce.Orders, Query{IncludeJSON: variant == 2}, func(o commerce.Order) error {
			records = append(records, o)
			ids = append(ids, o.ID)
			return nil
		})
	}
	d := time.Since(start)
	if err != nil {
		b.Fatalf("List (variant %d): %v", variant, err)
	}
	if !slices.Equal(ids, want) {
		b.Fatalf("variant %d: listed %d ids, want %d (first difference at %d)", variant, len(ids), len(want), firstDiff(ids, want))
	}
	return d, srv.Stats().ListRequests["orders"]
}
