package listing

// An in() too long for one request: the service takes at most
// commerce.MaxRequestBytes of request target, about 200 ids. A read's plan
// splits the longest in() of the filter into parts whose requests fit,
// each a whole number of pages of values where a part holds a page or
// more (a part of 201 ids would take three pages of 100 for one record
// more than two hold): filter.SplitIn. The read lists the parts, several
// at once, and merges them: in the order asked (by value, ties by id),
// each record once, the total the sum, and max_results over the merged
// list. A record matches at most one value of an in(), so the parts never
// share a record; the merge drops a repeated id all the same.

import (
	"context"
	"fmt"
	"sync"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

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
	stats     listStats
	err       error
}

// listParts lists each part of a split in() on its own, as many
// at once as the engine has workers, and hands to the merged list: sorted
// by key as sortRecords sorts (ties by id), each id once, at most
// q.maxResults. Records the parts' catch-ups found go to to.late (to
// to.emit without it), sorted the same way.
func listParts[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], parts []filter.Parsed, q listQuery, to emitters[T]) (listStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make([]partListing[T], len(parts))
	slots := make(chan struct{}, e.workers)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error // the first part to fail, before the others were cancelled
	)
	for i, part := range parts {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			done[i] = listPart(ctx, e, kind, q, part)
			if err := done[i].err; err != nil {
				once.Do(func() { first = fmt.Errorf("part %d of %d of the split in(): %w", i+1, len(parts), err) })
				cancel() // the read fails: the other parts need not go on
			}
		})
	}
	wg.Wait()
	st := listStats{TotalKnown: true, Count: commerce.Count{Method: commerce.CountExact}}
	var all, late []T
	for _, d := range done {
		st.Total += d.stats.Total
		st.TotalKnown = st.TotalKnown && d.stats.TotalKnown
		// The parts share no record: their exact counts add up to the
		// query's.
		st.Count.N += d.stats.Count.N
		if !d.stats.Count.Exact() {
			st.Count.Method = d.stats.Count.Method
		}
		st.cutHere = st.cutHere || d.stats.cutHere
		st.Pages += d.stats.Pages
		st.Windows += d.stats.Windows
		st.Strategy = fmt.Sprintf("%s, in %d parts", d.stats.Strategy, len(parts))
		all, late = append(all, d.all...), append(late, d.late...)
	}
	if first != nil {
		return st, first
	}
	return st, emitMerged(all, late, q, to, &st)
}

// listPart lists one part of the split in().
func listPart[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q listQuery, part filter.Parsed) partListing[T] {
	var out partListing[T]
	q.filter, q.progress = part, false
	out.stats, out.err = listAll(ctx, e, kind, q, emitters[T]{
		emit: func(rec T) error { out.all = append(out.all, rec); return nil },
		late: func(rec T) error { out.late = append(out.late, rec); return nil },
	})
	return out
}

// emitMerged sorts the parts' records and hands them out, each id once.
func emitMerged[T commerce.Record](all, late []T, q listQuery, to emitters[T], st *listStats) error {
	maxResults := q.maxResults
	all, late = uniqueByID(all), uniqueByID(late)
	if err := sortRecords(all, q.key); err != nil {
		return err
	}
	if err := sortRecords(late, q.key); err != nil {
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
