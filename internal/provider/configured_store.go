package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/commerce-tf/terraform-provider-commerce/internal/cache"
	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// configuredStore is what a configured provider hands its data sources and its
// ephemeral resource: the transport (one token, one request budget), the
// listing engine on it, which plans every read, and the reads around the
// engine (internal/reads), which share listings among the reads that need
// one and keep the cache.
type configuredStore struct {
	transport *client.Client
	engine    *listing.Engine
	// reads serves list reads on the engine: sharing a listing, through
	// the cache.
	reads *reads.Reads
	// cache is the cache folder, nil without one.
	cache *diskCache
}

// The transport is what the engine sends its requests through.
var _ listing.Getter = (*client.Client)(nil)

// newConfiguredStore builds the transport from cfg, the engine on it, and the
// reads around the engine.
func newConfiguredStore(cfg client.Config, opts listing.Options, ropts reads.Options) (*configuredStore, error) {
	c, err := client.New(cfg)
	if err != nil {
		return nil, err
	}
	e, err := listing.New(c, opts)
	if err != nil {
		return nil, err
	}
	ropts.Logger = opts.Logger
	return &configuredStore{transport: c, engine: e, reads: reads.New(e, ropts)}, nil
}

// storeRead is one read of the store: the engine and the reads around it
// that the read sends through, on a Meter of its own, which counts what
// the read costs (a read served by another read's listing costs nothing).
type storeRead struct {
	engine   *listing.Engine
	reads    *reads.Reads
	meter    *client.Meter
	endpoint commerce.Endpoint
}

// startRead starts a read of endpoint.
func (c *configuredStore) startRead(endpoint commerce.Endpoint) *storeRead {
	m := c.transport.Meter()
	e := c.engine.Using(m)
	return &storeRead{engine: e, reads: c.reads.Using(e), meter: m, endpoint: endpoint}
}

// finish ends the read, which got res and ended in err: it says at INFO
// what the read cost, and returns err as the transport words it (the
// transport warns there of any 429 the read met).
func (r *storeRead) finish(ctx context.Context, res reads.Result, err error) error {
	cost, err := r.meter.Finish(ctx, r.endpoint.Name, r.endpoint.Path, err)
	tflog.Info(ctx, "read finished", map[string]any{
		"resource": r.endpoint.Name, "requests": cost.Requests, "retries": cost.Retries,
		"throttled_429": cost.Throttled, "budget_per_s": cost.Budget, "shared": res.Shared,
		"listed": res.Listed, "duration_ms": cost.Elapsed.Milliseconds(),
	})
	return err
}

// finishLookup is finish for a read of one record, or of the store's
// settings, that ended in err.
func (r *storeRead) finishLookup(ctx context.Context, err error) error {
	res := reads.Result{}
	if err == nil {
		res.Listed = 1
	}
	return r.finish(ctx, res, err)
}

// The cache between plans (cache_dir): internal/reads refreshes the
// snapshot of an earlier listing, asking the service only what changed
// (its cached.go, with internal/refresh); internal/cache keeps the
// snapshots on disk, encrypted and bounded in size. Here the two meet, and a cache
// that does nothing is said to the user once per plan.

// cacheMaxAgeText is how long an entry is used, in words, for the docs.
var cacheMaxAgeText = fmt.Sprintf("%.0f hours", cache.DefaultMaxAge.Hours())

// defaultCacheMaxMB is cache_max_mb's default, cache.DefaultMaxBytes in MiB.
const defaultCacheMaxMB = cache.DefaultMaxBytes >> 20

