package reads

// Read: the one call a data source's read of a list makes, and the reads
// that share one listing.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/refresh"
)

// Using is r on engine, r's own engine sending through a read's own
// Getter (listing.Engine.Using): a read that starts on it sends its own
// requests, and the transport counts them for it (client.Meter), while it
// shares listings and the cache with every other read of r.
func (r *Reads) Using(engine *listing.Engine) *Reads {
	read := *r
	read.engine = engine
	return &read
}

// Read lists what q asks of kind and hands it to to: the one way a data
// source reads a list. The engine plans the read once (listing.Plan): the
// sort, the filter within the service's limits, an in() split over several
// requests. Reads that need the same listing and arrive together share it,
// whatever each keeps (below); the listing is refreshed from the cache
// where there is one and it can prove the result exact (cached.go), else
// read in full by the engine.
//
// A read that arrives once a listing has handed out records never joins
// it: it may depend on a write that listing cannot have seen. It refreshes
// what that listing handed out once it has ended (serve), else lists
// on its own, and says so at DEBUG.
func Read[T commerce.Record](ctx context.Context, r *Reads, kind commerce.Kind[T], q listing.Query, to listing.Reader[T]) (Result, error) {
	l, err := listing.Plan(r.engine, kind, q)
	if err != nil {
		return Result{}, err
	}
	me := &sharedReader[T]{ctx: ctx, keep: q, to: to}
	out, how, err := r.shared.Do(ctx, l.Name(), me, func(ctx context.Context, joined []any) sharedRun {
		return serve(ctx, r, l, readersOf[T](joined))
	})
	if err != nil {
		return Result{}, err
	}
	fields := map[string]any{"resource": kind.Name, "filter": q.Filter.Text(), "sort": l.SortParam()}
	shared := how == coalesce.Shared
	switch how {
	case coalesce.Shared:
		r.log.Debug(ctx, "served by another read's listing, which was starting when this one arrived", fields)
	case coalesce.OpenedLate:
		r.log.Debug(ctx, "not served by the listing of the same list that had handed out records when this read arrived (a read that arrives later may depend on a write that listing cannot have seen): refreshed what it handed out, or listed again where it could not", fields)
	}
	total, known := out.stats.TotalFor(q, me.listed)
	res := Result{Total: total, TotalKnown: known, Count: out.stats.Count, Listed: me.listed, Shared: shared, Split: l.Split(), Pages: out.stats.Pages}
	if me.err != nil {
		return res, me.err
	}
	return res, out.err
}

// Reads that need one listing share it: the same record type, endpoint,
// filter, sort and consistency buffer (listing.Listing.Name), whatever
// each keeps. Terraform reads the data sources of a plan in parallel, so
// a module that reads "the ids" in one place and "the records" in another
// asks at once; internal/coalesce gathers such reads while reads that
// Terraform validated are on their way, whatever the time they take. A
// read that comes once the listing has started, but before it has handed
// out a record, takes it over: the listing stops (fanOut asks
// coalesce.Commit before the first record) and a new one serves its
// readers and the newcomer, at the cost of the requests it had sent. None
// joins once the listing has handed out a record (a read that depends on
// a write must not get a listing from before it): such a read refreshes
// what the listing handed out, once it has ended (serve).
//
// The listing fetches what its readers need together: every record any of
// them keeps (the largest max_results, or all), with JSON if any of them
// keeps it. Each record then goes to every reader that still wants it, in
// the same order, so that each gets exactly what it would have got alone.

// sharedReader is one read sharing a listing: what it keeps, where its
// records go, and how it fared. The listing's traversal goroutine writes
// listed and err; the read looks at them once the listing has ended.
type sharedReader[T commerce.Record] struct {
	ctx    context.Context
	keep   listing.Query
	to     listing.Reader[T]
	listed int
	// err ended this reader's part of the listing (its Emit refused a
	// record); the listing goes on for the others.
	err error
}

// readersOf are the readers that joined a listing of records of type T
// (the listing's name includes the type).
func readersOf[T commerce.Record](joined []any) []*sharedReader[T] {
	out := make([]*sharedReader[T], 0, len(joined))
	for _, j := range joined {
		if r, ok := j.(*sharedReader[T]); ok {
			out = append(out, r)
		}
	}
	return out
}

