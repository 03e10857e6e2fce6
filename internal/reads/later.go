package reads

// A read that comes too late to share a listing: served by that listing's
// records once the store shows, by requests sent after the read arrived,
// that nothing in the list has changed.

import (
	"context"
	"sync"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// Terraform sometimes validates and reads a data source only once a
// listing of the same list has handed out records, or has ended: its
// goroutines validate and read one data source before the next is
// validated, most often against a store so near that the listing's first
// answer beats Terraform's next validation. Such a read cannot join the
// listing (internal/coalesce says why: the provider sees the same calls
// in a plan as in an apply where the late read depends on a write made
// after the listing started), and the listing's records, taken before the
// read arrived, cannot serve it as they are.
//
// They can once requests sent after the read arrived show that the list
// has not changed since the listing took them, which is what the cache's
// refresh proves between runs (internal/refresh), here in its cheapest
// case:
//
//  1. the service's exact count of the list's filter equals the records
//     the listing handed out: nothing was deleted or left the filter
//     unless something else came in;
//  2. then (never together: a record created between the two is among
//     the changes and not in the count) the records that match and were
//     updated since the newest updated_at the listing saw, less the time
//     it took and the refresh's ten minutes for records the service shows
//     late, fit one page, and every one of them is in the listing with the
//     same updated_at. Every create and every update moves updated_at, so
//     nothing came in, nothing changed, and with the count nothing left.
//
// The read then gets the listing's records, exactly what a listing started
// after it arrived would have handed out, for two requests instead of a
// listing. Where either step fails, or the list cannot be checked so
// (below), it reads in full, as before.
//
// Why it is correct in an apply too: Terraform sends a read once every
// write it depends on is done, so both requests of the check are sent
// after those writes, however old the listing; the read gets the listing's
// records only where the store, after the writes, shows the list as the
// listing saw it. Where the read depends on a write to the list, the count
// or the changes show it, and the read lists on its own, two requests
// more than before. The check rests on what the cache's refresh rests on
// (an exact count, and updated_at moving with every write) and on nothing
// Terraform says.
//
// A read that arrives while the listing is still under way waits for it to
// end, then checks; it does not wait for a listing that will not be kept
// (below), nor for one without the JSON it keeps. Only a listing of at most keptRecords records that
// read its whole list (no max_results, no consistency_buffer, no in()
// split, no record handed out late) is kept, until the provider is
// configured again (each walk of Terraform configures it: a new Reads) or
// a newer listing of the same list replaces it; the records of all lists
// kept together are at most keptRecords, the oldest list dropped first.
// A longer listing keeps nothing and stops recording once it passes the
// bound, so the memory of a large read is what it was.

// keptRecords bounds the records kept for later reads: those of one
// listing, and of all together. 2,000 records are 20 pages of 100, the
// listings whose late reads Terraform sends when the listing has ended;
// kept as decoded records (with their JSON where the listing asked for
// it), a few megabytes at most.
const keptRecords = 2000

// strategyLater is the Strategy of a read served by an earlier listing.
const strategyLater = "the records of an earlier listing of this run, checked unchanged"

// laterOverlap is the refresh's look-back (internal/refresh's overlap):
// the service is eventually consistent, and a record updated just before
// the listing may have become visible only after it.
const laterOverlap = 10 * time.Minute

// later holds, per listing name, the listing under way and the last one
// kept.
type later struct {
	mu      sync.Mutex
	running map[string]*underWay
	kept    map[string]*keptListing
	order   []string // kept names, oldest first
	records int      // in kept, all names
}

// underWay is a listing that may be kept: done is closed when it ends,
// dropped once it will not be kept (past the bound, or a record handed
// out late), so that a read waits only for a listing that may serve it.
type underWay struct {
	done, dropped chan struct{}
	dropOnce      sync.Once
	withJSON      bool
}

func (u *underWay) drop() { u.dropOnce.Do(func() { close(u.dropped) }) }

// keptListing is a listing's records, as it handed them out, and what a
// check of them needs.
type keptListing struct {
	records  any // []T
	n        int
	withJSON bool
	newest   time.Time // the newest updated_at among the records
	took     time.Duration
}

// begin registers a listing of name under way that may be kept, and
// returns it; end ends it. A read of name that comes meanwhile waits for
// it (wait).
func (lt *later) begin(name string, withJSON bool) *underWay {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.running == nil {
		lt.running = map[string]*underWay{}
	}
	u := &underWay{done: make(chan struct{}), dropped: make(chan struct{}), withJSON: withJSON}
	lt.running[name] = u
	return u
}

// end says the listing u of name has ended.
func (lt *later) end(name string, u *underWay) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.running[name] == u {
		delete(lt.running, name)
	}
	close(u.done)
}

// wait returns once the listing of name under way, if any, has ended or
// will not be kept, or ctx has ended; a read that keeps the JSON does not
// wait for a listing without it.
func (lt *later) wait(ctx context.Context, name string, withJSON bool) {
	lt.mu.Lock()
	u := lt.running[name]
	lt.mu.Unlock()
	if u == nil || (withJSON && !u.withJSON) {
		return
	}
	select {
	case <-u.done:
	case <-u.dropped:
	case <-ctx.Done():
	}
}

// get is the listing of name kept, or nil.
func (lt *later) get(name string) *keptListing {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.kept[name]
}

