package listing

// Read: the one call a data source's read makes.

import (
	"context"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// Read lists what q asks of kind and hands it to to: the one way a data
// source reads a list. The engine plans the read once (plan.go): the sort,
// the filter within the service's limits, an in() split over several
// requests. Reads that need the same listing and arrive together share it,
// whatever each keeps (share.go); the listing is refreshed from the cache
// where the engine has one and can prove the result exact (cached.go),
// else read in full, in windows past the offset limit (list.go).
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
