package listing

// The engine's fault cases (the transport's are internal/client's
// faults_*_test.go): responses that break the contract.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

func offsetOf(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page[offset]"))
	if err != nil {
		return -1
	}
	return n
}

// editList returns a Fault.Mutate that decodes a list body, lets edit change
// it, and encodes it again. Bodies that are not list bodies (errors) pass
// unchanged.
func editList(edit func(doc map[string]any)) func([]byte) []byte {
	return func(body []byte) []byte {
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return body
		}
		if _, ok := doc["data"].([]any); !ok {
			return body
		}
		edit(doc)
		out, err := json.Marshal(doc)
		if err != nil {
			panic(err)
		}
		return out
	}
}

func docRecords(doc map[string]any) []any { return doc["data"].([]any) }

func docRecord(doc map[string]any, i int) map[string]any {
	return docRecords(doc)[i].(map[string]any)
}

// docTotal is the page's meta.results.total; a total that is not a whole
// number would make the fault built on it a different one, so it panics
// (the fault runs inside the emulator's handler, where no t is at hand).
func docTotal(doc map[string]any) int {
	n, err := doc["meta"].(map[string]any)["results"].(map[string]any)["total"].(json.Number).Int64()
	if err != nil {
		panic(fmt.Sprintf("meta.results.total is not a whole number: %v", err))
	}
	return int(n)
}

func setDocTotal(doc map[string]any, total int) {
	doc["meta"].(map[string]any)["results"].(map[string]any)["total"] = total
}

func recordTimestamps(rec map[string]any) map[string]any {
	return rec["meta"].(map[string]any)["timestamps"].(map[string]any)
}

// contractCase mutates the list answers chosen by when and expects the
// listing of orders to end within maxRequests list requests.
type contractCase struct {
	name        string
	orders      int
	pageSize    int
	sort        string
	ties        []int                      // tie groups; none unless set
	prepare     func(srv *emulator.Server) // before the listing
	when        func(r *http.Request) bool
	mutate      func(doc map[string]any)
	maxRequests int
	check       func(t *testing.T, srv *emulator.Server, got []string, stats Stats, err error)
}

func runContractCase(t *testing.T, cc contractCase) {
	ties := cc.ties
	if ties == nil {
		ties = []int{}
	}
	srv := emulatortest.Start(t, emulator.Options{Orders: cc.orders, OrderTieGroups: ties})
	if cc.prepare != nil {
		cc.prepare(srv)
	}
	var mutated atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if !isOrdersList(r) || !cc.when(r) {
			return nil
		}
		return &emulator.Fault{Mutate: editList(func(doc map[string]any) {
			mutated.Add(1)
			cc.mutate(doc)
		})}
	})
	c := newClient(t, srv, func(c *testConfig) {
		if cc.pageSize > 0 {
			c.PageSize = cc.pageSize
		}
	})
	got, stats, err := listWithin(t, c, commerce.Orders, Query{Sort: cc.sort})
	if mutated.Load() == 0 {
		t.Fatal("no answer was mutated")
	}
	if reqs := srv.Stats().ListRequests["orders"]; reqs > cc.maxRequests {
		t.Errorf("%d list requests, bound %d", reqs, cc.maxRequests)
	}
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Fatalf("%s listed twice", id)
		}
		seen[id] = true
	}
	cc.check(t, srv, got, stats, err)
}

