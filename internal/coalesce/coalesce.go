// Package coalesce lets reads that Terraform runs together share one piece
// of work: the first read of a key opens a call, the reads of the same key
// that arrive while it gathers join it, each with what it needs of the
// work (its joiner), and all of them get its one result. The work sees
// every joiner, so that it can do what each needs at once.
//
// A read may only join work that has not started yet. Terraform reads a
// data source once everything it depends on is done, so a read that arrives
// after the shared work began may depend on a write that this work cannot
// have seen (in the apply step Terraform applies other resources between
// reads, and another provider may write to the store). A call therefore
// gathers joiners before it starts, and admits none after: every read it
// serves arrived before it sent anything. It gathers while reads announced
// together with its own are still on their way (Group.Ahead, Announced),
// so a read that nobody else announced starts at once; a Group without
// announcements gathers for a fixed moment (Group.Gather). A finished call
// serves nobody; the next read starts afresh.
//
// The work runs on a context of its own: a reader that gives up (its
// timeout, or Terraform's interrupt) stops waiting without cancelling the
// others, and the work is cancelled only once every reader has left; the
// last to leave waits for the work to stop and gets what it returned,
// which says why it stopped better than the reader's context can. Its
// deadline is the latest of its readers'.
//
// golang.org/x/sync/singleflight shares work the same way but admits
// joiners until the work ends and runs it under the first caller's context;
// neither fits the rule above.
package coalesce

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Group coalesces calls by key: J is what a reader brings to the work, V
// what the work returns to every reader. The zero value gathers for
// defaultGather.
type Group[J, V any] struct {
	// Ahead, if set, holds the reads announced before they arrive: a call
	// then gathers only while some of them are still on their way, at
	// most Gather.
	Ahead *Announced
	// Gather is how long a call waits for identical reads before it
	// starts (with Ahead, the longest it waits); 0 takes defaultGather, a
	// negative value starts at once.
	Gather time.Duration

	// pause waits out the gathering; nil is time.Sleep. Tests end it once
	// the readers they start have joined, rather than betting on how soon
	// a busy machine schedules them.
	pause func(time.Duration)

	mu    sync.Mutex
	calls map[string]*call[J, V]
}

// defaultGather is long enough for Terraform's parallel walk to hand over
// the reads it started together (they arrive within a few milliseconds of
// each other), and short next to any listing. With announcements, a call
// waits that long only for a read that was announced and never came.
const defaultGather = 20 * time.Millisecond

type call[J, V any] struct {
	done    chan struct{}
	val     V
	joiners []J // every reader's, in the order they came; fixed once it runs
	readers int // still waiting
	cancel  context.CancelFunc
	// deadline is the latest of the readers' deadlines; zero if any of
	// them has none.
	deadline    time.Time
	hasDeadline bool
}

// Do runs fn once for the reads of key that arrive while its call gathers,
// with every one's joiner, and returns its value to each of them. shared
// reports whether this read joined a call another read opened. A read
// whose ctx ends first returns ctx's error and leaves the others waiting
// (fn still sees its joiner); the last reader to leave a started call
// cancels it and returns fn's value once fn has returned.
func (g *Group[J, V]) Do(ctx context.Context, key string, joiner J, fn func(ctx context.Context, joiners []J) V) (v V, shared bool, err error) {
	g.mu.Lock()
	if g.calls == nil {
		g.calls = map[string]*call[J, V]{}
	}
	if c, ok := g.calls[key]; ok {
		c.readers++
		c.joiners = append(c.joiners, joiner)
		c.widen(ctx)
		g.mu.Unlock()
		// Only now that it has joined: the call may start as soon as
		// the last announced read is in.
		Arrive(ctx)
		v, err := g.wait(ctx, key, c)
		return v, true, err
	}
	c := &call[J, V]{done: make(chan struct{}), readers: 1, joiners: []J{joiner}}
	c.deadline, c.hasDeadline = ctx.Deadline()
	g.calls[key] = c
	g.mu.Unlock()
	Arrive(ctx)

	go g.run(context.WithoutCancel(ctx), key, c, fn)
	v, err = g.wait(ctx, key, c)
	return v, false, err
}

// widen makes room for a joiner's deadline. Caller holds the lock.
func (c *call[J, V]) widen(ctx context.Context) {
	d, ok := ctx.Deadline()
	switch {
	case !ok:
		c.hasDeadline = false
	case c.hasDeadline && d.After(c.deadline):
		c.deadline = d
	}
}

// expiresWith reports whether the work's deadline has passed with ctx's:
// ctx ended at its deadline, and the work's (the latest of its readers')
// is no later. Caller holds the lock.
func (c *call[J, V]) expiresWith(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) && c.hasDeadline && !c.deadline.After(time.Now())
}

// run gathers, closes the call to joiners, and runs fn on a context that
// keeps the first reader's values (its logger) but none of its
// cancellation.
func (g *Group[J, V]) run(base context.Context, key string, c *call[J, V], fn func(ctx context.Context, joiners []J) V) {
	gather := g.Gather
	if gather == 0 {
		gather = defaultGather
	}
	switch {
	case gather < 0:
	case g.Ahead != nil:
		g.Ahead.waitArrived(gather)
	case g.pause != nil:
		g.pause(gather)
	default:
		time.Sleep(gather)
	}
	g.mu.Lock()
	if g.calls[key] == c {
		delete(g.calls, key)
	}
	ctx, cancel := context.WithCancel(base)
	if c.hasDeadline {
		ctx, cancel = context.WithDeadline(base, c.deadline)
	}
	c.cancel = cancel
	left := c.readers == 0
	g.mu.Unlock()
	defer cancel()
	if left {
		cancel() // every reader gave up while it gathered
	}
	c.val = fn(ctx, c.joiners)
	close(c.done)
}

func (g *Group[J, V]) wait(ctx context.Context, key string, c *call[J, V]) (V, error) {
	select {
	case <-c.done:
		return c.val, nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	c.readers--
	last, started := c.readers == 0, c.cancel != nil
	switch {
	case !last:
	case started && c.expiresWith(ctx):
		// The work's deadline is this one: it ends by itself, now, and
		// its context says so (deadline exceeded, not cancelled).
	case started:
		c.cancel()
	case g.calls[key] == c:
		// Still gathering: no later read may join a call nobody waits
		// for; run cancels it before it starts.
		delete(g.calls, key)
	}
	g.mu.Unlock()
	if last && started {
		// The work stops at once, and it knows better than ctx why it
		// stopped (a store that throttled it until the time ran out):
		// the last reader takes its word.
		<-c.done
		return c.val, nil
	}
	var zero V
	return zero, ctx.Err()
}

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
