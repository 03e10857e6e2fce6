// Package coalesce lets reads that Terraform runs together share one piece
// of work: the first read of a key opens a call, the reads of the same key
// that arrive while it gathers join it, each with what it needs of the
// work (its joiner), and all of them get its one result. The work sees
// every joiner, so that it can do what each needs at once.
//
// A read may only join work that has handed nothing out yet. Terraform
// reads a data source once everything it depends on is done, so a read
// that arrives after the shared work began may depend on a write that this
// work cannot have seen (in the apply step Terraform applies other
// resources between reads, and another provider may write to the store).
// Every read a work serves therefore arrived before the work sent
// anything. A finished call serves nobody; the next read starts afresh.
//
// Two rules serve that, and neither looks at a clock.
//
// A call gathers while reads that Terraform validated are on their way.
// Terraform validates a data source's configuration
// (ValidateDataResourceConfig) just before it reads it, in the same step
// of its walk and with the same configuration, and sends the read as soon
// as the validation is answered; the provider takes each validation as the
// announcement of a read (Announced). A call starts once no announced read
// has yet to arrive, announcements that come while it gathers included: so
// every read that Terraform validated before the work started is in it,
// however long the machine took to send it, and a read that nobody else
// announced starts at once.
//
// A read that arrives once the work has started, but before the work has
// handed anything out, takes the call over: the work is stopped (it asks
// Commit before it hands out its first result, and hears no), and a new
// call gathers its readers and the newcomer and runs the work afresh. This
// serves what the first rule cannot: Terraform's walk sometimes validates
// and reads one data source before its goroutines validate the next, and
// nothing Terraform sends before that validation says that it will come.
// It costs the requests the stopped work had sent: as a rule its first,
// whose answer it had not handed out. A read that arrives once the work
// has handed something out opens a call of its own (Do says so:
// OpenedLate), whose work may build on the earlier work's value once that
// has ended (Previous: internal/reads refreshes the records it handed out,
// asking the store only what changed, rather than list again).
//
// Why it is safe: the work a read gets starts after the read arrived
// (gathered), or after it and every reader it is shared with arrived
// (taken over), so after everything each of them depends on was written;
// a stopped work gave nobody anything; a work that builds on an earlier
// one's value (Previous) starts after its readers arrived, like any other.
// Gathering and taking over only
// delay a work's requests, which can only let it see more writes, never
// fewer. A read may get a later listing than it would have alone, never an
// earlier one.
//
// Why the gathering ends: every announced read comes, and a read waits for
// nothing of ours before it arrives. Terraform sends the read right after
// its validation, from the walk step that holds one of its parallelism
// slots; the reads a call gathers hold theirs while they wait, so the reads
// it waits for are at most as many as Terraform runs at once. Validations
// with no read after them are forgotten: those of an earlier walk
// (Terraform's validate walk runs in the same process when the provider is
// served in process, as in the tests; each walk that reads configures the
// provider first, and the provider forgets the announcements then:
// Forget), and those of a run Terraform stops (StopProvider, Forget again).
// The patience of Announced (2 s, over a hundred times the longest gap
// between a validation and its read measured under load) is the backstop
// for a validation with no read that none of this foresaw: it decides
// nothing in Terraform's ordinary sequence.
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
	"slices"
	"sync"
	"time"
)

// Group coalesces calls by key: J is what a reader brings to the work, V
// what the work returns to every reader. The zero value starts every call
// at once.
type Group[J, V any] struct {
	// Ahead, if set, holds the reads announced before they arrive: a call
	// gathers while any of them is still on its way.
	Ahead *Announced

	mu    sync.Mutex
	calls map[string]*call[J, V] // gathering
	// running holds the calls that started and have handed nothing out:
	// a read of their key takes them over (Commit).
	running map[string]*call[J, V]
	// opened holds the keys of every call opened in the Group, to tell
	// a read that came too late to join one (OpenedLate).
	opened map[string]bool
	// last holds the newest call of each key, running or ended: the one
	// the next call's work may build on (Previous).
	last map[string]*call[J, V]
}

type call[J, V any] struct {
	done chan struct{}
	// abandoned is closed once every reader has left while the call
	// gathered: it starts at once, and its work is cancelled.
	abandoned chan struct{}
	val       V
	joiners   []J // every reader's, in the order they came; fixed once it runs
	readers   int // still waiting
	cancel    context.CancelFunc
	// next took the call over: its readers wait for it.
	next *call[J, V]
	// before is the call of the key opened before this one, which no
	// read took over (Previous); nil once this call's work has ended.
	before *call[J, V]
	// deadline is the latest of the readers' deadlines; zero if any of
	// them has none.
	deadline    time.Time
	hasDeadline bool
}

