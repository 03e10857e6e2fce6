package listing

// One read planned once, and read in full: the sort key, the filter within
// the service's limits, an in() split over several requests.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Plan plans q on kind, once per read: the sort key, the filter checked
// against the service's limits, and how its in() is split.
func Plan[T commerce.Record](e *Engine, kind commerce.Kind[T], q Query) (*Listing[T], error) {
	key, err := parseSort(kind.Endpoint, q.Sort)
	if err != nil {
		return nil, err
	}
	switch {
	case q.MaxResults < 0:
		return nil, fmt.Errorf("max results %d must not be negative", q.MaxResults)
	case q.ConsistencyBuffer < 0:
		return nil, fmt.Errorf("consistency buffer %s must not be negative", q.ConsistencyBuffer)
	}
	p := &Listing[T]{e: e, kind: kind, filter: q.Filter, key: key, buffer: q.ConsistencyBuffer}
	p.name = listingName[T](kind.Path, q.Filter.Text(), key, q.ConsistencyBuffer)
	if split, err := splitIn(kind.Path, q.Filter, key.param(), e.pageSize); err == nil && split.Parts != nil {
		p.split = split
		return p, nil
	}
	// A filter that needs no split must parse, and be within the
	// service's limits on its own; the terms the engine adds later merge
	// into it (engine.go).
	if _, _, err := e.room(kind.Endpoint).narrowed(q.Filter, nil, key.param(), ""); err != nil {
		return nil, err
	}
	return p, nil
}

// Name identifies the listing: reads of the same name want the same
// records in the same order, whatever each keeps, and a snapshot of the
// listing is kept under it.
func (l *Listing[T]) Name() string { return l.name }

// Kind is the record type and endpoint listed.
func (l *Listing[T]) Kind() commerce.Kind[T] { return l.kind }

// SortParam is the sort the listing asks for, as the service writes it.
func (l *Listing[T]) SortParam() string { return l.key.param() }

// SortAttribute is the attribute the listing is ordered by.
func (l *Listing[T]) SortAttribute() string { return l.key.attr }

// Split says how the filter's in() is split over several requests (Parts
// nil: one request holds the filter).
func (l *Listing[T]) Split() filter.InSplit { return l.split }

// Need is what readers that keep keep need of the listing together: all
// the records any of them keeps, with JSON if any of them keeps it, the
// count where one reports it past its MaxResults, cut at the consistency
// point, which is fixed now, as the listing starts.
func (l *Listing[T]) Need(keep []Query) Need {
	var need Need
	for i, k := range keep {
		if i == 0 || need.MaxResults > 0 && (k.MaxResults == 0 || k.MaxResults > need.MaxResults) {
			need.MaxResults = k.MaxResults
		}
		need.IncludeJSON = need.IncludeJSON || k.IncludeJSON
		// Asked whatever the listing's own limit, so that a read cut at
		// its MaxResults reports the same shared or alone.
		need.ExactCount = need.ExactCount || k.CountMatches && k.MaxResults > 0
	}
	if l.buffer > 0 {
		need.CreatedBefore = time.Now().Add(-l.buffer)
	}
	return need
}

// Read lists what need asks of the listing, in full (in windows past the
// offset limit, each part of a split in()), and hands it to to.
func (l *Listing[T]) Read(ctx context.Context, need Need, to Reader[T]) (Stats, error) {
	return l.readFull(ctx, need, emitters[T]{emit: to.Emit, late: to.Late, counted: to.Counted})
}

// derive is a quiet listing of expr, sorted by key, that l's read makes on
// the way: no split (expr fits one request), no progress logged. It has
// no name and no buffer: it is never shared or cached, and it is read
// with the Need of l's read, whose consistency point is already fixed.
func (l *Listing[T]) derive(expr filter.Parsed, key sortKey) *Listing[T] {
	return &Listing[T]{e: l.e, kind: l.kind, filter: expr, key: key, quiet: true}
}

// TotalFor is how many records match as a reader that kept q and received
// listed records reports it, and whether that is their number: a reader
// that got every match reports the listing's total; one cut at its
// MaxResults, the service's count where it asked for an exact one and the
// service said it is, else what it got. So a read reports the same
// whatever else its listing served.
func (st Stats) TotalFor(q Query, listed int) (int, bool) {
	if q.MaxResults == 0 || listed < q.MaxResults || st.TotalKnown && st.Total == listed {
		// Every match (a listing that saw its end right at MaxResults
		// knows there are no more).
		return st.Total, st.TotalKnown
	}
	if q.CountMatches && st.Count.Exact() && !st.CutHere {
		return st.Count.N, true
	}
	return listed, false
}

