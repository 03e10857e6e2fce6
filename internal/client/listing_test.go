package client

// The transport's tests drive it with the listing engine, as the provider
// does: a listing is the workload that shows retries, throttling and
// tokens at scale. These helpers run one on the engine alone, its
// requests counted as the provider counts a read's (a Trace of its
// context).

import (
	"context"
	"sync"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// ListQuery is what a listing asks.
type ListQuery = listing.Query

// ListStats is what the engine and the transport counted of one listing.
type ListStats struct {
	listing.Stats
	TraceStats
}

// pageSizes holds the page size newClient was given for a Client's
// listings, where a test set one; else they use the service's maximum.
var pageSizes sync.Map // *Client -> int

// List lists kind through c on an engine of its own, with as many workers
// as c lets requests fly, its requests counted as the provider counts them
// (a Trace of the read's context, ended by Finish).
func List[T commerce.Record](ctx context.Context, c *Client, kind commerce.Kind[T], q ListQuery, emit func(T) error) (ListStats, error) {
	size, _ := pageSizes.Load(c)
	pageSize, _ := size.(int)
	e, err := listing.New(c, listing.Options{PageSize: pageSize, MaxParallelRequests: c.cfg.MaxParallelRequests, Logger: c.cfg.Logger})
	if err != nil {
		return ListStats{}, err
	}
	ctx, t := WithTrace(ctx)
	start := time.Now()
	l, err := listing.Plan(e, kind, q)
	if err != nil {
		return ListStats{}, err
	}
	st, err := l.Read(ctx, l.Need([]ListQuery{q}), listing.Reader[T]{Emit: emit})
	counted, err := c.Finish(ctx, t, kind.Name, kind.Path, time.Since(start), err)
	return ListStats{Stats: st, TraceStats: counted}, err
}

// Get looks one record up through c.
func Get[T commerce.Record](ctx context.Context, c *Client, kind commerce.Kind[T], id string, includeJSON bool) (T, error) {
	e, err := listing.New(c, listing.Options{Logger: c.cfg.Logger})
	if err != nil {
		var zero T
		return zero, err
	}
	return listing.Lookup(ctx, e, kind, id, includeJSON)
}