// keep replaces what is kept of name with k, dropping the oldest other
// lists until the records fit keptRecords.
func (lt *later) keep(name string, k *keptListing) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.kept == nil {
		lt.kept = map[string]*keptListing{}
	}
	lt.drop(name)
	for len(lt.order) > 0 && lt.records+k.n > keptRecords {
		lt.drop(lt.order[0])
	}
	lt.kept[name] = k
	lt.order = append(lt.order, name)
	lt.records += k.n
}

// drop forgets what is kept of name. Caller holds the lock.
func (lt *later) drop(name string) {
	old, ok := lt.kept[name]
	if !ok {
		return
	}
	delete(lt.kept, name)
	lt.records -= old.n
	for i, n := range lt.order {
		if n == name {
			lt.order = append(lt.order[:i], lt.order[i+1:]...)
			break
		}
	}
}

// keepable reports whether a listing of l that read need can be kept for
// later reads: it reads the whole list, and its order and filter are the
// same for every read of its name.
func keepable[T commerce.Record](l *listing.Listing[T], need listing.Need) bool {
	ep := l.Kind().Endpoint
	f, ok := ep.Filters["updated_at"]
	return need.MaxResults == 0 && need.CreatedBefore.IsZero() && l.Split().Parts == nil &&
		ok && f.Allows(filter.Ge)
}

// recorder keeps the records a listing hands out, up to keptRecords, in
// front of to. Only the listing's traversal goroutine calls it until the
// listing ends.
type recorder[T commerce.Record] struct {
	records  []T
	newest   time.Time
	spoiled  bool // past the bound, a record handed out late, or no updated_at
	withJSON bool
	u        *underWay // told when spoiled
}

func (rc *recorder[T]) wrap(to listing.Reader[T]) listing.Reader[T] {
	late := to.Late
	if late == nil {
		late = to.Emit
	}
	return listing.Reader[T]{
		Emit: func(rec T) error {
			rc.add(rec)
			return to.Emit(rec)
		},
		Late: func(rec T) error {
			rc.spoil()
			return late(rec)
		},
	}
}

func (rc *recorder[T]) add(rec T) {
	if rc.spoiled {
		return
	}
	if len(rc.records) >= keptRecords {
		rc.spoil()
		return
	}
	at, err := filter.ParseTimestamp(rec.Base().UpdatedAt)
	if err != nil {
		rc.spoil()
		return
	}
	if at.After(rc.newest) {
		rc.newest = at
	}
	rc.records = append(rc.records, rec)
}

func (rc *recorder[T]) spoil() {
	rc.spoiled, rc.records = true, nil
	if rc.u != nil {
		rc.u.drop()
	}
}

// kept is what the recorder keeps of a listing that ended with st, or nil.
func (rc *recorder[T]) kept(st listing.Stats, took time.Duration) *keptListing {
	if rc.spoiled || len(rc.records) == 0 || !st.TotalKnown || st.Total != len(rc.records) {
		return nil
	}
	return &keptListing{records: rc.records, n: len(rc.records), withJSON: rc.withJSON, newest: rc.newest, took: took}
}

// unchanged checks k against the store (steps 1 and 2 above) and returns
// its records and the stats of the check where the list has not changed,
// else nil records and what the check spent.
func unchanged[T commerce.Record](ctx context.Context, l *listing.Listing[T], k *keptListing) ([]T, listing.Stats, error) {
	var st listing.Stats
	recs, _ := k.records.([]T)
	base, err := l.BaseFilter(listing.Need{})
	if err != nil || recs == nil {
		return nil, st, nil //nolint:nilerr // no check: the read lists in full
	}
	lower := filter.FormatTimestamp(k.newest.Add(-k.took - laterOverlap))
	changesFilter, err := l.NarrowFilter(base, filter.Expr{filter.NewTerm(filter.Ge, "updated_at", lower)}, "the changes since a listing of this run")
	if err != nil {
		return nil, st, nil //nolint:nilerr // no room for the bound: the read lists in full
	}
	st.Pages++
	count, err := l.ExactCount(ctx, base)
	if err != nil {
		return nil, st, err
	}
	if !count.Exact() || count.N != len(recs) {
		return nil, st, nil
	}
	st.Pages++
	changes, err := l.FirstPage(ctx, changesFilter)
	if err != nil {
		return nil, st, err
	}
	if len(changes.Records) >= l.PageSize() {
		return nil, st, nil // more than a page changed, or may have
	}
	at := make(map[string]string, len(recs))
	for _, rec := range recs {
		at[rec.RecordID()] = rec.Base().UpdatedAt
	}
	for _, rec := range changes.Records {
		if u, ok := at[rec.RecordID()]; !ok || !sameTime(u, rec.Base().UpdatedAt) {
			return nil, st, nil
		}
	}
	st.Total, st.TotalKnown, st.Count, st.Listed = len(recs), true, count, len(recs)
	st.Strategy = strategyLater
	return recs, st, nil
}

// sameTime reports whether two timestamps the service sent are the same
// instant, whatever their form.
func sameTime(a, b string) bool {
	if a == b {
		return true
	}
	ta, errA := filter.ParseTimestamp(a)
	tb, errB := filter.ParseTimestamp(b)
	return errA == nil && errB == nil && ta.Equal(tb)
}
