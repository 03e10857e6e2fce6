package listing

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestListCustomersGeneric lists 15,000 customers completely, in
// created_at order both ways, by keyset windows past the offset limit.
func TestListCustomersGeneric(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Customers: 15000, CustomerTieGroups: []int{250}})
	c := newClient(t, srv)
	kind := commerce.GenericKind(commerce.CustomersEndpoint)
	for _, sort := range []string{"", "created_at", "-created_at"} {
		stats := expectIDs(t, srv, c, kind, Query{Sort: sort})
		if stats.Total != 15000 || stats.Listed != 15000 || stats.Strategy != strategyKeyset || stats.Windows < 2 {
			t.Errorf("sort %q: total %d, listed %d, strategy %q, %d windows", sort, stats.Total, stats.Listed, stats.Strategy, stats.Windows)
		}
		if budget := pageBudget(15000, stats.Windows); stats.Pages > budget {
			t.Errorf("sort %q: %d page requests, budget %d", sort, stats.Pages, budget)
		}
	}
	var prev string
	_, err := List(t.Context(), c, kind, Query{MaxResults: 3000}, func(g commerce.Generic) error {
		k, err := keyOf(keyFor(kind.Endpoint, "created_at"), g)
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
	expectIDs(t, srv, c, kind, Query{Sort: "email", Filter: mustFilter("like(email,*@example.org)")})
	expectIDs(t, srv, c, kind, Query{Sort: "-name", MaxResults: 40})
}

// TestListHierarchiesGeneric: an endpoint that cannot sort or filter is
// listed completely by offset up to the offset limit, and refused loudly
// above it.
func TestListHierarchiesGeneric(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Hierarchies: 9800})
	c := newClient(t, srv)
	kind := commerce.GenericKind(commerce.HierarchiesEndpoint)
	for _, q := range []Query{{}, {Sort: "-updated_at"}, {Sort: "name", MaxResults: 10}} {
		stats := expectIDs(t, srv, c, kind, q)
		if stats.Total != 9800 || stats.Strategy != strategyWindowsSortedHere || stats.Windows != 1 {
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
	ids, stats, err := listIDs(t, cb, kind, Query{})
	var ue *UnlistableError
	if !errors.As(err, &ue) || len(ids) != 0 {
		t.Fatalf("got %d ids, %v; want an UnlistableError and nothing listed", len(ids), err)
	}
	for _, want := range []string{"10050", "10000", "hierarchies"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if ue.Total != 10050 || ue.OffsetLimit != commerce.OffsetLimit || stats.Pages > 2 {
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
	stats := expectIDs(t, files, newClient(t, files), commerce.GenericKind(commerce.FilesEndpoint), Query{Sort: "-file_size"})
	if stats.Windows < 2 {
		t.Errorf("files took %d windows", stats.Windows)
	}
	orders := emulatortest.Start(t, emulator.Options{Orders: 15000, OrderTieGroups: []int{11000}})
	c := newClient(t, orders)
	got, _, err := listIDs(t, c, commerce.GenericKind(commerce.OrdersEndpoint), Query{})
	if err != nil {
		t.Fatal(err)
	}
	want := emulatortest.ExpectedIDs(t, orders, "orders", "", "created_at")
	if slices.Sort(got); len(got) != 15000 || !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("listed %d orders, want the 15000", len(got))
	}
}

func TestResourceForPath(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5, Files: 5, Accounts: 5, Customers: 5, Hierarchies: 5})
	c := newClient(t, srv)
	for _, p := range commerce.KnownPaths() {
		r, ok := commerce.EndpointForPath(p)
		if !ok || r.Path != p {
			t.Fatalf("%s: %+v, %v", p, r, ok)
		}
		// Every row is an endpoint the emulator serves, under its name.
		ids, _, err := listIDs(t, c, commerce.GenericKind(r), Query{})
		if err != nil || len(ids) != 5 || srv.Count(r.Name) != 5 {
			t.Errorf("%s: %d records, %v", p, len(ids), err)
		}
	}
	for _, p := range []string{"/v2/customers/", "/v2/promotions", "v2/orders", "/V2/orders"} {
		if _, ok := commerce.EndpointForPath(p); ok {
			t.Errorf("%s: known", p)
		}
	}
	if len(commerce.KnownPaths()) != 5 {
		t.Errorf("known paths %v", commerce.KnownPaths())
	}
}
