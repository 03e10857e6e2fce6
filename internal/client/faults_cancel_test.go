package client

// The fault matrix (see faults_helpers_test.go): cancellation.

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// settleGoroutines waits until the goroutine count is back to at most
// baseline, and reports the count.
func settleGoroutines(baseline int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(3 * time.Second); n > baseline && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestFaultCancelMidListing(t *testing.T) {
	check := func(t *testing.T, srv *emulator.Server, run func(c *Client, cancelled *atomic.Int64) error) {
		t.Helper()
		baseline := runtime.NumGoroutine()
		c := newClient(t, srv)
		var cancelledAt atomic.Int64
		err := run(c, &cancelledAt)
		returned := time.Now()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
		if cancelledAt.Load() == 0 {
			t.Fatal("the listing ended before it was cancelled")
		}
		if d := returned.Sub(time.Unix(0, cancelledAt.Load())); d > time.Second {
			t.Errorf("List returned %v after the cancellation", d)
		}
		c.http.CloseIdleConnections()
		if n := settleGoroutines(baseline); n > baseline {
			buf := make([]byte, 1<<20)
			t.Errorf("goroutines: %d before, %d after the listing\n%s", baseline, n, buf[:runtime.Stack(buf, true)])
		}
	}
	t.Run("in_emit_after_1950", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 20000, Latency: 5 * time.Millisecond})
		check(t, srv, func(c *Client, cancelledAt *atomic.Int64) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			listed := 0
			_, err := List(ctx, c, commerce.Orders, ListQuery{}, func(commerce.Order) error {
				if listed++; listed == 1950 {
					cancelledAt.Store(time.Now().UnixNano())
					cancel()
				}
				return nil
			})
			// The rest of the page being handed over may still arrive;
			// no page after it, though several are fetched already.
			if listed >= 1950+100 {
				t.Errorf("emit called %d times, want no page after the one cancelled at 1950", listed)
			}
			return err
		})
	})
	t.Run("requests_in_flight", func(t *testing.T) {
		// Every answer takes 300ms: the cancellation lands while all
		// workers wait on the service.
		srv := emulatortest.Start(t, emulator.Options{Orders: 20000, Latency: 300 * time.Millisecond})
		check(t, srv, func(c *Client, cancelledAt *atomic.Int64) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var listed atomic.Int64
			go func() {
				for listed.Load() < 150 {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond)
				cancelledAt.Store(time.Now().UnixNano())
				cancel()
			}()
			_, err := List(ctx, c, commerce.Orders, ListQuery{}, func(commerce.Order) error { listed.Add(1); return nil })
			return err
		})
	})
	t.Run("during_retry_after", func(t *testing.T) {
		// The service asks for a 30s pause: the cancellation must cut it.
		srv := emulatortest.Start(t, emulator.Options{Orders: 2000})
		var n atomic.Int64
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if isOrdersList(r) && n.Add(1) > 3 {
				return &emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: "30"}
			}
			return nil
		})
		check(t, srv, func(c *Client, cancelledAt *atomic.Int64) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				for srv.Stats().StatusCounts[http.StatusTooManyRequests] < 2 {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(50 * time.Millisecond)
				cancelledAt.Store(time.Now().UnixNano())
				cancel()
			}()
			_, err := List(ctx, c, commerce.Orders, ListQuery{}, func(commerce.Order) error { return nil })
			return err
		})
	})
}
