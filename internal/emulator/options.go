package emulator

import (
	"io"
	"time"
)

// Options configure a Server. Zero values take the documented defaults.
type Options struct {
	// Seed selects the generated data: the same Options give the same
	// records, ids and order.
	Seed int64
	// Record counts. 0 takes the default (2,500 orders, 300 files, 250
	// accounts, 200 customers, 40 hierarchies); a negative count means
	// none.
	Orders, Files, Accounts, Customers, Hierarchies int
	// BaseTime is the created_at of the first record of each resource.
	// Default 2024-01-01T00:00:00Z. Records span at most a year after it.
	BaseTime time.Time
	// Tie groups: the sizes of groups of records sharing one exact
	// created_at (and updated_at), placed around evenly spaced points of the
	// range (the middle for one group). nil takes the default of one group
	// of 350 orders, 40 files, 30 accounts, 30 customers or 10 hierarchies
	// (smaller for small counts); an empty non-nil slice means none.
	OrderTieGroups, FileTieGroups, AccountTieGroups []int
	CustomerTieGroups, HierarchyTieGroups           []int
	// FileSizeTieGroups are the sizes of groups of files sharing one exact
	// file_size that no other file has (e.g. 10,001, more than one list can
	// page through by offset). Default none: sizes spread from 512 B to
	// 20 MiB.
	FileSizeTieGroups []int

	// ClientID and ClientSecret are the accepted credentials. Default
	// "emulator-client-id" and "emulator-client-secret".
	ClientID, ClientSecret string
	// TokenLifetime is the lifetime of issued tokens. Default 1h.
	TokenLifetime time.Duration
	// TokenRequests is how many resource requests each token is accepted
	// for; later ones get 401 as if it had been revoked. 0 means unlimited.
	TokenRequests int

	// Latency is added to every request, the token endpoint included.
	Latency time.Duration
	// RateLimit is the store's budget in requests per second, shared by
	// every endpoint and the token endpoint: at most floor(RateLimit)
	// requests in any sliding window of one second (below 1, one request
	// per 1/RateLimit seconds). Excess requests get 429 with the errors
	// body and, as the real service documents, no Retry-After. 0 means
	// unlimited.
	RateLimit float64
	// RateLimitCountsRefused makes refused requests count in the window
	// too, as a stricter store does: a client that keeps sending while
	// throttled stays throttled.
	RateLimitCountsRefused bool
	// RateLimitRetryAfter adds Retry-After (whole seconds until the window
	// has room) to the rate limit's 429s, as some gateways do.
	RateLimitRetryAfter bool
	// Faults, if set, is consulted for every request; see SetFaults.
	Faults FaultFunc

	// DefaultPageLimit is the page size without page[limit]. Default 25.
	DefaultPageLimit int
	// MaxPageLimit is the largest page[limit] accepted. Default 100.
	MaxPageLimit int
	// Aliases serves a resource at another list path too, by path
	// ("/v2/members" -> "customers"): an endpoint the provider's
	// capability table does not know, with the capabilities of the one it
	// stands for, for tests of how the provider finds them out. The path
	// must be below a resource prefix (/v2, /pcm).
	Aliases map[string]string
	// OffsetLimit is the largest page[offset] accepted. Default 10,000. It
	// is a hard limit for orders and files and a soft one, the store's
	// setting, for the other resources.
	OffsetLimit int
	// LenientSoftOffsetLimit lets the resources with the soft offset limit
	// (accounts, customers, hierarchies) serve offsets above OffsetLimit.
	// By default they are refused with 400 like the hard limit. See also
	// SetSoftOffsetLimitEnforced.
	LenientSoftOffsetLimit bool

	// MaxFilterTerms is the most terms a request's filter may have; more
	// get 400, as on the real service. Default 10; negative: no limit.
	MaxFilterTerms int
	// MaxFilterRequestBytes is the longest request target (path and query)
	// of a request with a filter; longer ones get 400. Default 8192, the
	// service's 8 KB; negative: no limit.
	MaxFilterRequestBytes int

	// StringStatus sends the status of JSON:API errors as a string ("400")
	// instead of a number, as the real service sometimes does.
	StringStatus bool
	// FlatTimestamps puts created_at and updated_at at the top level of
	// records and page and results at the top level of list bodies (the
	// documented flat form) instead of under meta.
	FlatTimestamps bool
	// IgnoreSort lists resources ("orders", "files", "accounts",
	// "customers", "hierarchies") whose list endpoint accepts any sort
	// value and ignores it, serving its default order, as a looser service
	// would. By default an unsupported sort gets 400, and files and
	// hierarchies refuse every sort. See also SetIgnoreSort.
	IgnoreSort []string
	// Counting is how the store counts a list's matches when a request
	// does not ask (page[total_method]), and whether it honours one that
	// asks for an exact count: counts.go. The zero value counts exactly
	// and sends no total_method, as the documented API does.
	Counting Counting
	// CountingFor counts the resources it names ("orders", "accounts",
	// ...) otherwise than the store.
	CountingFor map[string]Counting
	// ShuffleTies gives the records of a sorted list that share the sort
	// value in another order on every request, as a store that sorts on a
	// non-unique key may (the vendor documents no order among ties).
	ShuffleTies bool

	// Now is the wall clock used for timestamps of writes (which are also
	// always later than every seeded timestamp and strictly increasing).
	// Default time.Now.
	Now func() time.Time
	// RequestLogSize is the number of recent requests kept in Stats.
	// Default 10,000; negative keeps none.
	RequestLogSize int
	// RequestLines, when set, gets one line per finished request (the
	// command's -request-log): when it came, method, target, status and
	// duration, so that a user sees what a plan sent.
	RequestLines io.Writer
	// CacheSize is the number of filtered and sorted results kept. Default
	// 32; negative disables the cache.
	CacheSize int

	// StoreID is the id of the store behind the credentials, as GET
	// /v2/settings gives it. Default: a UUID drawn from Seed, so that
	// another seed is another store.
	StoreID string
	// StoreName is the store's name, as GET /v2/stores/{id} gives it.
	// Default "Emulator store".
	StoreName string
	// StoreNameForbidden answers GET /v2/stores/{id} with 403, as the
	// service does for a key without access to the store endpoint (the
	// vendor's CLI then goes without the name).
	StoreNameForbidden bool
}

