package reads

// The cache between runs (Options.Snapshots): a listing's snapshot is kept
// under the listing's name, and the next read of the same listing
// refreshes it, asking the service only what changed (internal/refresh),
// where that can prove the result exact; otherwise it reads in full and
// says why at INFO.

import (
	"context"
	"errors"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/refresh"
)

// cachedRun is one listing served through the cache: the planned listing,
// what its readers need of it, and where its records go.
type cachedRun[T commerce.Record] struct {
	r    *Reads
	l    *listing.Listing[T]
	need listing.Need
	to   listing.Reader[T]
}

// readCached serves the listing from its snapshot where it can, and keeps
// the new one.
func readCached[T commerce.Record](ctx context.Context, r *Reads, l *listing.Listing[T], need listing.Need, to listing.Reader[T]) (runStats, error) {
	c := cachedRun[T]{r: r, l: l, need: need, to: to}
	if why := notRefreshable(l, need); why != "" {
		return c.readInFull(ctx, why, false)
	}
	prev, why := r.loadSnapshot(ctx, l.Kind().Name, l.Name())
	if prev == nil {
		return c.readInFull(ctx, why, true)
	}
	st, err := c.refreshFrom(ctx, prev)
	var np refresh.NotProvable
	if errors.As(err, &np) {
		spent := st.Pages
		st, err = c.readInFull(ctx, np.Reason, true)
		st.Pages += spent
	}
	return st, err
}

// notRefreshable says why the listing cannot be refreshed from a snapshot,
// or "" when it can. A refresh needs an endpoint that filters updated_at
// from below (the changes) and created_at by range (to find what was
// deleted), an order the provider can reproduce, one filter, and the whole
// result set: a capped list (max_results) changes with records beyond the
// cap, which a snapshot of the cap does not hold.
func notRefreshable[T commerce.Record](l *listing.Listing[T], need listing.Need) string {
	ep := l.Kind().Endpoint
	switch {
	case !ep.FiltersWith("updated_at", filter.Ge):
		return ep.Name + " cannot be filtered by updated_at, so the changes since the last read cannot be asked for"
	case !ep.FiltersWith("created_at", filter.Ge) || !ep.FiltersWith("created_at", filter.Lt):
		return ep.Name + " cannot be filtered by created_at ranges, so deleted records cannot be found"
	case need.MaxResults > 0:
		return "max_results is set: records beyond the cut can move into it, and the cache holds none of them"
	case !l.OrderReproducible():
		return "the service's order by " + l.SortAttribute() + " is its collation, which the provider cannot reproduce"
	case l.Split().Parts != nil:
		return "the filter's in() is listed in parts"
	}
	return ""
}

// readInFull reads the listing in full, says why at INFO, and keeps its
// snapshot if keep.
func (c cachedRun[T]) readInFull(ctx context.Context, why string, keep bool) (runStats, error) {
	r, l, need, to := c.r, c.l, c.need, c.to
	r.log.Info(ctx, "cache: reading in full", map[string]any{"resource": l.Kind().Name, "reason": why})
	start := time.Now()
	var rec refresh.Recorder
	if keep {
		// The snapshot keeps every record's JSON, asked for or not.
		need.IncludeJSON = true
		emit, late := to.Emit, to.Late
		if late == nil {
			late = emit
		}
		to = listing.Reader[T]{
			Emit: func(rc T) error { rec.Add(rc); return emit(rc) },
			Late: func(rc T) error { rec.Add(rc); return late(rc) },
		}
	}
	st, err := l.Read(ctx, need, to)
	out := runStats{Stats: st, Cache: cacheFull, CacheReason: why}
	if err == nil && keep {
		r.saveSnapshot(ctx, l.Kind().Name, l.Name(), &rec, need, time.Since(start))
	}
	return out, err
}

// refreshFrom serves the listing from prev, or fails with a
// refresh.NotProvable, having handed nothing out.
func (c cachedRun[T]) refreshFrom(ctx context.Context, prev *refresh.Snapshot) (runStats, error) {
	return c.refresh(ctx, prev, nil, cacheRefreshed)
}

