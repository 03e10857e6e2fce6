package provider

import (
	"context"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/hashicorp/terraform-plugin-log/tflog"
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
	e, err := listing.New(c, opts)
	if err != nil {
		return nil, err
	}
	return &configuredStore{transport: c, engine: e}, nil
}

// read runs one read of endpoint through the engine, its requests counted
// by the transport in a trace of the read's own (a read served by another
// read's listing counts none), and says at INFO what the read cost; the
// transport warns there of any 429 the read met.
func (c *configuredStore) read(ctx context.Context, endpoint commerce.Endpoint, run func(ctx context.Context) (listing.Result, error)) (listing.Result, error) {
	ctx, trace := client.WithTrace(ctx)
	start := time.Now()
	res, err := run(ctx)
	took := time.Since(start)
	counted, err := c.transport.Finish(ctx, trace, endpoint.Name, endpoint.Path, took, err)
	tflog.Info(ctx, "read finished", map[string]any{
		"resource": endpoint.Name, "requests": counted.Requests, "retries": counted.Retries,
		"throttled_429": counted.Throttled, "budget_per_s": counted.Budget, "shared": res.Shared,
		"listed": res.Listed, "duration_ms": took.Milliseconds(),
	})
	return res, err
}
