package listing

// Tie groups: more records share one sort value than a window reaches, so
// no bound on the sort attribute tells them apart. They are listed on
// their own, by id, and the traversal goes on strictly after them.

import (
	"context"
	"fmt"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// afterTieGroup is the step past a tie group that fills a whole unit (a
// window, or a keyset page) requested with the filter sent, so that no
// bound on key tells its records apart: it lists the group on its own and
// returns the bound strictly after it, or done once MaxResults records are
// listed. Ids are unique, so ids that tie break the contract.
// Traversal goroutine.
func (w *walk[T]) afterTieGroup(ctx context.Context, base string, key sortKey, tieKey, sent, unit string) (filter.Expr, bool, error) {
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
func (w *walk[T]) listTieGroup(ctx context.Context, base string, key sortKey, tieKey string) error {
	tie, err := w.narrowed(base, key.equal(tieKey), key.param(),
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
		if done, err := w.out.deliver(rec); done || err != nil {
			return err
		}
	}
	return nil
}
