package listing

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// A refresh turns the snapshot of an earlier listing into the result a
// full listing would give now, asking the service only:
//
//  1. how many records match now (results.total of one 1-record page);
//  2. then, once that is answered, the records that match and were
//     updated since the snapshot's high-water mark, less RefreshOverlap
//     and the time the snapshot's listing took: ge(updated_at,...) added
//     to the filter. Every create and every update moves updated_at, so
//     this brings back every record that is new, changed, or entered the
//     filter; those that are in the snapshot replace their old copies.
//  3. When the count of what is now known equals the service's count,
//     nothing was deleted and nothing left the filter: the known set
//     holds every matching record (step 2) and no other. When it differs,
//     locate compares counts over created_at ranges to find where, and
//     reads only those ranges.
//
// The result is then sorted as the query asks, ties by id, as a full
// listing hands them out. Whatever cannot be proven this way is a
// notProvable, and ListCached reads in full.

// RefreshOverlap is how far before the snapshot's newest updated_at a
// refresh asks for changes. The service is eventually consistent: a record
// updated just before the snapshot was taken may have become visible only
// after it, with an updated_at older than the newest the snapshot saw. The
// vendor advises a buffer without naming one; ten minutes is far more than
// any index delay, and costs only the re-reading of the records updated in
// those minutes.
const RefreshOverlap = 10 * time.Minute

// refreshFullShare: when the changes would take more than this share of a
// full read's requests, a full read is cheaper than a refresh that also
// has to count and may have to locate.
const refreshFullShare = 0.25

// notProvable is why a refresh cannot prove its result exact.
type notProvable struct{ reason string }

func (n notProvable) Error() string { return n.reason }

// refresher is one refresh: the query's filter and sort, and the requests
// it has made.
type refresher[T commerce.Record] struct {
	e    *Engine
	kind commerce.Kind[T]
	r    *windowReader[T]
	base string // the query's filter, created_at cut merged in
	key  sortKey
	// spent counts the refresh's page requests (1-record counts
	// included).
	spent atomic.Int64
}

func refresh[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, prev *Snapshot, emit func(T) error) (Stats, *Snapshot, error) {
	start := time.Now()
	key, err := parseSort(kind.Endpoint, q.Sort)
	if err != nil {
		return Stats{}, nil, err
	}
	r := newWindowReader(e, kind, true)
	defer r.sched.close()
	rf := &refresher[T]{e: e, kind: kind, r: r, key: key}
	base, cut := r.createdBeforeFilter(q, key)
	if cut != "" {
		return Stats{}, nil, notProvable{"no room in the filter for consistency_buffer's created_at bound, which the counts need"}
	}
	rf.base = base
	known, err := rf.decode(prev)
	if err != nil {
		return Stats{}, nil, err
	}
	stats := Stats{Strategy: "refreshed from the cache", Cache: CacheRefreshed}
	result, err := rf.run(ctx, prev, known, &stats)
	stats.Pages = int(rf.spent.Load())
	if err != nil {
		return stats, nil, err
	}
	if err := sortRecords(result, key); err != nil {
		return stats, nil, notProvable{err.Error()}
	}
	snap := &snapshotter{}
	for _, rec := range result {
		snap.add(rec)
	}
	stats.Total = len(result)
	for _, rec := range result {
		if err := emit(rec); err != nil {
			return stats, nil, err
		}
		stats.Listed++
		if q.Progress != nil && stats.Listed%ProgressInterval == 0 {
			q.Progress(stats.Listed, stats.Total)
		}
	}
	return stats, snap.finish(ctx, e, kind.Name, q, start), nil
}

