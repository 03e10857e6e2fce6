package listing

// The values a read passes around: what it asks (Query), the listing that
// query is once planned (Listing, which every later step of the read takes
// what it needs from, down to the windows), where its records go (Reader),
// what its readers need of one listing together (Need), and what the
// listing reports (Stats).

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
	// where the service says it is (Stats.TotalKnown).
	CountMatches bool
}

// Listing is one read's query, planned once, before anything is sent:
// the sort key, the filter checked against the service's limits, and how
// its in() is split over several requests. Every later step of the read
// (sharing, the cache, the windows) takes what it needs from here;
// nothing about the query is parsed or worked out again.
type Listing[T commerce.Record] struct {
	e      *Engine
	kind   commerce.Kind[T]
	filter filter.Parsed
	key    sortKey
	// split is how the filter's in() is split; Parts is nil when one
	// request holds the filter.
	split  filter.InSplit
	buffer time.Duration
	// name identifies the listing the read needs (listingName).
	name string
	// quiet listings do not log their progress: those a read makes on
	// the way (a part of a split in(), a refresh's changes; derive).
	quiet bool
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
	// Counted, if set, receives the count the query's first page gives,
	// before the listing hands out a record: what a reader can tell from
	// it of the listing's size (a listing in parts gives the parts' sum,
	// a listing that opens its query again the count it gets then).
	Counted func(commerce.Count)
}

// Need is what the readers of one listing need of it together
// (Listing.Need): every record any of them keeps, with JSON if any keeps
// it, and the count if any reports it past its MaxResults.
type Need struct {
	// MaxResults is the most records any reader keeps (0: all).
	MaxResults  int
	IncludeJSON bool
	// ExactCount asks the service for an exact count on the first
	// request (Query.CountMatches).
	ExactCount bool
	// CreatedBefore, if set, leaves out the records created at or after
	// it: the consistency point, fixed as the listing starts.
	CreatedBefore time.Time
}

// Stats describes a finished (or failed) listing. What it cost in
// requests, retries and 429s the transport counts: the Getter the
// listing's Engine uses (Engine.Using) is the read's own.
type Stats struct {
	// Total is how many records match, where TotalKnown: those listed
	// when the listing reached its end, else the service's count where it
	// said it was exact. Otherwise Total is the records listed, the
	// matches at least.
	Total      int
	TotalKnown bool
	// Count is the service's count of the query's filter, from the first
	// page: a guess that sizes the listing, never what ends it.
	Count commerce.Count
	// CutHere is set when the provider leaves out records the service
	// counts (a consistency cut it applies itself): Count is no count of
	// the result then.
	CutHere bool
	Listed  int // records handed to the caller
	Pages   int // page requests the engine made (retries of one page count once)
	Windows int // windows traversed (see listAll)
	// Strategy says how the listing reached every record (strategy*).
	Strategy string
}
