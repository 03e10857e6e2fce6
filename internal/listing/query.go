package listing

// The values a read passes around: what it asks (Query), where its records
// go (Reader), what it gets (Result), and what a listing reports on the
// way (listStats, sharedRun).

import (
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Query is one read of a list endpoint: which records, in what order, and
// what the reader keeps of them.
type Query struct {
	// Filter is the filter expression, parsed once, by the caller; none
	// (its zero value) for all records.
	Filter filter.Parsed
	Sort   string // "attr" or "-attr"; empty means the endpoint's DefaultSort
	// ConsistencyBuffer, if set, leaves out records created less than this
	// long before the listing started: the service is eventually
	// consistent, and the newest records may not all be visible yet.
	ConsistencyBuffer time.Duration

	// What the reader keeps: the first MaxResults records (0: all), and
	// each record's raw JSON or not.
	MaxResults  int
	IncludeJSON bool
	// CountMatches says the reader reports how many records match, also
	// past MaxResults: the listing asks the service for an exact count
	// (page[total_method]=exact) on its first request, and reports it
	// where the service says it is (Result.TotalKnown).
	CountMatches bool
}

// Reader receives one read's records.
type Reader[T commerce.Record] struct {
	// Emit receives the records in the query's order, at most MaxResults.
	Emit func(T) error
	// Late receives, for sort -updated_at, the records that were updated
	// while the listing ran and so moved ahead of those already listed:
	// they sort before everything Emit received, newest first. Nil hands
	// them to Emit as they are found.
	Late func(T) error
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

// stats describes a finished (or failed) listing. What it cost in
// requests, retries and 429s the transport counts (its Trace, which the
// caller of Read reads).
type listStats struct {
	// Total is how many records match, where TotalKnown: those listed
	// when the listing reached its end, else the service's count where it
	// said it was exact. Otherwise Total is the records listed, the
	// matches at least.
	Total      int
	TotalKnown bool
	// Count is the service's count of the query's filter, from the first
	// page: a guess that sizes the listing, never what ends it.
	Count commerce.Count
	// cutHere is set when the provider leaves out records the service
	// counts (a consistency cut it applies itself): Count is no count of
	// the result then.
	cutHere bool
	Listed  int // records handed to the caller
	Pages   int // page requests the engine made (retries of one page count once)
	Windows int // offset windows traversed (see list)
	// Strategy says how the listing reached every record (strategy*).
	Strategy string
	// Cache says how a cached read served the listing (cache*), and
	// CacheReason why it read in full; both empty without a cache.
	Cache, CacheReason string
	// Changed and Removed count, for a refresh, the records the service
	// reported changed since the snapshot and those found gone.
	Changed, Removed int
}

// sharedRun is what a listing hands every read that shared it.
type sharedRun struct {
	stats listStats
	err   error
}
