package refresh

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// locate finds what the service no longer has among known (deleted, or
// left the filter) when the counts differ, and returns the matching
// records. It sorts known by created_at and splits it into ranges whose
// bounds are created_at values, counts each range at the service, and
// keeps a range whose count equals what it knows (known holds every
// matching record: see refresh.go), splits further or reads one that
// differs. A range read brings every record it holds now, so it also
// mends whatever else is wrong in it.
//
// It never spends more than a full read and 5%: a range is split only
// while the counts it needs, added to the requests already spent and to
// the reads still possible, stay within that budget; a range proven equal
// frees the reads it would have taken. When even the first split does not
// fit, a full read is cheaper (a NotProvable).
func (rf *refresher[T]) locate(ctx context.Context, known []T, total int) ([]T, error) {
	sorted, keys, err := byCreatedAt(known)
	if err != nil {
		return nil, err
	}
	l := &locator[T]{rf: rf, sorted: sorted, keys: keys, ps: rf.PageSize}
	// A full read now costs the pages of what matches now.
	full := pagesFor(total, l.ps)
	l.budget = full + max(1, full/20)
	top := createdRange{lo: 0, hi: len(sorted), count: total}
	l.reads = top.readCost(l.ps)
	if !l.split(ctx, top) {
		return nil, NotProvable{"locating what was deleted would cost more than a full read"}
	}
	if l.err != nil {
		return nil, l.err
	}
	for len(l.pending) > 0 {
		if err := l.round(ctx); err != nil {
			return nil, err
		}
	}
	var out []T
	for _, part := range l.done {
		out = append(out, part.recs...)
	}
	if len(out) != total {
		return nil, NotProvable{"records were written while the cache was refreshed"}
	}
	return out, nil
}

// byCreatedAt is known sorted by created_at, ties by id, with each
// record's created_at as filters take it.
func byCreatedAt[T commerce.Record](known []T) ([]T, []string, error) {
	keys := make([]string, len(known))
	for i, rec := range known {
		v, ok := rec.SortValue("created_at")
		if !ok || v == "" {
			return nil, nil, NotProvable{fmt.Sprintf("record %s has no created_at to locate deletes by", rec.RecordID())}
		}
		k, err := timestampKey(v)
		if err != nil {
			return nil, nil, NotProvable{fmt.Sprintf("record %s: %v", rec.RecordID(), err)}
		}
		keys[i] = k
	}
	order := make([]int, len(known))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return strings.Compare(known[a].RecordID(), known[b].RecordID())
	})
	sorted := make([]T, len(known))
	sortedKeys := make([]string, len(known))
	for i, j := range order {
		sorted[i], sortedKeys[i] = known[j], keys[j]
	}
	return sorted, sortedKeys, nil
}

// round decides each pending range: kept when its count equals what is
// known of it, split when the budget allows, read otherwise; the reads of
// a round run together, and the parts of its splits make the next round.
func (l *locator[T]) round(ctx context.Context) error {
	round := l.pending
	l.pending = nil
	var reads []createdRange
	for _, sp := range round {
		switch {
		case sp.count == sp.hi-sp.lo:
			l.reads -= sp.readCost(l.ps)
			l.keep(sp, l.sorted[sp.lo:sp.hi])
		case sp.count == 0: // all gone
			l.reads -= sp.readCost(l.ps)
			l.keep(sp, nil)
		case l.split(ctx, sp):
			if l.err != nil {
				return l.err
			}
		default:
			reads = append(reads, sp)
		}
	}
	return l.read(ctx, reads)
}

// createdRange is sorted[lo:hi], and the service's count of the same
// created_at range.
type createdRange struct {
	lo, hi, count int
}

