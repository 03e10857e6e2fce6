package listing

// One listing as its strategies share it: what it was asked (listQuery),
// where its records go (emitters), what it reads with and reports
// (listRun), and one strategy's pass over it (walk), with the steps every
// strategy takes: opening the query's first window, and wording a refused
// keyset request.

import (
	"context"
	"slices"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
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

// listing is one list call: what it reads with (the windowReader), what
// it was asked, and what it reports. Traversal goroutine.
type listRun[T commerce.Record] struct {
	*windowReader[T]
	q  listQuery
	to emitters[T]
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at.
	createdBefore string
	stats         listStats
}

// sink is where a strategy's records go: the caller's emit, with the
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
func (l *listRun[T]) finish(ctx context.Context, out *recordSink[T], err error) listStats {
	switch {
	case err != nil:
		// The listing did not reach its end.
		l.stats.Total, l.stats.TotalKnown = out.listed, false
	case l.stats.TotalKnown: // a strategy that listed every match before cutting (sortHere)
	case !out.full():
		// Every match went to the sink: their number is the total,
		// whatever the count said.
		l.stats.Total, l.stats.TotalKnown = out.listed, true
	case l.stats.Count.Exact() && !l.stats.cutHere:
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
