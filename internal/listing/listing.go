package listing

// One listing as its strategies share it: what it was asked (listQuery),
// where its records go (emitters), what it reads with and reports
// (listRun), and one strategy's pass over it (walk), with the steps every
// strategy takes: opening the query's first window, and wording a refused
// keyset request.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/idset"
)

// walk is one strategy's pass over a listing: the listing it serves and
// the sink its records go to. Traversal goroutine.
type walk[T commerce.Record] struct {
	*listRun[T]
	out *recordSink[T]
}

// walk starts a pass whose records go to out, which notes the key of the
// first one it takes in key order (for the catch-up).
func (l *listRun[T]) walk(out *recordSink[T], key sortKey) *walk[T] {
	out.key = key
	return &walk[T]{listRun: l, out: out}
}

// offsetLimitErrorFor turns a failed keyset request into an
// OffsetLimitError: the service refused the only way past its offset limit.
// Other errors pass unchanged. Traversal goroutine.
func (w *walk[T]) offsetLimitErrorFor(err error, win *pageWindow[T]) error {
	keyset := win.bound != nil || win.base.Text() != w.q.filter.Text()
	if keyset && badRequest(err) {
		return &OffsetLimitError{Endpoint: w.kind.Name, OffsetLimit: commerce.OffsetLimit, Count: w.stats.Count, Listed: w.out.listed + len(w.out.ties), Err: err}
	}
	return err
}

// openQuery opens the first window of the query's own filter and awaits
// its first page, whose count is the query's: exact where a reader reports
// the matches past MaxResults and the service honours the ask.
// Traversal goroutine.
func (w *walk[T]) openQuery(ctx context.Context, key sortKey) (*pageWindow[T], commerce.Page[T], error) {
	win, err := w.start(ctx, w.q.filter, key, nil, w.q.exactCount, nil)
	if err != nil {
		return nil, commerce.Page[T]{}, err
	}
	r0, err := win.firstPage(ctx)
	if err != nil {
		return nil, commerce.Page[T]{}, w.offsetLimitErrorFor(err, win)
	}
	w.stats.Count = r0.page.Count
	return win, r0.page, nil
}

// listQuery is one listing of one filter, as the engine runs it: a read's
// plan (plan.go) makes it, with what every reader of the listing keeps.
type listQuery struct {
	filter      filter.Parsed
	key         sortKey
	maxResults  int  // stop after this many records; 0 means all
	includeJSON bool // keep each record's raw JSON
	// createdBefore, if set, leaves out records created at or after it:
	// the service is eventually consistent, and the newest records may
	// not all be visible yet. Sent as lt(created_at,...) where the
	// endpoint filters on created_at, applied here otherwise.
	createdBefore time.Time
	// progress logs every progressInterval records; off for the listings
	// a read makes on the way (parts, a refresh's changes).
	progress bool
	// exactCount asks the service for an exact count of the query's
	// matches on the first request, for a reader cut at its MaxResults
	// that reports the matches (Query.CountMatches).
	exactCount bool
}

// emitters are where a listing's records go: emit in the query's order,
// and late, for sort -updated_at, the records that were updated while the
// listing ran and so moved ahead of the records already listed (they sort
// before everything emit received, newest first). Without late they go to
// emit as they are found.
type emitters[T commerce.Record] struct {
	emit, late func(T) error
}

// How a listing reaches every record, as stats.Strategy reports it.
const (
	// strategyKeyset: the service sorts, and keyset windows bound by the
	// sort attribute reach past the offset limit.
	strategyKeyset = "keyset"
	// strategyKeysetSortedHere: keyset windows on an order the service
	// gives, then the provider sorts the complete list in the order asked.
	strategyKeysetSortedHere = "keyset, sorted by the provider"
	// strategyWindowsSortedHere: the service cannot sort; offset pages in
	// its own order, in windows of the range attribute above the offset
	// limit, then the provider sorts the complete list.
	strategyWindowsSortedHere = "range windows, sorted by the provider"
)

