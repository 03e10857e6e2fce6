package client

import (
	"context"
	"net/http"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// A store 150 ms away: one with no limit makes the client grow its
// requests in flight past the 8 it starts with; a development store
// (25 requests/s) never lets it, so that the courteous start governs there
// as it did before the growth. (Its share of 429s, 3.3-3.6% in
// BenchmarkFarStore, is the courteous start's, with or without the growth;
// under the race detector on a loaded machine it reached 5.6% once, and is
// logged here rather than held.)
func TestFarStores(t *testing.T) {
	if testing.Short() {
		t.Skip("lists 20,000 orders at a development store's pace: 9 s")
	}
	for _, tc := range []struct {
		name   string
		rps    float64
		orders int
	}{{"no limit", 0, 5000}, {"development store", 25, 20000}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Orders: tc.orders, Accounts: -1, Files: -1, Customers: -1, Hierarchies: -1,
				Latency: farLatency, RateLimit: tc.rps})
			c, err := New(Config{BaseURL: srv.URL(), ClientID: emulator.DefaultClientID, ClientSecret: emulator.DefaultClientSecret,
				MaxRetries: DefaultMaxRetries})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			if _, err := List(context.Background(), c, commerce.Orders, ListQuery{}, func(commerce.Order) error { n++; return nil }); err != nil || n != tc.orders {
				t.Fatalf("listed %d orders: %v", n, err)
			}
			st := srv.Stats()
			refused := st.StatusCounts[http.StatusTooManyRequests]
			c.inFlight.mu.Lock()
			grown := c.inFlight.peak
			c.inFlight.mu.Unlock()
			t.Logf("%d requests, %d answered 429, in flight up to %d", st.TotalRequests, refused, grown)
			switch {
			case tc.rps == 0 && grown <= startInFlight:
				t.Errorf("no limit, 150 ms away: the requests in flight stayed at %d", grown)
			case tc.rps > 0 && grown != startInFlight:
				t.Errorf("a development store: the requests in flight grew to %d", grown)
			}
		})
	}
}
