package client

// How many requests may be in flight at once, and the store's window that
// both it and the rate budget (budget.go) count over.

import (
	"context"
	"math"
	"sync"
	"time"
)

// The store's window. The service counts a store's requests per second
// (its limits are documented per second), so the budget and the limit on
// requests in flight both look back over one second of this client's
// requests.

// budgetWindow is the span over which the service counts requests.
const budgetWindow = time.Second

// trimWindow drops the times older than one window before now.
func trimWindow(times []time.Time, now time.Time) []time.Time {
	cut := 0
	for cut < len(times) && now.Sub(times[cut]) >= budgetWindow {
		cut++
	}
	if cut == 0 {
		return times
	}
	return append(times[:0], times[cut:]...)
}

// adaptiveLimit caps the requests in flight. It starts at startInFlight
// (or the configured maximum, if lower) and, until the service first
// refuses a request for the client's pace, grows while the store answers
// faster for it (see grow): a store far away needs more requests in flight
// for the same rate, a near one does not. It halves when the budget says
// the service asked the client to slow down (at most once per cooldown, so
// that one burst of parallel refusals counts as one signal), then grows
// back by one slot per limit-many answers accepted, up to where it stood
// when refused: fast on a store that tolerates parallelism, and still
// finishing on one that does not.
//
// Until the service has first refused a request for the client's pace, the
// limit also holds a courteous start (see courteousInFlight).
type adaptiveLimit struct {
	max      int // the ceiling: max_parallel_requests
	cooldown time.Duration

	mu           sync.Mutex
	limit        float64
	inFlight     int
	waiters      []chan struct{}
	lastDecrease time.Time
	// throttled is set by the service's first 429: from then on the
	// budget knows the store's pace and the courteous start is over.
	throttled bool
	// started holds, oldest first, when the slots of the last
	// budgetWindow were handed out: the requests of this client the
	// store's window is counting.
	started []time.Time
	// peak is the highest limit before the first refusal: the limit
	// grows back to it, not beyond.
	peak   int
	growth growth
	// youngCap, while access tokens die young, caps the limit at what a
	// token served before the service revoked it (tokenDiedYoung); 0
	// while they do not. youngGen is the newest token that set it.
	youngCap float64
	youngGen int
	// rtt is the round trip of the answers so far, smoothed; 0 before
	// the first.
	rtt time.Duration
}

// growth is how the limit grows before the store refuses anything: from
// the moment the store has accepted more requests in one second than a
// development store allows (growAfter), once then, and again at the end
// of each epoch (the limit answered once over, and a whole budgetWindow),
// by growthStep, while the rate of answers of the epoch beats the last
// one's by growEnough. A rate that no longer grows (the store, or this machine's
// decoding, is the bound) stops it for good.
//
// One step per window, not per round trip: the store's window counts a
// second, and a store whose window fills while the rate grows refuses, for
// the round trip its 429 takes to come back, what the rate gained over the
// second before. Doubling each round trip, a production store (100
// requests/s) 150 ms away answered 17 to 28 of about 220 requests 429, all
// at its window's first fill; doubling each window, 12 of 215; by
// growthStep each window, 0 to 8 of 210, and a store of 50 requests/s
// there 2 to 6 of 105, where doubling cost it 9 to 15
// (TestStoresRefuseFewRequests).
type growth struct {
	accepted   []time.Time // answers of the last budgetWindow
	epochStart time.Time
	answers    int // in this epoch
	lastRate   float64
	stalled    bool
}

// The growth: a development store (25 requests/s) never lets the client
// see more than growAfter answers in a second, so there the limit stays
// where it starts, and the courteous start's figures hold. startInFlight
// is enough for a store up to about 100 ms away at 100 requests/s.
const (
	startInFlight = 8
	growAfter     = 25
	growEnough    = 1.15
	stepRTT       = 75 * time.Millisecond
)

