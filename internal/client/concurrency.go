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
type adaptiveLimit struct {
	max      int
	cooldown time.Duration

	mu           sync.Mutex
	limit        float64
	inFlight     int
	waiters      []chan struct{}
	lastDecrease time.Time
}

func newAdaptiveLimit(maxInFlight int) *adaptiveLimit {
	return &adaptiveLimit{max: maxInFlight, limit: float64(maxInFlight), cooldown: time.Second}
}

// acquire blocks until a slot is free or ctx ends.
func (a *adaptiveLimit) acquire(ctx context.Context) error {
	a.mu.Lock()
	if a.inFlight < int(a.limit) && len(a.waiters) == 0 {
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
	for len(a.waiters) > 0 && a.inFlight < int(a.limit) {
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
	return int(a.limit)
}