// serve runs the listing the readers need, once, and logs what it cost.
// A listing of every match keeps what it hands out (keeping) for a read of
// its list that comes once it has handed out records, too late to join:
// that read's listing waits for this one to end and refreshes what it
// kept (run), asking the store only what changed since.
func serve[T commerce.Record](ctx context.Context, r *Reads, l *listing.Listing[T], readers []*sharedReader[T]) sharedRun {
	keep := make([]listing.Query, len(readers))
	for i, rd := range readers {
		keep[i] = rd.keep
	}
	need := l.Need(keep)
	start := time.Now()
	var prev *keptListing
	var kept *keeping[T]
	if need.MaxResults == 0 {
		if before, ok := coalesce.Previous[sharedRun](ctx); ok {
			prev = before.kept
		}
		kept = &keeping[T]{r: r}
	}
	st, err := run(ctx, r, l, need, prev, fanOut(readers, func() bool { return coalesce.Commit(ctx) }, kept))
	if !coalesce.Commit(ctx) {
		kept.drop()
		r.log.Debug(ctx, "listing left for a new one: a read of the same list came before it handed out a record", map[string]any{
			"resource": l.Kind().Name, "page_requests": st.Pages,
		})
		return sharedRun{stats: st, err: errTakenOver}
	}
	r.release(prev) // this listing replaces it
	r.logFinished(ctx, l.Kind().Name, st, len(readers), time.Since(start), err)
	out := sharedRun{stats: st, err: err}
	if err == nil {
		out.kept = kept.listing(need, time.Since(start))
	} else {
		kept.drop()
	}
	return out
}

// errTakenOver stops a listing that a read of the same list took over: its
// readers are served by a new listing (coalesce.Commit).
var errTakenOver = errors.New("the listing was taken over by a new one")

// run reads the listing: by refreshing prev, what an earlier listing of it
// handed out in this run, where there is one and it can serve this
// listing (cached.go); else through the cache where there is one; else in
// full.
func run[T commerce.Record](ctx context.Context, r *Reads, l *listing.Listing[T], need listing.Need, prev *keptListing, to listing.Reader[T]) (runStats, error) {
	spent := 0
	if prev != nil {
		st, err := cachedRun[T]{r: r, l: l, need: need, to: to}.refreshKept(ctx, prev)
		var np refresh.NotProvable
		if !errors.As(err, &np) {
			return st, err
		}
		r.log.Debug(ctx, "the earlier listing of this list in this run cannot serve this one: listing again", map[string]any{
			"resource": l.Kind().Name, "reason": np.Reason,
		})
		spent = st.Pages
	}
	var st runStats
	var err error
	if r.snapshots != nil {
		st, err = readCached(ctx, r, l, need, to)
	} else {
		st.Stats, err = l.Read(ctx, need, to)
	}
	st.Pages += spent
	return st, err
}

// keptBound bounds what one Reads keeps of its listings for the reads
// that come late, estimated per record (recordCost). A listing past it is
// not kept, and a late read of its list lists in full. 16 MiB holds about
// 28,000 records without their JSON; it keeps the provider's peak for a
// million ids within PERFORMANCE.md's 160 MiB, which keeping every listing
// whole would not.
const keptBound = 16 << 20

// recordCost estimates what a record kept in memory takes: its JSON, and
// decodedCost.
func recordCost(rec commerce.Record) int64 { return decodedCost + int64(len(rec.Base().JSON)) }

// decodedCost is what a record's decoded fields take in memory, measured
// with runtime.MemStats over 10,000 records: 573 bytes an order, 346 an
// account.
const decodedCost = 600

// keeping keeps the records a listing hands out, within keptBound for all
// the listings of its Reads; nil keeps nothing. The listing's traversal
// goroutine adds.
type keeping[T commerce.Record] struct {
	r     *Reads
	recs  []T
	bytes int64
	full  bool // past keptBound: nothing kept
}

func (k *keeping[T]) add(rec T) {
	if k == nil || k.full {
		return
	}
	cost := recordCost(rec)
	if k.r.keptBytes.Add(cost) > keptBound {
		k.r.keptBytes.Add(-cost)
		k.giveUp()
		return
	}
	k.bytes += cost
	k.recs = append(k.recs, rec)
}

// counted keeps nothing of a listing whose count says it will pass
// keptBound alone, at decodedCost a record: its late reads list in full
// anyway, and keeping its first records until the bound (some 28,000)
// would only cost its memory and the collector's time (60,000 orders:
// 75 MB of peak RSS, the floor's, instead of 80–92).
func (k *keeping[T]) counted(c commerce.Count) {
	if k == nil || k.full || !c.AtMostTruth() || int64(c.Hint())*decodedCost <= keptBound {
		return
	}
	k.giveUp()
}

// giveUp drops what k kept and keeps nothing more of its listing.
func (k *keeping[T]) giveUp() {
	k.drop()
	k.full = true
}

// drop gives up what k kept.
func (k *keeping[T]) drop() {
	if k == nil {
		return
	}
	k.r.keptBytes.Add(-k.bytes)
	k.recs, k.bytes = nil, 0
}

