package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
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
	// Requests counts the resource requests this listing sent, retries
	// included; Retries those it sent again after a failed attempt (429,
	// 5xx, 401, no usable answer); Throttled the 429 Too Many Requests
	// answers it got. Counted per listing, also when listings share the
	// Client.
	Requests, Retries, Throttled int
	// Budget is the client's learned request budget when the listing
	// ended, in requests per second: 0 while the service has never
	// throttled the client (see budget.go).
	Budget float64
	// Strategy says how the listing reached every record (Strategy*).
	Strategy string
}

// How a listing reaches every record, as ListStats.Strategy reports it.
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
// once per endpoint and Client, before any record is handed out.
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
func List[T Record](ctx context.Context, c *Client, kind Kind[T], q ListQuery, emit func(T) error) (ListStats, error) {
	key, err := parseSort(kind.Resource, q.Sort)
	if err != nil {
		return ListStats{}, err
	}
	if q.MaxResults < 0 {
		return ListStats{}, fmt.Errorf("max results %d must not be negative", q.MaxResults)
	}
	began := time.Now()
	ctx, counts := withRequestCounts(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reader := &windowReader[T]{
		c: c, kind: kind, includeJSON: q.IncludeJSON,
		pageSize:  c.cfg.PageSize,
		windowCap: (OffsetLimit / c.cfg.PageSize) * c.cfg.PageSize,
		// Two workers more than requests may be in flight, so that a worker
		// decoding a page never leaves a request slot idle.
		sched: newScheduler(c.cfg.MaxParallelRequests + 2),
	}
	defer func() {
		// Cancel first, so that queued page requests return at once.
		cancel()
		reader.sched.close()
	}()
	// The user's filter must parse, and be within the service's limits on
	// its own; the terms the engine adds later merge into it (narrow.go).
	if _, err := reader.narrowed(q.Filter, nil, key.param(), ""); err != nil {
		return ListStats{}, err
	}
	var createdBefore string
	if !q.CreatedBefore.IsZero() {
		cut := filter.FormatTimestamp(q.CreatedBefore)
		createdBefore = cut
		if f, ok := kind.Filters["created_at"]; ok && f.Allows(filter.Lt) {
			// Where the filter has no room for one more term, the provider
			// drops the newest records itself, as on endpoints that cannot
			// filter created_at.
			if narrowed, err := reader.narrowed(q.Filter, filter.Expr{filter.NewTerm(filter.Lt, "created_at", cut)}, key.param(), ""); err == nil {
				q.Filter, createdBefore = narrowed, ""
			}
		}
	}
	l := &lister[T]{
		windowReader:  reader,
		q:             q,
		emit:          emit,
		limit:         q.MaxResults,
		createdBefore: createdBefore,
		nextProgress:  ProgressInterval,
	}
	err = l.run(ctx, key)
	stats := l.finish(ctx, counts, time.Since(began))
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) && stats.Throttled > 0 && stats.Budget > 0 {
		// The caller's time ran out while the listing went at the pace
		// the store's rate limit allowed: say so, not only "deadline
		// exceeded".
		err = &ThrottledError{Method: http.MethodGet, Path: kind.Path, Refused: stats.Throttled,
			Budget: stats.Budget, RateLimit: c.cfg.RateLimit, Cause: err}
	}
	return stats, err
}

// finish completes the listing's stats and warns if the service throttled
// it. Traversal goroutine.
func (l *lister[T]) finish(ctx context.Context, counts *requestCounts, elapsed time.Duration) ListStats {
	l.stats.Total -= l.droppedNew
	l.stats.Pages = int(l.pages.Load())
	l.stats.Windows = int(l.windows.Load())
	counts.fill(&l.stats)
	l.stats.Budget = round1(l.c.budget.rate())
	l.c.warnThrottled(ctx, l.kind.Name, l.stats, elapsed)
	l.c.warnDecoded(ctx, l.kind.Name, counts)
	return l.stats
}

// lister is the state of one listing. It belongs to the traversal goroutine
// (see window.go): every lister method runs there.
type lister[T Record] struct {
	*windowReader[T]
	q     ListQuery
	emit  func(T) error
	limit int // stop after this many records; 0: all
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at.
	createdBefore string
	droppedNew    int // records dropped by createdBefore

	key            sortKey // the order the traversal lists in
	seen           map[string]struct{}
	firstListedKey string // key of the first record listed, for the catch-up
	late           bool   // delivering to q.Late
	stats          ListStats
	nextProgress   int
}

