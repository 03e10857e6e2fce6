package listing

// A window is one slice of a listing that offsets can reach: the query's
// filter plus, past the first, a bound on the range or sort attribute. Its
// first page tells its size; the rest of its pages are then requested all
// at once and fetched in parallel. This file reads windows.
//
// Who runs what. One goroutine, the traversal goroutine (the caller of
// List), decides everything: which window to read next, which records to
// hand out, when to stop. It alone touches the listing, its walks and
// their sinks (the listing's progress: stats, ids seen, the limit). Page
// requests run on the scheduler's workers. A worker may use only the
// windowReader, whose fields are fixed when the listing starts (or atomic,
// or safe for concurrent use), and the window it works for, whose planning
// fields are guarded by the window's mutex.
// Anything a worker needs to know of the listing's progress is computed by
// the traversal goroutine and passed in (a quota); a worker plans a window
// only for a listing without a record limit (see prefetch).
//
// Workers hand their results back over channels, one per page of a window
// (written once) and one for the continuation after a full window, which the
// traversal goroutine reads in order with await. So every listing, walk and
// sink method runs on the traversal goroutine; windowReader methods say
// where they run.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// windowReader opens windows, requests their pages and plans them. What it
// holds is fixed when the listing starts, or atomic, so that the traversal
// goroutine and the workers share it.
type windowReader[T commerce.Record] struct {
	filterRoom
	e           *Engine
	kind        commerce.Kind[T]
	includeJSON bool
	windowCap   int // records one window can reach by offset
	sched       *scheduler
	pages       atomic.Int64 // page requests, counted by whoever sends them
	windows     atomic.Int64
	notes       commerce.DecodeLog // values of an unexpected type the pages held
}

func newWindowReader[T commerce.Record](e *Engine, kind commerce.Kind[T], includeJSON bool) *windowReader[T] {
	return &windowReader[T]{
		filterRoom: e.room(kind.Endpoint),
		e:          e, kind: kind, includeJSON: includeJSON,
		windowCap: (commerce.OffsetLimit / e.pageSize) * e.pageSize,
		sched:     newScheduler(e.workers),
	}
}

// window is one bounded slice of a listing, read by offsets.
type window[T commerce.Record] struct {
	ctx    context.Context
	cancel context.CancelFunc
	base   string // filter without the bound
	key    sortKey
	bound  filter.Expr // nil for the first window of a traversal
	expr   string      // the filter sent

	pages []chan pageResult[T] // one per possible page, each written once
	next  chan continuation[T]

	mu      sync.Mutex
	planned int  // pages requested; 0 until planned
	more    bool // the window holds records past the pages requested

	p0 *pageResult[T] // the first page, once awaited (traversal goroutine only)
}

type pageResult[T commerce.Record] struct {
	page commerce.Page[T]
	err  error
}

func (r pageResult[T]) failure() error { return r.err }

// continuation says how to go on after a full window: with the next window
// (already requested), or by listing a tie group on its own first.
type continuation[T commerce.Record] struct {
	next   *window[T]  // already requested; nil when tie is set or not prefetched
	bound  filter.Expr // where next starts
	tie    bool
	tieKey string
	err    error
}

// quota is how many more records a traversal wants: all there are, or
// MaxResults less those listed so far. The traversal goroutine computes
// it, so that no worker ever reads the listing's progress.
type quota struct {
	limited bool
	// left is, when limited, MaxResults minus the records listed; 0 or
	// less during a catch-up, which lists past MaxResults.
	left int
}

// unlimited is the quota of a listing without MaxResults.
var unlimited = quota{}

// windowFilter is the filter of a window of base in key order from bound:
// bound merged into base's terms on the same attribute (commerce.Endpoint.Narrow),
// within the service's limits. Any goroutine.
func (r *windowReader[T]) windowFilter(base string, key sortKey, bound filter.Expr) (string, error) {
	if bound == nil {
		return base, nil
	}
	return r.narrowed(base, bound, key.param(), r.boundReason(key, bound))
}

// boundReason says, for messages, why a window's requests carry bound.
func (r *windowReader[T]) boundReason(key sortKey, bound filter.Expr) string {
	if key == unsorted {
		return fmt.Sprintf("past the service's offset limit of %d records, %s are listed in ranges of %s, and each range's requests bound it",
			commerce.OffsetLimit, r.kind.Name, bound[0].Attribute)
	}
	return fmt.Sprintf("past the service's offset limit of %d records, each window's requests bound %s, the attribute the listing is sorted by",
		commerce.OffsetLimit, key.attr)
}

// open requests a window's first page; the traversal goroutine, which
// calls it, plans the rest when it reads the window (see read).
func (r *windowReader[T]) open(parent context.Context, base string, key sortKey, bound filter.Expr) (*window[T], error) {
	return r.start(parent, base, key, bound, nil)
}

