package storematrix

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// The number of draws: STORE_MATRIX_DRAWS, else defaultDraws (make test),
// shortDraws under -short (make unit). The nightly job sets 5,000.
// STORE_MATRIX_SEED runs the one draw a failure printed;
// STORE_MATRIX_REQUEST_LOG=<file> writes its requests there, one a line.
const (
	defaultDraws = 300
	shortDraws   = 40
)

// TestStoreMatrix draws stores and reads of them and checks every read
// against the promise (see check). A failure names its seed; run
//
//	STORE_MATRIX_SEED=<seed> go test -run TestStoreMatrix ./internal/storematrix
//
// to read that draw alone.
func TestStoreMatrix(t *testing.T) {
	seeds := matrixSeeds(t)
	for _, seed := range seeds {
		c := drawCase(seed)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			runCase(t, c)
		})
	}
}

// matrixSeeds are the draws' seeds: one, where STORE_MATRIX_SEED names
// it, else STORE_MATRIX_DRAWS of them from STORE_MATRIX_BASE (or 1).
func matrixSeeds(t *testing.T) []uint64 {
	if s := os.Getenv("STORE_MATRIX_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("STORE_MATRIX_SEED=%q: %v", s, err)
		}
		return []uint64{seed}
	}
	n := defaultDraws
	if testing.Short() {
		n = shortDraws
	}
	if s := os.Getenv("STORE_MATRIX_DRAWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("STORE_MATRIX_DRAWS=%q: a whole number of 1 or more", s)
		}
		n = v
	}
	base := uint64(1)
	if s := os.Getenv("STORE_MATRIX_BASE"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("STORE_MATRIX_BASE=%q: %v", s, err)
		}
		base = v
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = base + uint64(i)
	}
	return seeds
}

// ---- What a draw is

// resource is one list a data source reads: the typed lists and
// commerce_list on customers.
type resource struct {
	name     string // the emulator's
	endpoint commerce.Endpoint
	// filters a read may draw (beside none); {ids} is replaced by an in()
	// of ids of the store, {id-from} by a range of ids.
	filters []string
}

const since = "2024-03-01T00:00:00.000Z"

var resources = []resource{
	{name: "orders", endpoint: commerce.OrdersEndpoint,
		filters: []string{"eq(status,complete)", "ge(with_tax,20000)", "ge(created_at," + since + ")", "eq(payment,paid):lt(with_tax,50000)"}},
	{name: "accounts", endpoint: commerce.AccountsEndpoint,
		filters: []string{"like(name,*a*)", "ge(created_at," + since + ")", "{ids}"}},
	{name: "files", endpoint: commerce.FilesEndpoint,
		filters: []string{"ge(file_size,1000000)", "lt(file_size,5000000)"}},
	{name: "customers", endpoint: commerce.CustomersEndpoint,
		filters: []string{"like(email,*1*)", "ge(created_at," + since + ")", "{id-from}"}},
}

// matrixCase is one draw: a store and the reads made of it.
type matrixCase struct {
	seed uint64
	res  resource
	size int

	counting emulator.Counting
	ties     []int // tie groups' sizes; none where empty
	defTies  bool  // the emulator's default tie group instead
	shuffle  bool  // ties in another order on every request
	ignore   bool  // the endpoint ignores sort=

	// writeEvery: one write every so many list requests (0: none);
	// creates, deletes and updates weighted.
	writeEvery             int
	creates, deletes, upds int
	pair                   bool // each write a create and a delete

	tokenUses     int // 0: unlimited
	tokenLifetime time.Duration
	latency       time.Duration
	rateLimit     float64
	// refusedCount: the rate limit counts the requests it refuses too;
	// limitRetryAfter: its 429s say when the window has room.
	refusedCount, limitRetryAfter bool
	faultRate                     float64 // of resource requests answered with a fault
	faultKinds                    []string
	// tokenFaults: the token endpoint answers 503 to one request in
	// five, as a busy authorization server may.
	tokenFaults bool
	// sizeTies: groups of files sharing one file_size, the files
	// endpoint's range attribute (a group above the offset limit is more
	// than one window of offsets holds).
	sizeTies []int
	// flat: timestamps, page and results at the top level (the documented
	// flat form); stringStatus: errors' status as a string.
	flat, stringStatus bool
	// manyIDs: {ids} names a few hundred ids, more than one request
	// holds, so that the read splits its in().
	manyIDs bool
	// buffer is the reads' consistency_buffer: records created during a
	// read are left out.
	buffer time.Duration
	// Between plans the store may change how it counts (recount, from
	// the second plan on) or start or stop ignoring sort= (flipSort), as
	// a store's settings or a deployment may between two pipeline runs.
	recount  *emulator.Counting
	flipSort bool
	// alias serves customers at a path the capability table does not
	// know, which commerce_list reads after probing what it can do.
	alias string
	// The provider block's max_parallel_requests and rate_limit (0: the
	// defaults).
	maxParallel int
	rateCap     float64
	// otherSort: the readers in group 1 (groups, one per reader) read
	// the same filter in this order, beside those of group 0: two
	// listings announced together, each shared by its own readers.
	otherSort string
	groups    []int
	// refusedTokensInARow, once reads run, is the most token requests in
	// a row the store answered 503 (writer.refusedTokensInARow).
	refusedTokensInARow func() int
	// offsetLimit: the store serves offsets up to this, below the
	// documented 10,000 (0: 10,000); a soft limit is a store's setting
	// (page_offset_limit), and the emulator applies it to every endpoint.
	offsetLimit int

	pageSize int // 0: the engine's default
	filter   string
	sort     string
	// readers share the store at once, each keeping its own.
	readers []keep
	plans   int  // reads one after another (a history of plans)
	cache   bool // through the cache, across the plans
	lookups int  // single-record lookups after each plan
	// where adds a where item, as the provider merges one into the
	// filter: a raw value from a record of the store (see drawWhere).
	where bool
	// late: the last reader comes late, as Terraform sometimes validates
	// and reads a data source only once the others were read. It is
	// announced and read once the listing of its group has handed a
	// record out, or its group's other readers have ended: it cannot join
	// that listing, and refreshes what it handed out (internal/reads).
	late bool
}

// keep is what one reader keeps.
type keep struct {
	maxResults   int
	includeJSON  bool
	countMatches bool
}

