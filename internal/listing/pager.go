package listing

// The pager: it reads windows, and nothing else: which of their pages to
// request and when, how many go out ahead, and what the traversal hands
// out of them. The page request itself and the workers that send it are
// in requests.go; the checks that a window held still, in windowcheck.go.
//
// A window is one slice of a listing that offsets can reach: the query's
// filter plus, past the first, a bound on the range or sort attribute. Its
// first page's count sizes it: the pages the count promises, and one that
// shows the end, are requested at once and fetched in parallel. A count is
// only a guess (commerce.Count): a lower bound, an estimate, one more than
// seen, or none. So a window ends where a page comes back short (or, with
// overlapping pages, holding only the overlap), never where the count
// said; past a count that proved low, and from the start where the count
// does not promise to be exact, pages are read ahead in parallel. A window
// whose pages are all full up to the offset limit holds more, and the
// strategy goes on from its last record.
//
// Who runs what. One goroutine, the traversal goroutine (the caller of
// listAll), decides everything: which window to read next, which records to
// hand out, when to stop. It alone touches the listing, its walks and
// their sinks (the listing's progress: stats, ids seen, the limit). Page
// requests run on the scheduler's workers. A worker may use only the
// windowReader, whose fields are fixed when the listing starts (or atomic,
// or safe for concurrent use), and the window it works for, whose sizing
// fields are guarded by the window's mutex.
// Anything a worker needs to know of the listing's progress is computed by
// the traversal goroutine and passed in (a quota); a worker sizes a window
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

// lazyReadAhead bounds how many pages a window reads past what its count
// promises (ahead): the transport's requests in flight at the start (8)
// and the two a worker keeps queued. The transport may grow its requests
// in flight well beyond (a store far away), but pages read past a lazy
// count's end are wasted, this many at most per window
// (TestLazyCountsCostFewRequests).
const lazyReadAhead = 10

// windowReader opens windows, requests their pages and sizes them. What it
// holds is fixed when the listing starts, or atomic, so that the traversal
// goroutine and the workers share it.
type windowReader[T commerce.Record] struct {
	filterRoom
	e           *Engine
	kind        commerce.Kind[T]
	includeJSON bool
	// ahead is how many pages past the last one read are kept requested
	// where the count does not say where a window ends: enough to keep
	// every request slot busy.
	ahead int
	// maxMatches is the most records the listing's filter can match,
	// where it names ids (idBound); 0: no bound.
	maxMatches int
	sched      *scheduler
	pages      atomic.Int64 // page requests, counted by whoever sends them
	windows    atomic.Int64
	notes      commerce.DecodeLog // values of an unexpected type the pages held
}

func newWindowReader[T commerce.Record](e *Engine, kind commerce.Kind[T], includeJSON bool) *windowReader[T] {
	return &windowReader[T]{
		filterRoom: e.room(kind.Endpoint),
		e:          e, kind: kind, includeJSON: includeJSON,
		ahead: min(e.workers, lazyReadAhead),
		sched: newScheduler(e.workers),
	}
}

// maxWindow is how many records one window reaches by offset now: the
// engine's word, which a store's refusal lowers while the listing runs
// (endBefore). Any goroutine.
func (r *windowReader[T]) maxWindow() int { return r.e.windowCap(r.kind.Path) }

// offsetLimit is the offset limit messages name: the service's, or what
// the store served where it refused an offset below that. Any goroutine.
func (r *windowReader[T]) offsetLimit() int {
	if n, ok := r.e.learnedWindowCap(r.kind.Path); ok {
		return n
	}
	return commerce.OffsetLimit
}

