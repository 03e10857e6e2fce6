package client

// The transport's tests drive it with the listing engine, as the provider
// does: a listing is the workload that shows retries, throttling and
// tokens at scale. These helpers run one on the engine alone, its
// requests counted as the provider counts a read's (a Meter of its own).

import (
	"context"
	"sync"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// ListQuery is what a listing asks.
type ListQuery = listing.Query

// ListStats is what the engine and the transport counted of one listing.
type ListStats struct {
	listing.Stats
	ReadCost
}

// pageSizes holds the page size newClient was given for a Client's
// listings, where a test set one; else they use the service's maximum.
var pageSizes sync.Map // *Client -> int

// List lists kind through c on an engine of its own, with as many workers
// as c lets requests fly, its requests counted as the provider counts them
// (a Meter of its own, ended by Finish).
func List[T commerce.Record](ctx context.Context, c *Client, kind commerce.Kind[T], q ListQuery, emit func(T) error) (ListStats, error) {
	size, _ := pageSizes.Load(c)
	pageSize, _ := size.(int)
	e, err := listing.New(c, listing.Options{PageSize: pageSize, MaxParallelRequests: c.cfg.MaxParallelRequests, Logger: c.cfg.Logger})
	if err != nil {
		return ListStats{}, err
	}
	m := c.Meter()
	l, err := listing.Plan(e.Using(m), kind, q)
	if err != nil {
		return ListStats{}, err
	}
	st, err := l.Read(ctx, l.Need([]ListQuery{q}), listing.Reader[T]{Emit: emit})
	cost, err := m.Finish(ctx, kind.Name, kind.Path, err)
	return ListStats{Stats: st, ReadCost: cost}, err
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
