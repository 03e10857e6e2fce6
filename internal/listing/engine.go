package listing

// The Engine: what it needs of the transport (Getter), its options, what
// it remembers of the endpoints while it lives, its errors, the room the
// service's limits leave in a filter, and the sort key every listing is
// read by (further down).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/logging"
)

// Getter is what the engine needs of the transport: GET path?query (path
// below the service's base address, query possibly nil) and hand the
// answer's body to decode; a decode error whose Final method returns true
// (a commerce.ProtocolError) ends the request, any other is retried.
// internal/client's Client is one; tests use fakes.
type Getter interface {
	Get(ctx context.Context, path string, query url.Values, decode func([]byte) error) error
}

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	// PageSize is the records per page, 1..commerce.MaxPageSize; 0 takes
	// commerce.DefaultPageSize.
	PageSize int
	// MaxParallelRequests is the most requests the transport lets be in
	// flight at once (it may start with fewer and grow toward it); a
	// listing keeps two more page requests queued, so that a worker
	// decoding a page never leaves a request slot idle. 0 takes the
	// Getter's own ceiling, where it says one (the transport does).
	MaxParallelRequests int
	Logger              logging.Logger
}

// inFlightCeiling is a Getter that says how many requests it lets be in
// flight at once, so that the engine need not repeat the number.
type inFlightCeiling interface{ MaxParallelRequests() int }

// requestExpecter is a Getter that wants to know how many requests a read
// expects to send, as soon as a listing's first page tells: the transport
// sizes its first steps at a store whose rate limit it has not met by
// them.
type requestExpecter interface{ Expect(requests int) }

// expect tells the Getter, if it wants to know, that a listing expects
// pages more requests.
func (e *Engine) expect(pages int) {
	if x, ok := e.get.(requestExpecter); ok && pages > 0 {
		x.Expect(pages)
	}
}

// Engine lists and looks up records through a Getter. One Engine serves
// every data source of a provider configuration, and remembers what it
// learned of the service's endpoints for as long as it lives: which ones
// refused or ignored a sort, and what a probe found out about endpoints
// the capability table does not know. It is safe for concurrent use.
//
// Each read sends through an Engine of its own (Using), on the same
// memory: the transport counts what the Getter it is handed sends, so a
// read's cost is counted by the read.
type Engine struct {
	get      Getter
	pageSize int
	workers  int
	log      logging.Logger

	// unsortable holds the endpoints (by path) that refused or ignored a
	// sort the capability table promised: listed without sort from then on.
	unsortable *sync.Map
	// probes holds, by path, what Probe found out about endpoints the
	// capability table does not know (*probeCall).
	probes *sync.Map
	// windowCaps holds, by path, the records one window reaches by offset
	// where the store refused an offset below commerce.OffsetLimit: a soft
	// limit (accounts and most endpoints) is a store's setting, which it
	// may set lower (page_offset_limit).
	windowCaps *sync.Map
}

// New checks opts and builds an Engine on get.
func New(get Getter, opts Options) (*Engine, error) {
	switch {
	case opts.PageSize == 0:
		opts.PageSize = commerce.DefaultPageSize
	case opts.PageSize < 1 || opts.PageSize > commerce.MaxPageSize:
		return nil, fmt.Errorf("page_size %d is outside 1..%d", opts.PageSize, commerce.MaxPageSize)
	}
	if c, ok := get.(inFlightCeiling); ok && opts.MaxParallelRequests == 0 {
		opts.MaxParallelRequests = c.MaxParallelRequests()
	}
	if opts.MaxParallelRequests < 1 {
		return nil, fmt.Errorf("max_parallel_requests %d must be at least 1", opts.MaxParallelRequests)
	}
	if opts.Logger == nil {
		opts.Logger = logging.Discard{}
	}
	return &Engine{get: get, pageSize: opts.PageSize, workers: opts.MaxParallelRequests + 2, log: opts.Logger,
		unsortable: &sync.Map{}, probes: &sync.Map{}, windowCaps: &sync.Map{}}, nil
}

// Using is e sending through get: the same options, and the same memory
// of the service's endpoints, which either learns. A read lists on an
// Engine using its own counting Getter (the transport's Meter).
func (e *Engine) Using(get Getter) *Engine {
	read := *e
	read.get = get
	return &read
}

// sortUnusable reports whether path refused or ignored sort= earlier.
func (e *Engine) sortUnusable(path string) bool {
	_, ok := e.unsortable.Load(path)
	return ok
}