// pageWindow is one bounded slice of a listing, read by offsets.
type pageWindow[T commerce.Record] struct {
	ctx    context.Context
	cancel context.CancelFunc
	base   filter.Parsed // filter without the bound
	key    sortKey
	bound  filter.Expr // nil for the first window of a traversal
	expr   string      // the filter sent
	// exactCount asks the service for an exact count on the first page
	// (the query's own, when a reader reports the matches past
	// MaxResults).
	exactCount bool

	pages []chan pageResult[T] // one per possible page at the smaller stride, each written once
	next  chan continuation[T]
	// come, where set, is signalled once the first page has come
	// (onePage).
	come chan struct{}

	mu sync.Mutex
	// Set once, when the first page sizes the window (size).
	sized  bool
	stride int // how far apart pages start (see stride)
	last   int // the index of the page that reaches the offset limit
	// lastOffset is the offset of the page that ends where the window's
	// reach (maxWindow, when it was sized) does.
	lastOffset int
	// requested is how many pages are requested, from the first on;
	// readAhead is set once pages are read ahead of what the count says.
	requested int
	readAhead bool
	// firstKey is the sort value of the first page's first record, where
	// the next window's bound starts from; limited is set where the
	// traversal that sized the window wants only some of its records.
	firstKey string
	limited  bool

	p0 *pageResult[T] // the first page, once awaited (traversal goroutine only)
	// ended is set once read handed out the window's last record and saw
	// it was the last: on a short page that the window's checks accept
	// (traversal goroutine only).
	ended bool
	// lastKey is the sort value of the last record of the last page read
	// handed out whole, once one was (traversal goroutine only): the
	// window's records up to it are complete, its pages having shared
	// their records or, end to end, given one steady count (windowCheck),
	// so a window that changed later goes on from there.
	lastKey string
}

type pageResult[T commerce.Record] struct {
	page commerce.Page[T]
	err  error
}

func (r pageResult[T]) failure() error { return r.err }