// Defaults of Options.
const (
	DefaultOrders        = 2500
	DefaultFiles         = 300
	DefaultAccounts      = 250
	DefaultCustomers     = 200
	DefaultHierarchies   = 40
	DefaultClientID      = "emulator-client-id"
	DefaultClientSecret  = "emulator-client-secret"
	DefaultTokenLifetime = time.Hour
	DefaultStoreName     = "Emulator store"
	DefaultPageLimit     = 25
	MaxPageLimit         = 100
	OffsetLimit          = 10000
)

// DefaultBaseTime is the default Options.BaseTime.
var DefaultBaseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func (o Options) withDefaults() Options {
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	for _, r := range resources {
		defInt(r.gen.count(&o), r.gen.defaultCount)
	}
	defInt(&o.MaxPageLimit, MaxPageLimit)
	defInt(&o.DefaultPageLimit, DefaultPageLimit)
	o.DefaultPageLimit = min(o.DefaultPageLimit, o.MaxPageLimit)
	defInt(&o.OffsetLimit, OffsetLimit)
	defInt(&o.MaxFilterTerms, DefaultMaxFilterTerms)
	defInt(&o.MaxFilterRequestBytes, DefaultMaxFilterRequestBytes)
	defInt(&o.RequestLogSize, 10000)
	defInt(&o.CacheSize, 32)
	if o.BaseTime.IsZero() {
		o.BaseTime = DefaultBaseTime
	}
	o.BaseTime = o.BaseTime.UTC().Truncate(time.Millisecond)
	if o.ClientID == "" {
		o.ClientID = DefaultClientID
	}
	if o.ClientSecret == "" {
		o.ClientSecret = DefaultClientSecret
	}
	if o.TokenLifetime <= 0 {
		o.TokenLifetime = DefaultTokenLifetime
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.StoreID == "" {
		o.StoreID = newUUID(newRand(o.Seed, streamStore))
	}
	if o.StoreName == "" {
		o.StoreName = DefaultStoreName
	}
	return o
}
