package client

import (
	"context"
	"testing"
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
