package listing

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
	"github.com/commerce-tf/terraform-provider-commerce/internal/refresh"
)

// How a cached read served a listing, as stats.Cache reports it.
const (
	// cacheRefreshed: from the snapshot, asking the service only what
	// changed since.
	cacheRefreshed = "refreshed"
	// cacheFull: read in full; stats.CacheReason says why.
	cacheFull = "full read"
)

// readCached serves the listing q from its snapshot where it can, and
// keeps the new one.
func (p *readPlan[T]) readCached(ctx context.Context, q listQuery, to emitters[T]) (listStats, error) {
	if why := p.notRefreshable(q); why != "" {
		return p.readInFull(ctx, q, to, why, false)
	}
	prev, why := p.loadSnapshot(ctx)
	if prev == nil {
		return p.readInFull(ctx, q, to, why, true)
	}
	st, err := p.refresh(ctx, q, to, prev)
	var np refresh.NotProvable
	if errors.As(err, &np) {
		spent := st.Pages
		st, err = p.readInFull(ctx, q, to, np.Reason, true)
		st.Pages += spent
	}
	return st, err
}

// notRefreshable says why the listing q cannot be refreshed from a
// snapshot, or "" when it can. A refresh needs an endpoint that filters
// updated_at from below (the changes) and created_at by range (to find
// what was deleted), an order the provider can reproduce, one filter, and
// the whole result set: a capped list (max_results) changes with records
// beyond the cap, which a snapshot of the cap does not hold.
func (p *readPlan[T]) notRefreshable(q listQuery) string {
	ep := p.kind.Endpoint
	switch {
	case !endpointFilters(ep, "updated_at", filter.Ge):
		return ep.Name + " cannot be filtered by updated_at, so the changes since the last read cannot be asked for"
	case !endpointFilters(ep, "created_at", filter.Ge) || !endpointFilters(ep, "created_at", filter.Lt):
		return ep.Name + " cannot be filtered by created_at ranges, so deleted records cannot be found"
	case q.maxResults > 0:
		return "max_results is set: records beyond the cut can move into it, and the cache holds none of them"
	case !p.key.checked() && ep.ServiceCanSort(p.key.attr):
		return "the service's order by " + p.key.attr + " is its collation, which the provider cannot reproduce"
	case p.split.Parts != nil:
		return "the filter's in() is listed in parts"
	}
	return ""
}

func endpointFilters(ep commerce.Endpoint, attr string, op filter.Op) bool {
	f, ok := ep.Filters[attr]
	return ok && f.Allows(op)
}

// readInFull reads the listing in full, says why at INFO, and keeps its
// snapshot if keep.
func (p *readPlan[T]) readInFull(ctx context.Context, q listQuery, to emitters[T], why string, keep bool) (listStats, error) {
	p.e.log.Info(ctx, "cache: reading in full", map[string]any{"resource": p.kind.Name, "reason": why})
	start := time.Now()
	var rec refresh.Recorder
	if keep {
		// The snapshot keeps every record's JSON, asked for or not.
		q.includeJSON = true
		emit, late := to.emit, to.late
		if late == nil {
			late = emit
		}
		to = emitters[T]{
			emit: func(r T) error { rec.Add(r); return emit(r) },
			late: func(r T) error { rec.Add(r); return late(r) },
		}
	}
	st, err := p.readFull(ctx, q, to)
	st.Cache, st.CacheReason = cacheFull, why
	if err == nil && keep {
		p.saveSnapshot(ctx, &rec, q, time.Since(start))
	}
	return st, err
}

