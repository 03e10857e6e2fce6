package storematrix

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// The stores that broke the promise once, as fixed draws held to the same
// checks as the random ones: each at the conditions it broke at.

func resourceNamed(name string) resource {
	for _, r := range resources {
		if r.name == name {
			return r
		}
	}
	panic("no resource " + name)
}

var one = []keep{{}}

var namedStores = []struct {
	name string
	c    matrixCase
}{
	// A record created during the read came back hundreds of places late.
	{"an order created every 5 list requests, newest first",
		matrixCase{res: resourceNamed("orders"), size: 3000, defTies: true, writeEvery: 5, creates: 1, sort: "-created_at", readers: one, plans: 1}},
	// An untouched record came back 100 places late, every run.
	{"an account created and one deleted every 3 list requests",
		matrixCase{res: resourceNamed("accounts"), size: 20000, defTies: true, writeEvery: 3, pair: true, sort: "created_at", readers: one, plans: 1}},
	{"an account created and one deleted every 3 list requests, the first 5,000",
		matrixCase{res: resourceNamed("accounts"), size: 20000, defTies: true, writeEvery: 3, pair: true, sort: "created_at",
			readers: []keep{{maxResults: 5000}}, plans: 1}},
	// Ties in another order on every request failed as "changed".
	{"orders in tie groups of 450, in a varying order",
		matrixCase{res: resourceNamed("orders"), size: 6000, ties: []int{450, 450, 450, 450, 450, 450, 450, 450, 450, 450, 450, 450, 450},
			shuffle: true, sort: "created_at", readers: one, plans: 1}},
	{"a tie group of 101 in a varying order, no count",
		matrixCase{res: resourceNamed("orders"), size: 3000, ties: []int{101}, shuffle: true, counting: emulator.Counting{Method: emulator.CountNone},
			sort: "created_at", readers: one, plans: 1}},
	{"a tie group of 101 in a varying order, a lower bound of 100",
		matrixCase{res: resourceNamed("orders"), size: 3000, ties: []int{101}, shuffle: true, counting: emulator.Counting{Method: emulator.CountLowerBound, Cap: 100},
			sort: "created_at", readers: one, plans: 1}},
	{"a tie group of 101 in a varying order, pages of 10",
		matrixCase{res: resourceNamed("orders"), size: 3000, ties: []int{101}, shuffle: true, pageSize: 10, sort: "created_at", readers: one, plans: 1}},
	{"files without a count, changing on every request",
		matrixCase{res: resourceNamed("files"), size: 3000, defTies: true, counting: emulator.Counting{Method: emulator.CountNone},
			writeEvery: 1, creates: 1, deletes: 1, upds: 1, readers: one, plans: 1}},
	// Tokens revoked after a few uses ended the read.
	{"accounts with tokens good for 7 requests, 10 ms away",
		matrixCase{res: resourceNamed("accounts"), size: 6000, defTies: true, tokenUses: 7, latency: 10 * time.Millisecond, readers: one, plans: 1}},
	{"orders with tokens good for 3 requests",
		matrixCase{res: resourceNamed("orders"), size: 5000, defTies: true, tokenUses: 3, readers: one, plans: 1}},
	// max_results equal to the matches at a lazily counting store left
	// the total unknown although the read saw the end.
	{"max_results equal to the matches, a lower bound",
		matrixCase{res: resourceNamed("accounts"), size: 250, defTies: true, counting: emulator.Counting{Method: emulator.CountLowerBound, Cap: 100},
			readers: []keep{{maxResults: 250}}, plans: 1}},
}

func TestNamedStores(t *testing.T) {
	for i, n := range namedStores {
		t.Run(n.name, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && n.c.size > 3000 {
				t.Skip("large store: make test reads it, make unit does not")
			}
			c := n.c
			c.seed = uint64(1000 + i)
			runCase(t, c)
		})
	}
}

// seedsThatFailed are draws of the nightly matrix that once lost a record,
// each run as drawn (its seed names every stream it draws from).
var seedsThatFailed = []struct {
	seed uint64
	why  string
}{
	{1677577, "an update slid a record between pages of an in() sorted by updated_at"},
	{1681145, "a delete slid a record between pages of an in() whose first page asked for an exact count, the others given a lower bound"},
	{1680094, "a delete moved a tie partner into the place of the one record two pages shared, at a store that orders ties anew (1 run in 24)"},
	{1733831, "a read past the offset limit of a store that ignores sort= and stalls 3% of its answers outlasted the read deadline: each stall held up the whole read"},
	{1731306, "as 1733831, 26,167 accounts"},
	{2004068, "a refresh that found deletes at a store that ignores sort= read a created_at range in the order it asked for, and the store's own order, after creates, was not that order"},
	{2002551, "a store that ignores sort= gave a first page in -updated_at order as well as in its own (the newest accounts were never updated), and the disorder showed after records were handed out"},
}

func TestSeedsThatFailedOnce(t *testing.T) {
	for _, f := range seedsThatFailed {
		c := drawCase(f.seed)
		t.Run(fmt.Sprintf("seed=%d", f.seed), func(t *testing.T) {
			t.Parallel()
			t.Log(f.why)
			runCase(t, c)
		})
	}
}

// A tie group that fills a page, in a filter that leaves no room for the
// bounds that isolate it, fails and says so truly: how many records share
// the value is not known, and the filter has room for 8 of the user's
// terms, not 9.
func TestTieGroupPastTheFilterLimitSaysWhatIsTrue(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 3000, OrderTieGroups: []int{2000}, ShuffleTies: true})
	cfgClient := newMatrixClient(t, srv)
	e, err := listing.New(cfgClient, listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nine := "ge(with_tax,0):lt(with_tax,999999999):ge(without_tax,0):lt(without_tax,999999999):like(email,*):like(name,*):like(customer_id,*):like(order_number,*):like(external_ref,*)"
	parsed, err := filter.ParseText(nine)
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.Terms) != 9 {
		t.Fatalf("the filter has %d terms, want 9", len(parsed.Terms))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = reads.Read(ctx, reads.New(e, reads.Options{}), commerce.Orders, listing.Query{Filter: parsed, Sort: "created_at"},
		listing.Reader[commerce.Order]{Emit: func(commerce.Order) error { return nil }})
	var limit *listing.FilterLimitError
	if !errors.As(err, &limit) {
		t.Fatalf("want a FilterLimitError, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"at most 8 terms", "adds 2"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "10000 records share") {
		t.Errorf("the message claims more than the offset limit share the value: %s", msg)
	}
}

// A read that could not get a token is excused only where the store
// refused more token requests in a row than the client's retries allow.
func TestExcusedOnlyTokensRefusedPastTheRetries(t *testing.T) {
	err := &client.AuthError{TokenURL: "http://127.0.0.1/oauth/access_token", Attempts: client.DefaultMaxRetries + 1, Err: errors.New("503")}
	for run, want := range map[int]bool{0: false, client.DefaultMaxRetries: false, client.DefaultMaxRetries + 1: true} {
		c := matrixCase{res: resourceNamed("accounts"), refusedTokensInARow: func() int { return run }}
		if got := excused(c, 10, err) != ""; got != want {
			t.Errorf("%d token requests refused in a row: excused %v, want %v", run, got, want)
		}
	}
	if excused(matrixCase{res: resourceNamed("accounts")}, 10, err) != "" {
		t.Error("excused with no token request refused")
	}
}