// listingName identifies the listing a read needs: the record type, the
// endpoint, the filter, the sort and the consistency buffer. Reads with the
// same name want the same records in the same order, whatever each keeps;
// it also names the listing's snapshot in the cache.
func listingName[T commerce.Record](path, filter string, key sortKey, buffer time.Duration) string {
	return strings.Join([]string{reflect.TypeFor[T]().String(), path, filter, key.param(), buffer.String()}, "\x00")
}

// CheckFilterLength checks, before a read is planned (terraform validate),
// that the requests of a read of expr on path sorted by sort (empty: the
// endpoint's default) fit the service's limit on a request's length, split
// over several where the filter's in() allows. It returns the length of
// one request for the filter, and why no split helps (nil when the filter
// fits, or a split does).
func CheckFilterLength(path string, expr filter.Parsed, sort string) (int, error) {
	n := commerce.ListRequestLength(path, expr.Text(), sort, commerce.OffsetLimit, commerce.DefaultPageSize)
	if n <= commerce.MaxRequestBytes {
		return n, nil
	}
	_, err := splitIn(path, expr, sort, commerce.DefaultPageSize)
	return n, err
}

// readFull lists the listing's filter, or each part of its split in().
func (l *Listing[T]) readFull(ctx context.Context, need Need, to emitters[T]) (Stats, error) {
	if l.split.Parts != nil {
		return l.listParts(ctx, need, to)
	}
	return l.listAll(ctx, need, to)
}

// The strategy of one listing: which one lists the query, chosen from
// the endpoint's row of the capability table and switched once when the
// service does not sort as the row says.

// listAll hands every record that matches l.filter to to.emit, in the
// order of l.key, each record once, as need asks. How it reaches them all
// depends on what the endpoint can do (its Endpoint row of the capability
// table), confirmed at run time:
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
// l.filter is within the service's limits: a read's plan checked it, or
// the engine built it with narrowed.
func (l *Listing[T]) listAll(ctx context.Context, need Need, to emitters[T]) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	r := newWindowReader(l.e, l.kind, need.IncludeJSON)
	defer func() {
		// Cancel first, so that queued page requests return at once.
		cancel()
		r.sched.close()
	}()
	r.maxMatches = idBound(l.filter)
	run := &listRun[T]{windowReader: r, listing: l, need: need, to: to}
	run.filter, run.createdBefore = l.createdBeforeFilter(need)
	run.stats.CutHere = run.createdBefore != ""
	out, err := run.run(ctx, l.key)
	return run.finish(ctx, out, err), err
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
			if err == nil && key.caughtUp() {
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

// An in() too long for one request: the service takes at most
// commerce.MaxRequestBytes of request target, about 200 ids. A read's plan
// splits the longest in() of the filter into parts whose requests fit,
// each a whole number of pages of values where a part holds a page or
// more (a part of 201 ids would take three pages of 100 for one record
// more than two hold): filter.SplitIn. The read lists the parts, several
// at once, and merges them: in the order asked (by value, ties by id),
// each record once, the total the sum, and max_results over the merged
// list. A value written twice goes to one part (SplitIn), and a record
// matches one value of an in(), so the parts share no record; where the
// service compares two values as one all the same, the merge drops the
// repeated id and counts it once.

// boundReserve is the room a part leaves for the terms the engine adds to
// a window's requests (a keyset bound, a tie group's two bounds, a range
// window's two bounds, the consistency buffer): about 50 bytes each, URL
// encoded.
const boundReserve = 256

// splitIn splits the longest in() of expr (a filter of path, sorted by
// sort) so that every part's requests, with the engine's own bounds, stay
// within commerce.MaxRequestBytes, every part but the last a whole number
// of pages of values where it holds a page or more (filter.SplitIn). It
// returns no parts when the filter fits one request, and fails when no
// split helps.
func splitIn(path string, expr filter.Parsed, sort string, pageSize int) (filter.InSplit, error) {
	fits := func(text string) bool {
		return commerce.ListRequestLength(path, text, sort, commerce.OffsetLimit, pageSize)+boundReserve <= commerce.MaxRequestBytes
	}
	if len(expr.Terms) == 0 || fits(expr.Text()) {
		return filter.InSplit{}, nil
	}
	return filter.SplitIn(expr, fits, pageSize)
}

// partListing is what one part of a split in() listed.
type partListing[T commerce.Record] struct {
	all, late []T
	stats     Stats
	err       error
}

// listParts lists each part of a split in() on its own, as many
// at once as the engine has workers, and hands to the merged list: sorted
// by key as sortRecords sorts (ties by id), each id once, at most
// need.MaxResults. Records the parts' catch-ups found go to to.late (to
// to.emit without it), sorted the same way.
func (l *Listing[T]) listParts(ctx context.Context, need Need, to emitters[T]) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	parts := l.split.Parts
	done := make([]partListing[T], len(parts))
	slots := make(chan struct{}, l.e.workers)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error // the first part to fail, before the others were cancelled
	)
	for i, part := range parts {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			done[i] = l.listPart(ctx, need, part)
			if err := done[i].err; err != nil {
				once.Do(func() { first = fmt.Errorf("part %d of %d of the split in(): %w", i+1, len(parts), err) })
				cancel() // the read fails: the other parts need not go on
			}
		})
	}
	wg.Wait()
	st := Stats{TotalKnown: true, Count: commerce.Count{Method: commerce.CountExact}}
	var all, late []T
	for _, d := range done {
		st.Total += d.stats.Total
		st.TotalKnown = st.TotalKnown && d.stats.TotalKnown
		// The parts share no record (emitMerged takes back any they
		// do): their exact counts add up to the query's.
		st.Count.N += d.stats.Count.N
		if !d.stats.Count.Exact() {
			st.Count.Method = d.stats.Count.Method
		}
		st.CutHere = st.CutHere || d.stats.CutHere
		st.Pages += d.stats.Pages
		st.Windows += d.stats.Windows
		st.Strategy = fmt.Sprintf("%s, in %d parts", d.stats.Strategy, len(parts))
		all, late = append(all, d.all...), append(late, d.late...)
	}
	if first != nil {
		return st, first
	}
	if to.counted != nil {
		to.counted(st.Count)
	}
	return st, l.emitMerged(all, late, need.MaxResults, to, &st)
}

