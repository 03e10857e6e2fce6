package client

import (
	"context"
	"net/http"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// granted reports whether a slot is free right now: acquire with a context
// that has already ended takes a free slot and refuses to wait for one.
func (a *adaptiveLimit) granted() (*slot, bool) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := a.acquire(ctx)
	return s, err == nil
}

// inFlightAllowed starts requests without finishing any until no slot is
// free, and reports how many started; then it finishes them.
func (a *adaptiveLimit) inFlightAllowed() int {
	var held []*slot
	for {
		s, ok := a.granted()
		if !ok {
			break
		}
		held = append(held, s)
	}
	for _, s := range held {
		s.release()
	}
	return len(held)
}

// TestInFlightStartsAtTheMaximum: before any refusal the limit is
// max_parallel_requests (the probe, not the limit, spares a store the
// client does not know); a 429 halves it, once per cooldown, and clean
// answers grow it back to the maximum, not beyond.
func TestInFlightStartsAtTheMaximum(t *testing.T) {
	for _, ceiling := range []int{1, 2, DefaultMaxParallelRequests} {
		if got := newAdaptiveLimit(ceiling).inFlightAllowed(); got != ceiling {
			t.Errorf("max_parallel_requests %d: %d may start at once", ceiling, got)
		}
	}
	a := newAdaptiveLimit(DefaultMaxParallelRequests)
	a.observe(true)
	a.observe(true) // the same burst: within the cooldown
	if got := a.current(); got != DefaultMaxParallelRequests/2 {
		t.Errorf("after a burst of 429s the limit is %d, want %d", got, DefaultMaxParallelRequests/2)
	}
	for range 1000 {
		a.observe(false)
	}
	if got := a.current(); got != DefaultMaxParallelRequests {
		t.Errorf("after 1,000 clean answers the limit is %d, want %d", got, DefaultMaxParallelRequests)
	}
}

// tryWait reports whether b lets a resource request go within 50 ms, and
// when.
func (b *budget) tryWait(t *testing.T) (time.Time, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	sent, err := b.wait(ctx, true)
	return sent, err == nil
}

// TestProbeHoldsAWindowToWhatTheStoreShowed: before the store's first
// 429, the requests of one second number at most probeFloor, or what the
// store has accepted in one second plus the risk, probeRisk of the
// requests the reads expect (at least one); an answer makes room at once,
// a request that got none leaves the window, a token request is not held,
// and the first 429 ends the probe.
func TestProbeHoldsAWindowToWhatTheStoreShowed(t *testing.T) {
	b := testBudget(0)
	var floor []time.Time
	for range probeFloor {
		s, ok := b.tryWait(t)
		if !ok {
			t.Fatalf("request %d of the %d below the floor was held", len(floor)+1, probeFloor)
		}
		floor = append(floor, s)
	}
	if _, ok := b.tryWait(t); ok {
		t.Fatal("a request beyond the floor went before the store answered any")
	}
	token, err := b.wait(t.Context(), false)
	if err != nil {
		t.Fatalf("a token request was held: %v", err)
	}
	for _, s := range append(floor, token) {
		b.observe(t.Context(), s, http.StatusOK, "")
	}
	b.expect(100) // a listing of 100 pages: a risk of 4

	// The store has shown 21 in a second; 4 more may be at risk.
	var sent []time.Time
	for range 4 {
		s, ok := b.tryWait(t)
		if !ok {
			t.Fatalf("request %d of the 4 at risk was held", len(sent)+1)
		}
		sent = append(sent, s)
	}
	if _, ok := b.tryWait(t); ok {
		t.Fatal("a fifth request went beyond the risk")
	}
	b.observe(t.Context(), sent[0], http.StatusOK, "")
	if _, ok := b.tryWait(t); !ok {
		t.Error("an answer that raised what the store showed made no room")
	}
	b.unanswered(sent[1])
	if _, ok := b.tryWait(t); !ok {
		t.Error("a request that got no answer kept its place in the window")
	}
	if _, ok := b.tryWait(t); ok {
		t.Fatal("a request went beyond the risk")
	}
	b.observe(t.Context(), sent[2], http.StatusTooManyRequests, "")
	b.mu.Lock()
	probing := b.probing
	b.mu.Unlock()
	if probing {
		t.Error("the probe went on after the store's first 429")
	}
}

// TestProbeCountsWindowsBySendTime: what the store showed is the most of
// the answered requests sent within one second, whatever order the
// answers come back in.
func TestProbeCountsWindowsBySendTime(t *testing.T) {
	var p probe
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	now := at(1500)
	for _, ms := range []int{900, 100, 500, 1100, 0, 1400} {
		p.accepted(at(ms), now)
	}
	// Sent at 0, 100, 500, 900: 4 within a second; 100 to 1100: 4 too;
	// 500 to 1400: 4.
	if p.shown != 4 {
		t.Errorf("shown = %d, want 4", p.shown)
	}
	p.accepted(at(950), now)
	if p.shown != 5 {
		t.Errorf("after one more answer sent at 950 ms, shown = %d, want 5", p.shown)
	}
	if p.expected, p.sentAll = 0, 10; p.risk() != 1 {
		t.Errorf("risk with 10 sent and nothing expected = %d, want 1", p.risk())
	}
	if p.expected = 250; p.risk() != 10 {
		t.Errorf("risk with 250 requests expected = %d, want 10", p.risk())
	}
}

// TestProbeStartsAtRateLimit: with rate_limit set above the probe's floor,
// that many requests of a second go before the store has answered any.
func TestProbeStartsAtRateLimit(t *testing.T) {
	b := testBudget(50)
	b.limiter.SetLimit(rate.Inf) // the ceiling's pace is the limiter's; here only the window counts
	for i := range 50 {
		if _, ok := b.tryWait(t); !ok {
			t.Fatalf("rate_limit 50: request %d was held", i+1)
		}
	}
	if _, ok := b.tryWait(t); ok {
		t.Error("rate_limit 50: a 51st request went before the store answered any")
	}
}

// TestWindowRoomFirstComeFirstServed: requests waiting for room in the
// store's window get it in the order they came, as the listing engine
// asked for the pages.
func TestWindowRoomFirstComeFirstServed(t *testing.T) {
	b := testBudget(0)
	// The floor's requests, all answered: the store has shown 20, and one
	// more (the risk) fills the window.
	for range probeFloor {
		s, ok := b.tryWait(t)
		if !ok {
			t.Fatal("a request below the floor was held")
		}
		b.observe(t.Context(), s, http.StatusOK, "")
	}
	last, ok := b.tryWait(t)
	if !ok {
		t.Fatal("the request at risk was held")
	}
	type grant struct {
		i    int
		sent time.Time
	}
	granted := make(chan grant, 5)
	for i := range 5 {
		go func() {
			if s, err := b.wait(t.Context(), true); err == nil {
				granted <- grant{i, s}
			}
		}()
		time.Sleep(10 * time.Millisecond) // the next comes after it
	}
	// Each answer shows the store took one more: room for one more.
	for i := range 5 {
		b.observe(t.Context(), last, http.StatusOK, "")
		select {
		case g := <-granted:
			if g.i != i {
				t.Fatalf("room %d went to request %d of those waiting, want %d", i+1, g.i+1, i+1)
			}
			last = g.sent
		case <-time.After(500 * time.Millisecond):
			t.Fatalf("room %d went to no waiting request", i+1)
		}
	}
}
