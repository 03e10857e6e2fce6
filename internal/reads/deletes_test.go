package reads

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// Bounds of a refresh that finds a few deletes in a list of about 200
// pages (a full read: about 200 requests).
const (
	oneDeleteBound  = 23
	twoDeletesBound = 40
)

// deleteSeeds is how many random histories TestFewDeletesCostLittleAnywhere
// tries; COMMERCE_DELETE_SEEDS sets another number.
func deleteSeeds(t *testing.T) int {
	if s := os.Getenv("COMMERCE_DELETE_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("COMMERCE_DELETE_SEEDS=%q: %v", s, err)
		}
		return n
	}
	return 60
}

// One or two deletes cost a refresh at most oneDeleteBound or
// twoDeletesBound requests, wherever they fall and whatever the plan
// before changed. Each seed draws a store (its data and its size, about
// 200 pages of 20), an earlier plan's changes (creates, updates and
// deletes, which the cache took in with a refresh of its own), and the
// positions of the deletes; a case that passes the bound, or lists wrong,
// fails and prints its seed.
func TestFewDeletesCostLittleAnywhere(t *testing.T) {
	longTest(t)
	worst := map[int]int{}
	for seed := range deleteSeeds(t) {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xde1e7e5))
		h := deleteHistory{
			store:   emulator.Options{Seed: int64(seed), Accounts: 3800 + rng.IntN(400), Orders: -1, Files: -1},
			creates: rng.IntN(40), updates: rng.IntN(40), deletes: rng.IntN(3),
			gone: 1 + rng.IntN(2),
		}
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			requests := h.run(t, rng)
			bound := oneDeleteBound
			if h.gone == 2 {
				bound = twoDeletesBound
			}
			worst[h.gone] = max(worst[h.gone], requests)
			if requests > bound {
				t.Errorf("seed %d: %d deletes cost %d requests, more than %d (%+v)", seed, h.gone, requests, bound, h)
			}
		})
	}
	t.Logf("most requests: %d for one delete (bound %d), %d for two (bound %d)", worst[1], oneDeleteBound, worst[2], twoDeletesBound)
}

// deleteHistory is one case: a store, an earlier plan's changes, and the
// deletes the refresh under test finds.
type deleteHistory struct {
	store                     emulator.Options
	creates, updates, deletes int
	gone                      int
}

// run reads the store into the cache, makes the earlier plan's changes
// and refreshes the cache with them, deletes h.gone accounts at random
// positions, and returns what the refresh that finds them cost, having
// checked that its list is exact.
func (h deleteHistory) run(t *testing.T, rng *rand.Rand) int {
	t.Helper()
	srv := emulatortest.Start(t, h.store)
	r := newReads(t, srv, smallPages)
	q := listing.Query{}
	_, _, snap, _ := cachedRead(t, srv, r, commerce.Accounts, q, nil)
	all := srv.Accounts()
	for range h.updates {
		if err := srv.Update("accounts", all[rng.IntN(len(all))].ID); err != nil {
			t.Fatal(err)
		}
	}
	for range h.creates {
		if _, err := srv.Insert("accounts"); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range rng.Perm(len(all))[:h.deletes] {
		if err := srv.Delete("accounts", all[k].ID); err != nil {
			t.Fatal(err)
		}
	}
	_, _, snap, _ = cachedRead(t, srv, r, commerce.Accounts, q, snap)
	now := srv.Accounts()
	for _, k := range deletePositions(rng, len(now), h.gone) {
		if err := srv.Delete("accounts", now[k].ID); err != nil {
			t.Fatal(err)
		}
	}
	want, wantStats, _ := fullRead(t, srv, r, commerce.Accounts, q)
	got, stats, _, requests := cachedRead(t, srv, r, commerce.Accounts, q, snap)
	sameResult(t, got, stats.Total, want, wantStats.Total)
	if stats.Cache != cacheRefreshed {
		t.Errorf("read in full: %s", stats.CacheReason)
	}
	return requests
}

// deletePositions are n distinct positions in a list of size records:
// anywhere, or, one time in four each, at the list's ends or side by side
// (in one page, or across two), where a search by ranges has its edges.
func deletePositions(rng *rand.Rand, size, n int) []int {
	first := rng.IntN(size - 1)
	switch rng.IntN(4) {
	case 0:
		return []int{0, size - 1}[:n]
	case 1:
		return []int{first, first + 1}[:n]
	}
	return rng.Perm(size)[:n]
}