// markSortUnusable records that path cannot sort, once, and says so.
func (e *Engine) markSortUnusable(ctx context.Context, path, sort, cause string) {
	if _, loaded := e.unsortable.LoadOrStore(path, cause); !loaded {
		e.log.Info(ctx, "the service does not sort this endpoint as documented; listing it in the service's own order from now on", map[string]any{
			"path": path, "sort": sort, "cause": cause,
		})
	}
}

// windowCap is how many records one window of path reaches by offset:
// the service's offset limit in whole pages, or what the store served
// before it refused an offset below that.
func (e *Engine) windowCap(path string) int {
	if n, ok := e.learnedWindowCap(path); ok {
		return n
	}
	return (commerce.OffsetLimit / e.pageSize) * e.pageSize
}

// learnedWindowCap is path's window cap where the store refused an
// offset below the service's limit; ok is false where none did.
func (e *Engine) learnedWindowCap(path string) (n int, ok bool) {
	v, found := e.windowCaps.Load(path)
	n, ok = v.(int)
	return n, found && ok
}

// lowerWindowCap records that path's windows reach reach records at most,
// where the store refused the next page's offset, and says so once per
// lower value.
func (e *Engine) lowerWindowCap(ctx context.Context, path string, reach int, refusal error) {
	for {
		old, loaded := e.windowCaps.LoadOrStore(path, reach)
		if n, _ := old.(int); loaded && n <= reach {
			return
		}
		if !loaded || e.windowCaps.CompareAndSwap(path, old, reach) {
			break
		}
	}
	e.log.Info(ctx, "the store refused a page offset below the service's documented limit; its windows reach "+strconv.Itoa(reach)+" records from now on", map[string]any{
		"path": path, "window_records": reach, "cause": refusal.Error(),
	})
}

// logProgress says, every progressInterval records, how far a listing got,
// and what the service's count said there are.
func (e *Engine) logProgress(ctx context.Context, resource string, listed int, count commerce.Count) {
	e.log.Info(ctx, "listed "+strconv.Itoa(listed)+" "+resource+" (the service counts "+count.String()+")",
		map[string]any{"resource": resource, "listed": listed, "count": count.N, "count_method": countMethodName(count)})
}

// countMethodName is how log lines name a count's method.
func countMethodName(c commerce.Count) string {
	if c.Method == commerce.CountUnlabelled {
		return "unlabelled"
	}
	return string(c.Method)
}

// progressInterval is how often (in records) a listing logs its progress.
const progressInterval = 5000

// The engine's errors: what keeps a listing from being complete, and the
// signals its strategies pass each other.

// OffsetLimitError says that a listing needed to go past the service's
// offset limit and the service refused the keyset filter that does so.
type OffsetLimitError struct {
	Endpoint    string // the endpoint's name, "orders"
	OffsetLimit int
	Count       commerce.Count // the service's count of the filter's matches
	Listed      int            // how many were listed before the engine had to stop
	Err         error          // the service's answer to the keyset request
}

func (e *OffsetLimitError) Error() string {
	return fmt.Sprintf("%s: %s records match, but the service serves at most %d by offset and refused the keyset filter needed to list the rest (listed %d): %v",
		e.Endpoint, e.Matches(), e.OffsetLimit, e.Listed, e.Err)
}

// Matches says how many records match, for messages: the service's count
// where it is meant to be exact and past the offset limit, else more than
// the limit (the listing had to go past it).
func (e *OffsetLimitError) Matches() string {
	if e.Count.Steady() && e.Count.N > e.OffsetLimit {
		return strconv.Itoa(e.Count.N)
	}
	return "more than " + strconv.Itoa(e.OffsetLimit)
}

func (e *OffsetLimitError) Unwrap() error { return e.Err }

// UnlistableError says the service offers no way to list every record the
// query matches: the provider refuses to return a truncated list.
type UnlistableError struct {
	Endpoint    string // the endpoint's name, "orders"
	Total       int    // records the query matches, as far as the listing saw (at least)
	OffsetLimit int
	Reason      string // why no strategy reaches them all
	Fix         string // what the user can do
}

func (e *UnlistableError) Error() string {
	return fmt.Sprintf("%s: %s; %s", e.Endpoint, e.Reason, e.Fix)
}

// sortUnusableError reports, from the first page of a sorted listing, that
// the service refused the sort= parameter or ignored it.
type sortUnusableError struct{ cause string }

func (e *sortUnusableError) Error() string { return e.cause }