// openCache opens the cache folder of cache_dir or its variable, bounded
// by cache_max_mb or its variable; nil when no folder is set. A folder
// others can write is an error; one that cannot be used otherwise is a
// warning, and the plan reads without a cache.
func openCache(ctx context.Context, cfg providerModel, set resolvedConfig) (*diskCache, diag.Diagnostics) {
	dir, from := cfg.CacheDir.ValueString(), "cache_dir"
	if cfg.CacheDir.IsNull() {
		dir, from = os.Getenv(envCacheDir), envCacheDir
	}
	maxMB, diags := cacheMaxMB(cfg.CacheMaxMB)
	if dir == "" || diags.HasError() {
		return nil, diags
	}
	dir, err := expandHome(dir)
	if err != nil {
		diags.AddAttributeError(path.Root("cache_dir"), "Invalid cache_dir", fmt.Sprintf("The cache folder from %s %v.", from, err))
		return nil, diags
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	store, err := cache.Open(dir, set.clientSecret, cache.Options{MaxBytes: maxMB << 20})
	switch {
	case errors.Is(err, cache.ErrInsecure):
		diags.AddAttributeError(path.Root("cache_dir"), "Unsafe cache_dir",
			fmt.Sprintf("The cache folder from %s is refused: %v. Other users who can write a folder can remove or replace what the provider keeps there.", from, err))
		return nil, diags
	case err != nil:
		diags.AddAttributeWarning(path.Root("cache_dir"), "Cache not used",
			fmt.Sprintf("The cache folder %s (from %s) cannot be used: %v. This run reads every list from the store in full. Make the folder writable, point %s elsewhere, or unset it.", dir, from, err, from))
		return nil, diags
	}
	tflog.Info(ctx, "list results are cached between runs", map[string]any{"cache_dir": dir, "cache_max_mb": maxMB})
	// The store's identity: the same listing on another store, or as
	// another client, is another entry.
	return &diskCache{store: store, dir: dir, scope: set.baseURL + "\x00" + set.clientID}, diags
}

// expandHome reads a leading ~ of a folder as the shell would: "~" and
// "~/…" are the home folder, so that cache_dir = "~/.cache/commerce" does
// not make a folder named "~" where Terraform runs. "~name/…" (another
// user's home) is refused rather than taken literally.
func expandHome(dir string) (string, error) {
	rest, ok := strings.CutPrefix(dir, "~")
	if !ok {
		return dir, nil
	}
	if rest != "" && rest[0] != '/' && rest[0] != filepath.Separator {
		return "", fmt.Errorf("%q starts with ~%s, another user's home folder, which the provider does not look up; write the folder's full path", dir, strings.SplitN(rest, "/", 2)[0])
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%q starts with ~, but the home folder is not known (%v); write the folder's full path", dir, err)
	}
	return filepath.Join(home, rest), nil
}

// cacheMaxMB is cache_max_mb, else its environment variable, which no
// schema validator sees, else the default.
func cacheMaxMB(v types.Int64) (int64, diag.Diagnostics) {
	var diags diag.Diagnostics
	env := os.Getenv(envCacheMaxMB)
	switch {
	case !v.IsNull():
		return v.ValueInt64(), diags
	case env == "":
		return defaultCacheMaxMB, diags
	}
	n, err := strconv.ParseInt(env, 10, 64)
	if err != nil || n < 1 || n > maxCacheMaxMB {
		diags.AddAttributeError(path.Root("cache_max_mb"), "Invalid cache_max_mb",
			fmt.Sprintf("%s=%q is not a whole number of MiB from 1 to %d, e.g. %d. Fix or unset the variable, or set cache_max_mb in the provider block.", envCacheMaxMB, env, maxCacheMaxMB, defaultCacheMaxMB))
	}
	return n, diags
}

// maxCacheMaxMB keeps cache_max_mb in bytes far from overflow: 1 PiB.
const maxCacheMaxMB = 1 << 30

// diskCache is the cache folder as the engine keeps its snapshots: each
// entry named by the store's identity and the listing's name. It
// remembers the first entry it failed to save, for one warning per plan.
type diskCache struct {
	store      *cache.Store
	dir, scope string

	mu      sync.Mutex
	failure error // the first failed save, until it is said
	said    bool
}

func (c *diskCache) Load(name string) ([]byte, error) {
	data, _, err := c.store.Load(c.scope + "\x00" + name)
	if errors.Is(err, cache.ErrNotFound) {
		return nil, nil
	}
	return data, err
}

func (c *diskCache) Save(name string, data []byte) error {
	err := c.store.Save(c.scope+"\x00"+name, data)
	switch {
	case errors.Is(err, cache.ErrTooLarge):
		return fmt.Errorf("%w: %w (cache_max_mb)", reads.ErrNotKept, err)
	case err != nil:
		c.mu.Lock()
		if c.failure == nil {
			c.failure = err
		}
		c.mu.Unlock()
	}
	return err
}

// warning is the Terraform warning for a save that failed, once per
// provider configuration (once per plan), for the first read to finish
// after it.
func (c *diskCache) warning() diag.Diagnostics {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failure == nil || c.said {
		return nil
	}
	c.said = true
	var diags diag.Diagnostics
	diags.AddWarning("Cache not kept",
		fmt.Sprintf("A list result could not be saved in the cache folder %s: %v. The reads themselves succeeded; the next plan reads what could not be saved in full. Free space or fix the folder's rights, point cache_dir elsewhere, or unset it. (Said once per plan.)", c.dir, c.failure))
	return diags
}

// tfLogger routes the client's log lines to terraform-plugin-log, so that
// TF_LOG and TF_LOG_PROVIDER control them. The client never hands it
// credentials or tokens.
type tfLogger struct{}

func (tfLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

func (tfLogger) Info(ctx context.Context, msg string, fields map[string]any) {
	tflog.Info(ctx, msg, fields)
}

func (tfLogger) Warn(ctx context.Context, msg string, fields map[string]any) {
	tflog.Warn(ctx, msg, fields)
}

// configureStore takes the provider's store from the ProviderData of a
// data source's or an ephemeral resource's ConfigureRequest. It is nil
// before the provider is configured (e.g. during validation).
func configureStore(providerData any, dst **configuredStore) diag.Diagnostics {
	var diags diag.Diagnostics
	if providerData == nil {
		return diags
	}
	c, ok := providerData.(*configuredStore)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *configuredStore, got %T; this is a bug in the provider, please report it", providerData))
		return diags
	}
	*dst = c
	return diags
}