// listPart lists one part of the split in().
func (l *Listing[T]) listPart(ctx context.Context, need Need, part filter.Parsed) partListing[T] {
	var out partListing[T]
	out.stats, out.err = l.derive(part, l.key).listAll(ctx, need, emitters[T]{
		emit: func(rec T) error { out.all = append(out.all, rec); return nil },
		late: func(rec T) error { out.late = append(out.late, rec); return nil },
	})
	return out
}

// emitMerged sorts the parts' records and hands them out, each id once,
// at most maxResults of all (0: every one).
func (l *Listing[T]) emitMerged(all, late []T, maxResults int, to emitters[T], st *Stats) error {
	listed := len(all) + len(late)
	all, late = uniqueByID(all), uniqueByID(late)
	// A record two parts listed (values the service compares as one,
	// such as one email in two cases) counts once in the total too.
	if twice := listed - len(all) - len(late); twice > 0 {
		st.Total -= twice
		st.Count.N -= twice
	}
	if err := sortRecords(all, l.key); err != nil {
		return err
	}
	if err := sortRecords(late, l.key); err != nil {
		return err
	}
	if maxResults > 0 && len(all) > maxResults {
		all = all[:maxResults]
	}
	lateTo := to.late
	if lateTo == nil {
		lateTo = to.emit
	}
	for _, recs := range []struct {
		recs []T
		to   func(T) error
	}{{all, to.emit}, {late, lateTo}} {
		for _, rec := range recs.recs {
			if err := recs.to(rec); err != nil {
				return err
			}
			st.Listed++
		}
	}
	return nil
}

// uniqueByID keeps the first record of each id.
func uniqueByID[T commerce.Record](recs []T) []T {
	seen := make(map[string]struct{}, len(recs))
	out := recs[:0]
	for _, rec := range recs {
		if _, dup := seen[rec.RecordID()]; !dup {
			seen[rec.RecordID()] = struct{}{}
			out = append(out, rec)
		}
	}
	return out
}
