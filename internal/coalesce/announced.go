package coalesce

import (
	"context"
	"sync"
	"time"
)

// Announced holds the reads that were announced and have not arrived yet,
// so that a call gathers only while reads started together with its own are
// still on their way: a read that nobody else announced starts at once,
// and reads that were announced together start once the last of them has
// joined.
//
// Terraform announces a data source's read: it validates the
// configuration (ValidateDataResourceConfig) just before it reads it, in
// the same step of its walk, so the reads it starts together are announced
// before the first of them arrives, about a millisecond apart. The
// provider announces each valid configuration (Announce) and hands every
// read its announcement's key (WithArrival); the read takes it back when it
// joins or opens a call (Do), or when it ends without one.
//
// An announcement whose read has not come within announcementLife is
// forgotten: a validation that no read follows (Terraform's validate step,
// served by the same process in tests; a configuration that stays unknown)
// must hold no read back for longer than that.
type Announced struct {
	// Life is how long an announced read is waited for; 0 takes
	// announcementLife.
	Life time.Duration

	mu      sync.Mutex
	pending map[string][]time.Time // by key, oldest first
	changed chan struct{}          // closed and replaced when one arrives
}

// announcementLife, the default Life, bounds how long an announced read is waited for: 20
// times the gap between a validation and its read that Terraform 1.11
// showed on this project's 2-core machine (at most 1.5 ms).
const announcementLife = 20 * time.Millisecond

// Announce says a read of key is on its way.
func (a *Announced) Announce(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil {
		a.pending = map[string][]time.Time{}
	}
	a.pending[key] = append(a.pending[key], time.Now())
}

// arrived takes back one announcement of key, the oldest.
func (a *Announced) arrived(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.pending[key]) == 0 {
		return
	}
	if a.pending[key] = a.pending[key][1:]; len(a.pending[key]) == 0 {
		delete(a.pending, key)
	}
	if a.changed != nil {
		close(a.changed)
		a.changed = nil
	}
}

// waitArrived returns once no announced read is on its way, or after at
// most limit.
func (a *Announced) waitArrived(limit time.Duration) {
	give := time.NewTimer(limit)
	defer give.Stop()
	for {
		expires, changed, waiting := a.next()
		if !waiting {
			return
		}
		forget := time.NewTimer(time.Until(expires))
		select {
		case <-give.C:
			forget.Stop()
			return
		case <-changed:
		case <-forget.C:
		}
		forget.Stop()
	}
}

// next forgets the announcements past their life and says when the oldest
// of the others expires, and on what a change is signalled; waiting is
// false when none is left.
func (a *Announced) next() (expires time.Time, changed <-chan struct{}, waiting bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now, life := time.Now(), a.life()
	for key, times := range a.pending {
		for len(times) > 0 && now.Sub(times[0]) >= life {
			times = times[1:]
		}
		if len(times) == 0 {
			delete(a.pending, key)
			continue
		}
		a.pending[key] = times
		if !waiting || times[0].Before(expires) {
			expires, waiting = times[0], true
		}
	}
	if a.changed == nil {
		a.changed = make(chan struct{})
	}
	return expires.Add(life), a.changed, waiting
}

func (a *Announced) life() time.Duration {
	if a.Life > 0 {
		return a.Life
	}
	return announcementLife
}

// Arrival is one read's announcement, which it takes back once.
type Arrival struct {
	to   *Announced
	key  string
	once sync.Once
}

type arrivalKey struct{}

// WithArrival gives the read on ctx the announcement of key in to, and
// returns the Arrival for the read's caller to take back (Arrive) when the
// read ends, whether it joined a call or not.
func WithArrival(ctx context.Context, to *Announced, key string) (context.Context, *Arrival) {
	a := &Arrival{to: to, key: key}
	return context.WithValue(ctx, arrivalKey{}, a), a
}

// Arrive takes the read's announcement back, the first time it is called.
func (a *Arrival) Arrive() {
	if a != nil {
		a.once.Do(func() { a.to.arrived(a.key) })
	}
}

// Arrive takes back the announcement of the read on ctx, if it has one:
// for a read that will not join a call.
func Arrive(ctx context.Context) {
	a, _ := ctx.Value(arrivalKey{}).(*Arrival)
	a.Arrive()
}
