package listing

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// listQuery is one listing of one filter, as the engine runs it: a read's
// plan (plan.go) makes it, with what every reader of the listing keeps.
type listQuery struct {
	filter      string
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

// progressInterval is how often (in records) a listing logs its progress.
const progressInterval = 5000

// stats describes a finished (or failed) listing. What it cost in
// requests, retries and 429s the transport counts (Options.Trace).
type listStats struct {
	// Total is how many records match, where TotalKnown: those listed
	// when the listing reached its end, else the service's count where it
	// said it was exact. Otherwise Total is the records listed, the
	// matches at least.
	Total      int
	TotalKnown bool
	// Count is the service's count of the query's filter, from the first
	// page: a guess that sizes the listing, never what ends it.
	Count commerce.Count
	// cutHere is set when the provider leaves out records the service
	// counts (a consistency cut it applies itself): Count is no count of
	// the result then.
	cutHere bool
	Listed  int // records handed to the caller
	Pages   int // page requests the engine made (retries of one page count once)
	Windows int // offset windows traversed (see list)
	// Strategy says how the listing reached every record (strategy*).
	Strategy string
	// Cache says how a cached read served the listing (cache*), and
	// CacheReason why it read in full; both empty without a cache.
	Cache, CacheReason string
	// Changed and Removed count, for a refresh, the records the service
	// reported changed since the snapshot and those found gone.
	Changed, Removed int
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
func list[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q listQuery, to emitters[T]) (listStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	r := newWindowReader(e, kind, q.includeJSON)
	defer func() {
		// Cancel first, so that queued page requests return at once.
		cancel()
		r.sched.close()
	}()
	r.maxMatches = idBound(q.filter)
	l := &listing[T]{windowReader: r, q: q, to: to}
	l.q.filter, l.createdBefore = r.createdBeforeFilter(q)
	l.stats.cutHere = l.createdBefore != ""
	out, err := l.run(ctx, q.key)
	return l.finish(ctx, out, err), err
}

// listing is one list call: what it reads with (the windowReader), what
// it was asked, and what it reports. Traversal goroutine.
type listing[T commerce.Record] struct {
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
func (l *listing[T]) sink(ctx context.Context) *sink[T] {
	return &sink[T]{emit: l.to.emit, limit: l.q.maxResults, createdBefore: l.createdBefore, endpoint: l.kind.Endpoint,
		sizeHint: func() int { return l.stats.Count.Hint() }, progress: l.progress(ctx)}
}

// progress logs every progressInterval records, if the query asks.
func (l *listing[T]) progress(ctx context.Context) func(listed int) {
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

// run lists with the best strategy the capability table allows, and
// switches once per endpoint and run when the service turns out not to sort
// as the table says: it refused sort= or ignored it, which shows on the
// first page, before any record was handed out. Each strategy starts with
// a fresh sink, so nothing of a failed one carries over. It returns the
// sink the records went to. Traversal goroutine.
func (l *listing[T]) run(ctx context.Context, key sortKey) (*sink[T], error) {
	res := l.kind.Endpoint
	for switched := false; ; switched = true {
		out := l.sink(ctx)
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

// finish completes the listing's stats from the sink the records went to
// and how it ended, and warns of the values of an unexpected type its
// pages held. Traversal goroutine.
func (l *listing[T]) finish(ctx context.Context, out *sink[T], err error) listStats {
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
// any other filter, or one that does not parse (the plan has reported
// that).
func idBound(expr string) int {
	if !strings.Contains(expr, "id,") {
		return 0
	}
	parsed, err := filter.Parse(expr)
	if err != nil {
		return 0
	}
	bound := 0
	for _, t := range parsed {
		if t.Attribute == "id" && (t.Op == filter.In || t.Op == filter.Eq) {
			if n := len(slices.Compact(slices.Sorted(slices.Values(t.Values)))); bound == 0 || n < bound {
				bound = n
			}
		}
	}
	return bound
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
