package listing

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// keysetProbed is what Probe derives for an endpoint that sorts by
// created_at and bounds it from both sides.
func keysetProbed(path, name string) commerce.Endpoint {
	return commerce.Endpoint{
		Name: name, Singular: "record", Path: path,
		ServiceSorts: []string{"created_at"}, ProviderSorts: []string{"updated_at", "id"}, DefaultSort: "created_at",
		Filters: map[string]commerce.FilterAttribute{"created_at": {Kind: commerce.TimestampValue, Ops: []filter.Op{filter.Ge, filter.Lt}}},
	}
}

// offsetProbed is what Probe derives for an endpoint that does not.
func offsetProbed(path, name string) commerce.Endpoint {
	return commerce.Endpoint{
		Name: name, Singular: "record", Path: path,
		ProviderSorts: []string{"created_at", "updated_at", "id"}, DefaultSort: "created_at",
		Filters: map[string]commerce.FilterAttribute{},
	}
}

// probe runs Probe and returns the Resource and the requests it sent.
func probe(t *testing.T, srv *emulator.Server, c *Engine, path string) (commerce.Endpoint, []emulator.RequestLog) {
	t.Helper()
	srv.ResetStats()
	r, err := c.Probe(context.Background(), path)
	if err != nil {
		t.Fatalf("Probe(%s): %v", path, err)
	}
	var reqs []emulator.RequestLog
	for _, l := range srv.Stats().Requests {
		if l.Path == path {
			reqs = append(reqs, l)
		}
	}
	return r, reqs
}

func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     emulator.Options
		path     string
		want     commerce.Endpoint
		requests int
	}{
		{"customers sort and range-filter", emulator.Options{Customers: 400}, "/v2/customers", keysetProbed("/v2/customers", "customers"), 2},
		{"timestamps at the top level", emulator.Options{Customers: 400, FlatTimestamps: true}, "/v2/customers", keysetProbed("/v2/customers", "customers"), 2},
		{"no customers yet", emulator.Options{Customers: -1}, "/v2/customers", keysetProbed("/v2/customers", "customers"), 2},
		{"a whole page in one tie group", emulator.Options{Customers: 150, CustomerTieGroups: []int{150}}, "/v2/customers", keysetProbed("/v2/customers", "customers"), 2},
		{"hierarchies refuse sort", emulator.Options{Hierarchies: 300}, "/pcm/hierarchies", offsetProbed("/pcm/hierarchies", "hierarchies"), 1},
		{"accepted but ignored", emulator.Options{Customers: 400, IgnoreSort: []string{"customers"}}, "/v2/customers", offsetProbed("/v2/customers", "customers"), 1},
		// Orders sort by created_at, but a default order of -created_at
		// would pass as sorted if the probe did not ask for ascending.
		{"orders", emulator.Options{Orders: 300}, "/v2/orders", keysetProbed("/v2/orders", "orders"), 2},
		// Files refuse sort; their own order is by id, not created_at.
		{"files", emulator.Options{Files: 300}, "/v2/files", offsetProbed("/v2/files", "files"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := emulatortest.Start(t, tc.opts)
			c := newClient(t, srv)
			got, reqs := probe(t, srv, c, tc.path)
			if dump(got) != dump(tc.want) {
				t.Errorf("Probe:\n got %s\nwant %s", dump(got), dump(tc.want))
			}
			if len(reqs) != tc.requests {
				t.Errorf("%d requests, want %d", len(reqs), tc.requests)
			}
			if !strings.Contains(reqs[0].RawQuery, "sort=created_at") {
				t.Errorf("first request %q does not ask for sort=created_at", reqs[0].RawQuery)
			}
			if tc.requests == 2 {
				if q, _ := url.ParseQuery(reqs[1].RawQuery); !strings.HasPrefix(q.Get("filter"), "ge(created_at,") || !strings.Contains(q.Get("filter"), ":lt(created_at,") {
					t.Errorf("second request %q does not bound created_at", reqs[1].RawQuery)
				}
			}
			// Asked once per Client and path.
			if again, reqs := probe(t, srv, c, tc.path); len(reqs) != 0 || dump(again) != dump(got) {
				t.Errorf("second Probe sent %d requests, got %s", len(reqs), dump(again))
			}
		})
	}
}

// TestProbeRangeIgnored: a service that sorts but ignores the range filter
// would make keyset windows repeat the same records; the probe's count
// check catches it.
func TestProbeRangeIgnored(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Customers: 400})
	c := newClient(t, srv)
	c.get = dropFilter{c.get}
	got, _ := probe(t, srv, c, "/v2/customers")
	if dump(got) != dump(offsetProbed("/v2/customers", "customers")) {
		t.Errorf("Probe with the filter ignored: %s", dump(got))
	}
}

// dropFilter sends requests without their filter parameter, as a service
// that ignores it would answer them.
type dropFilter struct{ next Getter }

func (d dropFilter) Get(ctx context.Context, path string, query url.Values, decode func([]byte) error) error {
	q := url.Values{}
	for k, v := range query {
		if k != "filter" {
			q[k] = v
		}
	}
	return d.next.Get(ctx, path, q, decode)
}