// run lists with the best strategy the capability table allows, and
// switches once per endpoint and run when the service turns out not to sort
// as the table says: it refused sort= or ignored it, which shows on the
// first page, before any record was handed out. Traversal goroutine.
func (l *lister[T]) run(ctx context.Context, key sortKey) error {
	r := l.kind.Resource
	for switched := false; ; switched = true {
		var err error
		serviceSorts := r.keysetCapable(key.attr) && !l.c.sortUnusable(r.Path)
		if serviceSorts {
			l.stats.Strategy = StrategyKeyset
			l.key = key
			err = l.traverseQuery(ctx, key)
			if err == nil && key.attr == "updated_at" && key.desc {
				err = l.catchUp(ctx)
			}
		} else {
			err = l.listThenSort(ctx, key)
		}
		cause, unusable := sortRefusal(err)
		var ignored *sortUnusableError
		if errors.As(err, &ignored) {
			cause, unusable = ignored.cause, true
		}
		// Switch once; another listing on the same client may have marked
		// the endpoint while this one read its first page.
		if !unusable || l.stats.Listed > 0 || switched {
			return err
		}
		l.c.markSortUnusable(ctx, r.Path, key.param(), cause)
		l.seen = nil
		l.firstListedKey, l.droppedNew = "", 0
	}
}

// sortRefusal recognises a 400 that names the sort parameter.
func sortRefusal(err error) (string, bool) {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || !strings.Contains(apiErr.Path, "sort=") {
		return "", false
	}
	for _, o := range apiErr.Errors {
		if o.Parameter != "" && o.Parameter != "sort" {
			continue
		}
		if o.Parameter == "sort" || strings.Contains(strings.ToLower(o.Title+" "+o.Detail), "sort") {
			return "it answered 400 " + o.Summary(), true
		}
	}
	return "", false
}

// sortUnusable reports whether path refused or ignored sort= earlier in
// this run.
func (c *Client) sortUnusable(path string) bool {
	_, ok := c.unsortable.Load(path)
	return ok
}

// markSortUnusable records that path cannot sort, once, and says so.
func (c *Client) markSortUnusable(ctx context.Context, path, sort, cause string) {
	if _, loaded := c.unsortable.LoadOrStore(path, cause); !loaded {
		c.cfg.Logger.Info(ctx, "the service does not sort this endpoint as documented; listing it in the service's own order from now on", map[string]any{
			"path": path, "sort": sort, "cause": cause,
		})
	}
}

// deliver hands rec to the caller unless it was listed already. done is
// true once MaxResults records have been listed. Traversal goroutine.
func (l *lister[T]) deliver(rec T) (done bool, err error) {
	id := rec.RecordID()
	if l.seen == nil {
		// Sized once from results.total: growing a map of 100,000 ids
		// step by step allocates it several times over.
		hint := l.stats.Total
		if l.q.MaxResults > 0 {
			hint = min(hint, l.q.MaxResults)
		}
		l.seen = make(map[string]struct{}, min(hint, 1<<20))
	}
	if _, dup := l.seen[id]; dup {
		return false, nil // repeated at a window boundary, or moved by an update
	}
	l.seen[id] = struct{}{}
	if l.createdBefore != "" {
		if created, err := keyOf(keyFor(l.kind.Resource, "created_at"), rec); err == nil && created >= l.createdBefore {
			l.droppedNew++
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
	if l.firstListedKey == "" {
		l.firstListedKey, _ = keyOf(l.key, rec)
	}
	l.stats.Listed++
	if l.q.Progress != nil && l.stats.Listed >= l.nextProgress {
		l.q.Progress(l.stats.Listed, l.stats.Total)
		l.nextProgress += ProgressInterval
	}
	return l.maxResultsReached(), nil
}

// maxResultsReached reports whether MaxResults records have been handed
// out; a catch-up lists past them. Traversal goroutine.
func (l *lister[T]) maxResultsReached() bool {
	return !l.late && l.limit > 0 && l.stats.Listed >= l.limit
}

// quota is what the traversal still wants, for planning a window.
// Traversal goroutine.
func (l *lister[T]) quota() quota {
	if l.limit <= 0 {
		return unlimited
	}
	return quota{limited: true, left: l.limit - l.stats.Listed}
}