// listRun is one list call: what it reads with (the windowReader), what
// it was asked, and what it reports. Traversal goroutine.
type listRun[T commerce.Record] struct {
	*windowReader[T]
	q  listQuery
	to emitters[T]
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at.
	createdBefore string
	stats         Stats
}

// recordSink is where a strategy's records go: the caller's emit, with the
// listing's limit and progress, each record once.
func (l *listRun[T]) recordSink(ctx context.Context) *recordSink[T] {
	return &recordSink[T]{emit: l.to.emit, limit: l.q.maxResults, createdBefore: l.createdBefore, endpoint: l.kind.Endpoint,
		sizeHint: func() int { return l.stats.Count.Hint() }, progress: l.progressLogger(ctx)}
}

// progressLogger logs every progressInterval records, if the query asks.
func (l *listRun[T]) progressLogger(ctx context.Context) func(listed int) {
	if !l.q.progress {
		return nil
	}
	next := progressInterval
	return func(listed int) {
		if listed >= next {
			l.e.logProgress(ctx, l.kind.Name, listed, l.stats.Count)
			next += progressInterval
		}
	}
}

// finish completes the listing's stats from the sink the records went to
// and how it ended, and warns of the values of an unexpected type its
// pages held. Traversal goroutine.
func (l *listRun[T]) finish(ctx context.Context, out *recordSink[T], err error) Stats {
	switch {
	case err != nil:
		// The listing did not reach its end.
		l.stats.Total, l.stats.TotalKnown = out.listed, false
	case l.stats.TotalKnown: // a strategy that listed every match before cutting (sortHere)
	case !out.full(), out.sawEnd:
		// Every match went to the sink: their number is the total,
		// whatever the count said.
		l.stats.Total, l.stats.TotalKnown = out.listed, true
	case l.stats.Count.Exact() && !l.stats.CutHere:
		l.stats.Total, l.stats.TotalKnown = l.stats.Count.N, true
	default:
		l.stats.Total = out.listed
	}
	l.stats.Listed = out.listed
	l.stats.Pages = int(l.pages.Load())
	l.stats.Windows = int(l.windows.Load())
	l.e.warnDecoded(ctx, l.kind.Name, &l.notes)
	return l.stats
}

// idBound is how many records filter can match at most, where it names
// ids: the values of its in(id,...) or eq(id,...) (ids are unique); 0 for
// any other filter.
func idBound(expr filter.Parsed) int {
	bound := 0
	for _, t := range expr.Terms {
		if t.Attribute == "id" && (t.Op == filter.In || t.Op == filter.Eq) {
			if n := len(slices.Compact(slices.Sorted(slices.Values(t.Values)))); bound == 0 || n < bound {
				bound = n
			}
		}
	}
	return bound
}

// createdBeforeFilter applies q.createdBefore within room: as
// lt(created_at,...) merged into the filter where the endpoint filters on
// created_at and the filter has room, else as a normalised timestamp the
// sink drops records by.
func (q listQuery) createdBeforeFilter(r filterRoom) (filter.Parsed, string) {
	if q.createdBefore.IsZero() {
		return q.filter, ""
	}
	cut := filter.FormatTimestamp(q.createdBefore)
	if f, ok := r.endpoint.Filters["created_at"]; ok && f.Allows(filter.Lt) {
		if narrowed, _, err := r.narrowed(q.filter, filter.Expr{filter.NewTerm(filter.Lt, "created_at", cut)}, q.key.param(), ""); err == nil {
			return narrowed, ""
		}
	}
	return q.filter, cut
}

// Where one strategy's records go, each once, in an order the same on
// every read of the same store.