// prefetch opens the window that follows one being read, in a listing
// without a record limit. The worker that receives its first page plans
// the rest at once, so that its pages are queued before the traversal
// goroutine has caught up with it. Any goroutine.
func (r *windowReader[T]) prefetch(parent context.Context, base string, key sortKey, bound filter.Expr) (*window[T], error) {
	return r.start(parent, base, key, bound, func(w *window[T], p0 commerce.Page[T]) { r.plan(w, p0, unlimited) })
}

// start builds a window and requests its first page, handing the page to
// onFirst (if set) on the worker before the traversal sees it. Either
// goroutine.
func (r *windowReader[T]) start(parent context.Context, base string, key sortKey, bound filter.Expr, onFirst func(*window[T], commerce.Page[T])) (*window[T], error) {
	expr, err := r.windowFilter(base, key, bound)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(parent)
	w := &window[T]{ctx: ctx, cancel: cancel, base: base, key: key, bound: bound, expr: expr,
		pages: make([]chan pageResult[T], r.pagesFor(key, r.windowCap)), next: make(chan continuation[T], 1)}
	for i := range w.pages {
		w.pages[i] = make(chan pageResult[T], 1)
	}
	r.windows.Add(1)
	var then func(commerce.Page[T])
	if onFirst != nil {
		then = func(p commerce.Page[T]) { onFirst(w, p) }
	}
	r.sched.submit(urgent, r.pageTask(w, 0, then))
	return w, nil
}

// pageTask is the request of w's page i, run by a scheduler worker; then,
// if set, sees the page before the traversal goroutine does.
func (r *windowReader[T]) pageTask(w *window[T], i int, then func(commerce.Page[T])) func() {
	return func() {
		if err := w.ctx.Err(); err != nil {
			w.pages[i] <- pageResult[T]{err: err}
			return
		}
		p, err := r.fetch(w.ctx, w.expr, w.key, i*r.stride(w.key))
		if err == nil && then != nil {
			then(p)
		}
		w.pages[i] <- pageResult[T]{page: p, err: err}
	}
}

// fetch requests one page, counted in Stats.Pages. Any goroutine.
func (r *windowReader[T]) fetch(ctx context.Context, expr string, key sortKey, offset int) (commerce.Page[T], error) {
	r.pages.Add(1)
	return fetchPage(ctx, r.e, r.kind, pageRequest{filter: expr, sort: key.param(), offset: offset, limit: r.pageSize, includeJSON: r.includeJSON}, &r.notes)
}

// plan requests the rest of a window once its first page has told its
// size, and returns how many pages the window is read in and whether it
// holds more. It plans once per window: on a worker for prefetched
// windows, else on the traversal goroutine, which passes its quota.
func (r *windowReader[T]) plan(w *window[T], p0 commerce.Page[T], want quota) (pages int, more bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.planned > 0 {
		return w.planned, w.more
	}
	n := r.pagesToRead(w, p0.Total, want)
	w.planned = n
	w.more = p0.Total > r.reach(w.key, n)
	if err := r.nextWindowFits(w, p0); err != nil {
		// The next window's requests would break the service's filter
		// limits: stop before asking for more of this one.
		w.planned = 1
		w.next <- continuation[T]{err: err}
		return w.planned, w.more
	}
	// The last page decides where the next window starts: ask for it first.
	var then func(commerce.Page[T])
	if w.more {
		firstKey := ""
		if len(p0.Records) > 0 {
			firstKey, _ = keyOf(w.key, p0.Records[0])
		}
		if n == 1 {
			w.next <- r.continueAfter(w, firstKey, p0, want)
		}
		then = func(last commerce.Page[T]) { w.next <- r.continueAfter(w, firstKey, last, want) }
	}
	if n > 1 {
		r.sched.submit(urgent, r.pageTask(w, n-1, then))
	}
	for i := 1; i < n-1; i++ {
		r.sched.submit(bulk, r.pageTask(w, i, nil))
	}
	return w.planned, w.more
}

// nextWindowFits checks, for a window that does not hold the rest of a
// keyset listing, that the windows after it can carry their bound within
// the service's filter limits. Any record's key stands for the bounds to
// come: they all merge with the same terms of the base filter. Either
// goroutine, under w.mu.
func (r *windowReader[T]) nextWindowFits(w *window[T], p0 commerce.Page[T]) error {
	if !w.more || w.key == unsorted || len(p0.Records) == 0 {
		return nil
	}
	k, err := keyOf(w.key, p0.Records[0])
	if err != nil {
		return nil //nolint:nilerr // the record's own problem, reported when it is read
	}
	_, err = r.windowFilter(w.base, w.key, w.key.from(k))
	return err
}