// Joined says how a read came to the call that served it.
type Joined int

const (
	// opened: the read opened the call, the first of its key in the Group.
	opened Joined = iota
	// Shared: the read joined a call another read opened, or took over
	// one that had handed nothing out.
	Shared
	// OpenedLate: the read opened a call of its own because one of its key
	// had already handed something out (or ended) when it arrived, too
	// late to join.
	OpenedLate
)

// Do runs fn once for the reads of key that arrive while its call gathers,
// or before its work hands anything out, with every one's joiner, and
// returns its value to each of them, and how this read came to the call.
// Every read of a key brings the same fn; the one that runs is that of
// the read that opened the call, or took it over. A read whose ctx ends first returns ctx's
// error and leaves the others waiting (fn still sees its joiner); the last
// reader to leave a started call cancels it and returns fn's value once fn
// has returned.
func (g *Group[J, V]) Do(ctx context.Context, key string, joiner J, fn func(ctx context.Context, joiners []J) V) (v V, how Joined, err error) {
	g.mu.Lock()
	if g.calls == nil {
		g.calls, g.running, g.opened, g.last = map[string]*call[J, V]{}, map[string]*call[J, V]{}, map[string]bool{}, map[string]*call[J, V]{}
	}
	c, ok := g.calls[key]
	switch {
	case ok:
		c.readers++
		c.joiners = append(c.joiners, joiner)
		c.widen(ctx)
		how = Shared
	case g.running[key] != nil:
		c = g.takeOver(ctx, key, joiner)
		how = Shared
	default:
		how = opened
		if g.opened[key] {
			how = OpenedLate
		}
		g.opened[key] = true
		c = &call[J, V]{done: make(chan struct{}), abandoned: make(chan struct{}), readers: 1, joiners: []J{joiner}, before: g.last[key]}
		c.deadline, c.hasDeadline = ctx.Deadline()
		g.calls[key] = c
		g.last[key] = c
	}
	g.mu.Unlock()
	// Only now that it is in: the call may start as soon as the last
	// announced read is.
	Arrive(ctx)
	if !ok { // a new call: opened, or taking a running one over
		go g.run(context.WithoutCancel(ctx), key, c, fn)
	}
	v, err = g.wait(ctx, key, c)
	return v, how, err
}

