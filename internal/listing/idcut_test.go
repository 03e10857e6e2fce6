package listing

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestTieGroupInAVaryingOrderAtAStoreIgnoringSort plays the store the
// store matrix found at seed 4143: it ignores sort= but its own order is
// the one asked for, so the listing goes by keyset until a tie group in
// another order on every request fills a page. The group's pass by id
// must see on its first page that sort=id is ignored too, and read the
// group in spans of ids, which one answer each holds, instead of failing
// on records out of id order.
func TestTieGroupInAVaryingOrderAtAStoreIgnoringSort(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, AccountTieGroups: []int{450, 1100},
		ShuffleTies: true, IgnoreSort: []string{"accounts"}})
	for _, q := range []Query{{Sort: "-created_at"}, {Sort: "-created_at", MaxResults: 1500}, {Sort: "name"}} {
		stats := expectSortedHere(t, srv, newClient(t, srv), commerce.Accounts, q)
		t.Logf("%+v: %d pages", q, stats.Pages)
	}
}

// TestIgnoredSortWithWritesDuringTheRead plays a store that ignores
// sort= on accounts, which have no range attribute, and creates and
// deletes an account every third request: offsets in the service's own
// order shift, and only spans of ids, each held by one answer, list
// every account present throughout exactly once.
func TestIgnoredSortWithWritesDuringTheRead(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 4000, IgnoreSort: []string{"accounts"}})
	before := map[string]bool{}
	var victims []string
	for _, a := range srv.Accounts() {
		before[a.ID] = true
		victims = append(victims, a.ID)
	}
	var mu sync.Mutex
	deleted := map[string]bool{}
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != commerce.AccountsEndpoint.Path || n.Add(1)%3 != 0 {
			return nil
		}
		srv.InsertAccount()
		id := victims[int(n.Load()*101)%len(victims)]
		_ = srv.DeleteAccount(id)
		mu.Lock()
		deleted[id] = true
		mu.Unlock()
		return nil
	})
	got, stats, err := listIDs(t, newClient(t, srv), commerce.Accounts, Query{Sort: "name"})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for _, id := range got {
		listed[id]++
	}
	mu.Lock()
	defer mu.Unlock()
	for id := range before {
		if !deleted[id] && listed[id] != 1 {
			t.Fatalf("account %s, present throughout, listed %d times", id, listed[id])
		}
	}
	for id, k := range listed {
		if k != 1 {
			t.Fatalf("account %s listed %d times", id, k)
		}
	}
	t.Logf("%d accounts in %d pages while %d requests wrote", len(got), stats.Pages, n.Load()/3)
}

// TestIDSpansCutUntilOnePageHoldsEach checks the cutter on its own: every
// part holds a sampled id, the parts cover the span in order, and a page
// of one record at the span's lowest id isolates that id.
func TestIDSpansCutUntilOnePageHoldsEach(t *testing.T) {
	w := &windowReader[commerce.Account]{filterRoom: filterRoom{pageSize: 4}}
	recs := func(ids ...string) (out []commerce.Account) {
		for _, id := range ids {
			out = append(out, commerce.Account{Common: commerce.Common{ID: id}})
		}
		return out
	}
	subs, err := w.cutIDSpan(idSpan{}, recs("d", "a", "c", "b"), 20)
	if err != nil {
		t.Fatal(err)
	}
	want := []idSpan{{hi: "b"}, {lo: "b", hi: "c"}, {lo: "c", hi: "d"}, {lo: "d"}}
	if !slices.Equal(subs, want) {
		t.Errorf("cut at %v, want %v", subs, want)
	}
	subs, err = w.cutIDSpan(idSpan{lo: "b", hi: "x"}, recs("b"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []idSpan{{lo: "b", only: true}, {lo: "b", after: true, hi: "x"}}; !slices.Equal(subs, want) {
		t.Errorf("a page of the lowest id: cut at %v, want %v", subs, want)
	}
	if _, err := w.cutIDSpan(idSpan{lo: "c"}, recs("b", "d"), 2); err == nil {
		t.Error("a record outside the span asked for passed")
	}
	if _, err := w.cutIDSpan(idSpan{}, recs("b", "b"), 2); err == nil {
		t.Error("a page with one id twice passed")
	}
}
