package client

// The fault matrix (see faults_helpers_test.go): answers the transport
// spoils: connection resets, truncated or invalid bodies, answers slower
// than request_timeout.

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// ---- connection resets and truncated bodies ----

func TestFaultResetAndTruncate(t *testing.T) {
	t.Run("truncated_every_5th", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
		srv.SetFaults(emulator.FailEveryNth(5, emulator.Fault{Truncate: true}))
		c := newClient(t, srv)
		stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
		st := srv.Stats()
		// The transport cannot retry a body cut after the headers: every
		// truncation is the client's own retry.
		if st.Faults < 20 || clientRetries(c, stats) != st.Faults {
			t.Errorf("truncations = %d, client retries = %d; want equal (and at least 20)", st.Faults, clientRetries(c, stats))
		}
	})
	t.Run("reset_first_two", func(t *testing.T) {
		// The first page request goes out on the token request's idle
		// connection: Go's transport sends it again by itself on a fresh
		// one after the reset, and that one is reset too, which the client
		// must retry on its own.
		srv := emulatortest.Start(t, emulator.Options{Orders: 2500})
		srv.SetFaults(emulator.FailFirst(2, emulator.Fault{Reset: true}))
		c := newClient(t, srv)
		stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
		st := srv.Stats()
		if st.StatusCounts[0] != 2 {
			t.Errorf("resets = %d, want 2", st.StatusCounts[0])
		}
		if got := clientRetries(c, stats); got < 1 || got > 2 {
			t.Errorf("client retries = %d, want 1 (or 2 if the transport did not retry)", got)
		}
		t.Logf("2 resets: %d retried by the client, %d by the transport", clientRetries(c, stats), 2-clientRetries(c, stats))
	})
	t.Run("random_mixed", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
		resets := emulator.FailRandomly(0.08, 7, emulator.Fault{Reset: true})
		truncs := emulator.FailRandomly(0.08, 8, emulator.Fault{Truncate: true})
		var truncated atomic.Int64
		srv.SetFaults(func(r *http.Request, seq int64) *emulator.Fault {
			if !isOrdersList(r) {
				return nil
			}
			if f := resets(r, seq); f != nil {
				return f
			}
			if f := truncs(r, seq); f != nil {
				truncated.Add(1)
				return f
			}
			return nil
		})
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 10 })
		stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
		st := srv.Stats()
		if st.StatusCounts[0] == 0 || truncated.Load() == 0 {
			t.Fatalf("resets = %d, truncations = %d; want both", st.StatusCounts[0], truncated.Load())
		}
		if got := clientRetries(c, stats); got < int(truncated.Load()) {
			t.Errorf("client retries = %d, want at least one per truncation (%d)", got, truncated.Load())
		}
		t.Logf("resets %d (client saw %d of them), truncations %d", st.StatusCounts[0], clientRetries(c, stats)-int(truncated.Load()), truncated.Load())
	})
}

// ---- invalid JSON ----

func TestFaultMalformedBody(t *testing.T) {
	garbage := func([]byte) []byte { return []byte(`{"data":[{"id":"x"`) }
	t.Run("transient", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
		srv.SetFaults(emulator.FailEveryNth(7, emulator.Fault{Mutate: garbage}))
		c := newClient(t, srv)
		stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
		if st := srv.Stats(); st.Faults < 10 || clientRetries(c, stats) != st.Faults {
			t.Errorf("garbled pages = %d, client retries = %d; want equal (and at least 10)", st.Faults, clientRetries(c, stats))
		}
	})
	t.Run("permanent", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 500})
		srv.SetFaults(emulator.FailFirst(1<<30, emulator.Fault{Mutate: garbage}))
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 2 })
		_, _, err := listWithin(t, c, commerce.Orders, ListQuery{})
		var tErr *TransportError
		var malformed malformedError
		if !errors.As(err, &tErr) || !errors.As(err, &malformed) {
			t.Fatalf("error = %v, want a *TransportError for a malformed body", err)
		}
		if tErr.Attempts != 3 {
			t.Errorf("attempts = %d, want 3", tErr.Attempts)
		}
		for _, part := range []string{"GET /v2/orders?", "malformed response body", "unexpected end of JSON input", "(gave up after 3 attempts over "} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
		if got := srv.Stats().ListRequests["orders"]; got != 3 {
			t.Errorf("list requests = %d, want 3", got)
		}
	})
}

