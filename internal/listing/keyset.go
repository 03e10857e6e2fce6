package listing

// Keyset windows, for orders the service gives: windows read by offsets,
// each starting from the sort value of the last record of the one before;
// and the tie groups no bound on the sort attribute can split, listed on
// their own, by id, before the traversal goes on strictly after them.

import (
	"context"
	"errors"
	"fmt"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// traverseQuery lists the query's own filter in the sink's key order. Its
// first page's count is the query's (Stats.Count), and shows whether the service really sorts:
// one that ignores sort= gives that page out of order, before anything is
// handed out, so the listing can still switch strategy. Traversal
// goroutine.
func (w *walk[T]) traverseQuery(ctx context.Context) error {
	key := w.out.key
	win, p0, err := w.openQuery(ctx, key)
	if err != nil {
		return err
	}
	if bad := disorder(key, p0.Records); bad != "" {
		return &sortUnusableError{cause: "it ignored sort=" + key.param() + ": " + bad}
	}
	return w.traverseFrom(ctx, win)
}

// traverse lists base in key order: a tie group by id, or a catch-up pass.
// Traversal goroutine.
func (w *walk[T]) traverse(ctx context.Context, base filter.Parsed, key sortKey) error {
	win, err := w.open(ctx, base, key, nil)
	if err != nil {
		return err
	}
	return w.traverseFrom(ctx, win)
}

// traverseFrom reads window after window from w on, each from where the
// one before ended, until the listing is complete. Traversal goroutine.
func (w *walk[T]) traverseFrom(ctx context.Context, win *pageWindow[T]) error {
	base, key := win.base, win.key
	for {
		done, cont, err := w.read(ctx, win, w.out.quota(), w.out.accept)
		var next filter.Expr
		switch {
		case errors.Is(err, errWindowChanged):
			// Offsets are unreliable while the data changes: read this
			// window's range again with keyset pages, which depend on no
			// offset, then go back to parallel offset pages.
			win.cancel()
			if next, done, err = w.rereadByKeyset(ctx, base, key, win.bound); err != nil {
				return w.offsetLimitErrorFor(err, win)
			}
		case err != nil:
			return w.offsetLimitErrorFor(err, win)
		case done:
			// The listing is complete, or has MaxResults records.
		case cont.tie:
			// A tie group larger than a window: list it on its own, then
			// go on strictly after it.
			next, done, err = w.afterTieGroup(ctx, base, key, cont.tieKey, win.expr, fmt.Sprintf("window of %d records", w.windowCap))
			if err != nil {
				return err
			}
		case cont.next != nil:
			win = cont.next // prefetched
			continue
		default:
			next = cont.bound
		}
		if done {
			return nil
		}
		if win, err = w.open(ctx, base, key, next); err != nil {
			return err
		}
	}
}

// rereadByKeyset lists up to a window's worth of records from bound on with
// keyset pages, one after another: each page starts from the last sort
// value seen, so inserts and deletes cannot make it skip a record. It
// returns the bound to go on from, or done when the listing is complete: a
// keyset page is one answer from offset 0, so a short one holds every
// record its filter matches, whatever the count says. Traversal goroutine.
func (w *walk[T]) rereadByKeyset(ctx context.Context, base filter.Parsed, key sortKey, bound filter.Expr) (filter.Expr, bool, error) {
	for covered := 0; covered < w.windowCap; {
		expr, err := w.windowFilter(base, key, bound)
		if err != nil {
			return nil, false, err
		}
		p, err := w.fetch(ctx, pageRequest{filter: expr, sort: key.param()})
		if err != nil {
			return nil, false, err
		}
		if bad := disorder(key, p.Records); bad != "" {
			return nil, false, w.contractError("?sort="+key.param(), "records are out of %s order: %s", key.param(), bad)
		}
		covered += len(p.Records)
		for _, rec := range p.Records {
			if done, err := w.out.accept(rec); done || err != nil {
				return nil, done, err
			}
		}
		if len(p.Records) < w.pageSize {
			return nil, true, nil
		}
		firstKey, err := keyOf(key, p.Records[0])
		if err != nil {
			return nil, false, err
		}
		lastKey, err := keyOf(key, p.Records[len(p.Records)-1])
		if err != nil {
			return nil, false, err
		}
		if firstKey != lastKey {
			bound = key.from(lastKey)
			continue
		}
		// A tie group fills the page: list it on its own, then go on
		// strictly after it.
		next, done, err := w.afterTieGroup(ctx, base, key, lastKey, expr, "page of records")
		if done || err != nil {
			return nil, done, err
		}
		bound = next
	}
	return bound, false, nil
}

// disorder describes the first pair of records out of k's order, or "" when
// they are in order or k is an order the client cannot check.
func disorder[T commerce.Record](k sortKey, recs []T) string {
	if !k.checked() {
		return ""
	}
	prev := ""
	for _, rec := range recs {
		v, err := keyOf(k, rec)
		if err != nil {
			return "" // reported as the record's problem when it is read
		}
		if prev != "" && k.before(v, prev) {
			return fmt.Sprintf("%s %s came after %s", k.attr, v, prev)
		}
		prev = v
	}
	return ""
}

// afterTieGroup is the step past a tie group that fills a whole unit (a
// window, or a keyset page) requested with the filter sent, so that no
// bound on key tells its records apart: it lists the group on its own and
// returns the bound strictly after it, or done once MaxResults records are
// listed. Ids are unique, so ids that tie break the contract.
// Traversal goroutine.
func (w *walk[T]) afterTieGroup(ctx context.Context, base filter.Parsed, key sortKey, tieKey, sent, unit string) (filter.Expr, bool, error) {
	if key.attr == idKey.attr {
		return nil, false, w.contractError("?filter="+sent, "a whole %s has the same id %q", unit, tieKey)
	}
	if err := w.listTieGroup(ctx, base, key, tieKey); err != nil {
		return nil, false, err
	}
	if w.out.full() {
		return nil, true, nil
	}
	return key.after(tieKey), false, nil
}

// listTieGroup lists the records of base whose sort value is tieKey, more
// than a window holds, so that no bound on key tells them apart: by id
// where the service sorts and bounds ids, else in windows of the range
// attribute and sorted here by id, else not at all. Traversal goroutine.
func (w *walk[T]) listTieGroup(ctx context.Context, base filter.Parsed, key sortKey, tieKey string) error {
	tie, _, err := w.narrowed(base, key.equal(tieKey), key.param(),
		fmt.Sprintf("more than %d records share %s %s, so the provider lists them on their own, bounded by that value", commerce.OffsetLimit, key.attr, tieKey))
	if err != nil {
		return err
	}
	r := w.kind.Endpoint
	if r.KeysetCapable(idKey.attr) && !w.e.sortUnusable(r.Path) {
		return w.traverse(ctx, tie, idKey)
	}
	if r.RangeAttribute == "" {
		return &UnlistableError{Endpoint: r.Name, Total: max(w.stats.Count.Hint(), commerce.OffsetLimit+1), OffsetLimit: commerce.OffsetLimit,
			Reason: fmt.Sprintf("more than %d %s have %s %s, and the service cannot sort or cut them any finer", commerce.OffsetLimit, r.Name, key.attr, tieKey),
			Fix:    "narrow the filter so that fewer records share one " + key.attr}
	}
	// The group is read whole, whatever the limit: which of its records
	// come first is known only once they are sorted by id.
	var group []T
	err = w.listUnsorted(ctx, tie, func(rec T) (bool, error) {
		group = append(group, rec)
		return false, nil
	})
	if err != nil {
		return err
	}
	if err := sortRecords(group, idKey); err != nil {
		return err
	}
	for _, rec := range group {
		if done, err := w.out.accept(rec); done || err != nil {
			return err
		}
	}
	return nil
}
