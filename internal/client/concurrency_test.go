package client

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestApproachToALikelyLimit: before the store has refused anything,
// within the span of a likely limit, at most that span's probes requests
// beyond what the store has accepted in one window are on the way; a span
// passed, any number.
func TestApproachToALikelyLimit(t *testing.T) {
	if likelyLimits[0].limit != 25 || likelyLimits[0].probes != 2 || likelyLimits[0].approachShare != 0.8 {
		t.Fatal("the test is written for a span of 20 requests to 25 and 2, 2 probes")
	}
	b := testBudget(0)
	b.sendAll(t, 19, http.StatusOK)
	var probes []time.Time
	for range 2 { // the 20th and 21st request of the window
		sent, err := b.wait(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		probes = append(probes, sent)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.wait(ctx); err == nil {
		t.Fatal("a third request beyond the 19 the store accepted left, with 2 on the way")
	}
	b.observe(t.Context(), probes[0], http.StatusOK, "")
	if _, err := b.wait(t.Context()); err != nil { // the 20th accepted: the 22nd may go
		t.Fatal(err)
	}

	passed := testBudget(0)
	passed.sendAll(t, 27, http.StatusOK)
	for i := range 15 { // up to 42, below the span of 50
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		_, err := passed.wait(ctx)
		cancel()
		if err != nil {
			t.Fatalf("the store accepted 27 in a window; request %d of the window held back: %v", 28+i, err)
		}
	}
}

// answer feeds a.grow n answers, spread evenly over d from *now, which it
// moves on: the answers of a store that serves n requests in d.
func (a *adaptiveLimit) answer(now *time.Time, n int, d time.Duration) {
	for range n {
		*now = now.Add(d / time.Duration(n))
		a.mu.Lock()
		a.grow(*now)
		a.mu.Unlock()
	}
}

// TestInFlightGrowsWhileTheStoreAnswersFaster: before any refusal, the
// limit starts at 8 and stays there at a store that never answers more than
// a development store allows in a second; past that, it doubles at once,
// then each epoch of a second or more while the rate of answers grows, up to max_parallel_requests; a rate
// that stops growing ends the growth; after a 429 the limit grows back to
// where it stood, not beyond.
func TestInFlightGrowsWhileTheStoreAnswersFaster(t *testing.T) {
	now := time.Now()
	dev := newAdaptiveLimit(DefaultMaxParallelRequests)
	dev.answer(&now, 100, 4*time.Second) // 25 a second
	if got := dev.current(); got != startInFlight {
		t.Errorf("at 25 answers a second the limit is %d, want it to stay at %d", got, startInFlight)
	}

	far := newAdaptiveLimit(DefaultMaxParallelRequests)
	for rate := 53; far.current() < DefaultMaxParallelRequests; rate = rate * 2 {
		// Each second answers as fast as the limit allows 150 ms away:
		// the limit grows once a window, not once a round trip.
		far.answer(&now, rate, time.Second)
		if rate > 10000 {
			t.Fatalf("the limit stopped at %d", far.current())
		}
	}
	if got := far.current(); got != DefaultMaxParallelRequests {
		t.Errorf("a far store's limit grew to %d, want the ceiling %d", got, DefaultMaxParallelRequests)
	}

	capped := newAdaptiveLimit(12)
	capped.answer(&now, 200, time.Second)
	if got := capped.current(); got > 12 {
		t.Errorf("max_parallel_requests 12: the limit grew to %d", got)
	}

	flat := newAdaptiveLimit(DefaultMaxParallelRequests)
	flat.answer(&now, 400, time.Second) // as fast with 16 in flight as with 8
	if got := flat.current(); got != 2*startInFlight {
		t.Errorf("a rate that does not grow left the limit at %d, want one step (%d) and no more", got, 2*startInFlight)
	}

	flat.observe(true)
	for range 1000 {
		flat.observe(false)
	}
	if got := flat.current(); got != 2*startInFlight {
		t.Errorf("after a 429 the limit grew back to %d, want where it stood (%d)", got, 2*startInFlight)
	}
}
