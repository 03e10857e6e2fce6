package listing

// The provider-side sort, for orders the service cannot give: list
// everything, then sort it here.

import (
	"context"
)

// sortHere lists every matching record in an order the service gives (or
// in none) into a sink of its own, without a limit (which records come
// first is known only at the end), then sorts the complete list by key and
// hands the first MaxResults to out. Traversal goroutine.
func (l *listRun[T]) sortHere(ctx context.Context, out *recordSink[T], key sortKey) error {
	var all []T
	collect := l.recordSink(ctx)
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
func (l *listRun[T]) keysetOrder() (sortKey, bool) {
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