// refresh serves the listing from prev, or fails with a
// refresh.NotProvable, having handed nothing out.
func (p *readPlan[T]) refresh(ctx context.Context, q listQuery, to emitters[T], prev *refresh.Snapshot) (listStats, error) {
	start := time.Now()
	room := p.e.room(p.kind.Endpoint)
	base, cut := q.createdBeforeFilter(room)
	if cut != "" {
		return listStats{}, refresh.NotProvable{Reason: "no room in the filter for consistency_buffer's created_at bound, which the counts need"}
	}
	res, err := refresh.Run(ctx, refresh.Request[T]{
		Kind: p.kind, Filter: base, PageSize: p.e.pageSize, Previous: prev, Source: refreshSource[T]{p: p, room: room},
	})
	st := listStats{Strategy: "refreshed from the cache", Cache: cacheRefreshed, Pages: res.Requests, Changed: res.Changed, Removed: res.Removed}
	if err != nil {
		return st, err
	}
	if err := sortRecords(res.Records, p.key); err != nil {
		return st, refresh.NotProvable{Reason: err.Error()}
	}
	var rec refresh.Recorder
	st.Total, st.TotalKnown = len(res.Records), true
	for _, r := range res.Records {
		rec.Add(r)
		if err := to.emit(r); err != nil {
			return st, err
		}
		st.Listed++
		if q.progress && st.Listed%progressInterval == 0 {
			p.e.logProgress(ctx, p.kind.Name, st.Listed, commerce.Count{N: st.Total, Method: commerce.CountExact})
		}
	}
	p.saveSnapshot(ctx, &rec, q, time.Since(start))
	return st, nil
}

// loadSnapshot is the listing's snapshot, or nil and why there is none
// to refresh.
func (p *readPlan[T]) loadSnapshot(ctx context.Context) (*refresh.Snapshot, string) {
	data, err := p.e.snapshots.Load(p.name)
	if err == nil && data == nil {
		return nil, "no cache entry for this query"
	}
	snap := &refresh.Snapshot{}
	if err == nil {
		err = snap.UnmarshalBinary(data)
	}
	if err != nil {
		p.e.log.Info(ctx, "cache: entry not used, reading in full", map[string]any{"resource": p.kind.Name, "reason": err.Error()})
		return nil, "cache entry not usable: " + err.Error()
	}
	return snap, ""
}

// saveSnapshot keeps what rec collected of the listing q, which took
// took; a failure is a WARN, not an error: the next read reads in full.
func (p *readPlan[T]) saveSnapshot(ctx context.Context, rec *refresh.Recorder, q listQuery, took time.Duration) {
	cut := ""
	if !q.createdBefore.IsZero() {
		cut = filter.FormatTimestamp(q.createdBefore)
	}
	snap, why := rec.Finish(cut, took)
	if snap == nil {
		p.e.log.Info(ctx, "cache: not kept", map[string]any{"resource": p.kind.Name, "reason": why})
		return
	}
	data, err := snap.MarshalBinary()
	if err == nil {
		err = p.e.snapshots.Save(p.name, data)
	}
	switch {
	case errors.Is(err, ErrNotKept):
		p.e.log.Info(ctx, "cache: not kept", map[string]any{"resource": p.kind.Name, "reason": err.Error()})
	case err != nil:
		p.e.log.Warn(ctx, "cache: entry not saved", map[string]any{"resource": p.kind.Name, "error": err.Error()})
	}
}

// refreshSource is the engine as a refresh of one plan's listing uses it.
type refreshSource[T commerce.Record] struct {
	p    *readPlan[T]
	room filterRoom
}

func (s refreshSource[T]) ExactCount(ctx context.Context, expr filter.Parsed) (commerce.Count, error) {
	page, err := fetchPage(ctx, s.p.e, s.p.kind, pageRequest{filter: expr.Text(), limit: 1, exactCount: true}, nil)
	return page.Count, err
}

func (s refreshSource[T]) FirstPage(ctx context.Context, expr filter.Parsed) (commerce.Page[T], error) {
	return fetchPage(ctx, s.p.e, s.p.kind, pageRequest{filter: expr.Text(), limit: s.p.e.pageSize, includeJSON: true}, nil)
}

func (s refreshSource[T]) List(ctx context.Context, expr filter.Parsed) ([]T, int, error) {
	var out []T
	ep := s.p.kind.Endpoint
	st, err := listAll(ctx, s.p.e, s.p.kind, listQuery{filter: expr, key: keyFor(ep, ep.DefaultSort), includeJSON: true},
		emitters[T]{emit: func(rec T) error { out = append(out, rec); return nil }})
	return out, st.Pages, err
}

func (s refreshSource[T]) NarrowFilter(base filter.Parsed, extra filter.Expr, why string) (filter.Parsed, error) {
	narrowed, _, err := s.room.narrowed(base, extra, "", why)
	return narrowed, err
}
