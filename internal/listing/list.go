package listing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Query says what to list.
type Query struct {
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
	Late func(commerce.Record) error
	// CreatedBefore, if set, leaves out records created at or after it: the
	// service is eventually consistent, and the newest records may not all
	// be visible yet. Sent as lt(created_at,...) where the endpoint filters
	// on created_at, applied here otherwise.
	CreatedBefore time.Time
}

// ProgressInterval is how often (in records) a listing reports progress.
const ProgressInterval = 5000

// Stats describes a finished (or failed) listing. What it cost in
// requests, retries and 429s the transport counts (a client.Trace).
type Stats struct {
	Total   int // results.total for the query's filter, from the first page
	Listed  int // records handed to the caller
	Pages   int // page requests the engine made (retries of one page count once)
	Windows int // offset windows traversed (see List)
	// Strategy says how the listing reached every record (Strategy*).
	Strategy string
	// Cache says how ListCached served the listing (Cache*), and
	// CacheReason why it read in full; both empty for List.
	Cache, CacheReason string
	// Changed and Removed count, for a refresh, the records the service
	// reported changed since the snapshot and those found gone.
	Changed, Removed int
}

// How a listing reaches every record, as Stats.Strategy reports it.
const (
	// StrategyKeyset: the service sorts, and keyset windows bound by the
	// sort attribute reach past the offset limit.
	StrategyKeyset = "keyset"
	// StrategyKeysetSortedHere: keyset windows on an order the service
	// gives, then the provider sorts the complete list in the order asked.
	StrategyKeysetSortedHere = "keyset, sorted by the provider"
	// StrategyWindowsSortedHere: the service cannot sort; offset pages in
	// its own order, in windows of the range attribute above the offset
	// limit, then the provider sorts the complete list.
	StrategyWindowsSortedHere = "range windows, sorted by the provider"
)

// List hands every record that matches q to emit, in the order of q.Sort,
// each record once. How it reaches them all depends on what the endpoint
// can do (its Endpoint row of the capability table), confirmed at run time:
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
// records and hands them to q.Late.
func List[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, emit func(T) error) (Stats, error) {
	key, err := parseSort(kind.Endpoint, q.Sort)
	if err != nil {
		return Stats{}, err
	}
	if q.MaxResults < 0 {
		return Stats{}, fmt.Errorf("max results %d must not be negative", q.MaxResults)
	}
	if split, err := SplitIn(kind.Path, q.Filter, key.param(), e.pageSize); err == nil && split.Parts != nil {
		return listParts(ctx, e, kind, q, key, split.Parts, emit)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := newWindowReader(e, kind, q.IncludeJSON)
	defer func() {
		// Cancel first, so that queued page requests return at once.
		cancel()
		r.sched.close()
	}()
	// The user's filter must parse, and be within the service's limits on
	// its own; the terms the engine adds later merge into it (filterlimits.go).
	if _, err := r.narrowed(q.Filter, nil, key.param(), ""); err != nil {
		return Stats{}, err
	}
	l := &listing[T]{windowReader: r, q: q, emit: emit}
	l.q.Filter, l.createdBefore = r.createdBeforeFilter(q, key)
	out, err := l.run(ctx, key)
	stats := l.finish(ctx, out)
	return stats, err
}

// createdBeforeFilter applies q.CreatedBefore: as lt(created_at,...) merged
// into the filter where the endpoint filters on created_at and the filter
// has room, else as a normalised timestamp the sink drops records by.
func (r *windowReader[T]) createdBeforeFilter(q Query, key sortKey) (string, string) {
	if q.CreatedBefore.IsZero() {
		return q.Filter, ""
	}
	cut := filter.FormatTimestamp(q.CreatedBefore)
	if f, ok := r.kind.Filters["created_at"]; ok && f.Allows(filter.Lt) {
		if narrowed, err := r.narrowed(q.Filter, filter.Expr{filter.NewTerm(filter.Lt, "created_at", cut)}, key.param(), ""); err == nil {
			return narrowed, ""
		}
	}
	return q.Filter, cut
}

// listing is one List call: what it reads with (the windowReader), what
// it was asked, and what it reports. Traversal goroutine.
type listing[T commerce.Record] struct {
	*windowReader[T]
	q    Query
	emit func(T) error
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at.
	createdBefore string
	stats         Stats
}

// sink is where a strategy's records go: the caller's emit, with the
// listing's limit and progress, each record once.
func (l *listing[T]) sink() *sink[T] {
	return &sink[T]{emit: l.emit, limit: l.q.MaxResults, createdBefore: l.createdBefore, kind: l.kind.Endpoint,
		sizeHint: func() int { return l.stats.Total }, progress: l.progress()}
}

// progress reports every ProgressInterval records, if the query asks.
func (l *listing[T]) progress() func(listed int) {
	if l.q.Progress == nil {
		return nil
	}
	next := ProgressInterval
	return func(listed int) {
		if listed >= next {
			l.q.Progress(listed, l.stats.Total)
			next += ProgressInterval
		}
	}
}

// run lists with the best strategy the capability table allows, and
// switches once per endpoint and run when the service turns out not to sort
// as the table says: it refused sort= or ignored it, which shows on the
// first page, before any record was handed out. Each strategy starts with
// a fresh sink, so nothing of a failed one carries over. It returns the
// sink the records went to. Traversal goroutine.
func (l *listing[T]) run(ctx context.Context, key sortKey) (*sink[T], error) {
	res := l.kind.Endpoint
	for switched := false; ; switched = true {
		out := l.sink()
		var err error
		if res.KeysetCapable(key.attr) && !l.e.sortUnusable(res.Path) {
			l.stats.Strategy = StrategyKeyset
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

// finish completes the listing's stats from the sink the records went to
// and warns of the values of an unexpected type its pages held.
// Traversal goroutine.
func (l *listing[T]) finish(ctx context.Context, out *sink[T]) Stats {
	l.stats.Total -= out.dropped
	l.stats.Listed = out.listed
	l.stats.Pages = int(l.pages.Load())
	l.stats.Windows = int(l.windows.Load())
	l.e.warnDecoded(ctx, l.kind.Name, &l.notes)
	return l.stats
}

// sortRefusal recognises the service refusing sort=: a 400 naming the
// parameter. The transport's error says so through RefusedParameter
// (client.APIError), so that the engine reads no HTTP status itself.
func sortRefusal(err error) (string, bool) {
	var refusal interface {
		RefusedParameter(name string) (string, bool)
	}
	if !errors.As(err, &refusal) {
		return "", false
	}
	if said, ok := refusal.RefusedParameter("sort"); ok {
		return "it answered 400 " + said, true
	}
	return "", false
}

// badRequest reports whether the service refused a request as malformed
// (400), as the transport's error says through BadRequest.
func badRequest(err error) bool {
	var bad interface{ BadRequest() bool }
	return errors.As(err, &bad) && bad.BadRequest()
}
