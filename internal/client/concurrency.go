package client

import (
	"context"
	"sync"
	"time"
)

// adaptiveLimit caps the requests in flight. It starts at the configured
// maximum and halves when the budget says the service asked the client to
// slow down (at most once per cooldown, so that one burst of parallel
// refusals counts as one signal), then grows back by one slot per
// limit-many answers accepted: fast on a store that tolerates parallelism,
// and still finishing on one that does not.
//
// Until the service has first refused a request for the client's pace, the
// limit also holds a courteous start (see courteousInFlight).
type adaptiveLimit struct {
	max      int
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
}

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
// round trip to it.
const (
	courteousFrom     = 16
	courteousTo       = 24
	courteousInFlight = 4
)

func newAdaptiveLimit(maxInFlight int) *adaptiveLimit {
	return &adaptiveLimit{max: maxInFlight, limit: float64(maxInFlight), cooldown: time.Second}
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
	if a.inFlight >= int(a.limit) {
		return false
	}
	if a.throttled {
		return true
	}
	a.started = trimWindow(a.started, now)
	if n := len(a.started); n >= courteousFrom && n < courteousTo {
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
	if slowDown {
		a.throttled, a.started = true, nil
		if now := time.Now(); now.Sub(a.lastDecrease) >= a.cooldown {
			a.limit = max(1, a.limit/2)
			a.lastDecrease = now
		}
	} else if a.limit < float64(a.max) {
		a.limit = min(float64(a.max), a.limit+1/a.limit)
	}
	a.wakeLocked()
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
	return int(a.limit)
}