// decode reads the snapshot's records back, with their JSON, on every
// core: decoding is most of an unchanged refresh's time.
func (rf *refresher[T]) decode(prev *Snapshot) ([]T, error) {
	known := make([]T, len(prev.Records))
	workers := min(runtime.GOMAXPROCS(0), 1+len(known)/1000)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(known); i += workers {
				rec, _, err := rf.kind.DecodeRecord(prev.Records[i], true)
				if err != nil {
					errs[w] = notProvable{"the cache entry's records do not decode: " + err.Error()}
					return
				}
				known[i] = rec
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return known, nil
}

// run is steps 1 to 3: the known records merged with the changes, and
// located where the counts differ.
func (rf *refresher[T]) run(ctx context.Context, prev *Snapshot, known []T, stats *Stats) ([]T, error) {
	ps := rf.e.pageSize
	if len(known) <= 2*ps {
		// A refresh costs at least two requests.
		return nil, notProvable{"the list takes at most two pages, which a full read costs anyway"}
	}
	lower, err := changesSince(prev)
	if err != nil {
		return nil, notProvable{err.Error()}
	}
	changesFilter, err := rf.r.narrowed(rf.base, filter.Expr{filter.NewTerm(filter.Ge, "updated_at", lower)}, "", "changes since the cache entry")
	if err != nil {
		return nil, notProvable{"no room in the filter for the updated_at bound of the changes: " + err.Error()}
	}
	// The count is answered before the changes are asked for, never
	// together: a record created in between is then among the changes
	// but not in the count, and the counts differ. Were the changes
	// answered first, that record would be in the count alone, and would
	// hide a record deleted before the refresh from the comparison.
	total, err := rf.count(ctx, rf.base)
	if err != nil {
		return nil, err
	}
	first, err := rf.firstChanges(ctx, changesFilter)
	if err != nil {
		return nil, err
	}
	changes, err := rf.changes(ctx, changesFilter, first, len(known), total)
	if err != nil {
		return nil, err
	}
	stats.Changed = len(changes)
	merged := merge(known, changes)
	if len(merged) == total {
		return merged, nil
	}
	located, err := rf.locate(ctx, merged, total)
	if err != nil {
		return nil, err
	}
	stats.Removed = max(0, len(merged)-len(located))
	return located, nil
}

// changesSince is the lower bound of the changes a refresh of prev asks
// for: its high-water mark (or its created_at cut, if older: a record
// created between the old cut and the new one may be older than the mark)
// less the listing's duration and RefreshOverlap.
func changesSince(prev *Snapshot) (string, error) {
	mark := prev.HighWater
	if prev.CreatedBefore != "" && prev.CreatedBefore < mark {
		mark = prev.CreatedBefore
	}
	t, err := time.Parse(filter.TimestampLayout, mark)
	if err != nil {
		return "", errors.New("the cache entry has no high-water mark")
	}
	return t.Add(-prev.Took - RefreshOverlap).Format(filter.TimestampLayout), nil
}

// count is results.total for expr: one request for one record. Any
// goroutine.
func (rf *refresher[T]) count(ctx context.Context, expr string) (int, error) {
	rf.spent.Add(1)
	p, err := fetchPage(ctx, rf.e, rf.kind, expr, "", 0, 1, false, nil)
	return p.Total, err
}

// firstChanges is the first page of the changes.
func (rf *refresher[T]) firstChanges(ctx context.Context, expr string) (commerce.Page[T], error) {
	rf.spent.Add(1)
	return fetchPage(ctx, rf.e, rf.kind, expr, "", 0, rf.e.pageSize, true, nil)
}

// changes lists the records that match expr: one page when they fit. More
// pages are read only where they are likely to pay: they take less than
// refreshFullShare of a full read, and the service does not count fewer
// records than known (records are gone, so locate will have to spend
// more, and a full read would waste what the changes cost).
func (rf *refresher[T]) changes(ctx context.Context, expr string, first commerce.Page[T], known, total int) ([]T, error) {
	ps := rf.e.pageSize
	if first.Total <= len(first.Records) {
		return first.Records, nil
	}
	changed := strconv.Itoa(first.Total) + " records changed since the cache entry"
	switch {
	case float64(pagesFor(first.Total, ps)) > refreshFullShare*float64(pagesFor(max(known, total), ps)):
		return nil, notProvable{changed + ": a full read costs about as much"}
	case total < known:
		return nil, notProvable{changed + ", and fewer match than before: a full read costs less than finding which"}
	}
	return rf.list(ctx, expr)
}

// list lists expr in full, in the service's default order, with JSON.
func (rf *refresher[T]) list(ctx context.Context, expr string) ([]T, error) {
	var out []T
	stats, err := List(ctx, rf.e, rf.kind, Query{Filter: expr, IncludeJSON: true}, func(rec T) error {
		out = append(out, rec)
		return nil
	})
	rf.spent.Add(int64(stats.Pages))
	return out, err
}

// merge is known with each changed record in place of its old copy, and
// the new ones after them.
func merge[T commerce.Record](known, changes []T) []T {
	at := make(map[string]int, len(known))
	out := slices.Clone(known)
	for i, rec := range out {
		at[rec.RecordID()] = i
	}
	for _, rec := range changes {
		if i, ok := at[rec.RecordID()]; ok {
			out[i] = rec
			continue
		}
		at[rec.RecordID()] = len(out)
		out = append(out, rec)
	}
	return out
}

func pagesFor(n, pageSize int) int { return max(1, (n+pageSize-1)/pageSize) }
