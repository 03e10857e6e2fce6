package client

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

func TestGenericDecode(t *testing.T) {
	for _, tc := range []struct {
		name, raw       string
		want            Common
		typ, err        string
		values, missing map[string]string
	}{
		{name: "meta.timestamps, as the /v2 services send them",
			raw:  `{"type":"customer","id":"c1","name":"Ron","meta":{"timestamps":{"created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-02-01T00:00:00Z"}}}`,
			want: Common{ID: "c1", CreatedAt: "2024-01-01T00:00:00.000Z", UpdatedAt: "2024-02-01T00:00:00Z"}, typ: "customer",
			values: map[string]string{"name": "Ron"}},
		{name: "meta, as the catalogue services send them",
			raw:  `{"type":"hierarchy","id":"h1","attributes":{"name":"Shoes"},"meta":{"created_at":"2024-01-10T20:16:35.343Z","owner":"store","updated_at":"2024-01-10T20:30:50.867Z"}}`,
			want: Common{ID: "h1", CreatedAt: "2024-01-10T20:16:35.343Z", UpdatedAt: "2024-01-10T20:30:50.867Z"}, typ: "hierarchy",
			values: map[string]string{"name": "Shoes"}, missing: map[string]string{"owner": ""}},
		{name: "top level, the documented flat form",
			raw:    `{"id":"f1","created_at":"2024-03-01T00:00:00.000Z","file_size":2048,"width":12.0,"ratio":1.5}`,
			want:   Common{ID: "f1", CreatedAt: "2024-03-01T00:00:00.000Z"},
			values: map[string]string{"file_size": "2048", "width": "12", "ratio": "1.5"}, missing: map[string]string{"updated_at": ""}},
		{name: "meta.timestamps before meta before the top level",
			raw: `{"id":"x","created_at":"2020-01-01T00:00:00.000Z","updated_at":"2020-01-02T00:00:00.000Z",` +
				`"meta":{"created_at":"2021-01-01T00:00:00.000Z","timestamps":{"updated_at":"2022-01-02T00:00:00.000Z"}}}`,
			want: Common{ID: "x", CreatedAt: "2021-01-01T00:00:00.000Z", UpdatedAt: "2022-01-02T00:00:00.000Z"}},
		{name: "odd members read as absent",
			raw:  `{"id":"y","type":7,"created_at":1700000000,"meta":"none","attributes":[1]}`,
			want: Common{ID: "y"}, missing: map[string]string{"name": "", "created_at": ""}},
		{name: "a dotted attribute reaches into objects",
			raw:  `{"id":"o1","contact":{"email":"a@b.test"},"meta":{"display_price":{"with_tax":{"amount":"1050"}}}}`,
			want: Common{ID: "o1"}, values: map[string]string{"contact.email": "a@b.test"}, missing: map[string]string{"contact": ""}},
		{name: "no id", raw: `{"type":"x","meta":{}}`, err: "no id"},
		{name: "null id", raw: `{"id":null}`, err: "no id"},
		{name: "empty id", raw: `{"id":""}`, err: "not a non-empty string"},
		{name: "number id", raw: `{"id":42}`, err: "not a non-empty string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := GenericKind(Resource{Path: "/x"}).decode([]byte(tc.raw), false)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.JSON != tc.raw {
				t.Errorf("JSON not kept without being asked: %q", rec.JSON)
			}
			got := rec.Common
			got.JSON = ""
			if got != tc.want || rec.Type != tc.typ {
				t.Errorf("got %+v type %q, want %+v type %q", got, rec.Type, tc.want, tc.typ)
			}
			var absent []string
			for a := range tc.missing {
				absent = append(absent, a)
			}
			checkSortValues(t, rec, tc.values, absent...)
		})
	}
	// The range attribute of orders lives in meta.display_price.
	rec, err := GenericKind(OrdersResource).decode([]byte(`{"id":"o","meta":{"display_price":{"with_tax":{"amount":12345}}}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	checkSortValues(t, rec, map[string]string{"with_tax": "12345"}, "without_tax")
}

func TestResourceForPath(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5, Files: 5, Accounts: 5, Customers: 5, Hierarchies: 5})
	c := newClient(t, srv)
	for _, p := range KnownPaths() {
		r, ok := ResourceForPath(p)
		if !ok || r.Path != p {
			t.Fatalf("%s: %+v, %v", p, r, ok)
		}
		// Every row is an endpoint the emulator serves, under its name.
		ids, _, err := listIDs(t, c, GenericKind(r), ListQuery{})
		if err != nil || len(ids) != 5 || srv.Count(r.Name) != 5 {
			t.Errorf("%s: %d records, %v", p, len(ids), err)
		}
	}
	for _, p := range []string{"/v2/customers/", "/v2/promotions", "v2/orders", "/V2/orders"} {
		if _, ok := ResourceForPath(p); ok {
			t.Errorf("%s: known", p)
		}
	}
	if len(KnownPaths()) != 5 {
		t.Errorf("known paths %v", KnownPaths())
	}
}

// TestListCustomersGeneric lists 15,000 customers completely, in
// created_at order both ways, by keyset windows past the offset limit.
func TestListCustomersGeneric(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Customers: 15000, CustomerTieGroups: []int{250}})
	c := newClient(t, srv)
	kind := GenericKind(CustomersResource)
	for _, sort := range []string{"", "created_at", "-created_at"} {
		stats := expectIDs(t, srv, c, kind, ListQuery{Sort: sort})
		if stats.Total != 15000 || stats.Listed != 15000 || stats.Strategy != StrategyKeyset || stats.Windows < 2 {
			t.Errorf("sort %q: total %d, listed %d, strategy %q, %d windows", sort, stats.Total, stats.Listed, stats.Strategy, stats.Windows)
		}
		if budget := pageBudget(15000, stats.Windows); stats.Pages > budget {
			t.Errorf("sort %q: %d page requests, budget %d", sort, stats.Pages, budget)
		}
	}
	var prev string
	_, err := List(t.Context(), c, kind, ListQuery{MaxResults: 3000}, func(g Generic) error {
		k, err := keyOf(keyFor(kind.Resource, "created_at"), g)
		if err != nil || k < prev || g.Type != "customer" || !strings.Contains(g.JSON, `"email":`) {
			return fmt.Errorf("record %s: key %q after %q (%v), type %q", g.ID, k, prev, err, g.Type)
		}
		prev = k
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Email and name orders are the provider's; filters pass as given.
	expectIDs(t, srv, c, kind, ListQuery{Sort: "email", Filter: "like(email,*@example.org)"})
	expectIDs(t, srv, c, kind, ListQuery{Sort: "-name", MaxResults: 40})
}

// TestListHierarchiesGeneric: an endpoint that cannot sort or filter is
// listed completely by offset up to the offset limit, and refused loudly
// above it.
func TestListHierarchiesGeneric(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Hierarchies: 9800})
	c := newClient(t, srv)
	kind := GenericKind(HierarchiesResource)
	for _, q := range []ListQuery{{}, {Sort: "-updated_at"}, {Sort: "name", MaxResults: 10}} {
		stats := expectIDs(t, srv, c, kind, q)
		if stats.Total != 9800 || stats.Strategy != StrategyWindowsSortedHere || stats.Windows != 1 {
			t.Errorf("%+v: total %d, strategy %q, %d windows", q, stats.Total, stats.Strategy, stats.Windows)
		}
	}
	for _, r := range srv.Stats().Requests {
		if strings.Contains(r.RawQuery, "sort=") || strings.Contains(r.RawQuery, "filter=") {
			t.Fatalf("a request asked hierarchies for a sort or filter: %s", r.RawQuery)
		}
	}

	big := emulatortest.Start(t, emulator.Options{Hierarchies: 10050})
	cb := newClient(t, big)
	big.ResetStats()
	ids, stats, err := listIDs(t, cb, kind, ListQuery{})
	var ue *UnlistableError
	if !errors.As(err, &ue) || len(ids) != 0 {
		t.Fatalf("got %d ids, %v; want an UnlistableError and nothing listed", len(ids), err)
	}
	for _, want := range []string{"10050", "10000", "hierarchies"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if ue.Total != 10050 || ue.OffsetLimit != OffsetLimit || stats.Pages > 2 {
		t.Errorf("error %+v after %d page requests", ue, stats.Pages)
	}
	if strings.Contains(err.Error(), "created_at range") {
		t.Errorf("error %q suggests a filter hierarchies do not take", err)
	}
}

// TestListFilesAndOrdersGeneric: the generic records carry what the engine
// cuts by (file_size at the top level, with_tax in meta.display_price), so
// listings that need range windows work on them too.
func TestListFilesAndOrdersGeneric(t *testing.T) {
	longTest(t)
	files := emulatortest.Start(t, emulator.Options{Files: 12000, Orders: -1})
	stats := expectIDs(t, files, newClient(t, files), GenericKind(FilesResource), ListQuery{Sort: "-file_size"})
	if stats.Windows < 2 {
		t.Errorf("files took %d windows", stats.Windows)
	}
	orders := emulatortest.Start(t, emulator.Options{Orders: 15000, OrderTieGroups: []int{11000}})
	c := newClient(t, orders)
	got, _, err := listIDs(t, c, GenericKind(OrdersResource), ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := orders.ExpectedIDs("orders", "", "created_at")
	if slices.Sort(got); len(got) != 15000 || !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("listed %d orders, want the 15000", len(got))
	}
}