// A near store. Its window fills within the first second of a read,
// before any request has left it, so the store refuses every request on
// the way until the first 429 is back: as many as are in flight. Up to
// nearRTT away (the round trip as measured, this machine's decoding
// included), until the store has refused anything, at most one request in
// nearShare of those started in the last second is in flight, and at least
// nearFloor (in place of the courteous start's 4). Without it, a store of
// 50 requests/s 0 or 20 ms away answered 14 and 16 of about 115 requests
// 429 (the limit had grown to 32), and one of 20 or 25/s 3 to 4 of 45 to
// 55; with it 1 to 2 of each (TestStoresRefuseFewRequests). Farther away,
// so few in flight could not raise the rate.
const (
	nearRTT   = 75 * time.Millisecond
	nearShare = 12
	nearFloor = 2
)

// The courteous start. A store's limit is counted per second, and the
// client learns it only from a 429, which comes back one round trip after
// the request that filled the store's window: every request sent in that
// round trip is refused too, as many as are in flight. So until the store
// has refused anything, while the requests this client started in the last
// second (the token request aside) number courteousFrom to courteousTo, at
// most courteousInFlight are in flight. That is where a development store
// (25 requests/s documented) fills when a storefront or another pipeline
// takes a few of them: one listing at a store of 20/s sees 2 to 5 of its
// 105 requests refused rather than 7 to 9. Below and above the span the
// limit alone holds, and a store that does not throttle loses less than a
// round trip to it. A near store (see nearRTT) has a rule of its own.
const (
	courteousFrom     = 16
	courteousTo       = 24
	courteousInFlight = 4
)

func newAdaptiveLimit(maxInFlight int) *adaptiveLimit {
	start := min(startInFlight, maxInFlight)
	return &adaptiveLimit{max: maxInFlight, limit: float64(start), peak: start, cooldown: time.Second}
}

// acquire blocks until a slot is free or ctx ends.
func (a *adaptiveLimit) acquire(ctx context.Context) error {
	a.mu.Lock()
	if now := time.Now(); len(a.waiters) == 0 && a.freeLocked(now) {
		a.grantLocked(now)
		a.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	a.waiters = append(a.waiters, ch)
	a.mu.Unlock()

	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		a.mu.Lock()
		defer a.mu.Unlock()
		for i, w := range a.waiters {
			if w == ch {
				a.waiters = append(a.waiters[:i], a.waiters[i+1:]...)
				return ctx.Err()
			}
		}
		// The slot was handed over just as ctx ended: give it back.
		a.inFlight--
		a.wakeLocked()
		return ctx.Err()
	}
}

// freeLocked reports whether a request may start now. Caller holds the lock.
func (a *adaptiveLimit) freeLocked(now time.Time) bool {
	if a.inFlight >= a.currentLocked() {
		return false
	}
	if a.throttled {
		return true
	}
	a.started = trimWindow(a.started, now)
	n := len(a.started)
	if a.rtt > 0 && a.rtt <= nearRTT {
		return a.inFlight < max(nearFloor, n/nearShare)
	}
	if n >= courteousFrom && n < courteousTo {
		return a.inFlight < courteousInFlight
	}
	return true
}

// grantLocked hands out a slot. Caller holds the lock.
func (a *adaptiveLimit) grantLocked(now time.Time) {
	a.inFlight++
	if !a.throttled {
		a.started = append(a.started, now)
	}
}

// release frees a slot.
func (a *adaptiveLimit) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inFlight--
	a.wakeLocked()
}

// observe feeds one answer into the limit: slowDown when the service
// refused it for the client's pace. The budget calls it (budget.observe).
func (a *adaptiveLimit) observe(slowDown bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case slowDown:
		a.throttled, a.started, a.growth = true, nil, growth{}
		if now := time.Now(); now.Sub(a.lastDecrease) >= a.cooldown {
			a.limit = max(1, a.limit/2)
			a.lastDecrease = now
		}
	case !a.throttled:
		a.grow(time.Now())
	case a.limit < float64(a.peak):
		a.limit = min(float64(a.peak), a.limit+1/a.limit)
	}
	a.wakeLocked()
}