// TestProbeConcurrentAndFailures: concurrent callers share one probe; a
// failed probe is not kept.
func TestProbeConcurrentAndFailures(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Customers: 300})
	c := newClient(t, srv)
	srv.ResetStats()
	var wg sync.WaitGroup
	results := make([]commerce.Endpoint, 16)
	for i := range results {
		wg.Go(func() {
			r, err := c.Probe(context.Background(), "/v2/customers")
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		})
	}
	wg.Wait()
	if n := srv.Stats().ListRequests["customers"]; n != 2 {
		t.Errorf("16 concurrent probes sent %d requests, want 2", n)
	}
	for _, r := range results {
		if dump(r) != dump(keysetProbed("/v2/customers", "customers")) {
			t.Fatalf("a caller got %s", dump(r))
		}
	}

	for range 2 {
		_, err := c.Probe(context.Background(), "/v2/promotions")
		if !client.IsStatus(err, 404) || !strings.Contains(err.Error(), "/v2/promotions") {
			t.Fatalf("Probe of a missing endpoint: %v", err)
		}
	}
	if n := srv.Stats().StatusCounts[404]; n != 2 {
		t.Errorf("a failed probe was kept: %d requests for two calls", n)
	}
	if _, err := c.Probe(context.Background(), "https://evil.test/v2/customers"); err == nil {
		t.Error("Probe of a URL accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Probe(ctx, "/v2/accounts"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled probe: %v", err)
	}
	if r, err := c.Probe(context.Background(), "/v2/accounts"); err != nil || len(r.ServiceSorts) != 1 {
		t.Errorf("probe after a cancelled one: %+v, %v", r, err)
	}
}

// TestListProbed lists through what Probe derived, as the provider does for
// a path the capability table does not know: keyset windows past the
// offset limit where the service sorts and bounds created_at, offset pages
// and a loud error where not, and the user's filter sent as written.
func TestListProbed(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Customers: 12000, Hierarchies: 10001})
	c := newClient(t, srv)
	r, known, err := c.EndpointFor(context.Background(), "/v2/customers")
	if err != nil || !known || len(r.ProviderSorts) != 2 {
		t.Fatalf("EndpointFor of a known path: %+v, %v, %v", r, known, err)
	}
	customers, err := c.Probe(context.Background(), "/v2/customers")
	if err != nil {
		t.Fatal(err)
	}
	kind := commerce.GenericKind(customers)
	for _, q := range []Query{{}, {Sort: "-created_at"}, {Sort: "id", MaxResults: 500}} {
		stats := expectIDs(t, srv, c, kind, q)
		if q.Sort != "id" && (stats.Strategy != strategyKeyset || stats.Listed != 12000) {
			t.Errorf("%+v: strategy %q, listed %d", q, stats.Strategy, stats.Listed)
		}
	}
	srv.ResetStats()
	const userFilter = "like(email,*@example.org):eq(external_ref,crm-000007)"
	expectIDs(t, srv, c, kind, Query{Filter: mustFilter("like(email,*@example.org)")})
	if _, _, err := listIDs(t, c, kind, Query{Filter: mustFilter(userFilter)}); err != nil {
		t.Fatal(err)
	}
	sent := slices.ContainsFunc(srv.Stats().Requests, func(l emulator.RequestLog) bool {
		q, _ := url.ParseQuery(l.RawQuery)
		return strings.Contains(q.Get("filter"), userFilter)
	})
	if !sent {
		t.Error("the filter was not sent as given")
	}

	hierarchies, err := c.Probe(context.Background(), "/pcm/hierarchies")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = listIDs(t, c, commerce.GenericKind(hierarchies), Query{})
	var ue *UnlistableError
	if !errors.As(err, &ue) || ue.Total != 10001 || !strings.Contains(err.Error(), "10000") {
		t.Fatalf("got %v, want an UnlistableError naming 10001 and 10000", err)
	}
	for range 2 {
		if err := srv.DeleteHierarchy(srv.Hierarchies()[0].ID); err != nil {
			t.Fatal(err)
		}
	}
	expectIDs(t, srv, c, commerce.GenericKind(hierarchies), Query{Sort: "-created_at"})
}

// TestProbedTieGroupPastAStoresOffsetLimitSaysSo plays the store the store
// matrix drew at seeds 1,720,320 and 1,720,463: a path the capability
// table does not know, a store whose offset limit is 600, and 800
// customers that share one created_at. The probe finds a created_at sort
// and range, and no way to tell those 800 apart: the read fails, and says
// that (not that the endpoint does not sort, and not the service's 10,000),
// with a fix that a created_at range cannot be.
func TestProbedTieGroupPastAStoresOffsetLimitSaysSo(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Customers: 3000, CustomerTieGroups: []int{800}, OffsetLimit: 600,
		Aliases: map[string]string{"/v2/members": "customers"}})
	c := newClient(t, srv)
	members, err := c.Probe(context.Background(), "/v2/members")
	if err != nil || !slices.Equal(members.ServiceSorts, []string{"created_at"}) {
		t.Fatalf("probe: %+v, %v", members, err)
	}
	_, _, err = listWithin(t, c, commerce.GenericKind(members), Query{})
	var unlistable *UnlistableError
	if !errors.As(err, &unlistable) {
		t.Fatalf("listing: %v, want an UnlistableError", err)
	}
	for _, want := range []string{"records share created_at", "the service serves by page offset", "neither sorts nor bounds members by id",
		"narrow the filter by an attribute other than created_at", "page_offset_limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "10000") || unlistable.OffsetLimit > 600+commerce.DefaultPageSize {
		t.Errorf("the error names a limit the store does not have (%d): %v", unlistable.OffsetLimit, err)
	}
}