// refreshKept serves the listing from prev, what an earlier listing of it
// handed out in this run, or fails with a refresh.NotProvable, having
// handed nothing out.
func (c cachedRun[T]) refreshKept(ctx context.Context, prev *keptListing) (runStats, error) {
	known, _ := prev.records.([]T)
	if why := notRefreshable(c.l, c.need); why != "" {
		return runStats{}, refresh.NotProvable{Reason: why}
	}
	if c.need.IncludeJSON && !prev.json {
		return runStats{}, refresh.NotProvable{Reason: "the earlier listing did not fetch the JSON this one keeps"}
	}
	cut := ""
	if !prev.createdBefore.IsZero() {
		cut = filter.FormatTimestamp(prev.createdBefore)
	}
	snap, why := refresh.SnapshotOf(known, cut, prev.took)
	if snap == nil {
		return runStats{}, refresh.NotProvable{Reason: why}
	}
	return c.refresh(ctx, snap, known, cacheRecent)
}

// refresh serves the listing from prev, whose records are known where a
// listing of this process kept them (else prev's), and keeps the result in
// the cache when it came from there (how: cacheRefreshed); or fails with
// a refresh.NotProvable, having handed nothing out.
func (c cachedRun[T]) refresh(ctx context.Context, prev *refresh.Snapshot, known []T, how string) (runStats, error) {
	r, l, need, to := c.r, c.l, c.need, c.to
	start := time.Now()
	base, err := l.BaseFilter(need)
	if err != nil {
		return runStats{}, refresh.NotProvable{Reason: err.Error()}
	}
	res, err := refresh.Run(ctx, refresh.Request[T]{
		Kind: l.Kind(), Filter: base, PageSize: l.PageSize(), Previous: prev, Known: known, Source: l,
	})
	st := runStats{Cache: how, Changed: res.Changed, Reread: res.Reread, Removed: res.Removed}
	st.Strategy, st.Pages = strategies[how], res.Requests
	if err != nil {
		return st, err
	}
	if err := l.Sort(res.Records); err != nil {
		return st, refresh.NotProvable{Reason: err.Error()}
	}
	var rec refresh.Recorder
	st.Total, st.TotalKnown = len(res.Records), true
	// A refresh that succeeds has the service's exact count agree with
	// the records it holds: a reader that counts matches past its
	// max_results reports it, as it would from a listing.
	st.Count = commerce.Count{N: st.Total, Method: commerce.CountExact}
	for _, rc := range res.Records {
		rec.Add(rc)
		if err := to.Emit(rc); err != nil {
			return st, err
		}
		st.Listed++
		l.LogProgress(ctx, st.Listed, st.Count)
	}
	if how == cacheRefreshed {
		r.saveSnapshot(ctx, l.Kind().Name, l.Name(), &rec, need, time.Since(start))
	}
	return st, nil
}

// loadSnapshot is the listing's snapshot, or nil and why there is none
// to refresh.
func (r *Reads) loadSnapshot(ctx context.Context, resource, name string) (*refresh.Snapshot, string) {
	data, err := r.snapshots.Load(name)
	if err == nil && data == nil {
		return nil, "no cache entry for this query"
	}
	snap := &refresh.Snapshot{}
	if err == nil {
		err = snap.UnmarshalBinary(data)
	}
	if err != nil {
		r.log.Info(ctx, "cache: entry not used, reading in full", map[string]any{"resource": resource, "reason": err.Error()})
		return nil, "cache entry not usable: " + err.Error()
	}
	return snap, ""
}

// saveSnapshot keeps what rec collected of a listing that needed need and
// took took; a failure is a WARN, not an error: the next read reads in
// full.
func (r *Reads) saveSnapshot(ctx context.Context, resource, name string, rec *refresh.Recorder, need listing.Need, took time.Duration) {
	cut := ""
	if !need.CreatedBefore.IsZero() {
		cut = filter.FormatTimestamp(need.CreatedBefore)
	}
	snap, why := rec.Finish(cut, took)
	if snap == nil {
		r.log.Info(ctx, "cache: not kept", map[string]any{"resource": resource, "reason": why})
		return
	}
	data, err := snap.MarshalBinary()
	if err == nil {
		err = r.snapshots.Save(name, data)
	}
	switch {
	case errors.Is(err, ErrNotKept):
		r.log.Info(ctx, "cache: not kept", map[string]any{"resource": resource, "reason": err.Error()})
	case err != nil:
		r.log.Warn(ctx, "cache: entry not saved", map[string]any{"resource": resource, "error": err.Error()})
	}
}