// continuation says how to go on after a full window: with the next window
// (already requested), or by listing a tie group on its own first.
type continuation[T commerce.Record] struct {
	next   *pageWindow[T] // already requested; nil when tie is set or not prefetched
	bound  filter.Expr    // where next starts
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
func (r *windowReader[T]) windowFilter(base filter.Parsed, key sortKey, bound filter.Expr) (string, error) {
	if bound == nil {
		return base.Text(), nil
	}
	_, text, err := r.narrowed(base, bound, key.param(), r.boundReason(key, bound))
	return text, err
}

// boundReason says, for messages, why a window's requests carry bound.
// Any goroutine.
func (r *windowReader[T]) boundReason(key sortKey, bound filter.Expr) string {
	if key == unsorted {
		return fmt.Sprintf("past the service's offset limit of %d records, %s are listed in ranges of %s, and each range's requests bound it",
			r.offsetLimit(), r.kind.Name, bound[0].Attribute)
	}
	return fmt.Sprintf("past the service's offset limit of %d records, each window's requests bound %s, the attribute the listing is sorted by",
		r.offsetLimit(), key.attr)
}

// open requests a window's first page; the traversal goroutine, which
// calls it, sizes the rest when it reads the window (see read).
func (r *windowReader[T]) open(parent context.Context, base filter.Parsed, key sortKey, bound filter.Expr) (*pageWindow[T], error) {
	return r.start(parent, base, key, bound, false, nil)
}

// prefetch opens the window that follows one being read, in a listing
// without a record limit. The worker that receives its first page sizes
// the rest at once, so that its pages are queued before the traversal
// goroutine has caught up with it. Any goroutine.
func (r *windowReader[T]) prefetch(parent context.Context, base filter.Parsed, key sortKey, bound filter.Expr) (*pageWindow[T], error) {
	return r.start(parent, base, key, bound, false, func(w *pageWindow[T], p0 commerce.Page[T]) { r.size(w, p0, unlimited) })
}

// start builds a window and requests its first page, handing the page to
// onFirst (if set) on the worker before the traversal sees it. Either
// goroutine.
func (r *windowReader[T]) start(parent context.Context, base filter.Parsed, key sortKey, bound filter.Expr, exactCount bool, onFirst func(*pageWindow[T], commerce.Page[T])) (*pageWindow[T], error) {
	expr, err := r.windowFilter(base, key, bound)
	if err != nil {
		return nil, err
	}
	w := r.newWindow(parent, base, key, bound, expr, r.lastPage(r.overlapStride())+1)
	w.exactCount = exactCount
	var then func(commerce.Page[T])
	if onFirst != nil {
		then = func(p commerce.Page[T]) { onFirst(w, p) }
	}
	r.sched.submit(urgent, r.pageTask(w, 0, then))
	return w, nil
}

// onePage requests the first page of base, in the service's own order, for
// a window read by that page alone (an id span, idcut.go), and signals
// come, where set, once the page has come, whatever it holds. Traversal
// goroutine.
func (r *windowReader[T]) onePage(parent context.Context, base filter.Parsed, come chan struct{}) *pageWindow[T] {
	w := r.newWindow(parent, base, unsorted, nil, base.Text(), 1)
	w.come = come
	r.sched.submit(urgent, r.pageTask(w, 0, nil))
	return w
}

// newWindow builds a window of pages page requests. Either goroutine.
func (r *windowReader[T]) newWindow(parent context.Context, base filter.Parsed, key sortKey, bound filter.Expr, expr string, pages int) *pageWindow[T] {
	ctx, cancel := context.WithCancel(parent)
	w := &pageWindow[T]{ctx: ctx, cancel: cancel, base: base, key: key, bound: bound, expr: expr,
		pages: make([]chan pageResult[T], pages), next: make(chan continuation[T], 1)}
	for i := range w.pages {
		w.pages[i] = make(chan pageResult[T], 1)
	}
	r.windows.Add(1)
	return w
}

// pageTask is the request of w's page i, run by a scheduler worker; then,
// if set, sees the page before the traversal goroutine does. Page i > 0
// is requested once the window is sized, so w.stride is set.
func (r *windowReader[T]) pageTask(w *pageWindow[T], i int, then func(commerce.Page[T])) func() {
	return func() {
		if err := w.ctx.Err(); err != nil {
			w.pages[i] <- pageResult[T]{err: err}
			return
		}
		p, err := r.fetch(w.ctx, pageRequest{filter: w.expr, sort: w.key.param(), offset: w.offsetOf(i),
			exactCount: i == 0 && w.exactCount})
		if err == nil && then != nil {
			then(p)
		}
		if err == nil && i > 0 && len(p.Records) == r.pageSize {
			r.readOn(w, i)
		}
		w.pages[i] <- pageResult[T]{page: p, err: err}
		if i == 0 && w.come != nil {
			select {
			case w.come <- struct{}{}:
			default: // a signal waits already: the traversal looks at every window
			}
		}
	}
}

// fetch requests one page of req's filter, sort and offset, of req's
// limit or else a whole page, counted in Stats.Pages. Any goroutine.
func (r *windowReader[T]) fetch(ctx context.Context, req pageRequest) (commerce.Page[T], error) {
	r.pages.Add(1)
	if req.limit == 0 {
		req.limit = r.pageSize
	}
	req.includeJSON = r.includeJSON
	return fetchPage(ctx, r.e, r.kind, req, &r.notes)
}

// size works out a window once its first page has come: the stride its pages
// start at, and the pages requested at once, from the count. It sizes once
// per window: on a worker for prefetched windows, else on the traversal
// goroutine, which passes its quota.
func (r *windowReader[T]) size(w *pageWindow[T], p0 commerce.Page[T], want quota) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sized {
		return
	}
	w.sized = true
	w.limited = want.limited
	if len(p0.Records) > 0 {
		w.firstKey, _ = keyOf(w.key, p0.Records[0])
	}
	w.stride = r.stride(w, p0.Count)
	w.lastOffset = max(0, r.maxWindow()-r.pageSize)
	w.last = r.lastPage(w.stride)
	w.requested = 1
	if len(p0.Records) < r.pageSize {
		return // the window ends on its first page
	}
	// Pages for one record past the count, so that a count that is right
	// shows its end on a page already requested.
	needed := min(p0.Count.Hint()+1, r.maxWindow())
	if r.maxMatches > 0 {
		// No page past the ids the filter names is needed.
		needed = min(needed, r.maxMatches)
	}
	if want.limited {
		needed = min(needed, r.quotaRecords(w, want))
	}
	n := r.pagesFor(w.stride, needed)
	if !p0.Count.Steady() && !want.limited {
		// A count that does not promise to be exact says little of where
		// the window ends: read ahead from the start, as far again as the
		// count reaches (see extend).
		w.readAhead = true
		n += min(r.ahead, n)
	}
	n = min(n, w.last+1)
	if n == w.last+1 && p0.Count.Hint() > r.maxWindow() {
		// The window is full by its count: the next window's requests
		// must fit the service's filter limits before this one is read.
		if err := r.nextWindowFits(w, p0); err != nil {
			// Read no further than the first page: read then awaits the
			// continuation, which carries the error.
			w.last = 0
			w.next <- continuation[T]{err: err}
			return
		}
	}
	r.request(w, n, want)
}

