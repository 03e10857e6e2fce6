package listing

// Read: the one call a data source's read makes.

import (
	"context"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// Read lists what q asks of kind and hands it to to: the one way a data
// source reads a list. The engine plans the read once (plan.go): the sort,
// the filter within the service's limits, an in() split over several
// requests. Reads that need the same listing and arrive together share it,
// whatever each keeps (below); the listing is refreshed from the cache
// where the engine has one and can prove the result exact (cached.go),
// else read in full, in windows past the offset limit (plan.go).
//
// A read that arrives once a listing has started never joins it: it may
// depend on a write that listing cannot have seen.
func Read[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, to Reader[T]) (Result, error) {
	p, err := newPlan(e, kind, q)
	if err != nil {
		return Result{}, err
	}
	me := &sharedReader[T]{ctx: ctx, keep: q, to: to}
	out, shared, err := e.reads.Do(ctx, p.name, me, func(ctx context.Context, joined []any) sharedRun {
		return p.serve(ctx, readersOf[T](joined))
	})
	if err != nil {
		return Result{}, err
	}
	if shared {
		e.log.Debug(ctx, "served by another read's listing, which was starting when this one arrived", map[string]any{
			"resource": kind.Name, "filter": q.Filter.Text(), "sort": p.key.param(),
		})
	}
	total, known := me.total(out.stats)
	res := Result{Total: total, TotalKnown: known, Count: out.stats.Count, Listed: me.listed, Shared: shared, Split: p.split, Pages: out.stats.Pages}
	if me.err != nil {
		return res, me.err
	}
	return res, out.err
}

// Reads that need one listing share it: the same record type, endpoint,
// filter, sort and consistency buffer (listingName), whatever
// each keeps. Terraform reads the data sources of a plan in parallel, so
// a module that reads "the ids" in one place and "the records" in another
// asks at once; internal/coalesce gathers such reads for a moment before
// the listing starts, and admits none once it has sent anything (a read
// that depends on a write must not get a listing from before it).
//
// The listing fetches what its readers need together: every record any of
// them keeps (the largest max_results, or all), with JSON if any of them
// keeps it. Each record then goes to every reader that still wants it, in
// the same order, so that each gets exactly what it would have got alone.

// reader is one read sharing a listing: what it keeps, where its records
// go, and how it fared. The listing's traversal goroutine writes listed
// and err; the read looks at them once the listing has ended.
type sharedReader[T commerce.Record] struct {
	ctx    context.Context
	keep   Query
	to     Reader[T]
	listed int
	// err ended this reader's part of the listing (its Emit refused a
	// record); the listing goes on for the others.
	err error
}

// total is how many records match, as this reader reports it, and
// whether that is their number (Result.TotalKnown). A reader that got
// every match reports the listing's total; one cut at its MaxResults, the
// service's count where it asked for an exact one and the service said it
// is, else what it got. So a read reports the same shared or alone.
func (r *sharedReader[T]) total(st listStats) (int, bool) {
	if r.keep.MaxResults == 0 || r.listed < r.keep.MaxResults {
		return st.Total, st.TotalKnown
	}
	if r.keep.CountMatches && st.Count.Exact() && !st.cutHere {
		return st.Count.N, true
	}
	return r.listed, false
}

// readersOf are the readers that joined a listing of records of type T
// (the listing's name includes the type).
func readersOf[T commerce.Record](joined []any) []*sharedReader[T] {
	out := make([]*sharedReader[T], 0, len(joined))
	for _, j := range joined {
		if r, ok := j.(*sharedReader[T]); ok {
			out = append(out, r)
		}
	}
	return out
}

// serve runs the listing the readers need, once, and logs what it cost.
func (p *readPlan[T]) serve(ctx context.Context, readers []*sharedReader[T]) sharedRun {
	keep := make([]Query, len(readers))
	for i, r := range readers {
		keep[i] = r.keep
	}
	q := p.listQuery(keep)
	start := time.Now()
	st, err := p.run(ctx, q, fanOut(readers))
	took := time.Since(start)
	p.logFinished(ctx, st, len(readers), took)
	return sharedRun{stats: st, err: err}
}

// run reads the listing: through the cache where the engine has one, else
// in full.
func (p *readPlan[T]) run(ctx context.Context, q listQuery, to emitters[T]) (listStats, error) {
	if p.e.snapshots != nil {
		return p.readCached(ctx, q, to)
	}
	return p.readFull(ctx, q, to)
}

// fanOut hands each record to every reader that still wants it: up to
// its MaxResults, and late records past it (the state keeps the first
// MaxResults of the late and the others together). A reader whose Emit
// fails, or whose read gave up, gets no more records; once none is left
// the listing stops with the first reader's error.
func fanOut[T commerce.Record](readers []*sharedReader[T]) emitters[T] {
	deliver := func(rec T, late bool) error {
		for _, r := range readers {
			if r.err != nil || r.ctx.Err() != nil {
				continue
			}
			if !late && r.keep.MaxResults > 0 && r.listed >= r.keep.MaxResults {
				continue
			}
			emit := r.to.Emit
			if late && r.to.Late != nil {
				emit = r.to.Late
			}
			if err := emit(rec); err != nil {
				r.err = err
				continue
			}
			r.listed++
		}
		if !anyLeft(readers) {
			return firstReaderError(readers)
		}
		return nil
	}
	return emitters[T]{
		emit: func(rec T) error { return deliver(rec, false) },
		late: func(rec T) error { return deliver(rec, true) },
	}
}

// anyLeft reports whether a reader still takes records.
func anyLeft[T commerce.Record](readers []*sharedReader[T]) bool {
	for _, r := range readers {
		if r.err == nil && r.ctx.Err() == nil {
			return true
		}
	}
	return false
}

// firstReaderError is why the readers stopped taking records: the first
// reader's error, else its read's.
func firstReaderError[T commerce.Record](readers []*sharedReader[T]) error {
	for _, r := range readers {
		if r.err != nil {
			return r.err
		}
	}
	for _, r := range readers {
		if err := r.ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// logFinished says at INFO how a listing was served and what it cost in
// pages (the transport's own counts, retries and 429s included, are the
// reader's: its caller asks the client).
func (p *readPlan[T]) logFinished(ctx context.Context, st listStats, readers int, took time.Duration) {
	fields := map[string]any{
		"resource": p.kind.Name, "total": st.Total, "listed": st.Listed, "page_requests": st.Pages,
		"windows": st.Windows, "strategy": st.Strategy, "readers": readers, "duration_ms": took.Milliseconds(),
	}
	if st.Cache != "" {
		fields["cache"] = st.Cache
		if st.Cache == cacheRefreshed {
			fields["changed"], fields["removed"] = st.Changed, st.Removed
		} else {
			fields["cache_reason"] = strings.TrimSpace(st.CacheReason)
		}
	}
	p.e.log.Info(ctx, "listing finished", fields)
}