// recordSink is where one strategy's records go, each once: the caller's emit
// (or the catch-up's Late, or a provider-side sort's collection), up to a
// limit, with the records it already took. A strategy gets a fresh sink,
// so a strategy that gives up leaves nothing behind for the next.
// Traversal goroutine.
type recordSink[T commerce.Record] struct {
	emit  func(T) error
	limit int // stop after this many records; 0: all
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at; dropped
	// counts them.
	createdBefore string
	dropped       int
	endpoint      commerce.Endpoint

	seen   *idset.Set // ids taken, shared with a catch-up's sink
	listed int        // records handed to emit
	// firstKey is the sort key (by key) of the first record taken, for
	// the catch-up; empty until one is.
	key      sortKey
	firstKey string

	sizeHint func() int       // results.total, to size seen once
	progress func(listed int) // nil: no progress reports

	// byID: the records come in key order from the service, and those that
	// share a sort value wait in ties until a record with another value
	// comes (or the pass ends, flush), then go to emit by id. The service
	// documents no order among ties, and a store may give them in another
	// order on every request: the provider's order is the same on every
	// read of the same store.
	byID   bool
	tieKey string
	ties   []T
	// passed counts the records that came after the sink had moved past
	// their sort value (byID only): created or moved by an update while
	// the listing ran, behind the position already read. Placed at the
	// end they would be out of order, and a re-read after a window
	// changed would put them there; they are left out, as a record
	// created after the listing passed its place always is. Every record
	// that was there all along came before, in its place: windows start
	// at the last sort value of the one before, and pages of a window
	// overlap (see stride) or the window is read again.
	passed int
	// sawEnd is set where the listing handed out its last match as the
	// MaxResults-th record and saw that nothing follows: listed is then
	// the number of matches, full or not.
	sawEnd bool
}

// accept hands rec to emit unless it was taken already. done is true once
// the limit is reached.
func (s *recordSink[T]) accept(rec T) (done bool, err error) {
	id := rec.RecordID()
	if s.seen == nil {
		// Sized once from results.total: growing a set of 100,000 ids
		// step by step allocates it several times over.
		hint := 0
		if s.sizeHint != nil {
			hint = s.sizeHint()
		}
		if s.limit > 0 {
			hint = min(hint, s.limit)
		}
		s.seen = idset.New(min(hint, 1<<21))
	}
	var k string
	if s.byID {
		var err error
		if k, err = keyOf(s.key, rec); err != nil {
			return false, err
		}
		if s.tieKey != "" && s.key.checked() && s.key.before(k, s.tieKey) {
			// Not taken, so not seen: a catch-up may still find it.
			s.passed++
			return false, nil
		}
	}
	if !s.seen.Add(id) {
		return false, nil // repeated at a window boundary, or moved by an update
	}
	if s.createdBefore != "" {
		if created, err := keyOf(keyFor(s.endpoint, "created_at"), rec); err == nil && created >= s.createdBefore {
			s.dropped++
			return false, nil
		}
	}
	if s.firstKey == "" && s.key.attr != "" {
		s.firstKey, _ = keyOf(s.key, rec)
	}
	if !s.byID {
		return s.take(rec)
	}
	if k != s.tieKey {
		if done, err := s.flush(); done || err != nil {
			return done, err
		}
		s.tieKey = k
	}
	s.ties = append(s.ties, rec)
	return false, nil
}

// flush hands the waiting ties to emit by id, up to the limit. done is
// true once the limit is reached.
func (s *recordSink[T]) flush() (done bool, err error) {
	slices.SortFunc(s.ties, func(a, b T) int { return strings.Compare(a.RecordID(), b.RecordID()) })
	for i, rec := range s.ties {
		if done, err = s.take(rec); done || err != nil {
			clear(s.ties[i:])
			break
		}
	}
	s.ties = s.ties[:0]
	return done, err
}

// take hands rec to emit and counts it.
func (s *recordSink[T]) take(rec T) (done bool, err error) {
	if err := s.emit(rec); err != nil {
		return false, err
	}
	s.listed++
	if s.progress != nil {
		s.progress(s.listed)
	}
	return s.full(), nil
}

// full reports whether the limit is reached.
func (s *recordSink[T]) full() bool { return s.limit > 0 && s.listed >= s.limit }

// quota is what the sink still wants, for planning a window.
func (s *recordSink[T]) quota() quota {
	if s.limit <= 0 {
		return unlimited
	}
	return quota{limited: true, left: s.limit - s.listed}
}

