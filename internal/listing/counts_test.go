package listing

// Lists whose store counts lazily: every strategy, every count method the
// service may use (commerce.Count), exact and in order, with a total that
// is the truth or says it is not known. A count never ends a list.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// readCase is one read of the count matrix.
type readCase struct {
	name string
	read func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting)
}

// readExact reads q of kind on the engine alone (readOnce), and
// checks the ids against the emulator's answer and the total against
// what the read may know.
func readExact[T commerce.Record](t *testing.T, e *Engine, srv *emulator.Server, kind commerce.Kind[T], q Query, c emulator.Counting) {
	t.Helper()
	var got []string
	res, err := readOnce(context.Background(), e, kind, q, Reader[T]{Emit: func(r T) error { got = append(got, r.RecordID()); return nil }})
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	all := wantIDs(t, srv, kind.Endpoint, q.Filter.Text(), q.Sort)
	want := all
	if q.MaxResults > 0 && len(want) > q.MaxResults {
		want = want[:q.MaxResults]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%+v: listed %d, want %d; first difference at %d", q, len(got), len(want), firstDiff(got, want))
	}
	cut := q.MaxResults > 0 && len(all) >= q.MaxResults
	switch {
	case !cut && (!res.TotalKnown || res.Total != len(all)):
		t.Errorf("%+v: total %d (known %v), want the %d listed", q, res.Total, res.TotalKnown, len(all))
	case cut && q.CountMatches && emulatortest.ExactWhenAsked(c) && (!res.TotalKnown || res.Total != len(all)):
		t.Errorf("%+v: total %d (known %v), want the service's exact %d", q, res.Total, res.TotalKnown, len(all))
	case cut && res.TotalKnown && res.Total != len(all):
		t.Errorf("%+v: total %d given as known, but %d match", q, res.Total, len(all))
	case cut && !emulatortest.ExactWhenAsked(c) && res.TotalKnown:
		t.Errorf("%+v: total %d given as known from a count the service did not say is exact", q, res.Total)
	}
}

// TestEveryStrategyEveryCountMethod lists through every strategy at a
// store counting each way the service may: complete, in order, and the
// total the truth (or, cut at max_results without an exact count, not
// claimed).
func TestEveryStrategyEveryCountMethod(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 25000, Accounts: 25000, Files: 12000, Customers: 10500,
		Aliases: map[string]string{"/v2/members": "customers"}})
	ids := make([]string, 0, 500)
	for _, a := range srv.Accounts()[1000:1500] {
		ids = append(ids, a.ID)
	}
	cases := []readCase{
		{"orders by keyset windows", func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting) {
			readExact(t, e, srv, commerce.Orders, Query{}, c)
		}},
		{"accounts by keyset windows, descending", func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting) {
			readExact(t, e, srv, commerce.Accounts, Query{Sort: "-created_at"}, c)
		}},
		{"files by range windows", func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting) {
			readExact(t, e, srv, commerce.Files, Query{Sort: "-file_size"}, c)
		}},
		{"orders sorted by the provider", func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting) {
			readExact(t, e, srv, commerce.Orders, Query{Sort: "-updated_at", Filter: mustFilter("eq(status,complete)")}, c)
		}},
		{"a tie group larger than a window", func(t *testing.T, _ *Engine, _ *emulator.Server, c emulator.Counting) {
			ties := emulatortest.Start(t, emulator.Options{Orders: 12500, OrderTieGroups: []int{10050}, Accounts: -1, Files: -1, Counting: c})
			readExact(t, newClient(t, ties), ties, commerce.Orders, Query{Sort: "-created_at"}, c)
		}},
		{"accounts sorted by the provider", func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting) {
			readExact(t, e, srv, commerce.Accounts, Query{Sort: "name", Filter: mustFilter("ge(created_at,2024-07-01)")}, c)
		}},
		{"max_results", func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting) {
			readExact(t, e, srv, commerce.Orders, Query{MaxResults: 150, CountMatches: true}, c)
			readExact(t, e, srv, commerce.Accounts, Query{MaxResults: 10001, Sort: "id", CountMatches: true}, c)
			readExact(t, e, srv, commerce.Files, Query{MaxResults: 40, CountMatches: true}, c)
		}},
		{"a long in() split into parts", func(t *testing.T, e *Engine, srv *emulator.Server, _ emulator.Counting) {
			var got []string
			res, err := readOnce(context.Background(), e, commerce.Accounts, Query{Filter: mustFilter("in(id," + strings.Join(ids, ",") + ")")},
				Reader[commerce.Account]{Emit: func(a commerce.Account) error { got = append(got, a.ID); return nil }})
			if want := wantAmong(t, srv, ids, "created_at"); err != nil || !slices.Equal(got, want) || !res.TotalKnown || res.Total != len(want) {
				t.Fatalf("listed %d (total %d, known %v, %v), want the %d in order; first difference at %d",
					len(got), res.Total, res.TotalKnown, err, len(want), firstDiff(got, want))
			}
		}},
		{"a lookup", func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting) {
			one := srv.Accounts()[24000]
			readExact(t, e, srv, commerce.Accounts, Query{Filter: mustFilter("eq(id," + one.ID + ")"), MaxResults: 2}, c)
			readExact(t, e, srv, commerce.Orders, Query{Filter: mustFilter("eq(status,complete)"), MaxResults: 2}, c)
		}},
		{"an endpoint the provider does not know", func(t *testing.T, e *Engine, srv *emulator.Server, c emulator.Counting) {
			ep, err := e.Probe(context.Background(), "/v2/members")
			if err != nil {
				t.Fatal(err)
			}
			if len(ep.ServiceSorts) == 0 {
				t.Fatalf("the probe found no sort on /v2/members: %+v", ep)
			}
			ep.Name = "customers" // the oracle's name for what the alias serves
			readExact(t, e, srv, commerce.GenericKind(ep), Query{Sort: "-created_at"}, c)
		}},
	}
	for name, counting := range emulatortest.Countings() {
		t.Run(name, func(t *testing.T) {
			srv.SetCounting(counting)
			for _, rc := range cases {
				t.Run(rc.name, func(t *testing.T) { rc.read(t, newClient(t, srv), srv, counting) })
			}
		})
	}
}

