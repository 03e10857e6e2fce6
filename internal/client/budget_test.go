package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

func testBudget(ceiling float64) *budget {
	cfg, _ := Config{BaseURL: "http://127.0.0.1:1", ClientID: "a", ClientSecret: "b", RateLimit: ceiling}.withDefaults()
	return newBudget(cfg, func(int) time.Duration { return 100 * time.Millisecond }, nil)
}

// sendAll lets n requests go and answers each with status.
func (b *budget) sendAll(t *testing.T, n, status int) {
	t.Helper()
	for range n {
		sent, err := b.wait(t.Context(), true)
		if err != nil {
			t.Fatal(err)
		}
		b.observe(t.Context(), sent, status, "")
	}
}

func TestBudgetLearnsFromRefusals(t *testing.T) {
	b := testBudget(0)
	if b.rate() != 0 {
		t.Fatalf("a new budget has rate %v, want none learned", b.rate())
	}
	// A read of 100 requests: the probe lets 4 go beyond what the store
	// has shown it takes.
	b.expect(100)
	start := time.Now()
	b.sendAll(t, 20, http.StatusOK)
	// Two requests in flight when the store's window filled: the first 429
	// lowers the budget to 90% of the 20 accepted in the last second and
	// holds every request back until the oldest sends leave the window.
	inFlight, _ := b.wait(t.Context(), true)
	late, _ := b.wait(t.Context(), true)
	b.observe(t.Context(), inFlight, http.StatusTooManyRequests, "")
	if got := b.rate(); got != 18 {
		t.Fatalf("budget after a 429 at 20 accepted/s = %v, want 18", got)
	}
	b.mu.Lock()
	pause := b.pauseUntil
	b.mu.Unlock()
	// 22 sent, 20 accepted: room once the 3 oldest have left the window.
	if pause.Before(start.Add(budgetWindow)) || pause.After(time.Now().Add(budgetWindow)) {
		t.Errorf("pause until %v, want a window after the oldest sends (%v)", pause, start.Add(budgetWindow))
	}
	// The other request of the same burst says nothing new.
	b.observe(t.Context(), late, http.StatusTooManyRequests, "")
	if got := b.rate(); got != 18 {
		t.Errorf("a second 429 of the same burst moved the budget to %v", got)
	}
	if ok, _ := b.exhausted(time.Now()); ok {
		t.Error("the budget gave up although the store accepted requests a moment ago")
	}
}

// TestBudgetCountsAnswersStillOnTheirWay: a 429 can be answered before
// requests sent ahead of it. The store accepted those in the window the drop measured: the
// budget rises to 90% of all of them as they come, and no further.
func TestBudgetCountsAnswersStillOnTheirWay(t *testing.T) {
	b := testBudget(0)
	b.expect(100) // room for the 4 beyond the 17 the store has shown
	b.sendAll(t, 17, http.StatusOK)
	var ahead []time.Time
	for range 3 {
		sent, _ := b.wait(t.Context(), true)
		ahead = append(ahead, sent)
	}
	refused, _ := b.wait(t.Context(), true)
	b.observe(t.Context(), refused, http.StatusTooManyRequests, "")
	if got := b.rate(); got != round1(0.9*17) {
		t.Fatalf("budget after a 429 with 17 answers in = %v, want %v", got, round1(0.9*17))
	}
	for _, sent := range ahead {
		b.observe(t.Context(), sent, http.StatusOK, "")
	}
	if got := round1(b.rate()); got != 18 {
		t.Errorf("budget once the 3 requests sent ahead of the 429 are answered = %v, want 90%% of 20 (18)", got)
	}
}

func TestBudgetCeilingAndPatience(t *testing.T) {
	b := testBudget(10)
	b.sendAll(t, 5, http.StatusOK)
	sent, _ := b.wait(t.Context(), true)
	b.observe(t.Context(), sent, http.StatusTooManyRequests, "")
	if got := b.rate(); got > 10 {
		t.Errorf("budget %v above rate_limit 10", got)
	}
	b.patience = 50 * time.Millisecond
	time.Sleep(60 * time.Millisecond)
	if ok, since := b.exhausted(time.Time{}); !ok || since < 50*time.Millisecond {
		t.Errorf("exhausted = %v after %v without an accepted answer; want true", ok, since)
	}
	e := b.throttled(http.MethodGet, "/v2/orders", time.Time{}, 3, "", &APIError{StatusCode: 429, Method: http.MethodGet, Path: "/v2/orders"})
	if e == nil || e.Refused != 3 || e.RateLimit != 10 || !strings.Contains(e.Error(), "accepted no request of this provider") {
		t.Errorf("throttled = %v", e)
	}
	// A Retry-After beyond the patience ends the request at once.
	b.patience = time.Hour
	if e := b.throttled(http.MethodGet, "/v2/orders", time.Now(), 1, "7200", nil); e == nil || e.RetryAfter != 2*time.Hour {
		t.Errorf("throttled with Retry-After 7200 = %v, want an error naming 2h", e)
	}
}