func wantProtocolError(parts ...string) func(*testing.T, *emulator.Server, []string, Stats, error) {
	return func(t *testing.T, _ *emulator.Server, _ []string, _ Stats, err error) {
		t.Helper()
		var pErr *commerce.ProtocolError
		if !errors.As(err, &pErr) {
			t.Fatalf("error = %v, want *ProtocolError", err)
		}
		for _, part := range parts {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
	}
}

// wantComplete accepts exactly all orders in the default order.
func wantComplete(t *testing.T, srv *emulator.Server, got []string, _ Stats, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := emulatortest.SortedIDs(t, srv, "orders", "", "created_at")
	if !slices.Equal(got, want) {
		t.Fatalf("listed %d ids, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}

// wantCompleteModuloTies accepts the records of a tie group (one created_at)
// in any order: the engine lists a tie group that fills a keyset page by id,
// and the service promises no order within one.
func wantCompleteModuloTies(t *testing.T, srv *emulator.Server, got []string, _ Stats, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := emulatortest.SortedIDs(t, srv, "orders", "", "created_at")
	if len(got) != len(want) {
		t.Fatalf("listed %d ids, want %d", len(got), len(want))
	}
	created := map[string]time.Time{}
	for _, o := range srv.Orders() {
		created[o.ID] = o.CreatedAt
	}
	for i := range want {
		if _, ok := created[got[i]]; !ok || !created[got[i]].Equal(created[want[i]]) {
			t.Fatalf("position %d holds %s (created %v), want a record created %v", i, got[i], created[got[i]], created[want[i]])
		}
	}
}

func atOffset(offset int) func(*http.Request) bool {
	return func(r *http.Request) bool { return offsetOf(r) == offset && r.URL.Query().Get("filter") == "" }
}

// once lets when pass the first time only.
func once(when func(*http.Request) bool) func(*http.Request) bool {
	var done atomic.Bool
	return func(r *http.Request) bool { return when(r) && !done.Swap(true) }
}

func always(*http.Request) bool { return true }

func addToTotal(delta int) func(doc map[string]any) {
	return func(doc map[string]any) { setDocTotal(doc, max(0, docTotal(doc)+delta)) }
}

// swapCreatedAt swaps the created_at of the first two neighbours from
// record 10 on that differ.
func swapCreatedAt(doc map[string]any) {
	for i := 10; i+1 < len(docRecords(doc)); i++ {
		a, b := recordTimestamps(docRecord(doc, i)), recordTimestamps(docRecord(doc, i+1))
		if a["created_at"] != b["created_at"] {
			a["created_at"], b["created_at"] = b["created_at"], a["created_at"]
			return
		}
	}
	panic("no two records with different created_at")
}

func TestFaultContractBreaks(t *testing.T) {
	longTest(t)
	cases := []contractCase{
		{
			// No count at all: the pages alone show where the list ends
			// (overlapping by a record, and read ahead in parallel).
			name: "missing_meta", orders: 2500, when: always,
			mutate:      func(doc map[string]any) { delete(doc, "meta") },
			maxRequests: 26 + 10,
			check:       wantComplete,
		},
		{
			name: "data_null", orders: 2500, when: always,
			mutate:      func(doc map[string]any) { doc["data"] = nil },
			maxRequests: 1,
			check:       wantProtocolError("the response has no data array"),
		},
		{
			name: "negative_total", orders: 2500, when: always,
			mutate:      func(doc map[string]any) { setDocTotal(doc, -1) },
			maxRequests: 1,
			check:       wantProtocolError("results.total is negative (-1)"),
		},
		{
			// Every page claims 50 records more than exist. The window
			// ends short of its count, the engine reads again by keyset,
			// where a short page ends the listing whatever the count says:
			// complete, after a bounded number of requests.
			name: "total_plus_50_everywhere", orders: 2500, when: always,
			mutate:      addToTotal(50),
			maxRequests: 60,
			check:       wantComplete,
		},
		{
			name: "total_plus_50_past_offset_limit", orders: 12000, when: always,
			mutate:      addToTotal(50),
			maxRequests: 160,
			check:       wantComplete,
		},
		{
			// A count 50 short, as an unlabelled lower bound may be:
			// trusting it would end the listing 50 records early; the
			// pages past it are full, and the listing reads on.
			name: "total_minus_50_everywhere", orders: 2500, when: always,
			mutate:      addToTotal(-50),
			maxRequests: 60,
			check:       wantComplete,
		},
		{
			// Only the first page is wrong: the other pages disagree with
			// it, the engine reads the range again by keyset, and the
			// listing is complete and correct.
			name: "total_plus_50_first_page_once", orders: 2500, when: once(atOffset(0)),
			mutate:      addToTotal(50),
			maxRequests: 60,
			check:       wantComplete,
		},
		{
			name: "total_minus_50_first_page_once", orders: 2500, when: once(atOffset(0)),
			mutate:      addToTotal(-50),
			maxRequests: 60,
			check:       wantComplete,
		},
		{
			// The same with tie groups, which the keyset pass lists by id.
			name: "total_plus_50_first_page_once_with_ties", orders: 2500, ties: []int{350, 150}, when: once(atOffset(0)),
			mutate:      addToTotal(50),
			maxRequests: 70,
			check:       wantCompleteModuloTies,
		},
		{
			name: "empty_page_in_the_middle_once", orders: 2500, when: once(atOffset(12 * 97)),
			mutate:      func(doc map[string]any) { doc["data"] = []any{} },
			maxRequests: 60,
			check:       wantComplete,
		},
		{
			name: "more_records_than_limit", orders: 2500, when: atOffset(3 * 97),
			mutate: func(doc map[string]any) {
				extra := map[string]any{}
				for k, v := range docRecord(doc, 0) {
					extra[k] = v
				}
				extra["id"] = "an-extra-record"
				doc["data"] = append(docRecords(doc), extra)
			},
			maxRequests: 30,
			check:       wantProtocolError("page%5Boffset%5D=291", "page[limit] was 100 but the page holds 101 records"),
		},
		{
			name: "record_without_id", orders: 2500, when: atOffset(2 * 97),
			mutate:      func(doc map[string]any) { delete(docRecord(doc, 3), "id") },
			maxRequests: 30,
			check:       wantProtocolError("record 3 of the page at offset 194: a record has no id"),
		},
		{
			name: "record_with_numeric_id", orders: 2500, when: atOffset(2 * 97),
			mutate:      func(doc map[string]any) { docRecord(doc, 5)["id"] = 12345 },
			maxRequests: 30,
			check:       wantProtocolError("record 5 of the page at offset 194: a record has an id that is not a non-empty string: 12345"),
		},
		{
			name: "created_at_swapped", orders: 2500, when: atOffset(3 * 97),
			mutate:      swapCreatedAt,
			maxRequests: 30,
			check:       wantProtocolError("?sort=created_at", "records are out of created_at order"),
		},
		{
			name: "created_at_swapped_descending", orders: 2500, sort: "-created_at", when: atOffset(3 * 97),
			mutate:      swapCreatedAt,
			maxRequests: 30,
			check:       wantProtocolError("?sort=-created_at", "records are out of -created_at order"),
		},
		{
			name: "created_at_not_a_timestamp", orders: 2500, when: atOffset(3 * 97),
			mutate:      func(doc map[string]any) { recordTimestamps(docRecord(doc, 7))["created_at"] = "yesterday" },
			maxRequests: 30,
			check:       wantProtocolError(`created_at "yesterday", which is not an ISO 8601 timestamp`),
		},
	}
	for _, cc := range cases {
		t.Run(cc.name, func(t *testing.T) { runContractCase(t, cc) })
	}
}

// Duplicate ids across pages: the record at position 500 comes back with
// the id of record 480, on the page before only (the page at offset 388,
// which shares records 485 to 487 with the page at offset 485).
//
// Once, it looks like offsets shifting under writes: the engine reads the
// window again by keyset and the list is complete and correct. Always, the
// keyset page holds both records under one id, which no answer may do:
// deduplicating would hide record 500, so the listing fails instead. Either
// way no id is listed twice.
func TestFaultDuplicateIDAcrossPages(t *testing.T) {
	var prev, victim string
	prepare := func(srv *emulator.Server) {
		ids := emulatortest.ExpectedIDs(t, srv, "orders", "", "created_at")
		prev, victim = ids[480], ids[500]
	}
	rename := func(doc map[string]any) {
		for _, r := range docRecords(doc) {
			if rec := r.(map[string]any); rec["id"] == victim {
				rec["id"] = prev
			}
		}
	}
	t.Run("once", func(t *testing.T) {
		runContractCase(t, contractCase{
			orders: 2500, prepare: prepare, when: once(atOffset(5 * 97)), mutate: rename, maxRequests: 60,
			check: wantComplete,
		})
	})
	t.Run("always", func(t *testing.T) {
		runContractCase(t, contractCase{
			orders: 2500, prepare: prepare, when: always, mutate: rename, maxRequests: 60,
			check: func(t *testing.T, srv *emulator.Server, got []string, stats Stats, err error) {
				wantProtocolError(fmt.Sprintf("have the same id %q", prev))(t, srv, got, stats, err)
				if len(got) > 500 {
					t.Errorf("listed %d records, want none past the broken page", len(got))
				}
			},
		})
	})
}
