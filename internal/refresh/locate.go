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
	l.deficit = max(-1, top.hi-top.lo-top.count)
	parts := l.splitFor(top)
	if parts == nil {
		return nil, NotProvable{"locating what was deleted would cost more than a full read"}
	}
	if err := l.run(ctx, []splitting{{top, parts}}, nil); err != nil {
		return nil, err
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
// known of it, split when the budget allows, read otherwise. The counts
// of its splits and its reads all run together (the transport bounds the
// requests in flight), so that ranges found apart cost no more rounds than
// one; the parts of its splits make the next round.
func (l *locator[T]) round(ctx context.Context) error {
	round := l.pending
	l.pending = nil
	// The ranges the counts settle first: the reads they no longer need
	// are budget the others may split with.
	var differ []createdRange
	for _, sp := range round {
		switch sp.count {
		case sp.hi - sp.lo:
			l.reads -= sp.readCost(l.ps)
			l.keep(sp, l.sorted[sp.lo:sp.hi])
		case 0: // all gone
			l.reads -= sp.readCost(l.ps)
			l.keep(sp, nil)
		default:
			differ = append(differ, sp)
		}
	}
	l.undecided, l.deficit = differ, 0
	for _, sp := range differ {
		if sp.count > sp.hi-sp.lo {
			l.deficit = -1 // more than known: the deficit bounds nothing
			break
		}
		l.deficit += sp.hi - sp.lo - sp.count
	}
	var reads []createdRange
	var splits []splitting
	for _, sp := range differ {
		if parts := l.splitFor(sp); parts != nil {
			splits = append(splits, splitting{sp, parts})
		} else {
			reads = append(reads, sp)
		}
	}
	return l.run(ctx, splits, reads)
}

// run counts the parts of splits and reads reads, all together, then
// queues the parts and keeps what the reads hold.
func (l *locator[T]) run(ctx context.Context, splits []splitting, reads []createdRange) error {
	var recs [][]T
	var countErr, readErr error
	var wg sync.WaitGroup
	wg.Go(func() { countErr = l.count(ctx, splits) })
	wg.Go(func() { recs, readErr = l.fetch(ctx, reads) })
	wg.Wait()
	if err := errors.Join(countErr, readErr); err != nil {
		return err
	}
	for _, sp := range splits {
		if err := l.queue(sp); err != nil {
			return err
		}
	}
	for i, sp := range reads {
		l.reads -= sp.readCost(l.ps)
		l.keep(sp, recs[i])
	}
	return nil
}

// splitting is a range and the parts it is split into.
type splitting struct {
	createdRange
	parts []createdRange
}

// createdRange is sorted[lo:hi], and the service's count of the same
// created_at range.
type createdRange struct {
	lo, hi, count int
}

// fetch reads the ranges, all at once, and returns what they hold now.
func (l *locator[T]) fetch(ctx context.Context, ranges []createdRange) ([][]T, error) {
	exprs := make([]filter.Parsed, len(ranges))
	for i, sp := range ranges {
		var err error
		if exprs[i], err = l.bounded(sp); err != nil {
			return nil, err
		}
	}
	recs := make([][]T, len(ranges))
	errs := make([]error, len(ranges))
	var wg sync.WaitGroup
	for i, expr := range exprs {
		wg.Go(func() { recs[i], errs[i] = l.rf.list(ctx, expr) })
	}
	wg.Wait()
	return recs, errors.Join(errs...)
}

// spent is what the refresh has spent so far.
func (l *locator[T]) spent() int { return int(l.rf.spent.Load()) }

// readCost is the requests reading the range takes: the pages of what
// the service counts in it.
func (s createdRange) readCost(ps int) int { return pagesFor(s.count, ps) }

// sizeCost is readCost estimated from what is known of the range, before
// the service has counted it.
func (s createdRange) sizeCost(ps int) int { return pagesFor(max(s.hi-s.lo, 1), ps) }

// locator is one locate: the records by created_at, the ranges still to
// decide, those decided, and the budget.
type locator[T commerce.Record] struct {
	rf     *refresher[T]
	sorted []T
	keys   []string // sorted's created_at values
	ps     int

	budget    int            // requests a refresh may spend in all
	committed int            // counts this round has committed and not yet sent
	reads     int            // requests the pending ranges may still take to read
	pending   []createdRange // ranges whose count differs, or not yet compared
	done      []located[T]
	// undecided are the ranges of this round whose counts differ, and
	// deficit the records they miss in all (-1: some range holds more
	// than known, and the deficit bounds nothing; see reserve).
	undecided []createdRange
	deficit   int
}

type located[T any] struct {
	lo   int
	recs []T
}

func (l *locator[T]) keep(sp createdRange, recs []T) {
	i, _ := slices.BinarySearchFunc(l.done, sp.lo, func(d located[T], lo int) int { return d.lo - lo })
	l.done = slices.Insert(l.done, i, located[T]{lo: sp.lo, recs: recs})
}

// splitFor decides how sp splits (affordableParts) and commits the budget
// the split takes: its counts, and the reads of its parts estimated from
// their sizes until the counts come. nil: sp is read instead.
func (l *locator[T]) splitFor(sp createdRange) []createdRange {
	parts := l.affordableParts(sp)
	if parts == nil {
		return nil
	}
	l.committed += len(parts)
	l.reads -= sp.readCost(l.ps)
	for _, p := range parts {
		l.reads += p.sizeCost(l.ps)
	}
	return parts
}

// count counts every part of the splits, all at once.
func (l *locator[T]) count(ctx context.Context, splits []splitting) error {
	var parts []*createdRange
	var exprs []filter.Parsed
	for _, sp := range splits {
		for i := range sp.parts {
			expr, err := l.bounded(sp.parts[i])
			if err != nil {
				return err
			}
			parts, exprs = append(parts, &sp.parts[i]), append(exprs, expr)
		}
	}
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { p.count, errs[i] = l.rf.count(ctx, exprs[i]) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// queue checks a counted split against its range (the parts' counts add
// up to the range's, or records were written meanwhile), settles the
// budget it committed, and queues its parts for the next round.
func (l *locator[T]) queue(sp splitting) error {
	sum := 0
	for _, p := range sp.parts {
		sum += p.count
		l.reads += p.readCost(l.ps) - p.sizeCost(l.ps)
	}
	l.committed -= len(sp.parts)
	if sum != sp.count {
		return NotProvable{"records were written while the cache was refreshed"}
	}
	l.pending = append(l.pending, sp.parts...)
	return nil
}

// affordableParts are the parts sp splits into: as many as partsFor
// wants, or fewer while the counts they cost and what reading may still
// cost (reserve) must fit what is left of the budget; nil when not even
// two do, or when reading sp costs no more than splitting it would.
func (l *locator[T]) affordableParts(sp createdRange) []createdRange {
	want, worth := partsFor(sp, l.ps)
	if !worth {
		return nil
	}
	for n := want; n >= 2; n-- {
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
			reads += parts[i].sizeCost(l.ps)
		}
		if l.spent()+l.committed+len(cuts)+l.reserve(sp, parts, reads) <= l.budget {
			return parts
		}
	}
	return nil
}

// reserve is what reading may still cost once sp is split into parts:
// reads, the pages of every undecided range, or less where the deficit
// tells. Only a range that misses records differs, so no more than
// deficit ranges are ever read, each no larger than the largest of them:
// without this, the reads of ranges that will prove equal would use up
// the budget that splitting the two that differ needs, and both would be
// read whole.
func (l *locator[T]) reserve(sp createdRange, parts []createdRange, reads int) int {
	if l.deficit < 0 {
		return reads
	}
	largest := 0
	for _, p := range parts {
		largest = max(largest, p.sizeCost(l.ps))
	}
	for _, o := range l.undecided {
		if o != sp {
			largest = max(largest, o.readCost(l.ps))
		}
	}
	return min(reads, max(l.deficit, 1)*largest)
}

// partsFor is how many parts to split sp into, and whether splitting is
// worth it. Each part costs a count, and each part whose count differs a
// read or a split of its own: with d records gone from sp, few parts find
// them at the fewest counts (3 a level for one record, log₃ of the pages
// levels), and more parts pay once most of them would differ anyway. A
// range of no more pages than the parts and the reads a split needs at
// least is read instead.
func partsFor(sp createdRange, pageSize int) (parts int, worth bool) {
	d := max(1, sp.hi-sp.lo-sp.count, sp.count-(sp.hi-sp.lo))
	parts = min(8, d+2)
	return parts, pagesFor(sp.hi-sp.lo, pageSize) > parts+min(d, parts)
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
func (l *locator[T]) bounded(sp createdRange) (filter.Parsed, error) {
	var bounds filter.Expr
	if sp.lo > 0 {
		bounds = append(bounds, filter.NewTerm(filter.Ge, "created_at", l.keys[sp.lo]))
	}
	if sp.hi < len(l.keys) {
		bounds = append(bounds, filter.NewTerm(filter.Lt, "created_at", l.keys[sp.hi]))
	}
	expr, err := l.rf.Source.NarrowFilter(l.rf.Filter, bounds, "a created_at range of the cache's refresh")
	if err != nil {
		return filter.Parsed{}, NotProvable{"no room in the filter for created_at ranges: " + err.Error()}
	}
	return expr, nil
}