// takeOver replaces the running call of key, which has handed nothing out
// yet, with a new call that gathers its readers and this one, and stops
// its work. Caller holds the lock.
func (g *Group[J, V]) takeOver(ctx context.Context, key string, joiner J) *call[J, V] {
	old := g.running[key]
	delete(g.running, key)
	c := &call[J, V]{done: make(chan struct{}), abandoned: make(chan struct{}),
		readers: old.readers + 1, joiners: append(slices.Clone(old.joiners), joiner),
		deadline: old.deadline, hasDeadline: old.hasDeadline, before: old.before}
	c.widen(ctx)
	old.next, old.readers = c, 0
	old.cancel()
	g.calls[key] = c
	g.last[key] = c
	return c
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
// cancellation, and that carries the call's Commit and Previous.
func (g *Group[J, V]) run(base context.Context, key string, c *call[J, V], fn func(ctx context.Context, joiners []J) V) {
	if g.Ahead != nil {
		g.Ahead.waitArrived(c.abandoned)
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
	if !left {
		g.running[key] = c
	}
	g.mu.Unlock()
	defer cancel()
	if left {
		cancel() // every reader gave up while it gathered
	}
	ctx = context.WithValue(ctx, commitKey{}, func() bool { return g.commit(key, c) })
	ctx = context.WithValue(ctx, previousKey{}, func(ctx context.Context) (V, bool) { return c.previous(ctx) })
	c.val = fn(ctx, c.joiners)
	g.mu.Lock()
	if g.running[key] == c {
		delete(g.running, key)
	}
	c.before = nil // what this work built on is no longer needed
	g.mu.Unlock()
	close(c.done)
}

type commitKey struct{}

type previousKey struct{}

// Previous is, for the work of a call, the value of the call of its key
// that was opened before it (its readers came once that call's work had
// handed something out), once that call has ended; false where there is
// none, or ctx ends first. The work may build on it: what it serves must
// still be as of after its own readers arrived. Work that no Group runs
// has none.
func Previous[V any](ctx context.Context) (V, bool) {
	previous, ok := ctx.Value(previousKey{}).(func(context.Context) (V, bool))
	if !ok {
		var zero V
		return zero, false
	}
	return previous(ctx)
}

func (c *call[J, V]) previous(ctx context.Context) (V, bool) {
	var zero V
	before := c.before // set before the work began, cleared after it ends
	if before == nil {
		return zero, false
	}
	select {
	case <-before.done:
		return before.val, true
	case <-ctx.Done():
		return zero, false
	}
}

// Commit is what the work of a call does before it hands anything out: it
// reports whether the work is still the one its readers wait for, and
// from then on no later read can take it over. False: a read came after
// the work started and before it handed anything out, and a new call
// serves its readers and that read together; the work must stop and hand
// out nothing. Work that no Group runs is always committed.
func Commit(ctx context.Context) bool {
	commit, ok := ctx.Value(commitKey{}).(func() bool)
	return !ok || commit()
}

func (g *Group[J, V]) commit(key string, c *call[J, V]) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.next != nil {
		return false
	}
	if g.running[key] == c {
		delete(g.running, key)
	}
	return true
}

func (g *Group[J, V]) wait(ctx context.Context, key string, c *call[J, V]) (V, error) {
	for {
		select {
		case <-c.done:
		case <-ctx.Done():
			return g.leave(ctx, key, c)
		}
		g.mu.Lock()
		next := c.next
		g.mu.Unlock()
		if next == nil {
			return c.val, nil
		}
		c = next // taken over: its readers wait for the new call
	}
}

// leave takes a reader whose ctx ended out of the call it waits for now.
func (g *Group[J, V]) leave(ctx context.Context, key string, c *call[J, V]) (V, error) {
	g.mu.Lock()
	for c.next != nil {
		c = c.next
	}
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
		// for; run stops gathering and cancels it before it starts.
		delete(g.calls, key)
		close(c.abandoned)
	}
	if last && g.running[key] == c {
		delete(g.running, key) // nobody is left to hand over
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
// so that a call gathers exactly while reads that Terraform has validated
// are on their way (the package doc says why that is safe and why it
// ends): a read that nobody else announced starts at once, and reads that
// were announced together start once the last of them has joined, however
// long the machine takes to send them.
//
// The provider announces each valid configuration Terraform validates
// (Announce), forgets the announcements when Terraform configures it for a
// walk or stops it (Forget), and hands every read its announcement's key
// (WithArrival); the read takes it back when it joins or opens a call
// (Do), or when it ends without one.
type Announced struct {
	// Patience is how long an announced read is waited for at most, the
	// backstop for a validation that no read follows; 0 takes
	// defaultPatience.
	Patience time.Duration

	mu      sync.Mutex
	pending map[string][]time.Time // by key, oldest first
	changed chan struct{}          // closed and replaced when one arrives
}

// defaultPatience, the default Patience: over a hundred times the longest
// gap between a validation and its read that Terraform 1.11 showed on this
// project's 2-core machine busy with another go test (14 ms). In
// Terraform's ordinary sequence every announced read comes, and it is
// never waited out; it bounds what a validation with no read can cost.
const defaultPatience = 2 * time.Second

// Announce says a read of key is on its way.
func (a *Announced) Announce(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil {
		a.pending = map[string][]time.Time{}
	}
	a.pending[key] = append(a.pending[key], time.Now())
}

// Forget drops every announcement: reads announced before it are no longer
// waited for. The provider forgets when Terraform configures it (a new walk:
// the validations of an earlier one, such as the validate walk, have no
// read in this one) and when Terraform stops it (the reads it validated
// may never be sent).
func (a *Announced) Forget() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.pending)
	a.signal()
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
	a.signal()
}

// signal wakes the calls that gather. Caller holds the lock.
func (a *Announced) signal() {
	if a.changed != nil {
		close(a.changed)
		a.changed = nil
	}
}

// waitArrived returns once no announced read is on its way, announcements
// made meanwhile included, or once abandoned is closed.
func (a *Announced) waitArrived(abandoned <-chan struct{}) {
	for {
		expires, changed, waiting := a.next()
		if !waiting {
			return
		}
		forget := time.NewTimer(time.Until(expires))
		select {
		case <-abandoned:
			forget.Stop()
			return
		case <-changed:
		case <-forget.C:
		}
		forget.Stop()
	}
}

// next forgets the announcements past their patience and says when the
// oldest of the others runs out of it, and on what a change is signalled;
// waiting is false when none is left.
func (a *Announced) next() (expires time.Time, changed <-chan struct{}, waiting bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now, patience := time.Now(), a.patience()
	for key, times := range a.pending {
		for len(times) > 0 && now.Sub(times[0]) >= patience {
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
	return expires.Add(patience), a.changed, waiting
}

func (a *Announced) patience() time.Duration {
	if a.Patience > 0 {
		return a.Patience
	}
	return defaultPatience
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