// ---- slow answers ----

func TestFaultSlowerThanRequestTimeout(t *testing.T) {
	const timeout = 250 * time.Millisecond
	t.Run("some_slow", func(t *testing.T) {
		// A second, not the 250 ms below: under the race detector, on a
		// busy machine, a page of 100 orders can take longer than 250 ms
		// to answer, and each such answer is (rightly) retried too.
		const timeout = time.Second
		srv := emulatortest.Start(t, emulator.Options{Orders: 5000})
		srv.SetFaults(emulator.FailEveryNth(10, emulator.Fault{Delay: 4 * timeout}))
		c := newClient(t, srv, func(c *testConfig) { c.RequestTimeout = timeout })
		stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
		if st := srv.Stats(); st.Faults < 5 || clientRetries(c, stats) != st.Faults {
			t.Errorf("slow answers = %d, client retries = %d; want equal (and at least 5)", st.Faults, clientRetries(c, stats))
		}
	})
	t.Run("always_slow", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 500})
		srv.SetFaults(emulator.FailFirst(1<<30, emulator.Fault{Delay: 4 * timeout}))
		c := newClient(t, srv, func(c *testConfig) { c.RequestTimeout = timeout; c.MaxRetries = 2 })
		start := time.Now()
		_, _, err := listWithin(t, c, commerce.Orders, ListQuery{})
		var tErr *TransportError
		if !errors.As(err, &tErr) || tErr.Attempts != 3 {
			t.Fatalf("error = %v, want *TransportError after 3 attempts", err)
		}
		if tErr.Elapsed < 3*timeout {
			t.Errorf("elapsed = %v, want at least the three attempts' %v", tErr.Elapsed, 3*timeout)
		}
		for _, part := range []string{"could not reach " + srv.URL() + "/v2/orders?", "(no complete answer within request_timeout (250ms)) after 3 attempts over "} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v must not look like the caller's own deadline", err)
		}
		if d := time.Since(start); d > 3*timeout+time.Second {
			t.Errorf("three timed-out attempts took %v", d)
		}
	})
}

// TestRequestTimeoutStartsOnceBudgetAdmits: request_timeout bounds an
// attempt from when the budget lets it go, not its wait for the store's
// rate limit. At a rate_limit of 2 requests/s with the budget's next
// second already spent, the token request and then a resource request
// each wait about half a second, longer than request_timeout, and still
// succeed with no retry; before, each timed out having never been sent.
func TestRequestTimeoutStartsOnceBudgetAdmits(t *testing.T) {
	const timeout = 200 * time.Millisecond
	srv := emulatortest.Start(t, emulator.Options{Orders: 10})
	c := newClient(t, srv, func(c *testConfig) { c.RateLimit = 2; c.RequestTimeout = timeout; c.MaxRetries = 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	spend := func() {
		t.Helper()
		for range 2 {
			if _, err := c.budget.wait(ctx, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	spend()
	if err := c.Authenticate(ctx); err != nil {
		t.Fatalf("the token request waited for the budget and failed: %v", err)
	}
	spend()
	err := c.Get(ctx, commerce.Orders.Path, nil, func([]byte) error { return nil })
	if err != nil {
		t.Fatalf("the request waited for the budget and failed: %v", err)
	}
	// Six requests at 2/s: five gaps of half a second.
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("took %v; the budget should have held the requests back for 2.5 s", d)
	}
	if n := c.Requests(); n != 1 {
		t.Errorf("resource requests sent = %d, want 1", n)
	}
	if st := srv.Stats(); st.StatusCounts[http.StatusOK] != 2 {
		t.Errorf("answers 200 = %d, want 2 (the token and the page)", st.StatusCounts[http.StatusOK])
	}
}
