package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/commerce-tf/terraform-provider-commerce/internal/cache"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// The cache between plans (cache_dir): the engine refreshes a snapshot of
// an earlier listing of the same query, asking the service only what
// changed (internal/listing's ListCached); internal/cache keeps the
// snapshots on disk, encrypted. Here the two meet: a snapshot is loaded
// before a list read and saved after it.

// cacheMaxAgeText is cache.DefaultMaxAge in words, for the docs.
const cacheMaxAgeText = "24 hours"

// openCache opens the cache folder of cache_dir or its variable, if set.
func (s *service) openCache(ctx context.Context, attr types.String, set settings) diag.Diagnostics {
	var diags diag.Diagnostics
	dir := attr.ValueString()
	from := "cache_dir"
	if attr.IsNull() {
		dir, from = os.Getenv(EnvCacheDir), EnvCacheDir
	}
	if dir == "" {
		return diags
	}
	store, err := cache.Open(dir, set.clientSecret, cache.Options{})
	if err != nil {
		diags.AddAttributeError(path.Root("cache_dir"), "Unusable cache_dir",
			fmt.Sprintf("The cache folder from %s cannot be used: %v. Fix the folder, point %s elsewhere, or unset it to read without a cache.", from, err, from))
		return diags
	}
	s.cache = store
	// The store's identity: the same query on another store, or as
	// another client, is another entry.
	s.cacheScope = set.baseURL + "\x00" + set.clientID
	tflog.Info(ctx, "list results are cached between runs", map[string]any{"cache_dir": dir})
	return diags
}

// loadSnapshot returns the snapshot kept for key, or nil, saying why at
// INFO.
func (s *service) loadSnapshot(ctx context.Context, key, resource string) *listing.Snapshot {
	data, _, err := s.cache.Load(s.cacheScope + "\x00" + key)
	if err != nil {
		if !errors.Is(err, cache.ErrNotFound) {
			tflog.Info(ctx, "cache: entry not used, reading in full", map[string]any{"resource": resource, "reason": err.Error()})
		}
		return nil
	}
	snap := &listing.Snapshot{}
	if err := snap.UnmarshalBinary(data); err != nil {
		tflog.Info(ctx, "cache: entry not used, reading in full", map[string]any{"resource": resource, "reason": err.Error()})
		return nil
	}
	return snap
}

// saveSnapshot keeps snap for key; a failure is logged, not an error: the
// next read reads in full.
func (s *service) saveSnapshot(ctx context.Context, key, resource string, snap *listing.Snapshot) {
	data, err := snap.MarshalBinary()
	if err == nil {
		err = s.cache.Save(s.cacheScope+"\x00"+key, data)
	}
	if err != nil {
		tflog.Warn(ctx, "cache: entry not saved", map[string]any{"resource": resource, "error": err.Error()})
	}
}

// listThroughCache lists q like list does, through the cache when it is
// on: from the snapshot kept for key, and keeping the new one.
func listThroughCache[T commerce.Record](ctx context.Context, s *service, key string, kind commerce.Kind[T], q listing.Query, emit func(T) error) (listing.Stats, clientTrace, error) {
	if s.cache == nil {
		return list(ctx, s, kind, q, emit)
	}
	prev := s.loadSnapshot(ctx, key, kind.Name)
	var snap *listing.Snapshot
	stats, requests, err := traced(ctx, s, kind, func(ctx context.Context) (stats listing.Stats, err error) {
		stats, snap, err = listing.ListCached(ctx, s.engine, kind, q, prev, emit)
		return stats, err
	})
	if err == nil && snap != nil {
		s.saveSnapshot(ctx, key, kind.Name, snap)
	}
	return stats, requests, err
}

// cacheFields are the end-of-listing line's words on the cache.
func cacheFields(stats listing.Stats) map[string]any {
	if stats.Cache == "" {
		return nil
	}
	f := map[string]any{"cache": stats.Cache}
	if stats.Cache == listing.CacheRefreshed {
		f["changed"], f["removed"] = stats.Changed, stats.Removed
	} else {
		f["cache_reason"] = strings.TrimSpace(stats.CacheReason)
	}
	return f
}