// read reads the ranges, all at once (the transport bounds the requests
// in flight), and keeps what they hold now.
func (l *locator[T]) read(ctx context.Context, ranges []createdRange) error {
	recs := make([][]T, len(ranges))
	errs := make([]error, len(ranges))
	var wg sync.WaitGroup
	for i, sp := range ranges {
		expr, err := l.bounded(sp)
		if err != nil {
			return err
		}
		wg.Go(func() { recs[i], errs[i] = l.rf.list(ctx, expr) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, sp := range ranges {
		l.reads -= sp.readCost(l.ps)
		l.keep(sp, recs[i])
	}
	return nil
}

// spent is what the refresh has spent so far.
func (l *locator[T]) spent() int { return int(l.rf.spent.Load()) }

// readCost is the requests reading the range takes: the pages of what
// the service counts in it.
func (s createdRange) readCost(ps int) int { return pagesFor(s.count, ps) }

// locator is one locate: the records by created_at, the ranges still to
// decide, those decided, and the budget.
type locator[T commerce.Record] struct {
	rf     *refresher[T]
	sorted []T
	keys   []string // sorted's created_at values
	ps     int

	budget  int            // requests a refresh may spend in all
	reads   int            // requests the pending ranges may still take to read
	pending []createdRange // ranges whose count differs, or not yet compared
	done    []located[T]
	err     error
}

type located[T any] struct {
	lo   int
	recs []T
}

func (l *locator[T]) keep(sp createdRange, recs []T) {
	i, _ := slices.BinarySearchFunc(l.done, sp.lo, func(d located[T], lo int) int { return d.lo - lo })
	l.done = slices.Insert(l.done, i, located[T]{lo: sp.lo, recs: recs})
}

// split splits sp into up to 8 ranges, page-aligned and cut where
// created_at changes, counts them and queues them, if the budget allows;
// it reports whether it did.
func (l *locator[T]) split(ctx context.Context, sp createdRange) bool {
	parts := l.affordableParts(sp)
	if parts == nil {
		return false
	}
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i := range parts {
		expr, err := l.bounded(parts[i])
		if err != nil {
			l.err = err
			return true
		}
		wg.Go(func() { parts[i].count, errs[i] = l.rf.count(ctx, expr) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		l.err = err
		return true
	}
	sum := 0
	for _, p := range parts {
		sum += p.count
	}
	if sum != sp.count {
		l.err = NotProvable{"records were written while the cache was refreshed"}
		return true
	}
	l.reads -= sp.readCost(l.ps)
	for _, p := range parts {
		l.reads += p.readCost(l.ps)
	}
	l.pending = append(l.pending, parts...)
	return true
}

// affordableParts are the most parts, up to 8, that sp splits into while
// the counts they cost and the reads of the parts (whole pages of each)
// fit what is left of the budget; nil when not even two do.
func (l *locator[T]) affordableParts(sp createdRange) []createdRange {
	for n := min(8, l.budget-l.spent()-l.reads); n >= 2; n-- {
		cuts := l.cuts(sp, n)
		if len(cuts) < 2 {
			continue
		}
		parts := make([]createdRange, len(cuts))
		reads := l.reads - sp.readCost(l.ps)
		for i, lo := range cuts {
			hi := sp.hi
			if i+1 < len(cuts) {
				hi = cuts[i+1]
			}
			parts[i] = createdRange{lo: lo, hi: hi}
			reads += pagesFor(max(hi-lo, 1), l.ps)
		}
		if l.spent()+len(cuts)+reads <= l.budget {
			return parts
		}
	}
	return nil
}

// cuts are the first indexes of up to n parts of sp, each a whole number
// of pages where created_at allows (a cut falls where it changes, so that
// a created_at range holds exactly its part). Fewer than 2: no split.
func (l *locator[T]) cuts(sp createdRange, n int) []int {
	size := sp.hi - sp.lo
	if n < 2 || size <= l.ps {
		return nil
	}
	step := pagesFor(pagesFor(size, l.ps), n) * l.ps
	cuts := []int{sp.lo}
	for at := sp.lo + step; at < sp.hi; at = cuts[len(cuts)-1] + step {
		i := at
		for i < sp.hi && l.keys[i] == l.keys[i-1] {
			i++
		}
		if i >= sp.hi {
			break
		}
		cuts = append(cuts, i)
	}
	return cuts
}

// bounded is the refresh's filter limited to sp's created_at range: from
// its first record's value (none for the first range), up to the next
// range's first value (none for the last).
func (l *locator[T]) bounded(sp createdRange) (string, error) {
	var bounds filter.Expr
	if sp.lo > 0 {
		bounds = append(bounds, filter.NewTerm(filter.Ge, "created_at", l.keys[sp.lo]))
	}
	if sp.hi < len(l.keys) {
		bounds = append(bounds, filter.NewTerm(filter.Lt, "created_at", l.keys[sp.hi]))
	}
	expr, err := l.rf.Source.Narrow(l.rf.Filter, bounds, "a created_at range of the cache's refresh")
	if err != nil {
		return "", NotProvable{"no room in the filter for created_at ranges: " + err.Error()}
	}
	return expr, nil
}