// grow counts one accepted answer before any refusal, and grows the limit
// at the end of an epoch whose rate beat the last one's (see growth).
// Caller holds the lock.
func (a *adaptiveLimit) grow(now time.Time) {
	g := &a.growth
	if g.stalled || int(a.limit) >= a.max {
		return
	}
	g.accepted = append(trimWindow(g.accepted, now), now)
	if len(g.accepted) <= growAfter {
		return
	}
	if !g.epochStart.IsZero() {
		// The gate open, an epoch at a time.
		if g.answers++; g.answers < int(a.limit) || now.Sub(g.epochStart) < budgetWindow {
			return
		}
		rate := float64(g.answers) / now.Sub(g.epochStart).Seconds()
		if g.lastRate > 0 && rate < g.lastRate*growEnough {
			g.stalled = true
			return
		}
		g.lastRate = rate
	}
	if g.epochStart.IsZero() {
		// The gate's opening is reason enough for the first step: the
		// store accepts more than a development store would. The rate
		// so far is the one the next epoch has to beat.
		g.lastRate = float64(len(g.accepted)-1) / max(now.Sub(g.accepted[0]).Seconds(), 1e-3)
	}
	g.epochStart, g.answers = now, 0
	a.limit = min(float64(a.max), math.Ceil(a.growthStep()*a.limit))
	a.peak = int(a.limit)
}

// growthStep is the factor the limit grows by in a step: 2 up to stepRTT
// away, less beyond (1.5 at 150 ms, 1.25 at 300 ms), so
// that what the rate gains in a step times the round trip, the requests a
// store refuses when its window fills in that step, stays about the same
// share of its rate. Caller holds the lock.
func (a *adaptiveLimit) growthStep() float64 {
	if a.rtt <= stepRTT {
		return 2
	}
	return 1 + stepRTT.Seconds()/a.rtt.Seconds()
}

// roundTrip feeds the round trip of one answer into rtt.
func (a *adaptiveLimit) roundTrip(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rtt == 0 {
		a.rtt = d
		return
	}
	a.rtt += (d - a.rtt) / 8
}

func (a *adaptiveLimit) wakeLocked() {
	now := time.Now()
	for len(a.waiters) > 0 && a.freeLocked(now) {
		ch := a.waiters[0]
		a.waiters = a.waiters[1:]
		a.grantLocked(now)
		close(ch)
	}
}

// current reports the present limit, for logs and tests.
func (a *adaptiveLimit) current() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.currentLocked()
}

// currentLocked is the limit, within youngCap. Caller holds the lock.
func (a *adaptiveLimit) currentLocked() int {
	if a.youngCap > 0 && a.youngCap < a.limit {
		return int(a.youngCap)
	}
	return int(a.limit)
}

// tokenDiedYoung caps the requests in flight at uses, what the token of
// generation gen served before the service refused it, once per token:
// with more in flight than a token serves, the requests already out spend
// each new token at once and are refused with it, and a read with 32 in
// flight and tokens good for 7 requests ended in 7 runs of 9.
func (a *adaptiveLimit) tokenDiedYoung(gen, uses int) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if gen <= a.youngGen {
		return
	}
	a.youngGen = gen
	a.youngCap = max(1, min(float64(uses), float64(a.currentLocked())))
}

// tokenServed lets the cap of tokenDiedYoung grow back by one slot per
// cap-many requests an access token served, as the limit does after a
// 429, until it no longer caps anything: tokens that live again get the
// requests in flight back.
func (a *adaptiveLimit) tokenServed() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.youngCap == 0 {
		return
	}
	if a.youngCap += 1 / a.youngCap; a.youngCap >= a.limit {
		a.youngCap = 0
	}
	a.wakeLocked()
}