// request requests w's pages up to n (exclusive), the last one first: its
// records decide where the next window starts. Either goroutine, under
// w.mu.
func (r *windowReader[T]) request(w *pageWindow[T], n int, want quota) {
	from := w.requested
	if n <= from {
		return
	}
	w.requested = n
	if n-1 == w.last {
		firstKey := w.firstKey
		r.sched.submit(urgent, r.pageTask(w, w.last, func(last commerce.Page[T]) {
			switch {
			case len(last.Records) < r.pageSize:
				// The window ends on it or before: nothing follows.
			case w.key == unsorted:
				// Nothing to go on from: the strategy cuts the window's
				// span finer (rangecut.go).
				w.next <- continuation[T]{}
			default:
				w.next <- r.continueAfter(w, firstKey, last, want)
			}
		}))
		n--
	}
	for i := from; i < n; i++ {
		r.sched.submit(bulk, r.pageTask(w, i, nil))
	}
}

// quotaRecords is how many of w's records a limited traversal may need:
// what is still missing, plus a page for the records of the previous
// window's last tie group that this one starts by repeating. Any
// goroutine: want is the traversal goroutine's, passed in.
func (r *windowReader[T]) quotaRecords(w *pageWindow[T], want quota) int {
	slack := 0
	if w.bound != nil {
		slack = r.pageSize
	}
	return max(1, want.left+slack)
}

// extend keeps pages requested past page i, which came back full: once
// the count proved low (page i was the last it promised), and all along
// where the count promised nothing. As many as have come back full, up to
// ahead: the pages in flight double each round trip until they fill the
// request slots, and a window that ends soon wastes no more requests than
// it has read. With a record limit, no further than the limit needs (a
// page more, for the ties at the cut), then a page at a time: the records
// may be enough already. Traversal goroutine.
func (r *windowReader[T]) extend(w *pageWindow[T], i int, want quota) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r.extendLocked(w, i, want)
}

// readOn extends w from its page i, which a worker has just fetched full,
// before the traversal reaches it, where w is wanted whole and already
// read ahead (its count promised nothing, or proved low): a page that
// stalls then holds up only itself. Whether to read ahead at all, and
// whether a window of named ids holds them all (windowCheck.holdsAll),
// the traversal decides, which alone has seen the pages before. Extended
// in order alone, a window read ahead stopped ahead pages past a page that
// had not come, and a store that stalled 3% of its answers past the
// request timeout held each of a read's stalls in turn (17,000 records,
// pages of 25: five minutes, nearly all of them waiting). No page is
// requested that extending in order would not request: each full page
// asks for the same pages past it. Worker.
func (r *windowReader[T]) readOn(w *pageWindow[T], i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.readAhead || w.limited || r.maxMatches > 0 || w.ctx.Err() != nil {
		return
	}
	r.extendLocked(w, i, unlimited)
}

// extendLocked is extend, under w.mu. Either goroutine.
func (r *windowReader[T]) extendLocked(w *pageWindow[T], i int, want quota) {
	if i+1 >= w.requested {
		w.readAhead = true
	}
	if !w.readAhead {
		return
	}
	target := i + 1 + min(r.ahead, i+1)
	if want.limited {
		target = min(target, max(i+2, r.pagesFor(w.stride, r.quotaRecords(w, want))+1))
	}
	r.request(w, min(w.last+1, target), want)
}

// nextWindowFits checks, for a window that does not hold the rest of a
// keyset listing, that the windows after it can carry their bound within
// the service's filter limits. Any record's key stands for the bounds to
// come: they all merge with the same terms of the base filter. Either
// goroutine, under w.mu.
func (r *windowReader[T]) nextWindowFits(w *pageWindow[T], p0 commerce.Page[T]) error {
	if w.key == unsorted || len(p0.Records) == 0 {
		return nil
	}
	k, err := keyOf(w.key, p0.Records[0])
	if err != nil {
		return nil //nolint:nilerr // the record's own problem, reported when it is read
	}
	_, err = r.windowFilter(w.base, w.key, w.key.from(k))
	return err
}