// TestBudgetSharedByConcurrentListings: three listings at once on one
// Client (three data sources of one plan) against a store limited to 25
// requests per second, lenient and strict, with max_retries 0: every one
// completes, and the store refuses little more than the requests in flight
// when its window first filled.
func TestBudgetSharedByConcurrentListings(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(map[bool]string{false: "lenient", true: "strict"}[strict], func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Accounts: 2000, Orders: 2000, Files: 600, Customers: -1, Hierarchies: -1,
				Latency: 5 * time.Millisecond, RateLimit: 25, RateLimitCountsRefused: strict})
			c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 0 })
			srv.ResetStats()
			start := time.Now()
			stats := listConcurrently(t, c, 3)
			elapsed := time.Since(start)
			st := srv.Stats()
			refused := st.StatusCounts[http.StatusTooManyRequests]
			throttled := stats[0].Throttled + stats[1].Throttled + stats[2].Throttled
			if throttled != refused-tokenRefusals(st) {
				t.Errorf("listings counted %d 429s, the store sent %d (%d to the token request)", throttled, refused, tokenRefusals(st))
			}
			if limit := c.MaxParallelRequests() + 6; refused > limit {
				t.Errorf("%d of %d requests refused; want at most %d (the first burst, then the budget)", refused, st.TotalRequests, limit)
			}
			accepted := st.TotalRequests - refused
			if least := time.Duration(float64(accepted-25) / 25 * float64(time.Second)); elapsed < least {
				t.Errorf("%d accepted requests in %v: faster than the store allows (%v)", accepted, elapsed, least)
			}
			if got := c.budget.rate(); got <= 0 || got > 25 {
				t.Errorf("budget %.1f/s; want one learned, at most the store's 25", got)
			}
			t.Logf("%d requests, %d refused (%.1f%%), %v; budget %.1f/s", st.TotalRequests, refused,
				100*float64(refused)/float64(st.TotalRequests), elapsed.Round(time.Millisecond), stats[0].Budget)
		})
	}
}

func tokenRefusals(st emulator.Stats) int {
	n := 0
	for _, r := range st.Requests {
		if r.Path == TokenPath && r.Status == http.StatusTooManyRequests {
			n++
		}
	}
	return n
}

// TestThrottlingIsNotFailure: a store that refuses everything ends a
// request only after the throttle patience, with the service's words, how
// often it refused and the budget; a read's deadline ends it sooner with
// the same error and the context's.
func TestThrottlingIsNotFailure(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 10, Files: -1, Accounts: -1})
	c := newClient(t, srv, func(c *testConfig) { c.MaxRetries, c.budgetPatience = 0, 400*time.Millisecond })
	if err := c.Authenticate(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path == commerce.OrdersEndpoint.Path {
			return &emulator.Fault{Status: http.StatusTooManyRequests}
		}
		return nil
	})
	start := time.Now()
	_, err := List(t.Context(), c, commerce.Orders, ListQuery{}, discard[commerce.Order])
	var tErr *ThrottledError
	var apiErr *APIError
	if !errors.As(err, &tErr) || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("err = %v; want a ThrottledError with the 429", err)
	}
	if elapsed := time.Since(start); elapsed < 400*time.Millisecond || tErr.Refused < 2 || tErr.Cause != nil {
		t.Errorf("gave up after %v and %d refusals (cause %v); want the patience, more than one try, no cause", elapsed, tErr.Refused, tErr.Cause)
	}
	if !strings.Contains(err.Error(), "429 Too Many Requests") || !strings.Contains(err.Error(), "accepted no request of this provider") {
		t.Errorf("error text %q", err)
	}

	c = newClient(t, srv, func(c *testConfig) { c.MaxRetries = 0 })
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err = List(ctx, c, commerce.Orders, ListQuery{}, discard[commerce.Order])
	if !errors.As(err, &tErr) || !errors.Is(err, context.DeadlineExceeded) || tErr.Refused < 1 {
		t.Fatalf("err = %v; want a ThrottledError caused by the deadline", err)
	}
}

// TestTokenRequestsShareTheBudget: the token endpoint's 429s use up no
// retry either.
func TestTokenRequestsShareTheBudget(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 10, Files: -1, Accounts: -1})
	c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 0 })
	srv.SetFaults(func(r *http.Request, seq int64) *emulator.Fault {
		if r.URL.Path == TokenPath && seq <= 3 {
			return &emulator.Fault{Status: http.StatusTooManyRequests}
		}
		return nil
	})
	if err := c.Authenticate(t.Context()); err != nil {
		t.Fatalf("three 429s from the token endpoint with max_retries 0: %v", err)
	}
	if st := srv.Stats(); st.Faults != 3 || st.TokenRequests != 1 {
		t.Errorf("%d token requests refused and %d served, want 3 and 1", st.Faults, st.TokenRequests)
	}
	if c.budget.rate() <= 0 {
		t.Error("the token endpoint's 429s taught the budget nothing")
	}
}

// Requests waiting for a low budget go at the budget of the moment each
// leaves, not at the one they found when they began to wait. A 429 early
// in a read (3 accepted in the second before it) set the budget to 2.7
// requests/s while the requests let into the store's window by the probe
// waited out the pause; each then reserved its turn at that pace, seconds
// ahead, and the budget that climbed to thousands a second meanwhile
// changed none of those turns: a listing of 3,000 orders ran out of its
// 45 s in 4 runs of 10 (TestListingCountsItsOwnThrottling).
func TestWaitingRequestsGoAtTheBudgetOfTheMoment(t *testing.T) {
	b := testBudget(0)
	b.mu.Lock()
	// Room in the window for all of them, a pause to wait out together,
	// and then the lowest pace.
	b.pauseUntil = time.Now().Add(100 * time.Millisecond)
	b.learned = minBudget
	b.limiter.SetLimit(minBudget)
	b.mu.Unlock()
	const waiting = 10
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	done := make(chan error, waiting)
	for range waiting {
		go func() {
			_, err := b.wait(ctx, true)
			done <- err
		}()
	}
	time.Sleep(300 * time.Millisecond) // the pause is over; they wait for the pace
	b.mu.Lock()
	b.raise(ctx, 1000)
	b.mu.Unlock()
	for range waiting {
		if err := <-done; err != nil {
			t.Fatalf("a request waiting at %v/s when the budget rose to 1000/s is still waiting 5 s later: %v", minBudget, err)
		}
	}
}