// Keyset windows, for orders the service gives: windows read by offsets,
// each starting from the sort value of the last record of the one before;
// and the tie groups no bound on the sort attribute can split, listed on
// their own, by id, before the traversal goes on strictly after them.

// traverseQuery lists the query's own filter in the sink's key order. Its
// first page's count is the query's (Stats.Count), and shows whether the service really sorts:
// one that ignores sort= gives that page out of order, before anything is
// handed out, so the listing can still switch strategy. Traversal
// goroutine.
func (w *walk[T]) traverseQuery(ctx context.Context) error {
	key := w.out.key
	win, p0, err := w.openQuery(ctx, key)
	if err != nil {
		return err
	}
	if bad := disorder(key, p0.Records); bad != "" {
		return &sortUnusableError{cause: "it ignored sort=" + key.param() + ": " + bad}
	}
	return w.traverseFrom(ctx, win, true)
}

// traverse lists base in key order: a tie group by id, or a catch-up pass.
// Traversal goroutine.
func (w *walk[T]) traverse(ctx context.Context, base filter.Parsed, key sortKey) error {
	win, err := w.open(ctx, base, key, nil)
	if err != nil {
		return err
	}
	return w.traverseFrom(ctx, win, false)
}

// traverseFrom reads window after window from w on, each from where the
// one before ended, until the listing is complete. whole says the
// traversal is the query's own, whose last window's end is the listing's
// (recordSink.sawEnd). Traversal goroutine.
func (w *walk[T]) traverseFrom(ctx context.Context, win *pageWindow[T], whole bool) error {
	base, key := win.base, win.key
	for {
		done, cont, err := w.read(ctx, win, w.out.quota(), w.out.accept)
		var next filter.Expr
		switch {
		case errors.Is(err, errWindowChanged):
			// Offsets are unreliable while the data changes: read on with
			// keyset pages, which depend on no offset, then go back to
			// parallel offset pages. From the window's last whole page
			// handed out, where there is one: the records up to it are
			// complete, its pages having shared their records.
			win.cancel()
			from := win.bound
			if win.progressed() {
				from = key.from(win.lastKey)
			}
			var ended bool
			if next, done, ended, err = w.rereadByKeyset(ctx, base, key, from); err != nil {
				return w.offsetLimitErrorFor(err, win)
			}
			w.out.sawEnd = w.out.sawEnd || (whole && ended)
		case err != nil:
			return w.offsetLimitErrorFor(err, win)
		case done:
			// The listing is complete, or has MaxResults records.
			w.out.sawEnd = w.out.sawEnd || (whole && win.ended)
		case cont.tie:
			// A tie group larger than a window: list it on its own, then
			// go on strictly after it.
			next, done, err = w.afterTieGroup(ctx, base, key, cont.tieKey, win.expr, fmt.Sprintf("window of %d records", w.windowCap))
			if err != nil {
				return err
			}
		case cont.next != nil:
			win = cont.next // prefetched
			continue
		default:
			next = cont.bound
		}
		if done {
			return nil
		}
		if win, err = w.open(ctx, base, key, next); err != nil {
			return err
		}
	}
}

