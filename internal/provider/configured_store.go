package provider

import (
	"context"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// configuredStore is what a configured provider hands its data sources and its
// ephemeral resource: the transport (one token, one request budget) and
// the listing engine on it, which plans every read, shares listings among
// the reads that need one, and keeps the cache.
type configuredStore struct {
	transport *client.Client
	engine    *listing.Engine
	// cache is the cache folder, nil without one.
	cache *diskCache
}

// The transport is what the engine sends its requests through.
var _ listing.Getter = (*client.Client)(nil)

// newService builds the transport from cfg and the engine on it.
func newService(cfg client.Config, opts listing.Options) (*configuredStore, error) {
	c, err := client.New(cfg)
	if err != nil {
		return nil, err
	}
	opts.Trace = traceOn(c)
	e, err := listing.New(c, opts)
	if err != nil {
		return nil, err
	}
	return &configuredStore{transport: c, engine: e}, nil
}

// traceOn counts each listing's requests in a trace of the transport's,
// which words the listing's error as throttling where the store's rate
// limit set the pace until the read's time ran out.
func traceOn(c *client.Client) listing.Tracer {
	return func(ctx context.Context) (context.Context, listing.TraceEnd) {
		ctx, trace := client.WithTrace(ctx)
		return ctx, func(ctx context.Context, endpoint commerce.Endpoint, elapsed time.Duration, err error) (listing.Requests, error) {
			counted, err := c.Finish(ctx, trace, endpoint.Name, endpoint.Path, elapsed, err)
			return listing.Requests{Sent: counted.Requests, Retries: counted.Retries, Throttled: counted.Throttled, BudgetPerSecond: counted.Budget}, err
		}
	}
}