// disorderError is a page out of the order asked for past the first page
// of a listing (the first shows it as a sortUnusableError): the service
// does not sort as documented. A listing that has handed records out
// fails with the ProtocolError it wraps; List, which hands nothing out
// until it ends, lists again in the service's own order.
type disorderError struct{ error }

func (e disorderError) Unwrap() error { return e.error }

// errWindowChanged says a window changed while it was read by offsets: a
// record was inserted, deleted or moved, so offsets shifted and a record
// may have slipped between two pages.
var errWindowChanged = errors.New("window changed while it was listed")

// sortRefusal recognises the service refusing sort=: a 400 naming the
// parameter. The transport's error says so through RefusedParameter
// (client.APIError), so that the engine reads no HTTP status itself.
func sortRefusal(err error) (string, bool) {
	var refusal interface {
		RefusedParameter(name string) (string, bool)
	}
	if !errors.As(err, &refusal) {
		return "", false
	}
	if said, ok := refusal.RefusedParameter("sort"); ok {
		return "it answered 400 " + said, true
	}
	return "", false
}

// offsetRefused recognises the service refusing page[offset]: a 400
// naming the parameter, as a store answers past its offset limit.
func offsetRefused(err error) bool {
	var refusal interface {
		RefusedParameter(name string) (string, bool)
	}
	if !errors.As(err, &refusal) {
		return false
	}
	_, ok := refusal.RefusedParameter("page[offset]")
	return ok
}

// badRequest reports whether the service refused a request as malformed
// (400), as the transport's error says through BadRequest.
func badRequest(err error) bool {
	var bad interface{ BadRequest() bool }
	return errors.As(err, &bad) && bad.BadRequest()
}

// The service's limits on a request's filter, as the engine meets them:
// it merges its own terms into the user's (commerce.Endpoint.Narrow), then
// checks the request it would send against filter.MaxTerms and
// commerce.MaxRequestBytes, and stops with a FilterLimitError that says
// what to change before it sends one the service would refuse.

// FilterLimitError says that a request the listing needs would break one
// of the service's limits on filters: more than filter.MaxTerms terms, or
// a request target longer than MaxRequestBytes. The provider stops before
// sending it: the service would refuse it with 400.
type FilterLimitError struct {
	Endpoint string // the endpoint's name, "orders"
	Filter   string // the filter that request would carry
	Terms    int    // its terms
	Bytes    int    // its request target's length
	// Why says why the provider adds terms to the user's filter, or is
	// empty when the user's filter alone is over the limit.
	Why string
	Fix string
}

func (e *FilterLimitError) Error() string {
	var over string
	if e.Terms > filter.MaxTerms {
		over = fmt.Sprintf("%d filter terms, and the service takes at most %d per request", e.Terms, filter.MaxTerms)
	} else {
		over = fmt.Sprintf("a %d-byte request, and the service takes requests with filters of at most %d bytes", e.Bytes, commerce.MaxRequestBytes)
	}
	msg := fmt.Sprintf("listing %s would need %s", e.Endpoint, over)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg + "; the filter would be " + e.Filter + ". " + e.Fix
}

// filterRoom is the room the service's limits leave a filter of one
// endpoint's list requests, of pageSize records each. Any goroutine.
type filterRoom struct {
	endpoint commerce.Endpoint
	pageSize int
}

// narrowed is base (the user's filter, perhaps with terms the engine
// merged in before) narrowed by extra, and its text as requests sorted by
// sort send it, checked against the service's limits. Terms of base that
// stay are sent as written, so that a quoted operand stays quoted. why
// says, for messages, why the engine adds extra. Nothing is parsed: the
// filter travels parsed from the provider to the request.
func (r filterRoom) narrowed(base filter.Parsed, extra filter.Expr, sort, why string) (filter.Parsed, string, error) {
	merged := base.With(r.endpoint.Narrow(base.Terms, extra))
	text := merged.Text()
	if n := r.requestLength(text, sort); len(merged.Terms) > filter.MaxTerms || n > commerce.MaxRequestBytes {
		return filter.Parsed{}, "", r.limitError(merged.Terms, len(merged.Terms)-len(base.Terms), text, n, extra, why)
	}
	return merged, text, nil
}

// requestLength is the length of the longest request target of a window
// with filter expr: its last page's offset has the most digits.
func (r filterRoom) requestLength(expr, sort string) int {
	return commerce.ListRequestLength(r.endpoint.Path, expr, sort, commerce.OffsetLimit, r.pageSize)
}

