package reads

// Sharing and the cache at every way the service may count
// (commerce.Count): exact, in order, with a total that is the truth or
// says it is not known.

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// Reads that share one listing, keeping different things, each get their
// exact list and the total they would get alone, at every store.
func TestSharedReadsEveryCountMethod(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Accounts: 12500, Orders: -1, Files: -1})
	qs := []listing.Query{{}, {IncludeJSON: true}, {MaxResults: 7, CountMatches: true}, {MaxResults: 12000}}
	all := wantIDs(t, srv, commerce.Accounts.Endpoint, "", "")
	for name, c := range emulatortest.Countings() {
		t.Run(name, func(t *testing.T) {
			srv.SetCounting(c)
			for i, got := range readTogether(newReads(t, srv), commerce.Accounts, qs, nil) {
				want := all[:min(len(all), cmp.Or(qs[i].MaxResults, len(all)))]
				if got.err != nil || !slices.Equal(got.ids, want) {
					t.Fatalf("%+v: %d ids (%v), want %d; first difference at %d", qs[i], len(got.ids), got.err, len(want), firstDiff(got.ids, want))
				}
				wantKnown := qs[i].MaxResults == 0 || qs[i].CountMatches && emulatortest.ExactWhenAsked(c)
				if got.res.TotalKnown != wantKnown || got.res.TotalKnown && got.res.Total != len(all) {
					t.Errorf("%+v: total %d (known %v), want %d known %v", qs[i], got.res.Total, got.res.TotalKnown, len(all), wantKnown)
				}
			}
		})
	}
}

// TestCacheEveryCountMethod: a cached read after creates, updates and
// deletes is exact at every store. Where the service answers
// page[total_method]=exact with an exact count, the cache refreshes;
// elsewhere it reads in full and says why.
func TestCacheEveryCountMethod(t *testing.T) {
	longTest(t)
	for name, counting := range emulatortest.Countings() {
		t.Run(name, func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Accounts: 4000, Orders: -1, Files: -1, Counting: counting})
			// Pages of 20 make 4,000 accounts 200 pages, where a refresh
			// that finds 2 deletes pays.
			r := newReads(t, srv, func(c *testConfig) { c.PageSize = 20 })
			q := listing.Query{Sort: "-updated_at"}
			_, _, snap, _ := cachedRead(t, srv, r, commerce.Accounts, q, nil)
			ids := srv.Accounts()
			for i := range 20 {
				if err := srv.Update("accounts", ids[(i*397)%len(ids)].ID); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 2 {
				if err := srv.Delete("accounts", ids[100+i*1911].ID); err != nil {
					t.Fatal(err)
				}
			}
			for range 10 {
				if _, err := srv.Insert("accounts"); err != nil {
					t.Fatal(err)
				}
			}
			got, stats, _, requests := cachedRead(t, srv, r, commerce.Accounts, q, snap)
			want, wantStats, _ := fullRead(t, srv, r, commerce.Accounts, q)
			sameResult(t, got, stats.Total, want, wantStats.Total)
			switch {
			case emulatortest.ExactWhenAsked(counting) && stats.Cache != cacheRefreshed:
				t.Errorf("%s (%s), %d requests; want a refresh where the service counts exactly when asked", stats.Cache, stats.CacheReason, requests)
			case !emulatortest.ExactWhenAsked(counting) && (stats.Cache != cacheFull || !strings.Contains(stats.CacheReason, "did not count exactly")):
				t.Errorf("%s (%s); want a full read that says the count was not exact", stats.Cache, stats.CacheReason)
			}
		})
	}
}