// rereadByKeyset lists up to a window's worth of records from bound on with
// keyset pages, one after another: each page starts from the last sort
// value seen, so inserts and deletes cannot make it skip a record. It
// returns the bound to go on from, or done when the listing is complete
// or has MaxResults records: a keyset page is one answer from offset 0,
// so a short one holds every record its filter matches, whatever the
// count says. ended says the pass handed out its last record and saw
// nothing follows. Traversal goroutine.
func (w *walk[T]) rereadByKeyset(ctx context.Context, base filter.Parsed, key sortKey, bound filter.Expr) (next filter.Expr, done, ended bool, err error) {
	pass := w.newKeysetPass(key)
	for covered := 0; covered < w.windowCap; {
		expr, err := w.windowFilter(base, key, bound)
		if err != nil {
			return nil, false, false, err
		}
		p, err := w.fetch(ctx, pageRequest{filter: expr, sort: key.param()})
		if err != nil {
			return nil, false, false, err
		}
		if bad := disorder(key, p.Records); bad != "" {
			return nil, false, false, w.contractError("?sort="+key.param(), "records are out of %s order: %s", key.param(), bad)
		}
		covered += len(p.Records)
		if done, ended, err := w.acceptKeysetPage(pass, p.Records, expr); done || ended || err != nil {
			return nil, done, ended, err
		}
		firstKey, err := keyOf(key, p.Records[0])
		if err != nil {
			return nil, false, false, err
		}
		lastKey, err := keyOf(key, p.Records[len(p.Records)-1])
		if err != nil {
			return nil, false, false, err
		}
		if firstKey != lastKey {
			bound, pass.boundKey = key.from(lastKey), lastKey
			continue
		}
		// A tie group fills the page: list it on its own, then go on
		// strictly after it.
		after, done, err := w.afterTieGroup(ctx, base, key, lastKey, expr, "page of records")
		if done || err != nil {
			return nil, done, false, err
		}
		bound, pass.boundKey = after, ""
	}
	return bound, false, false, nil
}

// keysetPass is what a keyset pass remembers to tell a repeated record
// from one the service gave twice. Each page starts with the last sort
// value of the page before (boundKey), so the records of that value come
// again; any other id that comes twice in the pass (inPass), in an order
// no update changes, is the service's error, which the sink's
// deduplication would hide (and lose a record with). And a record already
// handed out never comes again past the last sort value handed out when
// the pass began (handedTo), where the pass goes by the sink's own order
// (a tie group's pass goes by id).
type keysetPass struct {
	key                sortKey
	inPass             map[string]struct{}
	boundKey, handedTo string
}

func (w *walk[T]) newKeysetPass(key sortKey) *keysetPass {
	pass := &keysetPass{key: key, inPass: map[string]struct{}{}}
	if key == w.out.key {
		pass.handedTo = w.out.tieKey
	}
	return pass
}

// acceptKeysetPage hands a keyset page's records to the sink. done: the
// sink has enough, or the page was short, which ends the pass; ended: the
// pass handed out its last record and saw nothing follows. Traversal
// goroutine.
func (w *walk[T]) acceptKeysetPage(pass *keysetPass, recs []T, sent string) (done, ended bool, err error) {
	short := len(recs) < w.pageSize
	for j, rec := range recs {
		if err := w.onceInPass(pass.inPass, pass.key, pass.boundKey, pass.handedTo, rec, sent); err != nil {
			return false, false, err
		}
		if done, err := w.out.accept(rec); done || err != nil {
			return done, done && short && j == len(recs)-1, err
		}
	}
	return short, short, nil
}

// onceInPass checks, where the sort value cannot change (an update moves
// a record by updated_at, where a pass meets it again), that rec's id is
// new to a keyset pass unless rec has the sort value the page started
// from (boundKey), whose records the page repeats; and that a record the
// sink already took does not come again past the last sort value it had
// taken when the pass began (handedTo). Traversal goroutine.
func (w *walk[T]) onceInPass(inPass map[string]struct{}, key sortKey, boundKey, handedTo string, rec T, sent string) error {
	if !key.fixed() {
		return nil
	}
	id := rec.RecordID()
	_, again := inPass[id]
	inPass[id] = struct{}{}
	k, err := keyOf(key, rec)
	if err != nil {
		return nil //nolint:nilerr // the record's own problem, reported when it is read
	}
	// (Taken before the pass began: the pass's own records are in inPass.)
	taken := !again && w.out.seen != nil && handedTo != "" && key.before(handedTo, k) && w.out.seen.Has(id)
	if again && k != boundKey || taken {
		return w.contractError("?filter="+sent, "two records have the same id %q (one of them at %s %s)", id, key.attr, k)
	}
	return nil
}

// disorder describes the first pair of records out of k's order, or "" when
// they are in order or k is an order the client cannot check.
func disorder[T commerce.Record](k sortKey, recs []T) string {
	if !k.checked() {
		return ""
	}
	prev := ""
	for _, rec := range recs {
		v, err := keyOf(k, rec)
		if err != nil {
			return "" // reported as the record's problem when it is read
		}
		if prev != "" && k.before(v, prev) {
			return fmt.Sprintf("%s %s came after %s", k.attr, v, prev)
		}
		prev = v
	}
	return ""
}