// limitError describes a request over the service's filter limits, and
// what the user can do about it; added is how many of merged's terms the
// provider's own bounds added to the user's.
func (r filterRoom) limitError(merged filter.Expr, added int, text string, n int, extra filter.Expr, why string) error {
	e := &FilterLimitError{Endpoint: r.endpoint.Name, Filter: text, Terms: len(merged), Bytes: n, Why: why}
	switch {
	case len(merged) > filter.MaxTerms && len(extra) > 0:
		e.Fix = fmt.Sprintf("Use at most %d terms in filter and where together (the provider adds %d here), or make one of them %s, which the provider's own bound then replaces where it is tighter.",
			filter.MaxTerms-added, added, boundHint(extra))
	case len(merged) > filter.MaxTerms:
		e.Fix = fmt.Sprintf("Use at most %d terms in filter and where together.", filter.MaxTerms)
	default:
		e.Fix = fmt.Sprintf("The provider splits an in() of up to %d values over several requests, but not the rest of a filter: use fewer or shorter values elsewhere, or split the list into several data sources.", filter.MaxInValues)
	}
	return e
}

// boundHint names the bounds a user can write so that extra merges into
// them, e.g. "a ge or gt bound on created_at".
func boundHint(extra filter.Expr) string {
	var hints []string
	seen := map[string]bool{}
	for _, t := range extra {
		var h string
		switch t.Op {
		case filter.Gt, filter.Ge:
			h = "a ge or gt bound on " + t.Attribute
		case filter.Lt, filter.Le:
			h = "an lt or le bound on " + t.Attribute
		default:
			continue
		}
		if !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	if len(hints) == 0 {
		return "a bound on the attribute the provider bounds"
	}
	return strings.Join(hints, " and ")
}

// room is what the service's limits leave the filters of endpoint's list
// requests.
func (e *Engine) room(endpoint commerce.Endpoint) filterRoom {
	return filterRoom{endpoint: endpoint, pageSize: e.pageSize}
}

// The sort key of a listing: its keyset filters, how it compares values,
// and the provider's own sort by it.

// sortKey is a listing's sort attribute and direction, and the keyset
// filters that continue a traversal from a value of it.
//
// Timestamps are compared at millisecond precision, the precision of the
// filter grammar: records whose timestamps agree to the millisecond form one
// tie group, since no filter can tell them apart.
type sortKey struct {
	attr      string
	desc      bool
	timestamp bool
	number    bool
}

var idKey = sortKey{attr: "id"}

// createdKey is creation order, which the service's own order follows.
var createdKey = sortKey{attr: "created_at", timestamp: true}

// unsorted is the key of a listing in the service's own order: no sort=
// parameter, no keyset.
var unsorted = sortKey{}

// keyFor is the sort key of attr ("attr" or "-attr") on r, unchecked.
func keyFor(r commerce.Endpoint, s string) sortKey {
	k := sortKey{attr: strings.TrimPrefix(s, "-"), desc: strings.HasPrefix(s, "-")}
	switch r.SortType(k.attr) {
	case commerce.TimestampValue:
		k.timestamp = true
	case commerce.NumberValue:
		k.number = true
	}
	return k
}

// parseSort reads "attr" or "-attr" for r; empty means r's DefaultSort.
func parseSort(r commerce.Endpoint, s string) (sortKey, error) {
	if s == "" {
		s = r.DefaultSort
	}
	k := keyFor(r, s)
	if !r.CanSort(k.attr) {
		return k, fmt.Errorf("%s cannot be sorted by %q; use one of %s, with a leading \"-\" for descending order",
			r.Name, k.attr, strings.Join(r.SortAttributes(), ", "))
	}
	return k, nil
}

// param is the sort= query value.
func (k sortKey) param() string {
	if k.desc {
		return "-" + k.attr
	}
	return k.attr
}

// reversed is k the other way round.
func (k sortKey) reversed() sortKey {
	k.desc = !k.desc
	return k
}

// keyOf returns rec's value of the sort attribute in the form keyset
// filters use. Generic rather than a method taking a Record: boxing a
// record into the interface would copy it to the heap for every record.
func keyOf[T commerce.Record](k sortKey, rec T) (string, error) {
	v, ok := rec.SortValue(k.attr)
	if !ok || v == "" {
		return "", fmt.Errorf("record %s has no %s to continue the listing from", rec.RecordID(), k.attr)
	}
	if !k.timestamp {
		return v, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return "", fmt.Errorf("record %s has %s %q, which is not an ISO 8601 timestamp", rec.RecordID(), k.attr, v)
	}
	return t.UTC().Truncate(time.Millisecond).Format(filter.TimestampLayout), nil
}

// before reports whether key a sorts strictly before key b in this order.
// Only timestamps and numbers have an order the client knows for sure; for
// strings the service's collation decides, so they never count as out of
// order.
func (k sortKey) before(a, b string) bool {
	switch {
	case k.timestamp:
		if k.desc {
			return a > b
		}
		return a < b
	case k.attr == "id":
		// Ids are lowercase UUIDs, which every collation orders as bytes.
		if k.desc {
			return a > b
		}
		return a < b
	case k.number:
		x, errA := strconv.ParseInt(a, 10, 64)
		y, errB := strconv.ParseInt(b, 10, 64)
		if errA != nil || errB != nil {
			return false
		}
		if k.desc {
			return x > y
		}
		return x < y
	}
	return false
}

// fixed reports whether a record's value of k never changes: created_at
// and id; an update moves a record in any other order.
func (k sortKey) fixed() bool { return k.attr == "created_at" || k.attr == idKey.attr }

// caughtUp reports whether a catch-up pass follows a listing in k: sort
// -updated_at, where an update moves its record to the front, behind the
// position already read, and nowhere else (catchup.go).
func (k sortKey) caughtUp() bool { return k.attr == "updated_at" && k.desc }

// checked reports whether the client can tell records out of this order:
// not for text such as names, whose order is the service's collation.
func (k sortKey) checked() bool { return k.timestamp || k.number || k.attr == "id" }

func nextMillisecond(v string) string {
	t, err := time.Parse(filter.TimestampLayout, v)
	if err != nil {
		// keyOf produced v, so this cannot happen.
		panic(fmt.Sprintf("client: key %q is not a normalized timestamp", v))
	}
	return t.Add(time.Millisecond).Format(filter.TimestampLayout)
}

func (k sortKey) term(op filter.Op, v string) filter.Expr {
	return filter.Expr{filter.NewTerm(op, k.attr, v)}
}

// from selects the records at or after v in sort order, v's tie group
// included.
func (k sortKey) from(v string) filter.Expr {
	switch {
	case k.timestamp && k.desc:
		return k.term(filter.Lt, nextMillisecond(v))
	case k.desc:
		return k.term(filter.Le, v)
	default:
		return k.term(filter.Ge, v)
	}
}

// after selects the records strictly after v's tie group.
func (k sortKey) after(v string) filter.Expr {
	switch {
	case k.timestamp && k.desc:
		return k.term(filter.Lt, v)
	case k.timestamp:
		return k.term(filter.Ge, nextMillisecond(v))
	case k.desc:
		return k.term(filter.Lt, v)
	default:
		return k.term(filter.Gt, v)
	}
}

// equal selects exactly v's tie group.
func (k sortKey) equal(v string) filter.Expr {
	if k.timestamp {
		return filter.Expr{filter.NewTerm(filter.Ge, k.attr, v), filter.NewTerm(filter.Lt, k.attr, nextMillisecond(v))}
	}
	return k.term(filter.Eq, v)
}

// sortRecords sorts recs by k, stably, with ties (equal values, to the
// millisecond for timestamps) by id and records without a value last.
func sortRecords[T commerce.Record](recs []T, k sortKey) error {
	items, err := sortItems(recs, k)
	if err != nil {
		return err
	}
	slices.SortStableFunc(items, func(a, b sortItem[T]) int {
		if a.has != b.has {
			if a.has {
				return -1
			}
			return 1
		}
		c := strings.Compare(a.s, b.s)
		if k.number {
			c = cmp.Compare(a.n, b.n)
		}
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(a.rec.RecordID(), b.rec.RecordID())
	})
	for i := range items {
		recs[i] = items[i].rec
	}
	return nil
}

// sortItem is a record with its sort value parsed once.
type sortItem[T commerce.Record] struct {
	rec T
	has bool   // the record has a value
	s   string // the value of a timestamp (as keyOf gives it) or text
	n   int64  // the value of a number
}

func sortItems[T commerce.Record](recs []T, k sortKey) ([]sortItem[T], error) {
	items := make([]sortItem[T], len(recs))
	for i, rec := range recs {
		it := sortItem[T]{rec: rec}
		if v, ok := rec.SortValue(k.attr); ok && v != "" {
			it.has = true
			switch {
			case k.timestamp:
				key, err := keyOf(k, rec)
				if err != nil {
					return nil, err
				}
				it.s = key
			case k.number:
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("record %s has %s %q, which is not a whole number", rec.RecordID(), k.attr, v)
				}
				it.n = n
			default:
				it.s = v
			}
		}
		items[i] = it
	}
	return items, nil
}
