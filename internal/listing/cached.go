package listing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// How ListCached served a listing, as Stats.Cache reports it.
const (
	// CacheRefreshed: from the snapshot, asking the service only what
	// changed since (refresh.go).
	CacheRefreshed = "refreshed"
	// CacheFull: read in full; Stats.CacheReason says why.
	CacheFull = "full read"
)

// Refreshable reports whether listings of q on kind can be refreshed from
// a Snapshot, and if not, why. A refresh needs an endpoint that filters
// updated_at from below (the changes) and created_at by range (to find
// what was deleted), an order the provider can reproduce, and the whole
// result set: a capped list (max_results) changes with records beyond the
// cap, which a snapshot of the cap does not hold.
func Refreshable[T commerce.Record](e *Engine, kind commerce.Kind[T], q Query) (bool, string) {
	res := kind.Endpoint
	key, err := parseSort(res, q.Sort)
	switch {
	case err != nil:
		return false, err.Error()
	case !filters(res, "updated_at", filter.Ge):
		return false, res.Name + " cannot be filtered by updated_at, so the changes since the last read cannot be asked for"
	case !filters(res, "created_at", filter.Ge) || !filters(res, "created_at", filter.Lt):
		return false, res.Name + " cannot be filtered by created_at ranges, so deleted records cannot be found"
	case q.MaxResults > 0:
		return false, "max_results is set: records beyond the cut can move into it, and the cache holds none of them"
	case !key.checked() && res.ServiceCanSort(key.attr):
		return false, "the service's order by " + key.attr + " is its collation, which the provider cannot reproduce"
	}
	if split, err := SplitIn(kind.Path, q.Filter, key.param(), e.pageSize); err == nil && split.Parts != nil {
		return false, "the filter's in() is listed in parts"
	}
	return true, ""
}

func filters(r commerce.Endpoint, attr string, op filter.Op) bool {
	f, ok := r.Filters[attr]
	return ok && f.Allows(op)
}

// ListCached lists q as List does and returns a snapshot of the result
// for the next listing of the same query (nil where Refreshable says no,
// or a record lacks what a refresh needs). Given prev, the snapshot of an
// earlier listing of the same query, it asks the service only what changed
// since, where it can prove the result exact that way (refresh.go), and
// otherwise lists in full; Stats.Cache and Stats.CacheReason say which and
// why, and the engine logs a full read at INFO.
func ListCached[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, prev *Snapshot, emit func(T) error) (Stats, *Snapshot, error) {
	if ok, why := Refreshable(e, kind, q); !ok {
		return listFull(ctx, e, kind, q, nil, why, emit)
	}
	if prev == nil {
		return listFull(ctx, e, kind, q, &snapshotter{}, "no cache entry for this query", emit)
	}
	stats, snap, err := refresh(ctx, e, kind, q, prev, emit)
	var np notProvable
	if errors.As(err, &np) {
		pages := stats.Pages
		stats, snap, err = listFull(ctx, e, kind, q, &snapshotter{}, np.reason, emit)
		stats.Pages += pages
		return stats, snap, err
	}
	return stats, snap, err
}

// listFull lists q in full, keeping a snapshot of the result when snap is
// set, and logs why the cache did not serve it.
func listFull[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, snap *snapshotter, why string, emit func(T) error) (Stats, *Snapshot, error) {
	e.log.Info(ctx, "cache: reading in full", map[string]any{"resource": kind.Name, "reason": why})
	start := time.Now()
	if snap != nil {
		// The snapshot keeps every record's JSON, asked for or not.
		q.IncludeJSON = true
		inner, late := emit, q.Late
		emit = func(rec T) error {
			snap.add(rec)
			return inner(rec)
		}
		q.Late = func(rec commerce.Record) error {
			snap.add(rec)
			if late == nil {
				typed, ok := rec.(T)
				if !ok {
					return fmt.Errorf("internal error: late record of type %T", rec)
				}
				return inner(typed)
			}
			return late(rec)
		}
	}
	stats, err := List(ctx, e, kind, q, emit)
	stats.Cache, stats.CacheReason = CacheFull, why
	if err != nil || snap == nil {
		return stats, nil, err
	}
	return stats, snap.finish(ctx, e, kind.Name, q, start), nil
}
