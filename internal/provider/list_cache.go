package provider

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/commerce-tf/terraform-provider-commerce/internal/cache"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// The cache between plans (cache_dir): the engine refreshes the snapshot
// of an earlier listing, asking the service only what changed
// (internal/listing's cached.go); internal/cache keeps the snapshots on
// disk, encrypted. Here the two meet.

// cacheMaxAgeText is how long an entry is used, in words, for the docs.
var cacheMaxAgeText = fmt.Sprintf("%.0f hours", cache.DefaultMaxAge.Hours())

// openCache opens the cache folder of cache_dir or its variable, if set,
// as the engine's snapshot store; nil when neither is set.
func openCache(ctx context.Context, attr types.String, set settings) (listing.Snapshots, diag.Diagnostics) {
	var diags diag.Diagnostics
	dir := attr.ValueString()
	from := "cache_dir"
	if attr.IsNull() {
		dir, from = os.Getenv(envCacheDir), envCacheDir
	}
	if dir == "" {
		return nil, diags
	}
	store, err := cache.Open(dir, set.clientSecret, cache.Options{})
	if err != nil {
		diags.AddAttributeError(path.Root("cache_dir"), "Unusable cache_dir",
			fmt.Sprintf("The cache folder from %s cannot be used: %v. Fix the folder, point %s elsewhere, or unset it to read without a cache.", from, err, from))
		return nil, diags
	}
	tflog.Info(ctx, "list results are cached between runs", map[string]any{"cache_dir": dir})
	// The store's identity: the same listing on another store, or as
	// another client, is another entry.
	return cacheSnapshots{store: store, scope: set.baseURL + "\x00" + set.clientID}, diags
}

// cacheSnapshots is the cache folder as the engine keeps its snapshots:
// each entry named by the store's identity and the listing's name.
type cacheSnapshots struct {
	store *cache.Store
	scope string
}

func (c cacheSnapshots) Load(name string) ([]byte, error) {
	data, _, err := c.store.Load(c.scope + "\x00" + name)
	if errors.Is(err, cache.ErrNotFound) {
		return nil, nil
	}
	return data, err
}

func (c cacheSnapshots) Save(name string, data []byte) error {
	return c.store.Save(c.scope+"\x00"+name, data)
}