func (c matrixCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d records, counting %+v", c.res.name, c.size, c.counting)
	if c.defTies {
		b.WriteString(", the emulator's default tie group")
	} else if len(c.ties) > 0 {
		fmt.Fprintf(&b, ", tie groups %v", c.ties)
	}
	if c.shuffle {
		b.WriteString(" in a varying order")
	}
	if c.ignore {
		b.WriteString(", ignores sort=")
	}
	switch {
	case c.writeEvery > 0 && c.pair:
		fmt.Fprintf(&b, ", a create and a delete every %d list requests", c.writeEvery)
	case c.writeEvery > 0:
		fmt.Fprintf(&b, ", a write every %d list requests (creates:deletes:updates %d:%d:%d)", c.writeEvery, c.creates, c.deletes, c.upds)
	}
	if c.tokenUses > 0 {
		fmt.Fprintf(&b, ", tokens good for %d requests", c.tokenUses)
	}
	if c.tokenLifetime > 0 {
		fmt.Fprintf(&b, ", tokens live %s", c.tokenLifetime)
	}
	if c.latency > 0 {
		fmt.Fprintf(&b, ", %s away", c.latency)
	}
	if c.rateLimit > 0 {
		fmt.Fprintf(&b, ", %g requests/s", c.rateLimit)
		if c.refusedCount {
			b.WriteString(" counting refused requests")
		}
		if c.limitRetryAfter {
			b.WriteString(" with Retry-After")
		}
	}
	if c.faultRate > 0 {
		fmt.Fprintf(&b, ", %.1f%% faults %v", 100*c.faultRate, c.faultKinds)
	}
	if c.tokenFaults {
		b.WriteString(", the token endpoint answers 503 to one request in five")
	}
	if len(c.sizeTies) > 0 {
		fmt.Fprintf(&b, ", file_size tie groups %v", c.sizeTies)
	}
	if c.flat {
		b.WriteString(", flat timestamps and meta")
	}
	if c.stringStatus {
		b.WriteString(", error status as a string")
	}
	if c.manyIDs {
		b.WriteString(", {ids} past one request")
	}
	if c.buffer > 0 {
		fmt.Fprintf(&b, ", consistency_buffer %s", c.buffer)
	}
	if c.recount != nil {
		fmt.Fprintf(&b, ", counting %+v from the second plan", *c.recount)
	}
	if c.flipSort {
		b.WriteString(", ignore sort= flipped after the first plan")
	}
	if c.alias != "" {
		fmt.Fprintf(&b, ", read at %s, which the capability table does not know", c.alias)
	}
	if c.maxParallel > 0 {
		fmt.Fprintf(&b, ", max_parallel_requests %d", c.maxParallel)
	}
	if c.rateCap > 0 {
		fmt.Fprintf(&b, ", rate_limit %g", c.rateCap)
	}
	if c.otherSort != "" {
		fmt.Fprintf(&b, ", readers %v in group 1 sorted %q", c.groups, c.otherSort)
	}
	if c.offsetLimit > 0 {
		fmt.Fprintf(&b, ", offsets up to %d", c.offsetLimit)
	}
	if c.late {
		b.WriteString(", the last reader comes late")
	}
	fmt.Fprintf(&b, "; read filter=%q where=%v sort=%q page_size=%d readers=%+v plans=%d cache=%v lookups=%d",
		c.filter, c.where, c.sort, c.pageSize, c.readers, c.plans, c.cache, c.lookups)
	return b.String()
}

// drawCase draws a case from seed.
func drawCase(seed uint64) matrixCase {
	d := drawer{rand.New(rand.NewPCG(seed, 0x73746f7265))} // "store"
	c := matrixCase{seed: seed, res: resources[d.IntN(len(resources))]}
	d.store(&c)
	d.adversities(&c)
	d.reads(&c)
	c.drawMore(rand.New(rand.NewPCG(seed, 0x6d6f7265))) // "more"
	return c
}

// drawer draws a case's first dimensions from the "store" stream, in an
// order that must not change: a printed seed draws the same case.
type drawer struct{ *rand.Rand }

