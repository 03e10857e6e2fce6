package listing

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// The provider-side sort, for orders the service cannot give: list
// everything, then sort it here.

// sortHere lists every matching record in an order the service gives (or
// in none) into a sink of its own, without a limit (which records come
// first is known only at the end), then sorts the complete list by key and
// hands the first MaxResults to out. Traversal goroutine.
func (l *listing[T]) sortHere(ctx context.Context, out *sink[T], key sortKey) error {
	var all []T
	collect := l.sink(ctx)
	collect.emit = func(rec T) error { all = append(all, rec); return nil }
	collect.limit = 0
	var err error
	if base, ok := l.keysetOrder(); ok {
		l.stats.Strategy = strategyKeysetSortedHere
		err = l.walk(collect, base).traverseQuery(ctx)
	} else {
		l.stats.Strategy = strategyWindowsSortedHere
		err = l.walk(collect, unsorted).listQueryUnsorted(ctx)
	}
	out.dropped = collect.dropped
	if err != nil {
		return err
	}
	if err := sortRecords(all, key); err != nil {
		return l.contractError("", "%v", err)
	}
	// Every match was listed before the cut: their number is the total.
	l.stats.Total, l.stats.TotalKnown = len(all), true
	if out.limit > 0 && len(all) > out.limit {
		all = all[:out.limit]
	}
	for _, rec := range all {
		if err := out.emit(rec); err != nil {
			return err
		}
		out.listed++
	}
	return nil
}

// keysetOrder is an order the service gives and keyset-pages on, to list
// everything by before sorting it here. Traversal goroutine.
func (l *listing[T]) keysetOrder() (sortKey, bool) {
	r := l.kind.Endpoint
	if l.e.sortUnusable(r.Path) {
		return sortKey{}, false
	}
	for _, attr := range r.ServiceSorts {
		if r.KeysetCapable(attr) {
			return keyFor(r, attr), true
		}
	}
	return sortKey{}, false
}

// sortRecords sorts recs by k, stably, with ties (equal values, to the
// millisecond for timestamps) by id and records without a value last.
func sortRecords[T commerce.Record](recs []T, k sortKey) error {
	items, err := sortItems(recs, k)
	if err != nil {
		return err
	}
	slices.SortStableFunc(items, func(a, b sortItem[T]) int {
		if a.has != b.has {
			if a.has {
				return -1
			}
			return 1
		}
		c := strings.Compare(a.s, b.s)
		if k.number {
			c = cmp.Compare(a.n, b.n)
		}
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(a.rec.RecordID(), b.rec.RecordID())
	})
	for i := range items {
		recs[i] = items[i].rec
	}
	return nil
}

// sortItem is a record with its sort value parsed once.
type sortItem[T commerce.Record] struct {
	rec T
	has bool   // the record has a value
	s   string // the value of a timestamp (as keyOf gives it) or text
	n   int64  // the value of a number
}

func sortItems[T commerce.Record](recs []T, k sortKey) ([]sortItem[T], error) {
	items := make([]sortItem[T], len(recs))
	for i, rec := range recs {
		it := sortItem[T]{rec: rec}
		if v, ok := rec.SortValue(k.attr); ok && v != "" {
			it.has = true
			switch {
			case k.timestamp:
				key, err := keyOf(k, rec)
				if err != nil {
					return nil, err
				}
				it.s = key
			case k.number:
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("record %s has %s %q, which is not a whole number", rec.RecordID(), k.attr, v)
				}
				it.n = n
			default:
				it.s = v
			}
		}
		items[i] = it
	}
	return items, nil
}
