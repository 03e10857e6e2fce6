package listing

// The planner of one listing: which strategy lists the query, chosen from
// the endpoint's row of the capability table and switched once when the
// service does not sort as the row says.

import (
	"context"
	"errors"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// list hands every record that matches q.filter to emit, in the order of
// q.key, each record once. How it reaches them all depends on what the
// endpoint can do (its Endpoint row of the capability table), confirmed at
// run time:
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
// complete list itself and hands out the first maxResults.
//
// A service that refuses sort= (a 400 naming it) or ignores it (the first
// page out of order) makes the engine switch to the provider-sorted path,
// once per endpoint and Engine, before any record is handed out.
//
// Each page's results.total and record count must match its window's first
// page; if they do not, records were written during the listing, and the
// window's range is read again (with sequential keyset pages where the
// service sorts, which no insert or delete can make skip a record). Records
// are handed over once, by id.
//
// With sort -updated_at, an update moves a record to the front, behind the
// position already read; a catch-up pass filtered on updated_at finds such
// records and hands them to to.late.
//
// q.filter is within the service's limits: a read's plan checked it, or
// the engine built it with narrowed.
func listAll[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q listQuery, to emitters[T]) (listStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	r := newWindowReader(e, kind, q.includeJSON)
	defer func() {
		// Cancel first, so that queued page requests return at once.
		cancel()
		r.sched.close()
	}()
	r.maxMatches = idBound(q.filter)
	l := &listRun[T]{windowReader: r, q: q, to: to}
	l.q.filter, l.createdBefore = q.createdBeforeFilter(r.filterRoom)
	l.stats.cutHere = l.createdBefore != ""
	out, err := l.run(ctx, q.key)
	return l.finish(ctx, out, err), err
}

// run lists with the best strategy the capability table allows, and
// switches once per endpoint and run when the service turns out not to sort
// as the table says: it refused sort= or ignored it, which shows on the
// first page, before any record was handed out. Each strategy starts with
// a fresh sink, so nothing of a failed one carries over. It returns the
// sink the records went to. Traversal goroutine.
func (l *listRun[T]) run(ctx context.Context, key sortKey) (*recordSink[T], error) {
	res := l.kind.Endpoint
	for switched := false; ; switched = true {
		out := l.recordSink(ctx)
		var err error
		if res.KeysetCapable(key.attr) && !l.e.sortUnusable(res.Path) {
			l.stats.Strategy = strategyKeyset
			out.byID = true
			err = l.walk(out, key).traverseQuery(ctx)
			// The pass's last ties go out too when it failed: what it read
			// counts in the error (OffsetLimitError.Listed).
			if _, ferr := out.flush(); err == nil {
				err = ferr
			}
			if err == nil && key.attr == "updated_at" && key.desc {
				err = l.catchUp(ctx, out, key)
			}
		} else {
			err = l.sortHere(ctx, out, key)
		}
		cause, unusable := sortRefusal(err)
		var ignored *sortUnusableError
		if errors.As(err, &ignored) {
			cause, unusable = ignored.cause, true
		}
		// Switch once; another listing on the same engine may have marked
		// the endpoint while this one read its first page.
		if !unusable || out.listed > 0 || switched {
			return out, err
		}
		l.e.markSortUnusable(ctx, res.Path, key.param(), cause)
	}
}