// pick draws an index with the given weights.
func (d drawer) pick(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := d.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// store draws the store: its size, how it counts, its ties, and whether
// it ignores sort=.
func (d drawer) store(c *matrixCase) {
	// Sizes: most small, some past the offset limit, a few up to 30,000.
	switch d.pick(6, 40, 34, 14, 6) {
	case 0:
		c.size = 0
	case 1:
		c.size = 1 + d.IntN(300)
	case 2:
		c.size = 300 + d.IntN(2700)
	case 3:
		c.size = 3000 + d.IntN(9000)
	default:
		c.size = 12000 + d.IntN(18001)
	}
	methods := []string{"", emulator.CountExact, emulator.CountLowerBound, emulator.CountObserved, emulator.CountEstimate, emulator.CountNone}
	c.counting.Method = methods[d.IntN(len(methods))]
	switch c.counting.Method {
	case emulator.CountLowerBound:
		c.counting.Cap = []int{100, 1000, 10000}[d.IntN(3)]
	case emulator.CountEstimate:
		c.counting.Percent = 1 + d.IntN(20)
	}
	// A store may leave any count but an estimate unlabelled: the API
	// documents an unlabelled count as exact or a lower bound, and an
	// estimate is neither (one that says more than the truth without a
	// label breaks the contract the provider checks windows by).
	c.counting.Unlabelled = c.counting.Method != "" && c.counting.Method != emulator.CountEstimate && d.IntN(4) == 0
	c.counting.IgnoreExact = d.IntN(3) == 0

	switch d.pick(3, 3, 2) {
	case 0: // none
	case 1: // the emulator's default group
		c.defTies = true
		c.shuffle = d.IntN(2) == 0
	case 2:
		n := 1 + d.IntN(4)
		for range n {
			c.ties = append(c.ties, 2+d.IntN(min(2000, max(2, c.size/n))))
		}
		c.shuffle = d.IntN(2) == 0
	}
	c.ignore = d.IntN(8) == 0
}

// adversities draws what the store does to a read: writes, tokens that
// die young, latency, a rate limit and faults.
func (d drawer) adversities(c *matrixCase) {
	small := c.size <= 3000
	if d.IntN(2) == 0 {
		c.writeEvery = []int{1, 2, 3, 5, 20}[d.IntN(5)]
		c.creates, c.deletes, c.upds = d.IntN(4), d.IntN(4), d.IntN(4)
		if c.creates+c.deletes+c.upds == 0 {
			c.creates = 1
		}
	}
	switch d.pick(6, 1, 1, 1) {
	case 1:
		c.tokenUses = 3
	case 2:
		c.tokenUses = 7
	case 3:
		c.tokenUses = 50
	}
	if d.IntN(10) == 0 {
		c.tokenLifetime = 2 * time.Second
	}
	switch d.pick(6, 2, 1) {
	case 1:
		c.latency = time.Duration(1+d.IntN(3)) * time.Millisecond
	case 2:
		if small {
			c.latency = time.Duration(5+d.IntN(16)) * time.Millisecond
		}
	}
	if small && d.IntN(5) == 0 {
		c.rateLimit = []float64{20, 25, 50, 100}[d.IntN(4)]
		if c.size > 1000 && c.rateLimit < 50 {
			c.rateLimit = 50
		}
	}
	if d.IntN(3) == 0 {
		c.faultRate = []float64{0.01, 0.03, 0.05}[d.IntN(3)]
		kinds := []string{"503", "500", "502", "504", "429", "429-retry-after", "stall", "cut", "reset"}
		for range 1 + d.IntN(3) {
			c.faultKinds = append(c.faultKinds, kinds[d.IntN(len(kinds))])
		}
	}
}

// reads draws the reads: page size, filter, sort, the readers and what
// each keeps, plans, the cache, lookups and where.
func (d drawer) reads(c *matrixCase) {
	switch d.pick(4, 1, 2, 2) {
	case 1:
		if c.size <= 2000 {
			c.pageSize = 10
		}
	case 2:
		c.pageSize = 25
	case 3:
		c.pageSize = 100
	}
	if d.IntN(2) == 0 {
		c.filter = c.res.filters[d.IntN(len(c.res.filters))]
	}
	if d.IntN(6) > 0 {
		sorts := c.res.endpoint.SortAttributes()
		c.sort = sorts[d.IntN(len(sorts))]
		if d.IntN(2) == 0 {
			c.sort = "-" + c.sort
		}
	}
	for range 1 + d.pick(6, 2, 1) {
		k := keep{includeJSON: d.IntN(4) == 0, countMatches: d.IntN(3) == 0}
		switch d.pick(6, 2, 1) {
		case 1:
			k.maxResults = 1 + d.IntN(max(1, c.size+c.size/10+5))
		case 2:
			// Exactly the records there are, where no filter is drawn:
			// the read lists them all and sees the end.
			k.maxResults = max(1, c.size)
		}
		c.readers = append(c.readers, k)
	}
	c.plans = 1 + d.pick(5, 2, 1)
	c.cache = c.plans > 1 && d.IntN(2) == 0
	c.lookups = d.IntN(3)
	c.where = c.res.name != "files" && d.IntN(4) == 0
}

// drawMore draws the dimensions added after the first ones, from their
// own stream, so that a seed printed before they came still draws the
// same store and reads with them.
func (c *matrixCase) drawMore(rng *rand.Rand) {
	if c.writeEvery > 0 {
		c.pair = rng.IntN(4) == 0
	}
	if c.rateLimit > 0 {
		c.refusedCount = rng.IntN(3) == 0
		c.limitRetryAfter = rng.IntN(3) == 0
	}
	if c.faultRate > 0 && rng.IntN(3) == 0 {
		c.faultKinds = append(c.faultKinds, []string{"html-502", "slow-ok"}[rng.IntN(2)])
	}
	c.tokenFaults = rng.IntN(8) == 0
	if c.res.name == "files" && c.size > 0 && rng.IntN(3) == 0 {
		for range 1 + rng.IntN(3) {
			c.sizeTies = append(c.sizeTies, 2+rng.IntN(min(2000, max(2, c.size/4))))
		}
		if c.size > commerce.OffsetLimit+1 && rng.IntN(2) == 0 {
			c.sizeTies[0] = commerce.OffsetLimit + 1
		}
	}
	c.flat = rng.IntN(6) == 0
	c.stringStatus = rng.IntN(6) == 0
	c.manyIDs = c.filter == "{ids}" && rng.IntN(2) == 0
	if rng.IntN(6) == 0 {
		c.buffer = time.Minute
	}
	if c.plans > 1 && rng.IntN(5) == 0 {
		methods := []string{"", emulator.CountExact, emulator.CountLowerBound, emulator.CountObserved, emulator.CountNone}
		c.recount = &emulator.Counting{Method: methods[rng.IntN(len(methods))], IgnoreExact: rng.IntN(2) == 0}
	}
	c.flipSort = c.plans > 1 && rng.IntN(8) == 0
	// A probed endpoint sorts by created_at, updated_at and id only.
	if attr := strings.TrimPrefix(c.sort, "-"); c.res.name == "customers" && rng.IntN(3) == 0 &&
		slices.Contains([]string{"", "created_at", "updated_at", "id"}, attr) {
		c.alias = "/v2/members"
	}
	if rng.IntN(6) == 0 {
		c.maxParallel = []int{1, 2, 8}[rng.IntN(3)]
	}
	if c.size <= 12000 && rng.IntN(6) == 0 {
		c.rateCap = []float64{30, 100}[rng.IntN(2)]
	}
	if len(c.readers) > 1 && rng.IntN(3) == 0 {
		sorts := c.res.endpoint.SortAttributes()
		if c.alias != "" {
			sorts = []string{"created_at", "updated_at", "id"}
		}
		other := sorts[rng.IntN(len(sorts))]
		if rng.IntN(2) == 0 {
			other = "-" + other
		}
		asSent := func(sort string) string { return cmp.Or(sort, c.res.endpoint.DefaultSort) }
		if asSent(other) != asSent(c.sort) {
			c.otherSort = other
			for range c.readers {
				c.groups = append(c.groups, rng.IntN(2))
			}
		}
	}
	if rng.IntN(8) == 0 {
		c.offsetLimit = 200 + rng.IntN(9000)
	}
	c.late = len(c.readers) >= 2 && rng.IntN(4) == 0
}

// maxOffset is the largest page[offset] the store serves.
func (c matrixCase) maxOffset() int { return cmp.Or(c.offsetLimit, commerce.OffsetLimit) }

// sortOf is the sort of group g's readers as they send it ("" for the
// endpoint's default).
func (c matrixCase) sortOf(g int) string {
	if g == 1 {
		return c.otherSort
	}
	return c.sort
}

// group is reader i's group.
func (c matrixCase) group(i int) int {
	if c.groups == nil {
		return 0
	}
	return c.groups[i]
}

// atPlan is the case as the store stands at plan (from 0), after the
// changes drawn between plans.
func (c matrixCase) atPlan(plan int) matrixCase {
	if plan == 0 {
		return c
	}
	if c.recount != nil {
		c.counting = *c.recount
	}
	c.ignore = c.ignore != c.flipSort
	return c
}

// options are the emulator's for the case.
func (c matrixCase) options() emulator.Options {
	opts := emulator.Options{Seed: int64(c.seed), Orders: -1, Files: -1, Accounts: -1, Customers: -1, Hierarchies: -1,
		Counting: c.counting, ShuffleTies: c.shuffle, TokenRequests: c.tokenUses, TokenLifetime: c.tokenLifetime,
		Latency: c.latency, RateLimit: c.rateLimit, RateLimitCountsRefused: c.refusedCount, RateLimitRetryAfter: c.limitRetryAfter,
		FileSizeTieGroups: c.sizeTies, FlatTimestamps: c.flat, StringStatus: c.stringStatus, OffsetLimit: c.offsetLimit}
	size := c.size
	if size == 0 {
		size = -1
	}
	ties := c.ties
	switch {
	case c.defTies:
		ties = nil
	case ties == nil:
		ties = []int{}
	}
	switch c.res.name {
	case "orders":
		opts.Orders, opts.OrderTieGroups = size, ties
	case "accounts":
		opts.Accounts, opts.AccountTieGroups = size, ties
	case "files":
		opts.Files, opts.FileTieGroups = size, ties
	case "customers":
		opts.Customers, opts.CustomerTieGroups = size, ties
	}
	if c.ignore {
		opts.IgnoreSort = []string{c.res.name}
	}
	if c.alias != "" {
		opts.Aliases = map[string]string{c.alias: c.res.name}
	}
	return opts
}

// ---- Running a draw

func runCase(t *testing.T, c matrixCase) {
	if testing.Short() && c.size > 3000 {
		t.Skipf("seed %d: %d records: make test draws stores this large, make unit does not", c.seed, c.size)
	}
	t.Logf("seed %d: %s", c.seed, c)
	defer func() {
		if t.Failed() {
			t.Logf("reproduce: STORE_MATRIX_SEED=%d go test -run TestStoreMatrix ./internal/storematrix", c.seed)
		}
	}()
	opts := c.options()
	if path := os.Getenv("STORE_MATRIX_REQUEST_LOG"); path != "" {
		opts.RequestLines = requestLog(t, path)
	}
	srv := emulatortest.Start(t, opts)
	switch {
	case c.res.name == "orders":
		runKind(t, c, srv, commerce.Orders.Path, known(commerce.Orders))
	case c.res.name == "accounts":
		runKind(t, c, srv, commerce.Accounts.Path, known(commerce.Accounts))
	case c.res.name == "files":
		runKind(t, c, srv, commerce.Files.Path, known(commerce.Files))
	case c.alias != "":
		runKind(t, c, srv, c.alias, probed(c.alias))
	default:
		runKind(t, c, srv, c.res.endpoint.Path, known(commerce.GenericKind(c.res.endpoint)))
	}
}

// requestLog opens path for the emulator's request lines, until the test
// ends.
func requestLog(t *testing.T, path string) *os.File {
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("STORE_MATRIX_REQUEST_LOG: %v", err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// kindOf is the kind a draw reads, on the engine it reads with: known
// for the typed lists and the capability table's endpoints, probed for
// one the table does not know, as commerce_list finds it out.
type kindOf[T commerce.Record] func(context.Context, *listing.Engine) (commerce.Kind[T], error)

func known[T commerce.Record](k commerce.Kind[T]) kindOf[T] {
	return func(context.Context, *listing.Engine) (commerce.Kind[T], error) { return k, nil }
}

func probed(path string) kindOf[commerce.Generic] {
	return func(ctx context.Context, e *listing.Engine) (commerce.Kind[commerce.Generic], error) {
		ep, _, err := e.EndpointFor(ctx, path)
		return commerce.GenericKind(ep), err
	}
}

func runKind[T commerce.Record](t *testing.T, c matrixCase, srv *emulator.Server, path string, kindFor kindOf[T]) {
	m := startRun(t, c, srv, path, kindFor)
	m.text, m.parsed, m.keep = readFilter(t, c, srv, m.rng)
	for plan := range c.plans {
		m.runPlan(plan)
		if t.Failed() {
			return
		}
	}
}

// matrixRun is one draw's reads of one endpoint, plan after plan: the
// engine and reads the provider holds during one plan, the cache it
// keeps between plans, the store's writer, and the filter every reader
// sends.
type matrixRun[T commerce.Record] struct {
	t         *testing.T
	c         matrixCase
	srv       *emulator.Server
	path      string
	kindFor   kindOf[T]
	snapshots reads.Snapshots // nil without the cache
	rng       *rand.Rand
	w         *writer
	e         *listing.Engine
	r         *reads.Reads
	kind      commerce.Kind[T]
	announced *coalesce.Announced

	text   string        // the filter as the store's answer is taken ("" where parsed names ids)
	parsed filter.Parsed // the filter the readers send
	keep   func() map[string]bool
	sorts  [2]string // each group's order, as the store sorts it
}

// startRun sets up a draw's reads of path: its writer, its cache, and
// the provider of its first plan.
func startRun[T commerce.Record](t *testing.T, c matrixCase, srv *emulator.Server, path string, kindFor kindOf[T]) *matrixRun[T] {
	m := &matrixRun[T]{t: t, c: c, srv: srv, path: path, kindFor: kindFor,
		rng: rand.New(rand.NewPCG(c.seed, 0x7265616473)),                               // "reads"
		w:   &writer{srv: srv, c: c, rng: rand.New(rand.NewPCG(c.seed, 0x7772697465))}} // "write"
	srv.SetFaults(m.w.fault(c, path))
	m.c.refusedTokensInARow = m.w.refusedTokensInARow
	if c.cache {
		m.snapshots = &memSnapshots{m: map[string][]byte{}}
	}
	m.configure()
	for g := range m.sorts {
		if m.sorts[g] = m.c.sortOf(g); m.sorts[g] == "" {
			m.sorts[g] = m.c.res.endpoint.DefaultSort
		}
	}
	return m
}

// configure builds the engine and reads of one plan, as a provider's
// configure does in the process Terraform starts for each plan: nothing
// it learned of the store in an earlier plan carries over but the cache.
// It finds out what the endpoint can do.
func (m *matrixRun[T]) configure() {
	t, c := m.t, m.c
	cl := newMatrixClient(t, m.srv, func(cfg *client.Config) { cfg.MaxParallelRequests, cfg.RateLimit = c.maxParallel, c.rateCap })
	var err error
	if m.e, err = listing.New(cl, listing.Options{PageSize: c.pageSize}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readDeadline)
	m.kind, err = m.kindFor(ctx, m.e)
	cancel()
	if err != nil {
		t.Fatalf("what %s can do: %v", m.path, err)
	}
	// The checks hold the read to what the provider knows of the
	// endpoint: the table's row or what the probe found.
	m.c.res.endpoint = m.kind.Endpoint
	// Each reader is announced before any reads, as Terraform validates
	// the data sources of one walk step before it reads them: the
	// readers of one listing share it (coalesce).
	m.announced = &coalesce.Announced{}
	m.r = reads.New(m.e, reads.Options{Announced: m.announced, Snapshots: m.snapshots})
}

// readFilter draws the filter the readers send (parsed), the text the
// store's answer is taken with, and keep, which narrows that answer to
// what the filter's ids and where item keep (nil: all of it).
func readFilter(t *testing.T, c matrixCase, srv *emulator.Server, rng *rand.Rand) (text string, parsed filter.Parsed, keep func() map[string]bool) {
	text = c.filter
	var named map[string]bool // the ids of {ids}
	switch text {
	case "{ids}":
		// As a where item's values reach the read: terms, not text, so
		// that an in() longer than a filter's text may be is split. The
		// store's answer is taken unfiltered and kept to these ids,
		// since the emulator refuses so long a filter as the service
		// does.
		ids := idsFilter(t, srv, c.res.name, c.manyIDs, rng)
		parsed = parsed.With(filter.Expr{filter.NewTerm(filter.In, "id", ids...)})
		named = make(map[string]bool, len(ids))
		for _, id := range ids {
			named[id] = true
		}
		text = ""
	case "{id-from}":
		text = "ge(id,8)"
	}
	if text != "" {
		var err error
		if parsed, err = filter.ParseText(text); err != nil {
			t.Fatalf("filter %q: %v", text, err)
		}
	}
	if c.where {
		var term filter.Term
		term, keep = drawWhere(srv, c.res.name, rng)
		t.Logf("where %s", filter.Expr{term})
		parsed = parsed.With(filter.And(parsed.Terms, filter.Expr{term}))
	}
	if named != nil {
		where := keep
		keep = func() map[string]bool {
			kept := maps.Clone(named)
			if where != nil {
				for id, ok := range where() {
					kept[id] = kept[id] && ok
				}
			}
			return kept
		}
	}
	return text, parsed, keep
}

// runPlan runs one plan: the store changes that come before it, every
// reader at once with writes during the reads, then the checks.
func (m *matrixRun[T]) runPlan(plan int) {
	c, t := m.c, m.t
	pc := c.atPlan(plan)
	if plan == 1 {
		m.changeStore(pc)
	}
	if plan > 0 {
		m.configure()
	}
	var before, after [2]snap
	for g, sort := range m.sorts {
		before[g] = snapshot(t, m.srv, c.res.name, m.text, sort, m.keep)
	}
	m.w.begin(t)
	outs := m.readAll(plan)
	writes := m.w.end()
	for g, sort := range m.sorts {
		after[g] = snapshot(t, m.srv, c.res.name, m.text, sort, m.keep)
	}
	pageSize := cmp.Or(c.pageSize, commerce.DefaultPageSize)
	for i, k := range c.readers {
		what := fmt.Sprintf("plan %d, reader %d (%+v)", plan+1, i+1, k)
		g := c.group(i)
		check(t, pc, what, k, pageSize, before[g], after[g], writes, outs[i])
	}
	for g := range m.sorts {
		var mine []readerOut
		for i, o := range outs {
			if c.group(i) == g && (!c.late || i != len(outs)-1) {
				mine = append(mine, o)
			}
		}
		checkShared(t, fmt.Sprintf("plan %d, group %d", plan+1, g), mine)
	}
	for i := range c.lookups {
		lookUp(t, pc, m.srv, m.e, m.kind, fmt.Sprintf("plan %d, lookup %d", plan+1, i+1), writes, m.rng)
	}
}

// changeStore makes the changes drawn for the plans after the first: how
// the store counts, and whether it ignores sort=.
func (m *matrixRun[T]) changeStore(pc matrixCase) {
	if m.c.recount != nil {
		m.srv.SetCounting(*m.c.recount)
	}
	if m.c.flipSort {
		var ignored []string
		if pc.ignore {
			ignored = []string{m.c.res.name}
		}
		m.srv.SetIgnoreSort(ignored...)
	}
}

// readAll announces every reader of the plan, then reads them all at
// once, as Terraform reads the data sources of one walk step; a late
// reader (matrixCase.late) only once its group's listing has handed a
// record out, or its group's other readers have ended.
func (m *matrixRun[T]) readAll(plan int) []readerOut {
	c := m.c
	outs := make([]readerOut, len(c.readers))
	readerKey := func(i int) string { return fmt.Sprintf("plan %d reader %d", plan, i) }
	late := -1
	if c.late {
		late = len(c.readers) - 1
	}
	handed := make(chan struct{}) // closed once the late reader's group has a record out
	handOut := sync.OnceFunc(func() { close(handed) })
	var group sync.WaitGroup // the late reader's group's other readers
	for i := range c.readers {
		if i != late {
			m.announced.Announce(readerKey(i))
		}
		if late >= 0 && i != late && c.group(i) == c.group(late) {
			group.Add(1)
		}
	}
	var wg sync.WaitGroup
	for i, k := range c.readers {
		mine := late >= 0 && i != late && c.group(i) == c.group(late)
		wg.Go(func() {
			if mine {
				defer group.Done()
			}
			if i == late {
				go func() { group.Wait(); handOut() }()
				<-handed
				m.announced.Announce(readerKey(i))
			}
			ctx, cancel := context.WithTimeout(context.Background(), readDeadline)
			defer cancel()
			ctx, arrival := coalesce.WithArrival(ctx, m.announced, readerKey(i))
			defer arrival.Arrive()
			q := listing.Query{Filter: m.parsed, Sort: c.sortOf(c.group(i)), MaxResults: k.maxResults, IncludeJSON: k.includeJSON, CountMatches: k.countMatches,
				ConsistencyBuffer: c.buffer}
			o := &outs[i]
			took := func(into *[]string) func(T) error {
				return func(rec T) error {
					*into = append(*into, rec.RecordID())
					if mine {
						handOut()
					}
					return nil
				}
			}
			o.res, o.err = reads.Read(ctx, m.r, m.kind, q, listing.Reader[T]{Emit: took(&o.ids), Late: took(&o.late)})
		})
	}
	wg.Wait()
	return outs
}

// readDeadline bounds one read, so that a read that never ends fails its
// draw instead of hanging the run. The heaviest draws take minutes on an
// idle machine, as the provider's reads (20 minutes by default) may:
// 25,483 files with one answer in 20 a 429 asking for a second's wait,
// tokens good for 7 requests and deletes during the read took 125 s (seed
// 10450), 9,216 accounts at a store that ignores sort=, with 19 answers
// that stalled past request_timeout (5 s each) and writes every other
// request, 151 s (seed 10399); both ran out of the 2 minutes this was.
const readDeadline = 5 * time.Minute

// requestTimeout is the matrix's request_timeout, and stall a stalled
// answer, which outlasts it. The timeout also covers a request's wait for
// the rate budget (internal/client's budgetTransport sits inside the
// attempt): after 429s with Retry-After that wait reached 2 s, and six
// attempts in a row timed out without a stall among them (seed 145,
// on a loaded machine), a bound of the client's that the matrix leaves
// to its own tests.
const (
	requestTimeout = 5 * time.Second
	stall          = 6 * time.Second
)

// newMatrixClient is the transport to srv as the provider configures it,
// with short back-offs and a request timeout that a stall outlasts, and
// what tweaks set.
func newMatrixClient(t testing.TB, srv *emulator.Server, tweaks ...func(*client.Config)) *client.Client {
	t.Helper()
	cfg := client.Config{
		BaseURL: srv.URL(), ClientID: emulator.DefaultClientID, ClientSecret: emulator.DefaultClientSecret,
		MaxRetries: client.DefaultMaxRetries, RetryWaitMin: time.Millisecond, RetryWaitMax: 20 * time.Millisecond,
		RequestTimeout: requestTimeout,
	}
	for _, tweak := range tweaks {
		tweak(&cfg)
	}
	cl, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// readerOut is what one reader got.
type readerOut struct {
	ids, late []string
	res       reads.Result
	err       error
}

// idsFilter are the values of an in(id,...): up to 40 ids of the store,
// or with many 150 to 600, past the 200 or so one request holds; some of
// them unknown.
func idsFilter(t *testing.T, srv *emulator.Server, res string, many bool, rng *rand.Rand) []string {
	all, err := srv.SortedIDs(res, "", "id")
	if err != nil {
		t.Fatal(err)
	}
	n := 1 + rng.IntN(40)
	if many {
		n = 150 + rng.IntN(451)
	}
	var ids []string
	for range n {
		if len(all) == 0 || rng.IntN(10) == 0 {
			ids = append(ids, fmt.Sprintf("00000000-0000-4000-8000-%012d", rng.IntN(1e6)))
			continue
		}
		ids = append(ids, all[rng.IntN(len(all))])
	}
	return ids
}

// snap is the store's answer to the read at one moment: the ids in the
// order asked, and each one's place.
type snap struct {
	ids []string
	at  map[string]int
}

func snapshot(t testing.TB, srv *emulator.Server, res, filterText, sort string, keep func() map[string]bool) snap {
	ids, err := srv.SortedIDs(res, filterText, sort)
	if err != nil {
		t.Fatal(err)
	}
	if keep != nil {
		kept := keep()
		ids = slices.DeleteFunc(ids, func(id string) bool { return !kept[id] })
	}
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	return snap{ids: ids, at: at}
}

// drawWhere draws a where item as a user writes one, an attribute, an
// operator and a raw value from a record of the store (for accounts, one
// of the emulator's names that break careless quoting: "Acme, Inc.",
// `The "Quoted" Company`, "eq(name,Acme)", ...), and the ids that match it
// at the time of asking, found from the records themselves: the expected
// list does not go through the rendering of the merged filter that the
// read sends.
func drawWhere(srv *emulator.Server, res string, rng *rand.Rand) (filter.Term, func() map[string]bool) {
	switch res {
	case "accounts":
		name := "Acme, Inc."
		if all := srv.Accounts(); len(all) > 0 {
			name = all[rng.IntN(min(len(all), 24))].Name
		}
		return filter.NewTerm(filter.Eq, "name", name), func() map[string]bool {
			ids := map[string]bool{}
			for _, a := range srv.Accounts() {
				ids[a.ID] = a.Name == name
			}
			return ids
		}
	case "customers":
		email := "nobody@example.com"
		if all := srv.Customers(); len(all) > 0 {
			email = all[rng.IntN(len(all))].Email
		}
		return filter.NewTerm(filter.Eq, "email", email), func() map[string]bool {
			ids := map[string]bool{}
			for _, c := range srv.Customers() {
				ids[c.ID] = c.Email == email
			}
			return ids
		}
	default:
		status := []string{"complete", "processing", "cancelled", "incomplete"}[rng.IntN(4)]
		return filter.NewTerm(filter.Eq, "status", status), func() map[string]bool {
			ids := map[string]bool{}
			for _, o := range srv.Orders() {
				ids[o.ID] = o.Status == status
			}
			return ids
		}
	}
}

// ---- The writes and faults of a draw

// writer makes the draw's writes during a read, from the list requests of
// its endpoint, and injects its faults.
type writer struct {
	srv *emulator.Server
	c   matrixCase

	mu      sync.Mutex // guards everything below, and holds writes off while a read's result is taken
	rng     *rand.Rand
	on      bool
	listReq int
	start   time.Time            // when the read began
	born    map[string]time.Time // every record created, and when, across the plans
	created map[string]bool
	deleted map[string]bool
	updated map[string]bool
	victims []string
	// tokenRun and tokenRunMax count token requests answered 503 in a
	// row: now, and at most so far.
	tokenRun, tokenRunMax int
}

// refusedTokensInARow is the most token requests in a row the store
// answered 503.
func (w *writer) refusedTokensInARow() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tokenRunMax
}

// written is what changed during one read; young, with a consistency
// buffer, are the records created less than the buffer before the read
// began (in an earlier plan too), which it may leave out.
type written struct{ created, deleted, updated, young map[string]bool }

// any: the store is not the same throughout the read, or a record in it
// may be left out by the consistency buffer.
func (w written) any() bool { return len(w.created)+len(w.deleted)+len(w.updated)+len(w.young) > 0 }

func (w *writer) begin(t testing.TB) {
	all := emulatortest.SortedIDs(t, w.srv, w.c.res.name, "", "id")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.on = w.c.writeEvery > 0
	w.start = time.Now()
	if w.born == nil {
		w.born = map[string]time.Time{}
	}
	w.created, w.deleted, w.updated = map[string]bool{}, map[string]bool{}, map[string]bool{}
	w.victims = all
}

// end stops the writes, once any write under way has finished, and
// returns what changed.
func (w *writer) end() written {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.on = false
	young := map[string]bool{}
	for id, at := range w.born {
		if w.c.buffer > 0 && !at.Before(w.start.Add(-w.c.buffer)) {
			young[id] = true
		}
	}
	return written{created: w.created, deleted: w.deleted, updated: w.updated, young: young}
}

// fault is the emulator's FaultFunc: a write every writeEvery list
// requests of path, and a fault on faultRate of the resource requests.
func (w *writer) fault(c matrixCase, path string) emulator.FaultFunc {
	return func(r *http.Request, _ int64) *emulator.Fault {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.on && r.Method == http.MethodGet && r.URL.Path == path {
			w.listReq++
			if w.listReq%w.c.writeEvery == 0 {
				w.write()
			}
		}
		if strings.Contains(r.URL.Path, "oauth") {
			if c.tokenFaults && w.rng.IntN(5) == 0 {
				w.tokenRun++
				w.tokenRunMax = max(w.tokenRunMax, w.tokenRun)
				return &emulator.Fault{Status: http.StatusServiceUnavailable}
			}
			w.tokenRun = 0
			return nil
		}
		if c.faultRate == 0 || w.rng.Float64() >= c.faultRate {
			return nil
		}
		kind := c.faultKinds[w.rng.IntN(len(c.faultKinds))]
		switch kind {
		case "html-502":
			// A proxy's page, not the service's JSON:API errors.
			return &emulator.Fault{Status: http.StatusBadGateway, Body: "<html><body><h1>502 Bad Gateway</h1></body></html>"}
		case "slow-ok":
			// Slow, well within the request timeout, then the real answer.
			return &emulator.Fault{Delay: 300 * time.Millisecond}
		case "429":
			return &emulator.Fault{Status: http.StatusTooManyRequests}
		case "429-retry-after":
			return &emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"}
		case "stall":
			return &emulator.Fault{Delay: stall, Status: http.StatusServiceUnavailable}
		case "cut":
			return &emulator.Fault{Truncate: true}
		case "reset":
			return &emulator.Fault{Reset: true}
		default:
			n, _ := strconv.Atoi(kind)
			return &emulator.Fault{Status: n}
		}
	}
}

// write makes one write, under w.mu.
func (w *writer) write() {
	res := w.c.res.name
	if w.c.pair {
		w.create()
		w.delete()
		return
	}
	switch n := w.rng.IntN(w.c.creates + w.c.deletes + w.c.upds); {
	case n < w.c.creates || len(w.victims) == 0:
		w.create()
	case n < w.c.creates+w.c.deletes:
		w.delete()
	default:
		id := w.victims[w.rng.IntN(len(w.victims))]
		if w.srv.Update(res, id) == nil {
			w.updated[id] = true
		}
	}
}

func (w *writer) create() {
	if id, err := w.srv.Insert(w.c.res.name); err == nil {
		w.created[id] = true
		w.born[id] = time.Now()
		w.victims = append(w.victims, id)
	}
}

func (w *writer) delete() {
	if len(w.victims) == 0 {
		return
	}
	i := w.rng.IntN(len(w.victims))
	id := w.victims[i]
	w.victims = slices.Delete(w.victims, i, i+1)
	if w.srv.Delete(w.c.res.name, id) == nil {
		w.deleted[id] = true
	}
}

// ---- What a read must have got

// check holds one reader's result to the promise:
//
//   - the read succeeds, or fails for a reason no client could overcome
//     (excused);
//   - no record is listed twice, and none that never existed;
//   - every record that matched from the read's start to its end and was
//     not changed during it is listed (up to max_results: every such
//     record that sorts before the last one listed);
//   - the records are in the order asked: those not changed during the
//     read keep the store's order (by value, ties by id), at the start
//     and at the end, a record created during the read among them;
//   - without writes, exactly the store's answer (its first max_results);
//   - total as documented: the records listed where the read reached the
//     end; the store's count of matches where it is known.
func check(t *testing.T, c matrixCase, what string, k keep, pageSize int, before, after snap, w written, o readerOut) {
	t.Helper()
	if o.err != nil {
		if why := excused(c, max(len(before.ids), len(after.ids)), o.err); why != "" {
			t.Logf("%s: failed as it may (%s): %v", what, why, o.err)
			return
		}
		t.Errorf("%s: the read failed: %v", what, o.err)
		return
	}
	got := append(slices.Clone(o.late), o.ids...)
	seen := map[string]bool{}
	for _, id := range got {
		if c.buffer > 0 && w.created[id] {
			t.Errorf("%s: %s was created during the read, inside consistency_buffer %s, and listed", what, id, c.buffer)
			return
		}
		if seen[id] {
			t.Errorf("%s: %s listed twice", what, id)
			return
		}
		seen[id] = true
		if _, ok := before.at[id]; !ok && !w.created[id] && !w.updated[id] {
			if _, ok := after.at[id]; !ok {
				t.Errorf("%s: %s listed, but it matched neither at the start nor at the end, nor was it written", what, id)
				return
			}
		}
	}
	limited := k.maxResults > 0 && len(o.ids) >= k.maxResults
	if k.maxResults > 0 && len(o.ids) > k.maxResults {
		t.Errorf("%s: %d records listed, more than max_results %d", what, len(o.ids), k.maxResults)
	}
	if !w.any() {
		want := before.ids
		if k.maxResults > 0 && len(want) > k.maxResults {
			want = want[:k.maxResults]
		}
		if i := emulatortest.FirstDiff(got, want); i < len(got) || i < len(want) {
			t.Errorf("%s: with no write during the read, listed %d records, the store has %d; first difference at %d: %s",
				what, len(got), len(want), i, around(got, want, i))
		}
	} else {
		checkOrder(t, what, got, before, w)
		checkOrder(t, what, got, after, w)
		checkComplete(t, what, got, seen, before, after, w, limited)
	}
	// Where the service cannot filter created_at, the provider applies the
	// buffer itself and the service's count is no count of the result.
	exact := c.countsExactlyWhenAsked() && (c.buffer == 0 || c.res.endpoint.FiltersWith("created_at", filter.Lt))
	checkTotal(t, what, k, pageSize, c.maxOffset(), exact, before, w, o, limited)
}

// countsExactlyWhenAsked: the store answers page[total_method]=exact with
// an exact count, labelled so.
func (c matrixCase) countsExactlyWhenAsked() bool {
	return !c.counting.IgnoreExact || c.counting.Method == emulator.CountExact && !c.counting.Unlabelled
}

// checkOrder: the listed records that s holds and that no update moved
// come in s's order.
func checkOrder(t *testing.T, what string, got []string, s snap, w written) {
	t.Helper()
	prev, prevID := -1, ""
	for _, id := range got {
		at, ok := s.at[id]
		if !ok || w.updated[id] {
			continue
		}
		if at < prev {
			t.Errorf("%s: out of order: %s (the store's place %d) listed after %s (place %d)", what, id, at, prevID, prev)
			return
		}
		prev, prevID = at, id
	}
}

// checkComplete: every record that matched at the start and at the end,
// unchanged, is listed; under max_results, every such record that sorts
// before the last one listed.
func checkComplete(t *testing.T, what string, got []string, seen map[string]bool, before, after snap, w written, limited bool) {
	t.Helper()
	last := len(before.ids)
	if limited {
		last = -1
		for _, id := range got {
			if at, ok := before.at[id]; ok && !w.updated[id] {
				last = max(last, at)
			}
		}
	}
	missing := 0
	first := ""
	for i, id := range before.ids {
		if i >= last {
			break
		}
		if _, still := after.at[id]; !still || w.updated[id] || w.young[id] || seen[id] {
			continue
		}
		if missing == 0 {
			first = fmt.Sprintf("%s (place %d)", id, i)
		}
		missing++
	}
	if missing > 0 {
		t.Errorf("%s: %d records that matched all along were not listed, the first %s", what, missing, first)
	}
}

// checkTotal holds total to the docs: known and the records listed where
// the read listed every match (fewer than max_results); without writes,
// the store's count wherever known; known where the read listed every
// match and saw the end (max_results equal to the matches, ending on a
// short page); and known past max_results where the reader counts
// matches (count_matches) at a store that counts exactly when asked.
func checkTotal(t *testing.T, what string, k keep, pageSize, maxOffset int, exact bool, before snap, w written, o readerOut, limited bool) {
	t.Helper()
	n := len(o.ids) + len(o.late)
	switch {
	case !limited && (!o.res.TotalKnown || o.res.Total != n):
		t.Errorf("%s: listed all %d matches, but total is %d (known %v)", what, n, o.res.Total, o.res.TotalKnown)
	case !w.any() && o.res.TotalKnown && o.res.Total != len(before.ids):
		t.Errorf("%s: total %d, the store has %d matches", what, o.res.Total, len(before.ids))
	case !w.any() && limited && len(before.ids) == k.maxResults && len(before.ids) <= maxOffset/2 && len(before.ids)%pageSize != 0 && !o.res.TotalKnown:
		t.Errorf("%s: listed all %d matches (max_results %d) and saw the end, but total is unknown", what, n, k.maxResults)
	case !w.any() && limited && k.countMatches && exact && !o.res.TotalKnown:
		t.Errorf("%s: listed %d of %d matches, counting them at a store that counts exactly when asked, but total is unknown", what, n, len(before.ids))
	}
}

// checkShared: readers announced together share one listing, whatever
// each keeps: one of them opened it, the others joined.
func checkShared(t *testing.T, what string, outs []readerOut) {
	t.Helper()
	if len(outs) == 0 {
		return
	}
	opened := 0
	for _, o := range outs {
		if o.err != nil {
			return
		}
		if !o.res.Shared {
			opened++
		}
	}
	if opened != 1 {
		t.Errorf("%s: %d readers announced together listed on their own, want one listing for all %d", what, opened, len(outs))
	}
}

// lookUp looks a record of the store up by id: it must come back as it
// is, or, one deleted during the last read, as not found.
func lookUp[T commerce.Record](t *testing.T, c matrixCase, srv *emulator.Server, e *listing.Engine, kind commerce.Kind[T], what string, w written, rng *rand.Rand) {
	t.Helper()
	all, err := srv.SortedIDs(c.res.name, "", "id")
	if err != nil {
		t.Fatal(err)
	}
	gone := slices.Sorted(maps.Keys(w.deleted))
	if len(all) == 0 && len(gone) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if len(gone) > 0 && (len(all) == 0 || rng.IntN(3) == 0) {
		id := gone[rng.IntN(len(gone))]
		_, err := listing.Lookup(ctx, e, kind, id, rng.IntN(2) == 0)
		switch {
		case err == nil:
			t.Errorf("%s: %s was deleted during the read, but the lookup found it", what, id)
		case !client.NotFound(err):
			if why := excused(c, len(all), err); why == "" {
				t.Errorf("%s: %s was deleted during the read: %v, want not found", what, id, err)
			}
		}
		return
	}
	id := all[rng.IntN(len(all))]
	rec, err := listing.Lookup(ctx, e, kind, id, rng.IntN(2) == 0)
	switch {
	case err != nil:
		if why := excused(c, len(all), err); why != "" {
			t.Logf("%s: failed as it may (%s): %v", what, why, err)
			return
		}
		t.Errorf("%s: %s: %v", what, id, err)
	case rec.RecordID() != id:
		t.Errorf("%s: asked %s, got %s", what, id, rec.RecordID())
	}
}

// excused says why err is one no client could avoid, or "" when the read
// should have succeeded. Each entry names the store's behaviour that makes
// success impossible.
func excused(c matrixCase, matches int, err error) string {
	var unlistable *listing.UnlistableError
	var protocol *commerce.ProtocolError
	// Nothing cuts a listing in the service's own order at an endpoint
	// with neither a range attribute nor ids bounded by range; an endpoint
	// with either is listed whole, so no error is excused there.
	uncuttable := c.ignore && c.res.endpoint.RangeAttribute == "" && !idsRanged(c.res.endpoint)
	// Files filter by neither time nor id: the files of one file_size are
	// paged by offset in the service's own order, and by nothing finer.
	sizeTie := func(over int) bool { return slices.ContainsFunc(c.sizeTies, func(n int) bool { return n > over }) }
	pageSize := c.pageSize
	if pageSize == 0 {
		pageSize = commerce.DefaultPageSize
	}
	var auth *client.AuthError
	switch {
	case errors.As(err, &auth) && c.refusedTokensInARow != nil && c.refusedTokensInARow() > client.DefaultMaxRetries:
		return "the token endpoint answered 503 to every attempt the client's retries allow, in a row"
	case errors.As(err, &unlistable) && sizeTie(c.maxOffset()):
		return "more files share one file_size than the offset limit reaches, and files filter by nothing finer"
	case sizeTie(pageSize) && c.writeEvery > 0 && (c.deletes > 0 || c.pair) && errors.As(err, &protocol) &&
		strings.Contains(err.Error(), "with file_size = ") && strings.Contains(err.Error(), "disagreed between pages"):
		return "deletes during every read of a file_size tie group larger than a page: files filter by nothing finer, so offsets are all that pages the group, and they shift with every delete"
	case errors.As(err, &unlistable) && c.alias != "" && slices.ContainsFunc(c.ties, func(n int) bool { return n > c.maxOffset() }) &&
		strings.Contains(err.Error(), "records share created_at"):
		return "more records share one created_at than the store's offset limit reaches, at an endpoint the provider probed, which it knows no id order or id filter for, so nothing it can send tells those records apart"
	case c.alias != "" && slices.ContainsFunc(c.ties, func(n int) bool { return n > pageSize }) &&
		(c.shuffle || c.writeEvery > 0 && (c.deletes > 0 || c.pair)) && errors.As(err, &protocol) &&
		strings.Contains(err.Error(), "filter=ge(created_at,") && strings.Contains(err.Error(), "disagreed between pages"):
		return "a created_at tie group larger than a page, in another order on every request or with deletes during the read, at an endpoint the provider probed: it knows no id order or id filter there, so offsets are all that pages the group, and they shift with every delete and every new order (as for files' file_size)"
	case errors.As(err, &unlistable) && uncuttable && matches > c.maxOffset():
		return "more matches than the offset limit reaches, at an endpoint that ignores sort=, has no range attribute and does not bound ids"
	case uncuttable && c.writeEvery > 0 && errors.As(err, &protocol) && strings.Contains(err.Error(), "disagreed between pages"):
		return "writes during the read at an endpoint that ignores sort=, has no range attribute and does not bound ids: offsets in the service's own order are all there is, and they shift with every write"
	}
	return ""
}

// idsRanged reports whether e filters ids by range, which cuts a listing
// in the service's own order into spans one answer each holds.
func idsRanged(e commerce.Endpoint) bool {
	f, ok := e.Filters["id"]
	return ok && f.Ranged()
}

// around shows got and want near index i.
func around(got, want []string, i int) string {
	win := func(s []string) []string { return s[max(0, i-2):min(len(s), i+3)] }
	return fmt.Sprintf("got …%v…, want …%v…", win(got), win(want))
}

// memSnapshots keeps the cache's snapshots in memory, as the provider's
// cache folder does on disk.
type memSnapshots struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memSnapshots) Load(name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[name], nil
}

func (s *memSnapshots) Save(name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = data
	return nil
}
