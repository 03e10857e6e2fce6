package client

// How many requests may be in flight at once.

import (
	"context"
	"slices"
	"sync"
	"time"
)

// line is a first-come, first-served queue of requests waiting for room
// that its owner hands out under its own lock: the slots of adaptiveLimit,
// and the room in the store's window (budget.awaitWindow). The listing
// engine asks for the pages it needs first first; a wake-up that let any
// waiter go left the page a state needed next behind a hundred others.
type line struct{ waiting []*place }

// place is one request in a line; at is when room was handed to it.
type place struct {
	granted chan struct{}
	at      time.Time
}

// wait takes room at once, by take, when no one waits and take finds it;
// otherwise it joins the line and waits for grant to hand it room, or for
// ctx to end. Room handed over just as ctx ended goes back by giveBack.
// It returns when the room was taken. Caller holds mu; wait unlocks it.
func (l *line) wait(ctx context.Context, mu *sync.Mutex, take func(now time.Time) bool, giveBack func(at time.Time)) (time.Time, error) {
	now := time.Now()
	if len(l.waiting) == 0 && take(now) {
		mu.Unlock()
		return now, nil
	}
	p := &place{granted: make(chan struct{})}
	l.waiting = append(l.waiting, p)
	mu.Unlock()
	select {
	case <-p.granted:
		return p.at, nil
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		if i := slices.Index(l.waiting, p); i >= 0 {
			l.waiting = slices.Delete(l.waiting, i, i+1)
		} else {
			giveBack(p.at)
		}
		return time.Time{}, ctx.Err()
	}
}

// grant hands room to those waiting, oldest first, while take finds it.
// Caller holds the owner's lock.
func (l *line) grant(now time.Time, take func(now time.Time) bool) {
	for len(l.waiting) > 0 && take(now) {
		p := l.waiting[0]
		l.waiting = l.waiting[1:]
		p.at = now
		close(p.granted)
	}
}

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
	line         line // requests waiting for a slot
	lastDecrease time.Time
	// youngCap, while access tokens die young, caps the limit at what a
	// token served before the service revoked it (tokenDiedYoung); 0
	// while they do not. youngGen is the newest token that set it.
	youngCap float64
	youngGen int
	// slow counts the requests in flight for longer than slowRequest:
	// they keep their slot of the limit but not one of youngCap's.
	slow int
}

// slowRequest is how long a request may be out before it stops counting
// against youngCap. The cap keeps requests from spending a fresh token
// all at once; a request that has waited this long for its answer spends
// nothing more until it ends. Counted against the cap, a store that
// stalled 3% of its answers past a 5-second request timeout, with tokens
// good for 3 requests, held the read to three requests at a time, most
// of them stalled: 10 requests a second, and a read of 17,000 records
// ran past five minutes. Answers of this service take a round trip and
// some milliseconds of work; a second is many times either.
const slowRequest = time.Second

// slot is one request's place in flight: released once, whatever
// releases it first.
type slot struct {
	a        *adaptiveLimit
	timer    *time.Timer
	slow     bool
	released bool
}

func newAdaptiveLimit(maxInFlight int) *adaptiveLimit {
	return &adaptiveLimit{max: maxInFlight, limit: float64(maxInFlight), cooldown: time.Second}
}

// acquire blocks until a slot is free or ctx ends, behind those that came
// before it. The slot must be released.
func (a *adaptiveLimit) acquire(ctx context.Context) (*slot, error) {
	a.mu.Lock()
	if _, err := a.line.wait(ctx, &a.mu, a.takeLocked, func(time.Time) { a.releaseLocked() }); err != nil {
		return nil, err
	}
	return &slot{a: a}, nil
}

// sent starts s's clock toward slowRequest, once its request is on the
// wire: one that waits for the rate budget holds a token it has not yet
// spent, and counts against youngCap for as long as it waits.
func (s *slot) sent() { s.timer = time.AfterFunc(slowRequest, s.markSlow) }

// takeLocked takes a slot if one is free: below the limit, and below
// youngCap counting the requests that are not slow. Caller holds the lock.
func (a *adaptiveLimit) takeLocked(time.Time) bool {
	if a.inFlight >= int(a.limit) || (a.youngCap > 0 && a.inFlight-a.slow >= int(a.youngCap)) {
		return false
	}
	a.inFlight++
	return true
}

// markSlow counts s as slow, once slowRequest has passed.
func (s *slot) markSlow() {
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if s.released {
		return
	}
	s.slow = true
	a.slow++
	a.wakeLocked()
}

// release frees the slot; later calls do nothing.
func (s *slot) release() {
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if s.released {
		return
	}
	s.released = true
	if s.timer != nil {
		s.timer.Stop()
	}
	if s.slow {
		a.slow--
	}
	a.releaseLocked()
}

// releaseLocked frees a slot. Caller holds the lock.
func (a *adaptiveLimit) releaseLocked() {
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

// wakeLocked hands the free slots to the requests waiting for one.
// Caller holds the lock.
func (a *adaptiveLimit) wakeLocked() { a.line.grant(time.Now(), a.takeLocked) }

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