// TestCountNeverEndsAList: random stores, count methods, filters, sorts,
// page sizes and limits; a list shorter or longer than the truth fails,
// with the seed that made it.
func TestCountNeverEndsAList(t *testing.T) {
	longTest(t)
	for seed := range uint64(200) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 41))
			counting := randomCounting(rng)
			opts := emulator.Options{Seed: int64(seed), Orders: rng.IntN(13000), Accounts: rng.IntN(3000), Files: rng.IntN(12500),
				OrderTieGroups: []int{2 + rng.IntN(300)}, Counting: counting}
			srv := emulatortest.Start(t, opts)
			pageSize := []int{7, 25, 50, 100, 100}[rng.IntN(5)]
			if opts.Orders+opts.Files > 8000 && pageSize < 50 {
				pageSize = 50 // a page of 7 through 20,000 records takes too long for a test
			}
			e := newClient(t, srv, func(c *testConfig) { c.PageSize = pageSize })
			q := randomQuery(rng)
			t.Logf("seed %d: %+v, page size %d, %d orders, %d accounts, %d files: %s", seed, counting, pageSize,
				opts.Orders, opts.Accounts, opts.Files, q.describe())
			switch q.kind {
			case "orders":
				readExact(t, e, srv, commerce.Orders, q.Query, counting)
			case "accounts":
				readExact(t, e, srv, commerce.Accounts, q.Query, counting)
			default:
				readExact(t, e, srv, commerce.Files, q.Query, counting)
			}
		})
	}
}

func randomCounting(rng *rand.Rand) emulator.Counting {
	methods := []string{"", emulator.CountExact, emulator.CountLowerBound, emulator.CountObserved, emulator.CountEstimate, emulator.CountNone}
	c := emulator.Counting{Method: methods[rng.IntN(len(methods))], IgnoreExact: rng.IntN(2) == 0}
	switch c.Method {
	case emulator.CountLowerBound:
		c.Cap = 1 + rng.IntN(15000)
		c.Unlabelled = rng.IntN(2) == 0
	case emulator.CountEstimate:
		c.Percent = 1 + rng.IntN(20)
	}
	return c
}

// randomQuery is a read of orders, accounts or files.
type randomRead struct {
	kind string
	Query
}

func (r randomRead) describe() string { return r.kind + " " + dump(r.Query) }

func randomQuery(rng *rand.Rand) randomRead {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var r randomRead
	switch rng.IntN(3) {
	case 0:
		r = randomRead{"orders", Query{Sort: pick("", "created_at", "-created_at", "-updated_at", "id", "-id"),
			Filter: mustFilter(pick("", "", "eq(status,complete)", "ge(created_at,2024-05-01)", "lt(with_tax,5000)"))}}
	case 1:
		r = randomRead{"accounts", Query{Sort: pick("", "created_at", "id", "-id", "name", "-updated_at"),
			Filter: mustFilter(pick("", "", "like(name,*a*)", "ge(created_at,2024-03-01)"))}}
	default:
		r = randomRead{"files", Query{Sort: pick("", "file_size", "-created_at", "id"),
			Filter: mustFilter(pick("", "", "gt(file_size,100000)", "like(file_name,*.png)"))}}
	}
	if rng.IntN(3) == 0 {
		r.MaxResults = 1 + rng.IntN(12000)
		r.CountMatches = rng.IntN(2) == 0
	}
	return r
}

// TestLimitedReadsReadAheadPastALowCount: a read cut at max_results at a
// store whose count stops at 1,000 goes on past the count with requests in
// parallel, not page by page, and no further than the cut needs. What is
// counted is the engine's requests outstanding at once: the transport's
// probe of a store it has not met holds some of them back (client, budget.go).
func TestLimitedReadsReadAheadPastALowCount(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 12000, Orders: -1, Files: -1, Latency: 5 * time.Millisecond,
		Counting: emulator.Counting{Method: emulator.CountLowerBound, Cap: 1000}})
	var past aheadGets
	past.Getter = newClient(t, srv).get
	e, err := New(&past, Options{MaxParallelRequests: client.DefaultMaxParallelRequests})
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetStats()
	readExact(t, e, srv, commerce.Accounts, Query{MaxResults: 9000}, emulator.Counting{Method: emulator.CountLowerBound, Cap: 1000})
	// 93 pages of 97 new accounts, the one the last records' ties may
	// need, and the one that reads a tie group a boundary falls in.
	if n, most := srv.Stats().ListRequests["accounts"], past.most.Load(); n > 95 || most < 4 {
		t.Errorf("%d list requests, at most %d at once past the count; want at most 95, and several at once", n, most)
	}
}

// aheadGets counts the most requests its Getter has outstanding at once
// for pages from offset 2,000 on, past a count of 1,000.
type aheadGets struct {
	Getter
	now, most atomic.Int64
}

func (g *aheadGets) Get(ctx context.Context, path string, q url.Values, decode func([]byte) error) error {
	if offset, _ := strconv.Atoi(q.Get("page[offset]")); offset >= 2000 {
		n := g.now.Add(1)
		defer g.now.Add(-1)
		for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
		}
	}
	return g.Getter.Get(ctx, path, q, decode)
}
