package provider

import (
	"context"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/cache"
	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// service is what a configured provider hands its data sources and its
// ephemeral resource: the transport (one token, one request budget) and
// the listing engine on it (what it learned of the endpoints), and the
// reads in flight.
type service struct {
	transport *client.Client
	engine    *listing.Engine
	// reads lets identical list reads that arrive together share one
	// listing (shared_read.go).
	reads coalesce.Group[listOutcome]
	// cache keeps list results between runs (cache_dir; list_cache.go),
	// nil when off; cacheScope names the store in its keys.
	cache      *cache.Store
	cacheScope string
}

// newService builds the transport from cfg and the engine on it.
func newService(cfg client.Config, opts listing.Options) (*service, error) {
	c, err := client.New(cfg)
	if err != nil {
		return nil, err
	}
	e, err := listing.New(c, opts)
	if err != nil {
		return nil, err
	}
	return &service{transport: c, engine: e}, nil
}

// clientTrace is what the transport counted of a listing.
type clientTrace = client.TraceStats

// list runs one listing of kind on the engine (see traced).
func list[T commerce.Record](ctx context.Context, s *service, kind commerce.Kind[T], q listing.Query, emit func(T) error) (listing.Stats, clientTrace, error) {
	return traced(ctx, s, kind, func(ctx context.Context) (listing.Stats, error) {
		return listing.List(ctx, s.engine, kind, q, emit)
	})
}

// traced runs a listing of kind, counting its requests in a trace of the
// transport's: the engine's figures, the transport's, and the error, which
// the transport words as throttling where the store's rate limit set the
// pace until the read's time ran out.
func traced[T commerce.Record](ctx context.Context, s *service, kind commerce.Kind[T], run func(ctx context.Context) (listing.Stats, error)) (listing.Stats, clientTrace, error) {
	ctx, trace := client.WithTrace(ctx)
	start := time.Now()
	stats, err := run(ctx)
	requests, err := s.transport.Finish(ctx, trace, kind.Name, kind.Path, time.Since(start), err)
	return stats, requests, err
}
