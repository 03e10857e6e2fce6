package client

// How many requests may be in flight at once.

import (
	"context"
	"sync"
	"time"
)

// adaptiveLimit caps the requests in flight. It starts at the configured
// maximum (max_parallel_requests): before the store has refused anything,
// the budget's probe is what keeps the client from overrunning a store it
// does not know yet (budget.go), and a store with room is read as fast as
// the maximum allows, near or far. It halves when the budget says the
// service asked the client to slow down (at most once per cooldown, so
// that one burst of parallel refusals counts as one signal), then grows
// back by one slot per limit-many answers accepted, up to the maximum:
// fast on a store that tolerates parallelism, and still
// finishing on one that does not.
type adaptiveLimit struct {
	max      int // the ceiling: max_parallel_requests
	cooldown time.Duration

	mu           sync.Mutex
	limit        float64
	inFlight     int
	waiters      []chan struct{}
	lastDecrease time.Time
	// youngCap, while access tokens die young, caps the limit at what a
	// token served before the service revoked it (tokenDiedYoung); 0
	// while they do not. youngGen is the newest token that set it.
	youngCap float64
	youngGen int
}

func newAdaptiveLimit(maxInFlight int) *adaptiveLimit {
	return &adaptiveLimit{max: maxInFlight, limit: float64(maxInFlight), cooldown: time.Second}
}

// acquire blocks until a slot is free or ctx ends.
func (a *adaptiveLimit) acquire(ctx context.Context) error {
	a.mu.Lock()
	if len(a.waiters) == 0 && a.freeLocked() {
		a.inFlight++
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
func (a *adaptiveLimit) freeLocked() bool {
	return a.inFlight < a.currentLocked()
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
		if now := time.Now(); now.Sub(a.lastDecrease) >= a.cooldown {
			a.limit = max(1, a.limit/2)
			a.lastDecrease = now
		}
	case a.limit < float64(a.max):
		a.limit = min(float64(a.max), a.limit+1/a.limit)
	}
	a.wakeLocked()
}

func (a *adaptiveLimit) wakeLocked() {
	for len(a.waiters) > 0 && a.freeLocked() {
		ch := a.waiters[0]
		a.waiters = a.waiters[1:]
		a.inFlight++
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
