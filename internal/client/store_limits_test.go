package client

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// maxThrottledShare is what the provider promises a store: at most this
// share of a read's requests answered 429.
const maxThrottledShare = 0.05

// TestStoresRefuseFewRequests lists from stores of 20, 25, 50 and 100
// requests/s, 0, 20, 150 and 300 ms away, each with two seconds of the
// store's pace to list (200 pages at 100/s), from a fresh client and an
// idle store as a plan starts. It logs the share of requests answered 429
// and the time against the ideal (accepted requests / the store's rate),
// and holds the share to 5% everywhere (the probe, budget.go): in three
// runs of the 16 stores, 0 to 4.2% (9 of 214, a production store 150 ms
// away). Before the probe, 6 of 58 at 25/s and 9 of 112 at 50/s were
// refused 150 ms away, and 3 of 45 at 20/s 300 ms away. The four stores
// list side by side, each on its own emulator with a limit of its own:
// the test waits on the stores' pace, not on the machine, and one after
// the other it held make test up a minute.
func TestStoresRefuseFewRequests(t *testing.T) {
	longTest(t)
	for _, rps := range []float64{20, 25, 50, 100} {
		t.Run(fmt.Sprintf("rps=%g", rps), func(t *testing.T) {
			t.Parallel()
			orders := int(2 * rps * 100)
			srv := emulatortest.Start(t, emulator.Options{Orders: orders, Accounts: -1, Files: -1, Customers: -1, Hierarchies: -1, RateLimit: rps})
			for _, latency := range []time.Duration{0, 20 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond} {
				srv.SetLatency(latency)
				time.Sleep(1100 * time.Millisecond) // an idle store between plans
				srv.ResetStats()
				refused, total, elapsed := listOrders(t, srv, orders)
				share := float64(refused) / float64(total)
				ideal := float64(total-refused) / rps
				t.Logf("%3d ms away: %d of %d requests answered 429 (%.1f%%), %v (%.2fx ideal)",
					latency.Milliseconds(), refused, total, 100*share, elapsed.Round(10*time.Millisecond), elapsed.Seconds()/ideal)
				if share > maxThrottledShare {
					t.Errorf("%v away: %d of %d requests answered 429 (%.1f%%), more than %g%%", latency, refused, total, 100*share, 100*maxThrottledShare)
				}
			}
		})
	}
}

// listOrders lists srv's orders through a new Client with the provider's
// defaults: the requests the store answered 429, all it got, and the time.
func listOrders(t *testing.T, srv *emulator.Server, orders int) (refused, total int, elapsed time.Duration) {
	t.Helper()
	c, err := New(Config{BaseURL: srv.URL(), ClientID: emulator.DefaultClientID, ClientSecret: emulator.DefaultClientSecret,
		MaxRetries: DefaultMaxRetries})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n := 0
	if _, err := List(context.Background(), c, commerce.Orders, ListQuery{}, func(commerce.Order) error { n++; return nil }); err != nil || n != orders {
		t.Fatalf("listed %d orders: %v", n, err)
	}
	st := srv.Stats()
	return st.StatusCounts[http.StatusTooManyRequests], st.TotalRequests, time.Since(start)
}
