package listing

// One run of a listing as its strategies share it: where its records go
// (emitters), what it reads with, was asked and reports (listRun), and one
// strategy's pass over it (walk), with the steps every strategy takes:
// opening the query's first window, and wording a refused keyset request.

import (
	"context"
	"slices"
	"strings"

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
	keyset := win.bound != nil || win.base.Text() != w.filter.Text()
	if keyset && badRequest(err) {
		return &OffsetLimitError{Endpoint: w.kind.Name, OffsetLimit: w.offsetLimit(), Count: w.stats.Count, Listed: w.out.listed + len(w.out.ties), Err: err}
	}
	return err
}

// openQuery opens the first window of the query's own filter and awaits
// its first page, whose count is the query's: exact where a reader reports
// the matches past MaxResults and the service honours the ask.
// Traversal goroutine.
func (w *walk[T]) openQuery(ctx context.Context, key sortKey) (*pageWindow[T], commerce.Page[T], error) {
	win, err := w.start(ctx, w.filter, key, nil, w.need.ExactCount, nil)
	if err != nil {
		return nil, commerce.Page[T]{}, err
	}
	r0, err := win.firstPage(ctx)
	if err != nil {
		return nil, commerce.Page[T]{}, w.offsetLimitErrorFor(err, win)
	}
	w.stats.Count = r0.page.Count
	w.expect(w.expectedPages(r0.page.Count))
	if w.to.counted != nil {
		w.to.counted(r0.page.Count)
	}
	return win, r0.page, nil
}

// expect tells the engine's Getter how many pages the listing expects,
// counting each once: a listing that opens its query again (by range,
// after the endpoint turned out not to sort) hints only pages it did not
// expect before, or the transport would risk twice its share of them
// (requestExpecter). Traversal goroutine.
func (l *listRun[T]) expect(pages int) {
	if more := pages - l.expectedSoFar; more > 0 {
		l.e.expect(more)
		l.expectedSoFar = pages
	}
}

// expectedPages is how many pages the listing expects to read, by a count
// that is at most the truth (an estimate may say more: 0 then), and at
// most MaxResults records. Traversal goroutine.
func (w *walk[T]) expectedPages(count commerce.Count) int {
	if !count.AtMostTruth() {
		return 0
	}
	n := count.Hint()
	if w.need.MaxResults > 0 {
		n = min(n, w.need.MaxResults)
	}
	return (n + w.e.pageSize - 1) / w.e.pageSize
}

// emitters are where a listing's records go: emit in the query's order,
// and late, for sort -updated_at, the records that were updated while the
// listing ran and so moved ahead of the records already listed (they sort
// before everything emit received, newest first). Without late they go to
// emit as they are found.
type emitters[T commerce.Record] struct {
	emit, late func(T) error
	counted    func(commerce.Count) // Reader.Counted
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

// listRun is one run of a listing: what it reads with (the windowReader),
// the listing and what its readers need of it, and what it reports.
// Traversal goroutine.
type listRun[T commerce.Record] struct {
	*windowReader[T]
	listing *Listing[T]
	// need is what the listing's readers need of it together: how many
	// records, with JSON or not, an exact count or not, and the
	// consistency point (CreatedBefore).
	need Need
	// filter is the listing's, with the consistency point merged in as
	// lt(created_at,...) where the endpoint filters on created_at
	// (createdBeforeFilter).
	filter filter.Parsed
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at.
	createdBefore string
	to            emitters[T]
	stats         Stats
	// expectedSoFar is how many pages the listing has told the Getter it
	// expects (expect).
	expectedSoFar int
}

// recordSink is where a strategy's records go: the caller's emit, with the
// listing's limit and progress, each record once.
func (l *listRun[T]) recordSink(ctx context.Context) *recordSink[T] {
	return &recordSink[T]{emit: l.to.emit, limit: l.need.MaxResults, createdBefore: l.createdBefore, endpoint: l.kind.Endpoint,
		sizeHint: func() int { return l.stats.Count.Hint() }, progress: l.progressLogger(ctx)}
}

// progressLogger logs every progressInterval records, unless the listing
// is quiet (one a read makes on the way: derive).
func (l *listRun[T]) progressLogger(ctx context.Context) func(listed int) {
	if l.listing.quiet {
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
	case !out.full(), out.sawEnd && !out.leftOver:
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

// createdBeforeFilter applies need.CreatedBefore to the listing's filter:
// as lt(created_at,...) merged into it where the endpoint filters on
// created_at and the filter has room, else as a normalised timestamp the
// sink drops records by.
func (l *Listing[T]) createdBeforeFilter(need Need) (filter.Parsed, string) {
	if need.CreatedBefore.IsZero() {
		return l.filter, ""
	}
	cut := filter.FormatTimestamp(need.CreatedBefore)
	room := l.e.room(l.kind.Endpoint)
	if room.endpoint.FiltersWith("created_at", filter.Lt) {
		if narrowed, _, err := room.narrowed(l.filter, filter.Expr{filter.NewTerm(filter.Lt, "created_at", cut)}, l.key.param(), ""); err == nil {
			return narrowed, ""
		}
	}
	return l.filter, cut
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
	// leftOver is set where the sink filled up with records still in
	// hand: a tie group cut at the limit, or the record whose new sort
	// value flushed it (byID only). The listing then saw more matches
	// than MaxResults, whether or not its window ended on the record it
	// filled up with.
	leftOver bool
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
			s.leftOver = s.leftOver || done
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
			s.leftOver = s.leftOver || done && i < len(s.ties)-1
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

// idsRanged reports whether the endpoint filters ids by range.
func (w *walk[T]) idsRanged() bool {
	f, ok := w.kind.Filters[idKey.attr]
	return ok && f.Ranged()
}

// windowFill is the share of the offset limit a cut aims at, leaving room
// for a sample that misjudges the spread.
const windowFill = 0.7

// deliverAll hands recs to deliver until it has enough.
func deliverAll[T commerce.Record](recs []T, deliver func(T) (bool, error)) error {
	for _, rec := range recs {
		if done, err := deliver(rec); done || err != nil {
			return err
		}
	}
	return nil
}
