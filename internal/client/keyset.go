package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Keyset traversal, for orders the service gives: windows read by offsets,
// each starting from the sort value of the last record of the one before
// (see List).

// traverseQuery lists the query's own filter in key order. Its first page
// sets ListStats.Total, and shows whether the service really sorts: one
// that ignores sort= gives that page out of order, before anything is
// handed out, so the listing can still switch strategy. Traversal goroutine.
func (l *lister[T]) traverseQuery(ctx context.Context, key sortKey) error {
	w, p0, err := l.openQuery(ctx, key)
	if err != nil {
		return err
	}
	if bad := disorder(key, p0.records); bad != "" {
		return &sortUnusableError{cause: "it ignored sort=" + key.param() + ": " + bad}
	}
	return l.traverseFrom(ctx, w)
}

// openQuery opens the first window of the query's own filter and awaits
// its first page, whose results.total is the query's. Traversal goroutine.
func (l *lister[T]) openQuery(ctx context.Context, key sortKey) (*window[T], page[T], error) {
	w, err := l.open(ctx, l.q.Filter, key, nil)
	if err != nil {
		return nil, page[T]{}, err
	}
	r0, err := w.firstPage(ctx)
	if err != nil {
		return nil, page[T]{}, l.offsetLimitErrorFor(err, w)
	}
	l.stats.Total = r0.page.total
	return w, r0.page, nil
}

// traverse lists base in key order: a tie group by id, or a catch-up pass.
// Traversal goroutine.
func (l *lister[T]) traverse(ctx context.Context, base string, key sortKey) error {
	w, err := l.open(ctx, base, key, nil)
	if err != nil {
		return err
	}
	return l.traverseFrom(ctx, w)
}

// traverseFrom reads window after window from w on, each from where the
// one before ended, until the listing is complete. Traversal goroutine.
func (l *lister[T]) traverseFrom(ctx context.Context, w *window[T]) error {
	base, key := w.base, w.key
	for {
		done, cont, err := l.read(ctx, w, l.deliver)
		var next filter.Expr
		switch {
		case errors.Is(err, errWindowChanged):
			// Offsets are unreliable while the data changes: read this
			// window's range again with keyset pages, which depend on no
			// offset, then go back to parallel offset pages.
			w.cancel()
			if next, done, err = l.rereadByKeyset(ctx, base, key, w.bound); err != nil {
				return l.offsetLimitErrorFor(err, w)
			}
		case err != nil:
			return l.offsetLimitErrorFor(err, w)
		case done:
			// The listing is complete, or has MaxResults records.
		case cont.tie:
			// A tie group larger than a window: list it on its own, then
			// go on strictly after it.
			next, done, err = l.afterTieGroup(ctx, base, key, cont.tieKey, w.expr, fmt.Sprintf("window of %d records", l.windowCap))
			if err != nil {
				return err
			}
		case cont.next != nil:
			w = cont.next // prefetched
			continue
		default:
			next = cont.bound
		}
		if done {
			return nil
		}
		if w, err = l.open(ctx, base, key, next); err != nil {
			return err
		}
	}
}

// rereadByKeyset lists up to a window's worth of records from bound on with
// keyset pages, one after another: each page starts from the last sort
// value seen, so inserts and deletes cannot make it skip a record. It
// returns the bound to go on from, or done when the listing is complete.
// Traversal goroutine.
func (l *lister[T]) rereadByKeyset(ctx context.Context, base string, key sortKey, bound filter.Expr) (filter.Expr, bool, error) {
	for covered := 0; covered < l.windowCap; {
		expr, err := l.windowFilter(base, key, bound)
		if err != nil {
			return nil, false, err
		}
		p, err := l.fetch(ctx, expr, key, 0)
		if err != nil {
			return nil, false, err
		}
		if want := min(p.total, l.pageSize); len(p.records) != want {
			// A keyset page is one answer from offset 0: it holds the first
			// min(total, limit) records its filter matches, whatever writes
			// happen. Trusting a total that disagrees would end the listing
			// early (total too small) or chase records that are not there.
			return nil, false, l.contractError("?filter="+expr, "results.total is %d, so the page (page[limit] %d) should hold %d records, but it holds %d", p.total, l.pageSize, want, len(p.records))
		}
		covered += len(p.records)
		for _, rec := range p.records {
			if done, err := l.deliver(rec); done || err != nil {
				return nil, done, err
			}
		}
		if p.total <= len(p.records) {
			return nil, true, nil
		}
		firstKey, err := keyOf(key, p.records[0])
		if err != nil {
			return nil, false, err
		}
		lastKey, err := keyOf(key, p.records[len(p.records)-1])
		if err != nil {
			return nil, false, err
		}
		if firstKey != lastKey {
			bound = key.from(lastKey)
			continue
		}
		// A tie group fills the page: list it on its own, then go on
		// strictly after it.
		next, done, err := l.afterTieGroup(ctx, base, key, lastKey, expr, "page of records")
		if done || err != nil {
			return nil, done, err
		}
		bound = next
	}
	return bound, false, nil
}

// afterTieGroup is the step past a tie group that fills a whole unit (a
// window, or a keyset page) requested with the filter sent, so that no
// bound on key tells its records apart: it lists the group on its own and
// returns the bound strictly after it, or done once MaxResults records are
// listed. Ids are unique, so ids that tie break the contract.
// Traversal goroutine.
func (l *lister[T]) afterTieGroup(ctx context.Context, base string, key sortKey, tieKey, sent, unit string) (filter.Expr, bool, error) {
	if key.attr == idKey.attr {
		return nil, false, l.contractError("?filter="+sent, "a whole %s has the same id %q", unit, tieKey)
	}
	if err := l.listTieGroup(ctx, base, key, tieKey); err != nil {
		return nil, false, err
	}
	if l.maxResultsReached() {
		return nil, true, nil
	}
	return key.after(tieKey), false, nil
}

// listTieGroup lists the records of base whose sort value is tieKey, more
// than a window holds, so that no bound on key tells them apart: by id
// where the service sorts and bounds ids, else in windows of the range
// attribute and sorted here by id, else not at all. Traversal goroutine.
func (l *lister[T]) listTieGroup(ctx context.Context, base string, key sortKey, tieKey string) error {
	tie, err := l.narrowed(base, key.equal(tieKey), key.param(),
		fmt.Sprintf("more than %d records share %s %s, so the provider lists them on their own, bounded by that value", OffsetLimit, key.attr, tieKey))
	if err != nil {
		return err
	}
	r := l.kind.Resource
	if r.keysetCapable(idKey.attr) && !l.c.sortUnusable(r.Path) {
		return l.traverse(ctx, tie, idKey)
	}
	if r.RangeAttribute == "" {
		return &UnlistableError{Resource: r.Name, Total: l.stats.Total, OffsetLimit: OffsetLimit,
			Reason: fmt.Sprintf("more than %d %s have %s %s, and the service cannot sort or cut them any finer", OffsetLimit, r.Name, key.attr, tieKey),
			Fix:    "narrow the filter so that fewer records share one " + key.attr}
	}
	var group []T
	err = l.listUnsorted(ctx, tie, func(rec T) (bool, error) {
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
		if done, err := l.deliver(rec); done || err != nil {
			return err
		}
	}
	return nil
}

// disorder describes the first pair of records out of k's order, or "" when
// they are in order or k is an order the client cannot check.
func disorder[T Record](k sortKey, recs []T) string {
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