// pagesToRead is how many of w's pages, of a window whose first page
// counted total records, the traversal needs. Any goroutine, under w.mu.
func (r *windowReader[T]) pagesToRead(w *window[T], total int, want quota) int {
	covered := min(total, r.windowCap)
	needed := covered
	if want.limited {
		// Only what is still missing, plus a page for the records of the
		// previous window's last tie group that this one starts by repeating.
		slack := 0
		if w.bound != nil {
			slack = r.pageSize
		}
		needed = min(covered, want.left+slack)
	}
	return r.pagesFor(w.key, needed)
}

// stride is how far apart a window's pages start. In the service's own
// order (no sort) they overlap by one record: offsets there shift with
// every insert and delete, and an insert and a delete between two page
// reads leave every total as it was while moving a record from one page
// into the gap before the next. The record both pages should share tells
// (see read). Sorted windows need no overlap: a sort key tells where a
// window is, and keyset rereads settle a window that moved.
// Any goroutine.
func (r *windowReader[T]) stride(key sortKey) int {
	if key == unsorted && r.pageSize > 1 {
		return r.pageSize - 1
	}
	return r.pageSize
}

// pagesFor is how many pages of a window with key reach its first n
// records (at least one page).
func (r *windowReader[T]) pagesFor(key sortKey, n int) int {
	if n <= r.pageSize {
		return 1
	}
	s := r.stride(key)
	return 1 + (n-r.pageSize+s-1)/s
}

// reach is how many records the first pages pages of a window reach.
func (r *windowReader[T]) reach(key sortKey, pages int) int {
	return (pages-1)*r.stride(key) + r.pageSize
}

// continueAfter works out, from a full window's last page, where the
// traversal goes on; without a record limit it prefetches the next window
// right away. Any goroutine.
func (r *windowReader[T]) continueAfter(w *window[T], firstKey string, last commerce.Page[T], want quota) continuation[T] {
	if len(last.Records) == 0 || firstKey == "" {
		// An inconsistent page; the traversal notices and reads the window again.
		return continuation[T]{err: errWindowChanged}
	}
	lastKey, err := keyOf(w.key, last.Records[len(last.Records)-1])
	if err != nil {
		return continuation[T]{err: err}
	}
	if lastKey == firstKey {
		return continuation[T]{tie: true, tieKey: lastKey}
	}
	bound := w.key.from(lastKey)
	if want.limited {
		// The records may be enough already: let the traversal decide.
		return continuation[T]{bound: bound}
	}
	next, err := r.prefetch(w.ctx, w.base, w.key, bound)
	return continuation[T]{next: next, bound: bound, err: err}
}

// firstPage awaits the window's first page, once. Traversal goroutine.
func (w *window[T]) firstPage(ctx context.Context) (pageResult[T], error) {
	if w.p0 != nil {
		return *w.p0, w.p0.err
	}
	r, err := await(ctx, w.pages[0])
	if err != nil && ctx.Err() != nil {
		return r, err
	}
	r.err = err
	w.p0 = &r
	return r, err
}

// read hands a window's records to deliver in order, planning its pages
// for want. It reports done when the listing is complete, or the
// continuation to follow. Traversal goroutine.
func (r *windowReader[T]) read(ctx context.Context, w *window[T], want quota, deliver func(T) (bool, error)) (bool, continuation[T], error) {
	var none continuation[T]
	r0, err := w.firstPage(ctx)
	if err != nil {
		return false, none, err
	}
	n, more := r.plan(w, r0.page, want)
	check := newWindowCheck(r, w.key, r0.page.Total)
	for i := range n {
		rp := r0
		if i > 0 {
			if rp, err = await(ctx, w.pages[i]); err != nil {
				return false, none, err
			}
		}
		if err := check.page(i, rp.page); err != nil {
			return false, none, err
		}
		records, err := check.overlap(i, rp.page)
		if err != nil {
			return false, none, err
		}
		for _, rec := range records {
			if err := check.record(rec); err != nil {
				return false, none, err
			}
			done, err := deliver(rec)
			if err != nil {
				return false, none, err
			}
			if done {
				w.cancel()
				return true, none, nil
			}
		}
	}
	if !more {
		return true, none, nil
	}
	cont, err := await(ctx, w.next)
	if err == nil {
		err = cont.err
	}
	return false, cont, err
}

// contractError is a ProtocolError of a list request of the endpoint with
// query ("?filter=...", "?sort=..." or empty). Any goroutine.
func (r *windowReader[T]) contractError(query, format string, args ...any) error {
	return commerce.ContractBroken(r.kind.Path+query, format, args...)
}