// stride is how far apart a window's pages start. They overlap by
// sharedRecords records, which both pages must hold in the same places
// (see windowCheck.page), so that no write between two page reads can
// move a record unseen into the gap between them. A count cannot tell: an
// insert and a delete between two page reads leave every count as it was
// while shifting the offsets of the records between them, and a lazy
// count may move on its own. (Windows whose pages did not overlap, where
// the count was steady, lost a record at a page boundary to such a pair;
// the overlap costs three requests per window of a hundred.)
//
// Where the filter names ids and the count is steady, pages do not
// overlap in an order no update can move a record back in: created_at
// and id, which no update changes, and -updated_at, where an update
// moves its record to the front, for the catch-up to find, and every
// record between one place on, which a later page repeats. No record
// created during the read can match, so every write that moves a record
// back moves the count too (a delete); and an in() split into parts of
// whole pages keeps them whole. In other orders (updated_at, name), an
// update that moves its record on moves every record between one place
// back, which can slide one into the gap between two pages unseen while
// the count stays as it was. The count must be the store's own: a first
// page that asked for an exact count (exactCount) says nothing of the
// pages after it, which do not ask, and whose lazy counts may not show a
// delete. Any goroutine.
func (r *windowReader[T]) stride(w *pageWindow[T], count commerce.Count) int {
	if r.maxMatches > 0 && count.Steady() && !w.exactCount && (w.key.fixed() || w.key.caughtUp()) {
		return r.pageSize
	}
	return r.overlapStride()
}

// overlapStride is the stride of overlapping pages: they share
// sharedRecords records, or all but one where pages are smaller. Any
// goroutine.
func (r *windowReader[T]) overlapStride() int { return max(1, r.pageSize-sharedRecords) }

// sharedRecords is how many records two overlapping pages share. Where
// two of them that follow each other have different sort values, their
// places prove that every record up to the first was in the page before
// and every record from the second on is in the page after, whatever
// was written between the two reads: the records on either side of a
// change of value stay on their side. A record shared alone, or shared
// records that all have one value, prove less where the service orders
// equal values anew on every request: a delete behind the boundary can
// move a tie partner into a shared place, so that the pages agree while
// a record that matched throughout is in neither. Those boundaries are
// checked against the whole tie group (completeTie). Three shared
// records make that rare: at the emulator's default store, where about
// one record in 25 shares its predecessor's time, three in a row do at
// about one boundary in 625, and the two records more per page cost 2%.
const sharedRecords = 3

// lastPage is the index of the page, at stride, that reaches the offset
// limit. Any goroutine.
func (r *windowReader[T]) lastPage(stride int) int { return r.pagesFor(stride, r.maxWindow()) - 1 }

// offsetOf is the offset of w's page i (pageOffset). Any goroutine, once
// w is sized.
func (w *pageWindow[T]) offsetOf(i int) int { return pageOffset(i, w.stride, w.lastOffset) }

// shape is w's shape as its checks see it (windowShape). Once w is sized.
func (r *windowReader[T]) shape(w *pageWindow[T]) windowShape {
	return windowShape{key: w.key, pageSize: r.pageSize, stride: w.stride, lastOffset: w.lastOffset,
		path: r.kind.Path, maxWindow: r.maxWindow}
}

// pagesFor is how many pages at stride reach a window's first n records
// (at least one page). Any goroutine.
func (r *windowReader[T]) pagesFor(stride, n int) int {
	if n <= r.pageSize {
		return 1
	}
	return 1 + (n-r.pageSize+stride-1)/stride
}

// continueAfter works out, from a full window's last page, where the
// traversal goes on; without a record limit it prefetches the next window
// right away. Any goroutine.
func (r *windowReader[T]) continueAfter(w *pageWindow[T], firstKey string, last commerce.Page[T], want quota) continuation[T] {
	cont := r.after(w, firstKey, last)
	if cont.err != nil || cont.tie || want.limited {
		// A limited listing's records may be enough already: let the
		// traversal decide.
		return cont
	}
	cont.next, cont.err = r.prefetch(w.ctx, w.base, w.key, cont.bound)
	return cont
}

