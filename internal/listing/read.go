package listing

import (
	"context"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Query is one read of a list endpoint: which records, in what order, and
// what the reader keeps of them.
type Query struct {
	Filter string // a filter expression, or empty for all records
	Sort   string // "attr" or "-attr"; empty means the endpoint's DefaultSort
	// ConsistencyBuffer, if set, leaves out records created less than this
	// long before the listing started: the service is eventually
	// consistent, and the newest records may not all be visible yet.
	ConsistencyBuffer time.Duration

	// What the reader keeps: the first MaxResults records (0: all), and
	// each record's raw JSON or not.
	MaxResults  int
	IncludeJSON bool
	// CountMatches says the reader reports how many records match, also
	// past MaxResults: the listing asks the service for an exact count
	// (page[total_method]=exact) on its first request, and reports it
	// where the service says it is (Result.TotalKnown).
	CountMatches bool
}

// Reader receives one read's records.
type Reader[T commerce.Record] struct {
	// Emit receives the records in the query's order, at most MaxResults.
	Emit func(T) error
	// Late receives, for sort -updated_at, the records that were updated
	// while the listing ran and so moved ahead of those already listed:
	// they sort before everything Emit received, newest first. Nil hands
	// them to Emit as they are found.
	Late func(T) error
}

// Result is what a read got.
type Result struct {
	// Total is how many records match the query's filter (the records the
	// consistency buffer leaves out are not counted) where TotalKnown:
	// those listed when the listing reached its end, or, when it stopped
	// at MaxResults, the service's count where it said that count is
	// exact. Otherwise Total is what was listed, and more match.
	Total      int
	TotalKnown bool
	// Count is the service's count of the query's matches, from the
	// listing's first request: for messages where Total is not known.
	Count commerce.Count
	// Listed is the records the reader received, late ones included.
	Listed int
	// Shared is true when a listing another read started served this one.
	Shared bool
	// Split says how a long in() was split over several requests (Parts
	// nil: not split), and Pages how many list requests the listing made.
	Split filter.InSplit
	Pages int
}

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
	me := &reader[T]{ctx: ctx, keep: q, to: to}
	out, shared, err := e.reads.Do(ctx, p.name, me, func(ctx context.Context, joined []any) listed {
		return p.serve(ctx, readersOf[T](joined))
	})
	if err != nil {
		return Result{}, err
	}
	if shared {
		e.log.Debug(ctx, "served by another read's listing, which was starting when this one arrived", map[string]any{
			"resource": kind.Name, "filter": q.Filter, "sort": p.key.param(),
		})
	}
	total, known := me.total(out.stats)
	res := Result{Total: total, TotalKnown: known, Count: out.stats.Count, Listed: me.listed, Shared: shared, Split: p.split, Pages: out.stats.Pages}
	if me.err != nil {
		return res, me.err
	}
	return res, out.err
}
