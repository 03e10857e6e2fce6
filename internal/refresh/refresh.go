// Package refresh turns the snapshot of an earlier listing into the result
// a full listing would give now, asking the service only what changed, or
// says why it cannot prove that result exact (NotProvable), and the read
// then lists in full. It knows records, filters and counts; it reaches the
// service through its Source (internal/reads hands it a planned
// listing.Listing), and where snapshots are kept is the caller's business
// (they marshal to bytes).
//
// A refresh asks the service:
//
//  1. how many records match now (results.total of one 1-record page,
//     asked for with page[total_method]=exact: only a count the service
//     labels exact is compared with what the refresh knows; any other
//     makes the refresh NotProvable, and the read is made in full);
//  2. then, once that is answered, the records that match and were
//     updated since the snapshot's high-water mark, less overlap and the
//     time the snapshot's listing took: ge(updated_at,...) added to the
//     filter. Every create and every update moves updated_at, so this
//     brings back every record that is new, changed, or entered the
//     filter; those that are in the snapshot replace their old copies.
//  3. When the count of what is now known equals the service's count,
//     nothing was deleted and nothing left the filter: the known set holds
//     every matching record (step 2) and no other. When it differs,
//     locate compares counts over created_at ranges to find where, and
//     reads only those ranges (locate.go).
//
// The records come back in no particular order: the engine sorts them as
// the query asks, as a full listing hands them out.
package refresh

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// overlap is how far before the snapshot's newest updated_at a refresh
// asks for changes. The service is eventually consistent: a record updated
// just before the snapshot was taken may have become visible only after
// it, with an updated_at older than the newest the snapshot saw. The
// vendor advises a buffer without naming one; ten minutes is far more than
// any index delay, and costs only the re-reading of the records updated in
// those minutes.
const overlap = 10 * time.Minute

// fullShare: when the changes would take more than this share of a full
// read's requests, a full read is cheaper than a refresh that also has to
// count and may have to locate.
const fullShare = 0.25

// NotProvable says why a refresh cannot prove its result exact; the read
// is made in full instead (internal/reads).
type NotProvable struct{ Reason string }

func (n NotProvable) Error() string { return n.Reason }

// Source is the listing engine as a refresh uses it (a planned
// listing.Listing is one): page requests, and whole listings, of filters
// it builds on the query's.
type Source[T commerce.Record] interface {
	// ExactCount is results.total of filter, an exact count asked for: one
	// request for one record.
	ExactCount(ctx context.Context, f filter.Parsed) (commerce.Count, error)
	// FirstPage is the first page of filter in the service's default
	// order, every record with its JSON.
	FirstPage(ctx context.Context, f filter.Parsed) (commerce.Page[T], error)
	// List is every record of filter, with its JSON, and the page
	// requests it took.
	List(ctx context.Context, f filter.Parsed) ([]T, int, error)
	// NarrowFilter is base narrowed by extra, within the service's limits on a
	// request's filter; why says, for messages, why the terms are added.
	NarrowFilter(base filter.Parsed, extra filter.Expr, why string) (filter.Parsed, error)
}

// Request is one refresh.
type Request[T commerce.Record] struct {
	Kind commerce.Kind[T]
	// Filter is the query's filter, its created_at cut merged in.
	Filter   filter.Parsed
	PageSize int
	Previous *Snapshot
	// Known, if set, is the previous listing's records themselves, kept
	// in memory by the process that listed them; Previous then gives only
	// its mark, and its Records are not read.
	Known  []T
	Source Source[T]
}

// Result is what a refresh found: every record that matches now, and
// what it cost.
type Result[T commerce.Record] struct {
	Records []T
	// Changed counts the records that changed since the snapshot (new
	// ones included), Reread those the changes' look-back (the listing's
	// duration and overlap before the snapshot's newest update) read again
	// unchanged, and Removed those found gone.
	Changed, Reread, Removed int
	// Requests counts the page requests the refresh made (its 1-record
	// counts included), also when it gave up.
	Requests int
}

// refresher is one refresh: the request, and the requests it has made.
type refresher[T commerce.Record] struct {
	Request[T]
	spent atomic.Int64
}

// Run refreshes req.Previous. A NotProvable error says why a full read is
// needed; any other is the service's.
func Run[T commerce.Record](ctx context.Context, req Request[T]) (Result[T], error) {
	rf := &refresher[T]{Request: req}
	known := req.Known
	if known == nil {
		var err error
		if known, err = rf.decode(); err != nil {
			return Result[T]{}, err
		}
	}
	res, err := rf.run(ctx, known)
	res.Requests = int(rf.spent.Load())
	return res, err
}