// afterTieGroup is the step past a tie group that fills a whole unit (a
// window, or a keyset page) requested with the filter sent, so that no
// bound on key tells its records apart: it lists the group on its own and
// returns the bound strictly after it, or done once MaxResults records are
// listed. Ids are unique, so ids that tie break the contract.
// Traversal goroutine.
func (w *walk[T]) afterTieGroup(ctx context.Context, base filter.Parsed, key sortKey, tieKey, sent, unit string) (filter.Expr, bool, error) {
	if key.attr == idKey.attr {
		return nil, false, w.contractError("?filter="+sent, "a whole %s has the same id %q", unit, tieKey)
	}
	if err := w.listTieGroup(ctx, base, key, tieKey, unit); err != nil {
		return nil, false, err
	}
	if w.out.full() {
		return nil, true, nil
	}
	return key.after(tieKey), false, nil
}

// listTieGroup lists the records of base whose sort value is tieKey, more
// than unit (a window or a page) holds, so that no bound on key tells them
// apart: by id where the service sorts and bounds ids; else read whole and
// sorted here by id, in spans of ids where the service bounds them (which
// holds whatever order it gives ties in), else in windows of the range
// attribute, else by offset pages, which reach the offset limit. Traversal
// goroutine.
func (w *walk[T]) listTieGroup(ctx context.Context, base filter.Parsed, key sortKey, tieKey, unit string) error {
	tie, _, err := w.narrowed(base, key.equal(tieKey), key.param(),
		fmt.Sprintf("a whole %s shares %s %s, so the provider lists those records on their own, bounded by that value", unit, key.attr, tieKey))
	if err != nil {
		return err
	}
	if sorted, err := w.listTieGroupByID(ctx, tie); sorted || err != nil {
		return err
	}
	// The group is read whole, whatever the limit: which of its records
	// come first is known only once they are sorted by id.
	var group []T
	collect := func(rec T) (bool, error) {
		group = append(group, rec)
		return false, nil
	}
	if w.idsRanged() {
		err = w.listByIDSpans(ctx, tie, collect)
	} else {
		err = w.listUnsorted(ctx, tie, collect)
	}
	if err != nil {
		return err
	}
	if err := sortRecords(group, idKey); err != nil {
		return err
	}
	for _, rec := range group {
		if done, err := w.out.accept(rec); done || err != nil {
			return err
		}
	}
	return nil
}

// listTieGroupByID lists tie by id where the service sorts and bounds ids,
// as far as it knows. One that ignores sort=id shows it on the group's
// first page, before anything is handed out; one that refuses it answers
// that page with an error: the endpoint is marked, and sorted is false, for
// the caller to read the group another way. Traversal goroutine.
func (w *walk[T]) listTieGroupByID(ctx context.Context, tie filter.Parsed) (sorted bool, err error) {
	r := w.kind.Endpoint
	if !r.KeysetCapable(idKey.attr) || w.e.sortUnusable(r.Path) {
		return false, nil
	}
	win, err := w.open(ctx, tie, idKey, nil)
	if err != nil {
		return false, err
	}
	r0, err := win.firstPage(ctx)
	cause, refused := sortRefusal(err)
	switch {
	case refused:
	case err != nil:
		return false, w.offsetLimitErrorFor(err, win)
	default:
		if cause = disorder(idKey, r0.page.Records); cause == "" {
			return true, w.traverseFrom(ctx, win, false)
		}
		cause = "it ignored sort=" + idKey.param() + ": " + cause
	}
	win.cancel()
	w.e.markSortUnusable(ctx, r.Path, idKey.param(), cause)
	return false, nil
}

// idsRanged reports whether the endpoint filters ids by range.
func (w *walk[T]) idsRanged() bool {
	f, ok := w.kind.Filters[idKey.attr]
	return ok && f.Ranged()
}
