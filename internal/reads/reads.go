package reads

// What Reads are made of, what a read gets, and what a listing reports as
// it is served (runStats).

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/logging"
)

// Options configure Reads. Zero values take the defaults.
type Options struct {
	Logger logging.Logger
	// Snapshots, if set, keeps each listing's snapshot between runs, so
	// that a later read of the same listing asks only what changed
	// (cached.go).
	Snapshots Snapshots
	// Announced, if set, holds the reads announced before they arrive
	// (the provider announces each data source Terraform validates, which
	// it does just before reading it): a listing gathers the reads that
	// need it while announced reads are still on their way, and starts once
	// none is. Without it nobody announces reads, and none waits for
	// another.
	Announced *coalesce.Announced
}

// Reads serves the reads of one provider configuration on its engine.
type Reads struct {
	engine    *listing.Engine
	log       logging.Logger
	snapshots Snapshots
	// keptBytes is what the listings' records kept for the reads that
	// come late take, estimated (keeping; at most keptBound).
	// Shared by every copy Using makes.
	keptBytes *atomic.Int64
	// shared lets the reads that need one listing share it: one Group
	// for every read of the configuration, whatever Getter each uses.
	shared *coalesce.Group[any, sharedRun]
}

// New serves reads on e.
func New(e *listing.Engine, opts Options) *Reads {
	r := &Reads{engine: e, log: opts.Logger, snapshots: opts.Snapshots, keptBytes: &atomic.Int64{}, shared: &coalesce.Group[any, sharedRun]{}}
	if r.log == nil {
		r.log = logging.Discard{}
	}
	r.shared.Ahead = opts.Announced
	return r
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

// runStats is a listing's Stats, and how the cache served it.
type runStats struct {
	listing.Stats
	// Cache says how a cached read served the listing (cache*), and
	// CacheReason why it read in full; both empty without a cache.
	Cache, CacheReason string
	// Changed, Reread and Removed count, for a refresh, the records that
	// changed since the snapshot (new ones included), those read again
	// unchanged by the look-back, and those found gone.
	Changed, Reread, Removed int
}

// Snapshots keeps listings' snapshots between runs, by name; where and
// how is the caller's business (the provider's cache_dir).
type Snapshots interface {
	// Load returns what Save kept under name: nil and no error when there
	// is nothing, an error when what is there cannot be used.
	Load(name string) ([]byte, error)
	// Save keeps data under name. An error wrapping ErrNotKept is a
	// snapshot the store chose not to keep (larger than its bound), which
	// a read says at INFO; any other error is a store that failed.
	Save(name string, data []byte) error
}

// ErrNotKept is how Snapshots.Save declines a snapshot it could keep no
// room for.
var ErrNotKept = errors.New("snapshot not kept")

// How a cached read served a listing, as runStats.Cache reports it.
const (
	// cacheRefreshed: from the snapshot, asking the service only what
	// changed since.
	cacheRefreshed = "refreshed"
	// cacheFull: read in full; runStats.CacheReason says why.
	cacheFull = "full read"
	// cacheRecent: from the records an earlier listing of the same list
	// handed out in this run, asking the service only what changed since
	// (read.go's keeping). Not a cache between runs: no cache_dir needed.
	cacheRecent = "refreshed from this run"
)

// strategies name how a refresh served a listing, as the INFO line's
// strategy field says it.
var strategies = map[string]string{
	cacheRefreshed: "refreshed from the cache",
	cacheRecent:    "refreshed from an earlier listing in this run",
}

// keptListing is what a listing handed out, kept for the reads of its list
// that come late.
type keptListing struct {
	records       any // []T
	json          bool
	createdBefore time.Time
	took          time.Duration
	bytes         atomic.Int64 // of keptBound, until released
}

// sharedRun is what a listing hands every read that shared it, and what
// it kept for the reads of its list that come late (nil: nothing).
type sharedRun struct {
	stats runStats
	err   error
	kept  *keptListing
}