// decode reads the snapshot's records back, with their JSON, on every
// core: decoding is most of an unchanged refresh's time.
func (rf *refresher[T]) decode() ([]T, error) {
	raw := rf.Previous.Records
	known := make([]T, len(raw))
	workers := min(runtime.GOMAXPROCS(0), 1+len(known)/1000)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(known); i += workers {
				rec, _, err := rf.Kind.DecodeRecord(raw[i], true)
				if err != nil {
					errs[w] = NotProvable{"the cache entry's records do not decode: " + err.Error()}
					return
				}
				known[i] = rec
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return known, nil
}

// run is steps 1 to 3: the known records merged with the changes, and
// located where the counts differ.
func (rf *refresher[T]) run(ctx context.Context, known []T) (Result[T], error) {
	var res Result[T]
	if len(known) <= 2*rf.PageSize {
		// A refresh costs at least two requests.
		return res, NotProvable{"the list takes at most two pages, which a full read costs anyway"}
	}
	lower, err := changesSince(rf.Previous)
	if err != nil {
		return res, NotProvable{err.Error()}
	}
	changesFilter, err := rf.Source.NarrowFilter(rf.Filter, filter.Expr{filter.NewTerm(filter.Ge, "updated_at", lower)}, "changes since the cache entry")
	if err != nil {
		return res, NotProvable{"no room in the filter for the updated_at bound of the changes: " + err.Error()}
	}
	// The count is answered before the changes are asked for, never
	// together: a record created in between is then among the changes
	// but not in the count, and the counts differ. Were the changes
	// answered first, that record would be in the count alone, and would
	// hide a record deleted before the refresh from the comparison.
	total, err := rf.count(ctx, rf.Filter)
	if err != nil {
		return res, err
	}
	changes, err := rf.changes(ctx, changesFilter, len(known), total)
	if err != nil {
		return res, err
	}
	merged, reread := merge(known, changes)
	res.Changed, res.Reread = len(changes)-reread, reread
	if len(merged) == total {
		res.Records = merged
		return res, nil
	}
	located, err := rf.locate(ctx, merged, total)
	if err != nil {
		return res, err
	}
	res.Records, res.Removed = located, max(0, len(merged)-len(located))
	return res, nil
}

// changesSince is the lower bound of the changes a refresh of prev asks
// for: its high-water mark (or its created_at cut, if older: a record
// created between the old cut and the new one may be older than the mark)
// less the listing's duration and overlap.
func changesSince(prev *Snapshot) (string, error) {
	mark := prev.HighWater
	if prev.CreatedBefore != "" && prev.CreatedBefore < mark {
		mark = prev.CreatedBefore
	}
	t, err := time.Parse(filter.TimestampLayout, mark)
	if err != nil {
		return "", errors.New("the cache entry has no high-water mark")
	}
	return t.Add(-prev.Took - overlap).Format(filter.TimestampLayout), nil
}

// count is the number of records matching expr, as the service counts
// them exactly; a count it does not label exact is NotProvable. Any
// goroutine.
func (rf *refresher[T]) count(ctx context.Context, expr filter.Parsed) (int, error) {
	rf.spent.Add(1)
	c, err := rf.Source.ExactCount(ctx, expr)
	if err == nil && !c.Exact() {
		return 0, NotProvable{notExact(c)}
	}
	return c.N, err
}

// notExact says why a count the service did not label exact proves
// nothing.
func notExact(c commerce.Count) string {
	label := "no total_method"
	switch c.Method {
	case commerce.CountNone:
		label = "no results.total"
	case commerce.CountUnlabelled:
	default:
		label = "total_method " + string(c.Method)
	}
	return "the service did not count exactly when asked to (page[total_method]=exact answered with " + label +
		"), so the cache cannot tell what was deleted"
}

// changes lists the records that match expr: one page when they fit, more
// where they take less than fullShare of a full read. Fewer records
// counted than known (some are gone) is no reason to stop here: the
// changes of an earlier plan, read again by the look-back, easily take a
// second page, and locate finds a few deletes for a tenth of a full read,
// or says before it sends anything that it cannot.
func (rf *refresher[T]) changes(ctx context.Context, expr filter.Parsed, known, total int) ([]T, error) {
	rf.spent.Add(1)
	first, err := rf.Source.FirstPage(ctx, expr)
	if err != nil {
		return nil, err
	}
	ps := rf.PageSize
	if len(first.Records) < ps {
		return first.Records, nil
	}
	// The changes' count is not asked exact: it only guesses the cost.
	guess := max(first.Count.Hint(), len(first.Records)+1)
	changed := strconv.Itoa(guess) + " records changed since the cache entry"
	if !first.Count.Steady() {
		changed = "at least " + changed
	}
	if float64(pagesFor(guess, ps)) > fullShare*float64(pagesFor(max(known, total), ps)) {
		return nil, NotProvable{changed + ": a full read costs about as much"}
	}
	return rf.list(ctx, expr)
}

// list lists expr in full, with JSON. Any goroutine.
func (rf *refresher[T]) list(ctx context.Context, expr filter.Parsed) ([]T, error) {
	recs, pages, err := rf.Source.List(ctx, expr)
	rf.spent.Add(int64(pages))
	return recs, err
}

// merge is known with each changed record in place of its old copy, and
// the new ones after them; unchanged counts the changes identical to the
// copy they replace (read again by the look-back, not changed).
func merge[T commerce.Record](known, changes []T) (merged []T, unchanged int) {
	at := make(map[string]int, len(known))
	out := slices.Clone(known)
	for i, rec := range out {
		at[rec.RecordID()] = i
	}
	for _, rec := range changes {
		if i, ok := at[rec.RecordID()]; ok {
			if out[i].Base().JSON == rec.Base().JSON {
				unchanged++
			}
			out[i] = rec
			continue
		}
		at[rec.RecordID()] = len(out)
		out = append(out, rec)
	}
	return out, unchanged
}

func pagesFor(n, pageSize int) int { return max(1, (n+pageSize-1)/pageSize) }
