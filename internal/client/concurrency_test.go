package client

import (
	"context"
	"testing"
	"time"
)

// granted reports whether a slot is free right now: acquire with a context
// that has already ended takes a free slot and refuses to wait for one.
func (a *adaptiveLimit) granted() bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return a.acquire(ctx) == nil
}

// startRequests starts n requests one after another, each finished before
// the next, as a store's window would count them.
func (a *adaptiveLimit) startRequests(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		if !a.granted() {
			t.Fatalf("request %d of %d found no free slot", i+1, n)
		}
		a.release()
	}
}

// inFlightAllowed starts requests without finishing any until no slot is
// free, and reports how many started; then it finishes them.
func (a *adaptiveLimit) inFlightAllowed() int {
	n := 0
	for a.granted() {
		n++
	}
	for range n {
		a.release()
	}
	return n
}

// TestCourteousStart: while the requests of the last second are inside
// the courteous span, no request starts with courteousInFlight in flight;
// outside it (the requests started count too), max_parallel_requests holds.
func TestCourteousStart(t *testing.T) {
	if courteousFrom != 16 || courteousTo != 24 || courteousInFlight != 4 {
		t.Fatal("the table below is written for a courteous span of 16 to 24 requests, 4 in flight")
	}
	for _, tc := range []struct{ inWindow, want int }{
		{0, 8},  // a new client: requests 1 to 8
		{8, 8},  // requests 9 to 16: the 16th starts as the 16th of the window
		{9, 7},  // the 17th would start with 7 in flight
		{12, 4}, // the 17th would start with 4 in flight
		{16, 4},
		{19, 4}, // the 20th to 23rd, and the 24th would start with 4 in flight
		{20, 8}, // the 21st to 24th, then the span is past
		{24, 8},
		{40, 8},
	} {
		a := newAdaptiveLimit(8)
		a.startRequests(t, tc.inWindow)
		if got := a.inFlightAllowed(); got != tc.want {
			t.Errorf("with %d requests in the last second, %d may start at once; want %d", tc.inWindow, got, tc.want)
		}
	}

	// A store that has throttled the client: the budget knows its pace,
	// and the span no longer applies.
	a := newAdaptiveLimit(8)
	a.startRequests(t, courteousFrom)
	a.observe(true)
	for a.current() < 8 {
		a.observe(false)
	}
	if got := a.inFlightAllowed(); got != 8 {
		t.Errorf("after a 429, %d may start at once inside the courteous span; want the limit (8)", got)
	}
}

// TestCourteousStartNeverAboveTheLimit: max_parallel_requests below
// courteousInFlight is kept.
func TestCourteousStartNeverAboveTheLimit(t *testing.T) {
	a := newAdaptiveLimit(2)
	a.startRequests(t, courteousFrom)
	if got := a.inFlightAllowed(); got != 2 {
		t.Errorf("max_parallel_requests 2, inside the courteous span: %d in flight", got)
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