// after is where the traversal goes on after last, a full page of w: from
// its last sort value, or past a tie group that fills the window. Any
// goroutine.
func (r *windowReader[T]) after(w *pageWindow[T], firstKey string, last commerce.Page[T]) continuation[T] {
	if w.key == unsorted {
		// Nothing to go on from: the strategy cuts the window's span
		// finer (rangecut.go).
		return continuation[T]{}
	}
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
	return continuation[T]{bound: w.key.from(lastKey)}
}

// endBefore ends w before its page i, whose offset the store refused
// although it is below the service's documented limit (refusal): the
// store's own limit is lower. Windows reach no further than page i-1,
// the last the store served, from now on, and the traversal goes on
// after it as after a full window. Traversal goroutine.
func (r *windowReader[T]) endBefore(ctx context.Context, w *pageWindow[T], i int, p0, prev commerce.Page[T], refusal error) continuation[T] {
	w.cancel()
	r.e.lowerWindowCap(ctx, r.kind.Path, w.offsetOf(i-1)+r.pageSize, refusal)
	firstKey := ""
	if len(p0.Records) > 0 {
		firstKey, _ = keyOf(w.key, p0.Records[0])
	}
	return r.after(w, firstKey, prev)
}

// firstPage awaits the window's first page, once. Traversal goroutine.
func (w *pageWindow[T]) firstPage(ctx context.Context) (pageResult[T], error) {
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

// firstPageIfCome is firstPage, without waiting: come reports whether the
// page has come. Traversal goroutine.
func (w *pageWindow[T]) firstPageIfCome() (r pageResult[T], come bool) {
	if w.p0 != nil {
		return *w.p0, true
	}
	select {
	case r = <-w.pages[0]:
		w.p0 = &r
		return r, true
	default:
		return r, false
	}
}

// progressed reports whether the window handed out a whole page that
// ends past the sort value it started at: a window that changed then goes
// on from lastKey, which a window opened there cannot repeat forever.
// Traversal goroutine.
func (w *pageWindow[T]) progressed() bool {
	if w.lastKey == "" || w.p0 == nil || len(w.p0.page.Records) == 0 {
		return false
	}
	first, err := keyOf(w.key, w.p0.page.Records[0])
	return err == nil && first != w.lastKey
}

// read hands a window's records to deliver in order, sizing its pages
// for want. It reports done when the window ended (a short page: the
// traversal has every record from its bound on) or deliver had enough, or
// the continuation after a full window. Traversal goroutine.
func (r *windowReader[T]) read(ctx context.Context, w *pageWindow[T], want quota, deliver func(T) (bool, error)) (bool, continuation[T], error) {
	var none continuation[T]
	r0, err := w.firstPage(ctx)
	if err != nil {
		return false, none, err
	}
	r.size(w, r0.page, want)
	check := newWindowCheck[T](r.shape(w), r0.page.Count)
	var prev commerce.Page[T]
	for i := 0; ; i++ {
		rp := r0
		if i > 0 {
			if rp, err = await(ctx, w.pages[i]); err != nil {
				if offsetRefused(err) {
					return false, r.endBefore(ctx, w, i, r0.page, prev, err), nil
				}
				return false, none, err
			}
		}
		records, err := check.page(i, rp.page)
		if err != nil {
			return false, none, err
		}
		if done, err := r.hand(ctx, w, check, rp.page, records, deliver); done || err != nil {
			return done, none, err
		}
		prev = rp.page
		if len(rp.page.Records) < r.pageSize {
			// The window ends here: what is requested past it is not needed.
			w.cancel()
			err := check.end(rp.page)
			w.ended = err == nil
			return true, none, err
		}
		if check.holdsAll(r.maxMatches) {
			w.cancel()
			return true, none, nil
		}
		if i == w.last {
			break
		}
		r.extend(w, i, want)
	}
	cont, err := await(ctx, w.next)
	if err == nil {
		err = cont.err
	}
	return false, cont, err
}

// hand checks the records of page, one of w's, and hands them to
// deliver, after the records of a tie group across the boundary before
// it that neither page holds; done when deliver had enough. Traversal
// goroutine.
func (r *windowReader[T]) hand(ctx context.Context, w *pageWindow[T], check *windowCheck[T], page commerce.Page[T], records []T, deliver func(T) (bool, error)) (bool, error) {
	if v, ok := check.tieAtBoundary(page); ok {
		if done, err := r.completeTie(ctx, w, check, v, page, deliver); done || err != nil {
			return done, err
		}
	}
	for j, rec := range records {
		if err := check.record(rec); err != nil {
			return false, err
		}
		done, err := deliver(rec)
		if err != nil {
			return false, err
		}
		if done {
			w.cancel()
			short := len(page.Records) < r.pageSize
			w.ended = short && j == len(records)-1 && check.end(page) == nil
			return true, nil
		}
	}
	if n := len(records); n > 0 && w.key.checked() {
		w.lastKey, _ = keyOf(w.key, records[n-1])
	}
	return false, nil
}

// completeTie hands out the records of w's tie group of sort value v,
// across the boundary before page, that neither the pages before nor
// page hold: where the service orders a tie group anew on every request,
// a delete between two page reads can leave one out of both while the
// records they share, all of value v, agree (see sharedRecords). Only
// v's group can lose a record so, and one request bounded to v, answered
// at one instant, holds every record of a group smaller than a page. A
// larger one has no such request: its pages' word stands, and a write
// there is caught unless two orders drawn anew put the shared records in
// the same places. The request is paid only at a boundary inside a tie
// group, where the filter has room for v's bounds and the service takes
// them. Traversal goroutine.
func (r *windowReader[T]) completeTie(ctx context.Context, w *pageWindow[T], check *windowCheck[T], v string, page commerce.Page[T], deliver func(T) (bool, error)) (bool, error) {
	if check.tieRun+leadingRun(w.key, page.Records, v)-check.shared >= r.pageSize {
		return false, nil // the pages show a group no request holds whole
	}
	group, whole, err := r.tieGroup(ctx, w, v)
	if err != nil || !whole {
		return false, err
	}
	onPage := make(map[string]bool, len(page.Records))
	for _, rec := range page.Records {
		onPage[rec.RecordID()] = true
	}
	for _, rec := range group.Records {
		id := rec.RecordID()
		if _, held := check.inWindow[id]; held || onPage[id] {
			continue
		}
		check.inWindow[id] = struct{}{}
		done, err := deliver(rec)
		if err != nil || done {
			if done {
				w.cancel()
			}
			return done, err
		}
	}
	return false, nil
}

// tieGroup reads the records of w's filter whose sort value is v in one
// request; whole is false where that request cannot hold them all (a
// page's worth came back), the filter has no room for v's bounds, or the
// service refuses them: the pages' word then stands. Traversal goroutine.
func (r *windowReader[T]) tieGroup(ctx context.Context, w *pageWindow[T], v string) (group commerce.Page[T], whole bool, err error) {
	_, expr, roomErr := r.narrowed(w.base, w.key.equal(v), w.key.param(),
		fmt.Sprintf("records that share %s %s across a page boundary are read whole, bounded by that value", w.key.attr, v))
	if roomErr != nil {
		return group, false, nil //nolint:nilerr // no room for the value's bounds: the pages' word stands
	}
	group, err = r.fetch(ctx, pageRequest{filter: expr, sort: w.key.param()})
	if badRequest(err) {
		return group, false, nil
	}
	return group, err == nil && len(group.Records) < r.pageSize, err
}

// leadingRun counts the records at the start of recs whose value of key
// is v.
func leadingRun[T commerce.Record](key sortKey, recs []T, v string) int {
	n := 0
	for _, rec := range recs {
		if k, err := keyOf(key, rec); err != nil || k != v {
			break
		}
		n++
	}
	return n
}

// contractError is a ProtocolError of a list request of the endpoint with
// query ("?filter=...", "?sort=..." or empty). Any goroutine.
func (r *windowReader[T]) contractError(query, format string, args ...any) error {
	return commerce.ContractBroken(r.kind.Path+query, format, args...)
}