// listing is what k kept of a listing that needed need, reached the end
// of its list, and took took; nil when it kept nothing.
func (k *keeping[T]) listing(need listing.Need, took time.Duration) *keptListing {
	if k == nil || k.full {
		return nil
	}
	kl := &keptListing{records: k.recs, json: need.IncludeJSON, createdBefore: need.CreatedBefore, took: took}
	kl.bytes.Store(k.bytes)
	return kl
}

// release gives k's bytes back to keptBound, once a later listing of its
// list has replaced it (what it kept goes with the last reference).
func (r *Reads) release(k *keptListing) {
	if k != nil {
		r.keptBytes.Add(-k.bytes.Swap(0))
	}
}

// fanOut hands each record to every reader that still wants it (and
// kept, for the reads that come late): up to its MaxResults, and late
// records past it (the state keeps the first
// MaxResults of the late and the others together). A reader whose Emit
// fails, or whose read gave up, gets no more records; once none is left
// the listing stops with the first reader's error. Before the first
// record it commits the listing (commit): false, a read that came after
// the listing started took it over, and the listing stops having handed
// out nothing.
func fanOut[T commerce.Record](readers []*sharedReader[T], commit func() bool, kept *keeping[T]) listing.Reader[T] {
	committed := false
	deliver := func(rec T, late bool) error {
		if !committed {
			if !commit() {
				return errTakenOver
			}
			committed = true
		}
		kept.add(rec)
		for _, r := range readers {
			if r.err != nil || r.ctx.Err() != nil {
				continue
			}
			if !late && r.keep.MaxResults > 0 && r.listed >= r.keep.MaxResults {
				continue
			}
			emit := r.to.Emit
			if late && r.to.Late != nil {
				emit = r.to.Late
			}
			if err := emit(rec); err != nil {
				r.err = err
				continue
			}
			r.listed++
		}
		if !anyLeft(readers) {
			return firstReaderError(readers)
		}
		return nil
	}
	return listing.Reader[T]{
		Emit:    func(rec T) error { return deliver(rec, false) },
		Late:    func(rec T) error { return deliver(rec, true) },
		Counted: kept.counted,
	}
}

// anyLeft reports whether a reader still takes records.
func anyLeft[T commerce.Record](readers []*sharedReader[T]) bool {
	for _, r := range readers {
		if r.err == nil && r.ctx.Err() == nil {
			return true
		}
	}
	return false
}

// firstReaderError is why the readers stopped taking records: the first
// reader's error, else its read's.
func firstReaderError[T commerce.Record](readers []*sharedReader[T]) error {
	for _, r := range readers {
		if r.err != nil {
			return r.err
		}
	}
	for _, r := range readers {
		if err := r.ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// logFinished says at INFO how a listing was served and what it cost in
// pages (the transport's own counts, retries and 429s included, are the
// reader's: its caller asks the client), or, where it failed, what it had
// listed when it stopped and why, with no total: it did not reach the
// end. The message carries what matters in words, first; the fields
// repeat it for machines.
func (r *Reads) logFinished(ctx context.Context, resource string, st runStats, readers int, took time.Duration, failed error) {
	fields := map[string]any{
		"resource": resource, "listed": st.Listed, "page_requests": st.Pages,
		"strategy": st.Strategy, "readers": readers, "duration_ms": took.Milliseconds(),
	}
	if failed != nil {
		fields["error"] = failed.Error()
		r.log.Info(ctx, fmt.Sprintf("listing stopped: %d %s listed in %d requests before it failed", st.Listed, resource, st.Pages), fields)
		return
	}
	msg := fmt.Sprintf("listing finished: %d %s in %d requests", st.Listed, resource, st.Pages)
	fields["total"] = st.Total
	switch st.Cache {
	case cacheRefreshed, cacheRecent:
		msg += ", " + strategies[st.Cache] + ": " + changesText(st)
		fields["cache"], fields["changed"], fields["reread"], fields["removed"] = st.Cache, st.Changed, st.Reread, st.Removed
	case cacheFull:
		msg += ", read in full, not from the cache"
		fields["cache"], fields["cache_reason"] = st.Cache, strings.TrimSpace(st.CacheReason)
	}
	r.log.Info(ctx, msg, fields)
}

// changesText says what a refresh found: what changed, and what it read
// again without a change (the look-back before the snapshot's newest
// update, which catches updates the service made visible late).
func changesText(st runStats) string {
	var parts []string
	if st.Changed > 0 {
		parts = append(parts, fmt.Sprintf("%d changed or new", st.Changed))
	}
	if st.Removed > 0 {
		parts = append(parts, fmt.Sprintf("%d removed", st.Removed))
	}
	text := "nothing changed"
	if len(parts) > 0 {
		text = strings.Join(parts, ", ")
	}
	if st.Reread > 0 {
		text += fmt.Sprintf(" (%d read again by the look-back, unchanged)", st.Reread)
	}
	return text
}
