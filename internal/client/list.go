package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// ListQuery says what to list.
type ListQuery struct {
	Filter      string // a filter expression, or empty for all records
	Sort        string // "attr" or "-attr"; empty means DefaultSort
	MaxResults  int    // stop after this many records; 0 means all
	IncludeJSON bool   // keep each record's raw JSON
	// Progress, if set, is called every ProgressInterval records.
	Progress func(listed, total int)
	// Late receives, for sort -updated_at, the records that were updated
	// while the listing ran and so moved ahead of the records already
	// listed; they sort before everything emit received, newest first.
	// Without Late they are handed to emit at the end.
	Late func(Record) error
	// CreatedBefore, if set, leaves out records created at or after it: the
	// service is eventually consistent, and the newest records may not all
	// be visible yet. Sent as lt(created_at,...) where the endpoint filters
	// on created_at, applied here otherwise.
	CreatedBefore time.Time
}

// ProgressInterval is how often (in records) a listing reports progress.
const ProgressInterval = 5000

// ListStats describes a finished (or failed) listing.
type ListStats struct {
	Total   int // results.total for the query's filter, from the first page
	Listed  int // records handed to the caller
	Pages   int // page requests the engine made (retries of one page count once)
	Windows int // offset windows traversed (see List)
	// Strategy says how the listing reached every record (Strategy*).
	Strategy string
}

// List hands every record that matches q to emit, in the order of q.Sort,
// each record once. How it reaches them all depends on what the endpoint
// can do (its Resource row of the capability table), confirmed at run time:
//
// Keyset windows, where the service sorts by the attribute and filters it by
// range. The service serves offsets up to OffsetLimit, so the engine lists
// in windows: a window is the query's filter plus a keyset bound on the sort
// attribute (none for the first), read by offset pages in parallel. When a
// window holds more than the offset limit allows, the next one starts from
// the sort value of its last record ("ge" for ascending, "le"-style for
// descending). Records that share that value are fetched again at the start
// of the next window and dropped by id. A tie group too large for a window
// is listed on its own (see listTieGroup) before the traversal moves past
// it.
//
// Sorted by the provider, for orders the service cannot give: the engine
// lists everything by an order the service gives, or, where it sorts by
// nothing, in the service's own order by offset and above the offset limit
// in windows of the range attribute (see listUnsorted); then it sorts the
// complete list itself and hands out the first MaxResults.
//
// A service that refuses sort= (a 400 naming it) or ignores it (the first
// page out of order) makes the engine switch to the provider-sorted path,
// once per endpoint and Client, before any record is handed out; text
// orders, whose collation only the service knows, fail instead with a
// SortUnavailableError.
//
// Each page's results.total and record count must match its window's first
// page; if they do not, records were written during the listing, and the
// window's range is read again (with sequential keyset pages where the
// service sorts, which no insert or delete can make skip a record). Records
// are handed over once, by id.
//
// With sort -updated_at, an update moves a record to the front, behind the
// position already read; a catch-up pass filtered on updated_at finds such
// records and hands them to q.Late. An account renamed during a listing
// sorted by name can likewise move behind the position read; that case is
// not covered.
func List[T Record](ctx context.Context, c *Client, kind Kind[T], q ListQuery, emit func(T) error) (ListStats, error) {
	key, err := parseSort(kind.Resource, q.Sort)
	if err != nil {
		return ListStats{}, err
	}
	if q.Filter != "" {
		if _, err := filter.Parse(q.Filter); err != nil {
			return ListStats{}, fmt.Errorf("filter: %w", err)
		}
	}
	if q.MaxResults < 0 {
		return ListStats{}, fmt.Errorf("max results %d must not be negative", q.MaxResults)
	}
	var createdBefore string
	if !q.CreatedBefore.IsZero() {
		cut := q.CreatedBefore.UTC().Truncate(time.Millisecond).Format(filter.TimestampLayout)
		if f, ok := kind.Filters["created_at"]; ok && f.Allows(filter.Lt) {
			q.Filter = and(q.Filter, filter.Expr{filter.NewTerm(filter.Lt, "created_at", cut)}.String())
		} else {
			createdBefore = cut
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := &lister[T]{
		createdBefore: createdBefore,
		c:             c, kind: kind, q: q, emit: emit, limit: q.MaxResults,
		ps:           c.cfg.PageSize,
		windowCap:    (OffsetLimit / c.cfg.PageSize) * c.cfg.PageSize,
		seen:         make(map[string]struct{}),
		nextProgress: ProgressInterval,
	}
	// Two workers more than requests may be in flight, so that a worker
	// decoding a page never leaves a request slot idle.
	l.sched = newScheduler(c.cfg.MaxParallelRequests + 2)
	defer func() {
		// Cancel first, so that queued page requests return at once.
		cancel()
		l.sched.close()
	}()
	err = l.run(ctx, key)
	l.stats.Total -= l.dropped
	l.stats.Pages = int(l.pages.Load())
	l.stats.Windows = int(l.windows.Load())
	return l.stats, err
}

type lister[T Record] struct {
	c     *Client
	kind  Kind[T]
	q     ListQuery
	emit  func(T) error
	limit int // stop after this many records; 0: all
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at.
	createdBefore string
	dropped       int
	ps            int
	windowCap     int // records one window can reach by offset
	sched         *scheduler

	key          sortKey
	seen         map[string]struct{}
	head         string // sort key of the first record listed
	late         bool   // delivering to q.Late
	stats        ListStats
	pages        atomic.Int64 // counted by the workers
	windows      atomic.Int64
	nextProgress int
}

type pageResult[T Record] struct {
	page page[T]
	err  error
}

// continuation says how to go on after a full window: with the next window
// (already requested), or by listing a tie group on its own first.
type continuation[T Record] struct {
	next   *window[T]  // already requested; nil when tie is set or not prefetched
	bound  filter.Expr // where next starts
	tie    bool
	tieKey string
	err    error
}

// window is one keyset-bounded slice of the traversal, read by offsets.
type window[T Record] struct {
	ctx    context.Context
	cancel context.CancelFunc
	base   string // filter without the keyset bound
	key    sortKey
	bound  filter.Expr // nil for the first window of a traversal
	expr   string      // the filter sent

	pages []chan pageResult[T] // one per possible page, each written once
	next  chan continuation[T]

	mu      sync.Mutex
	planned int // pages requested; 0 until planned
	more    bool

	// Used by the traversal goroutine only:
	p0   *pageResult[T]        // the first page, once awaited
	sink func(T) (bool, error) // where records go; nil: lister.deliver
}

// first awaits the window's first page, once.
func (w *window[T]) first(ctx context.Context) (pageResult[T], error) {
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

// open requests a window's first page; its total decides the rest.
func (l *lister[T]) open(parent context.Context, base string, key sortKey, bound filter.Expr, autoPlan bool) (*window[T], error) {
	expr := base
	if bound != nil {
		expr = and(base, bound.String())
	}
	if len(expr) > filter.MaxLength {
		return nil, fmt.Errorf("the filter with its keyset bound is %d bytes, more than the service's %d: shorten the filter expression", len(expr), filter.MaxLength)
	}
	ctx, cancel := context.WithCancel(parent)
	w := &window[T]{ctx: ctx, cancel: cancel, base: base, key: key, bound: bound, expr: expr,
		pages: make([]chan pageResult[T], l.windowCap/l.ps), next: make(chan continuation[T], 1)}
	for i := range w.pages {
		w.pages[i] = make(chan pageResult[T], 1)
	}
	l.windows.Add(1)
	var then func(page[T])
	if autoPlan {
		// Plan as soon as the first page lands, from the worker, so that the
		// window's pages are queued before the caller has caught up with it.
		then = func(p page[T]) { l.plan(w, p) }
	}
	l.sched.submit(true, l.pageTask(w, 0, then))
	return w, nil
}

func (l *lister[T]) pageTask(w *window[T], i int, then func(page[T])) func() {
	return func() {
		if err := w.ctx.Err(); err != nil {
			w.pages[i] <- pageResult[T]{err: err}
			return
		}
		l.pages.Add(1)
		p, err := fetchPage(w.ctx, l.c, l.kind, w.expr, w.key.param(), i*l.ps, l.ps, l.q.IncludeJSON)
		if err == nil && then != nil {
			then(p)
		}
		w.pages[i] <- pageResult[T]{page: p, err: err}
	}
}

// plan requests the rest of a window once its first page has told its size.
// It runs once per window: from the worker for prefetched windows, or from
// the traversal.
func (l *lister[T]) plan(w *window[T], p0 page[T]) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.planned > 0 {
		return
	}
	covered := min(p0.total, l.windowCap)
	want := covered
	if l.limit > 0 {
		// Only what is still missing, plus a page for the records of the
		// previous window's last tie group that this one starts by repeating.
		slack := 0
		if w.bound != nil {
			slack = l.ps
		}
		want = min(covered, l.limit-l.stats.Listed+slack)
	}
	n := max(1, (want+l.ps-1)/l.ps)
	w.planned = n
	w.more = p0.total > n*l.ps
	// The last page decides where the next window starts: ask for it first.
	var then func(page[T])
	if w.more {
		firstKey := ""
		if len(p0.records) > 0 {
			firstKey, _ = w.key.keyOf(p0.records[0])
		}
		if n == 1 {
			w.next <- l.continueAfter(w, firstKey, p0)
		}
		then = func(last page[T]) { w.next <- l.continueAfter(w, firstKey, last) }
	}
	if n > 1 {
		l.sched.submit(true, l.pageTask(w, n-1, then))
	}
	for i := 1; i < n-1; i++ {
		l.sched.submit(false, l.pageTask(w, i, nil))
	}
}

// continueAfter works out, from a full window's last page, where the
// traversal goes on, and requests the next window's first page right away.
func (l *lister[T]) continueAfter(w *window[T], firstKey string, last page[T]) continuation[T] {
	if len(last.records) == 0 || firstKey == "" {
		// An inconsistent page; the traversal notices and reads the window again.
		return continuation[T]{err: errRedo}
	}
	lastKey, err := w.key.keyOf(last.records[len(last.records)-1])
	if err != nil {
		return continuation[T]{err: err}
	}
	if lastKey == firstKey {
		return continuation[T]{tie: true, tieKey: lastKey}
	}
	bound := w.key.from(lastKey)
	if l.limit > 0 {
		// The records may be enough already: let the traversal decide.
		return continuation[T]{bound: bound}
	}
	next, err := l.open(w.ctx, w.base, w.key, bound, true)
	return continuation[T]{next: next, bound: bound, err: err}
}

// errRedo says a window changed while it was read by offsets: a record was
// inserted, deleted or moved, so offsets shifted and a record may have
// slipped between two pages.
var errRedo = errors.New("window changed while it was listed")

// traverse lists base in key order from bound on. top marks the query's own
// traversal (as opposed to one that lists a tie group).
func (l *lister[T]) traverse(ctx context.Context, base string, key sortKey, bound filter.Expr, top bool) error {
	w, err := l.open(ctx, base, key, bound, false)
	if err != nil {
		return err
	}
	first := top
	for {
		done, cont, err := l.read(ctx, w, first)
		switch {
		case errors.Is(err, errRedo):
			// Offsets are unreliable while the data changes: read this
			// window's range again with keyset pages, which depend on no
			// offset, then go back to parallel offset pages.
			w.cancel()
			next, done, err := l.careful(ctx, w.base, w.key, w.bound)
			if err != nil {
				return l.explain(err, w)
			}
			if done {
				return nil
			}
			if w, err = l.open(ctx, base, key, next, false); err != nil {
				return err
			}
			first = false
			continue
		case err != nil:
			return l.explain(err, w)
		case done:
			return nil
		}
		first = false
		if !cont.tie {
			if w = cont.next; w == nil {
				if w, err = l.open(ctx, base, key, cont.bound, false); err != nil {
					return err
				}
			}
			continue
		}
		if key.attr == idKey.attr {
			return &ProtocolError{Method: http.MethodGet, Path: l.kind.Path + "?filter=" + w.expr,
				Problem: fmt.Sprintf("a whole window of %d records has the same id %q", l.windowCap, cont.tieKey)}
		}
		// A tie group larger than a window: list it on its own, then go on
		// strictly after it.
		if err := l.listTieGroup(ctx, base, key, cont.tieKey); err != nil {
			return err
		}
		if l.full() {
			return nil
		}
		if w, err = l.open(ctx, base, key, key.after(cont.tieKey), false); err != nil {
			return err
		}
	}
}

// careful lists up to a window's worth of records from bound on with keyset
// pages, one after another: each page starts from the last sort value seen,
// so inserts and deletes cannot make it skip a record. It returns the bound
// to go on from, or done when the listing is complete.
func (l *lister[T]) careful(ctx context.Context, base string, key sortKey, bound filter.Expr) (filter.Expr, bool, error) {
	for covered := 0; covered < l.windowCap; {
		expr := base
		if bound != nil {
			expr = and(base, bound.String())
		}
		l.pages.Add(1)
		p, err := fetchPage(ctx, l.c, l.kind, expr, key.param(), 0, l.ps, l.q.IncludeJSON)
		if err != nil {
			return nil, false, err
		}
		if want := min(p.total, l.ps); len(p.records) != want {
			// A keyset page is one answer from offset 0: it holds the first
			// min(total, limit) records its filter matches, whatever writes
			// happen. Trusting a total that disagrees would end the listing
			// early (total too small) or chase records that are not there.
			return nil, false, &ProtocolError{Method: http.MethodGet, Path: l.kind.Path + "?filter=" + expr,
				Problem: fmt.Sprintf("results.total is %d, so the page (page[limit] %d) should hold %d records, but it holds %d", p.total, l.ps, want, len(p.records))}
		}
		covered += len(p.records)
		for _, rec := range p.records {
			if done, err := l.deliver(rec); done || err != nil {
				return nil, done, err
			}
		}
		if p.total <= len(p.records) {
			return nil, true, nil
		}
		firstKey, err := key.keyOf(p.records[0])
		if err != nil {
			return nil, false, err
		}
		lastKey, err := key.keyOf(p.records[len(p.records)-1])
		if err != nil {
			return nil, false, err
		}
		if firstKey != lastKey {
			bound = key.from(lastKey)
			continue
		}
		// A tie group fills the page: list it on its own, then go on
		// strictly after it.
		if key.attr == idKey.attr {
			return nil, false, &ProtocolError{Method: http.MethodGet, Path: l.kind.Path + "?filter=" + expr,
				Problem: fmt.Sprintf("a whole page of records has the same id %q", lastKey)}
		}
		if err := l.listTieGroup(ctx, base, key, lastKey); err != nil {
			return nil, false, err
		}
		if l.full() {
			return nil, true, nil
		}
		bound = key.after(lastKey)
	}
	return bound, false, nil
}

// deliver hands rec to the caller unless it was listed already. done is
// true once MaxResults records have been listed.
func (l *lister[T]) deliver(rec T) (done bool, err error) {
	id := rec.RecordID()
	if _, dup := l.seen[id]; dup {
		return false, nil // repeated at a window boundary, or moved by an update
	}
	l.seen[id] = struct{}{}
	if l.createdBefore != "" {
		if created, err := keyFor(l.kind.Resource, "created_at").keyOf(rec); err == nil && created >= l.createdBefore {
			l.dropped++
			return false, nil
		}
	}
	if l.late && l.q.Late != nil {
		err = l.q.Late(rec)
	} else {
		err = l.emit(rec)
	}
	if err != nil {
		return false, err
	}
	if l.head == "" {
		l.head, _ = l.key.keyOf(rec)
	}
	l.stats.Listed++
	if l.q.Progress != nil && l.stats.Listed >= l.nextProgress {
		l.q.Progress(l.stats.Listed, l.stats.Total)
		l.nextProgress += ProgressInterval
	}
	return l.full(), nil
}

// maxCatchUps bounds the catch-up rounds of a store that never stops
// updating records.
const maxCatchUps = 5

// catchUp finds, for sort -updated_at, the records updated while the
// listing ran: an update moves a record to the front, behind the position
// already read, where no single pass can see it. They all have an
// updated_at after the first record listed, so a filtered pass finds them;
// it repeats while it still finds records updated during the last pass.
func (l *lister[T]) catchUp(ctx context.Context) error {
	l.late = true
	for range maxCatchUps {
		if l.head == "" {
			return nil
		}
		since := filter.Expr{filter.NewTerm(filter.Ge, l.key.attr, nextMillisecond(l.head))}
		before := l.stats.Listed
		l.head = ""
		if err := l.traverse(ctx, and(l.q.Filter, since.String()), l.key, nil, false); err != nil {
			return err
		}
		if l.stats.Listed == before {
			return nil
		}
	}
	return nil
}

// read hands a window's records to emit in order. It reports done when the
// listing is complete, or the continuation to follow.
func (l *lister[T]) read(ctx context.Context, w *window[T], first bool) (bool, continuation[T], error) {
	var none continuation[T]
	r0, err := w.first(ctx)
	if err != nil {
		return false, none, err
	}
	p0 := r0.page
	if first {
		l.stats.Total = p0.total
		// A service that ignores sort= shows it on the first page, before
		// anything is handed out: the listing can still switch strategy.
		if bad := disorder(w.key, p0.records); bad != "" {
			return false, none, &errSortUnusable{cause: "it ignored sort=" + w.key.param() + ": " + bad}
		}
	}
	deliver := l.deliver
	if w.sink != nil {
		deliver = w.sink
	}
	l.plan(w, p0)
	w.mu.Lock()
	n, more := w.planned, w.more
	w.mu.Unlock()

	covered := min(p0.total, l.windowCap)
	inWindow := make(map[string]struct{}, min(covered, 1024))
	prevKey := ""
	for i := 0; i < n; i++ {
		r := r0
		if i > 0 {
			if r, err = await(ctx, w.pages[i]); err != nil {
				return false, none, err
			}
		}
		p := r.page
		if expect := min(l.ps, covered-i*l.ps); p.total != p0.total || len(p.records) != expect {
			return false, none, errRedo
		}
		for _, rec := range p.records {
			id := rec.RecordID()
			if _, dup := inWindow[id]; dup {
				// Offsets shifted under the listing.
				return false, none, errRedo
			}
			inWindow[id] = struct{}{}
			if w.key.checked() {
				k, err := w.key.keyOf(rec)
				if err != nil {
					return false, none, &ProtocolError{Method: http.MethodGet, Path: l.kind.Path, Problem: err.Error()}
				}
				if prevKey != "" && w.key.before(k, prevKey) {
					return false, none, &ProtocolError{Method: http.MethodGet, Path: l.kind.Path + "?sort=" + w.key.param(),
						Problem: fmt.Sprintf("records are out of %s order: %s comes after %s", w.key.param(), k, prevKey)}
				}
				prevKey = k
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

// explain turns a failed keyset request into an OffsetLimitError: the
// service refused the only way past its offset limit.
func (l *lister[T]) explain(err error, w *window[T]) error {
	var apiErr *APIError
	keyset := w.bound != nil || w.base != l.q.Filter
	if keyset && errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
		return &OffsetLimitError{Resource: l.kind.Name, OffsetLimit: OffsetLimit, Total: l.stats.Total, Listed: l.stats.Listed, Err: err}
	}
	return err
}

func await[V any](ctx context.Context, ch chan V) (V, error) {
	if err := ctx.Err(); err != nil {
		// select picks at random among ready cases: without this, pages
		// already fetched would keep reaching emit after cancellation.
		var zero V
		return zero, err
	}
	select {
	case v := <-ch:
		if r, ok := any(v).(interface{ failure() error }); ok {
			return v, r.failure()
		}
		return v, nil
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

func (r pageResult[T]) failure() error { return r.err }

// scheduler runs page requests on a fixed set of workers. Urgent tasks (the
// first and last page of a window, which decide what comes next) go before
// the bulk, so the next window starts while this one is still being read.
type scheduler struct {
	mu     sync.Mutex
	cond   *sync.Cond
	urgent []func()
	normal []func()
	closed bool
	wg     sync.WaitGroup
}

func newScheduler(workers int) *scheduler {
	s := &scheduler{}
	s.cond = sync.NewCond(&s.mu)
	s.wg.Add(workers)
	for range workers {
		go s.work()
	}
	return s
}

func (s *scheduler) submit(urgent bool, task func()) {
	s.mu.Lock()
	if urgent {
		s.urgent = append(s.urgent, task)
	} else {
		s.normal = append(s.normal, task)
	}
	s.mu.Unlock()
	s.cond.Signal()
}

func (s *scheduler) work() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		for !s.closed && len(s.urgent) == 0 && len(s.normal) == 0 {
			s.cond.Wait()
		}
		var task func()
		switch {
		case len(s.urgent) > 0:
			task, s.urgent = s.urgent[0], s.urgent[1:]
		case len(s.normal) > 0:
			task, s.normal = s.normal[0], s.normal[1:]
		}
		s.mu.Unlock()
		if task == nil {
			return // closed and drained
		}
		task()
	}
}

// close waits for queued tasks to finish; callers cancel their contexts
// first, so the tasks return at once.
func (s *scheduler) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cond.Broadcast()
	s.wg.Wait()
}
