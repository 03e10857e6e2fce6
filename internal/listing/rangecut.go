package listing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Range cuts, for endpoints that cannot sort (or a tie group they cannot
// break): offset pages in the service's own order, and above the offset
// limit windows bounded by a span of the range attribute, cut until each
// fits under it. An endpoint without a range attribute that bounds ids is
// cut by ids instead (idcut.go), also where offsets shift under writes. Records go to a deliver func in the service's order: the
// caller sorts them (sortHere, listTieGroup), so every window is read whole.

// span is a half-open range [lo, hi) of the range attribute; nil bounds are
// open.
type rangeSpan struct{ lo, hi *int64 }

func (s rangeSpan) terms(attr string) filter.Expr {
	var e filter.Expr
	if s.lo != nil {
		e = append(e, filter.NewTerm(filter.Ge, attr, strconv.FormatInt(*s.lo, 10)))
	}
	if s.hi != nil {
		e = append(e, filter.NewTerm(filter.Lt, attr, strconv.FormatInt(*s.hi, 10)))
	}
	return e
}

func (s rangeSpan) single() bool { return s.lo != nil && s.hi != nil && *s.hi == *s.lo+1 }

// canCutAt reports whether c cuts s into two spans that are not empty.
func (s rangeSpan) canCutAt(c int64) bool {
	return (s.lo == nil || c > *s.lo) && (s.hi == nil || c < *s.hi)
}

// cut cuts s at cuts, which are ascending and inside s.
func (s rangeSpan) splitAt(cuts []int64) []rangeSpan {
	subs := make([]rangeSpan, 0, len(cuts)+1)
	lo := s.lo
	for _, c := range cuts {
		hi := c
		subs = append(subs, rangeSpan{lo: lo, hi: &hi})
		lo = &hi
	}
	return append(subs, rangeSpan{lo: lo, hi: s.hi})
}

func (s rangeSpan) rangeText() string {
	lo, hi := "-∞", "+∞"
	if s.lo != nil {
		lo = strconv.FormatInt(*s.lo, 10)
	}
	if s.hi != nil {
		hi = strconv.FormatInt(*s.hi, 10)
	}
	return "[" + lo + ", " + hi + ")"
}

// maxWindowRereads bounds how often a window that cannot be cut finer is
// read again because the store changed under it.
const maxWindowRereads = 5

// listQueryUnsorted lists the query's own filter in the service's own
// order, like listUnsorted, into the walk's sink; its first page's count is
// the query's (Stats.Count).
// Traversal goroutine.
func (w *walk[T]) listQueryUnsorted(ctx context.Context) error {
	win, _, err := w.openQuery(ctx, unsorted)
	if err != nil {
		return err
	}
	return w.listSpan(ctx, w.filter, rangeSpan{}, w.out.accept, win)
}

// listUnsorted lists every record matching base in the service's own order:
// offset pages below the offset limit, and above it windows of the range
// attribute, each cut small enough to list by offset. Records go to
// deliver. Traversal goroutine.
func (w *walk[T]) listUnsorted(ctx context.Context, base filter.Parsed, deliver func(T) (bool, error)) error {
	return w.listSpan(ctx, base, rangeSpan{}, deliver, nil)
}

// listSpan lists the records of base within sp; win, if set, is the span's
// window, already opened.
//
// A span whose count says it fills a window is cut at once. Otherwise its
// window is read, and its records held until the window
// ends on a short page: a count may be low, and a window whose pages are
// full up to the offset limit holds more than offsets reach, so the span
// is cut after all.
//
// Offsets in the service's own order shift with every insert and delete,
// and there is no sort key to re-read a range by. A window whose pages
// disagree is therefore cut finer instead, down to windows of one page,
// which one answer serves whole: no write can tear them.
// Traversal goroutine.
func (w *walk[T]) listSpan(ctx context.Context, base filter.Parsed, sp rangeSpan, deliver func(T) (bool, error), win *pageWindow[T]) error {
	attr := w.kind.RangeAttribute
	for reread := 0; ; reread++ {
		var err error
		if win == nil {
			if win, err = w.open(ctx, base, unsorted, sp.terms(attr)); err != nil {
				return err
			}
		}
		r0, err := win.firstPage(ctx)
		if err != nil {
			return w.offsetLimitErrorFor(err, win)
		}
		size := r0.page.Count.Hint()
		target := int(windowFill * float64(w.maxWindow()))
		var sample []T
		// A window that reaches the offset limit full cannot show its end:
		// a span the count fills to the limit is cut at once, where the
		// count is at most the truth. An estimate that says so is read
		// first: past the limit only if its pages are full up to it.
		if size < w.maxWindow() || !r0.page.Count.AtMostTruth() {
			var held []T
			ended, _, err := w.read(ctx, win, unlimited, func(rec T) (bool, error) { held = append(held, rec); return false, nil })
			switch {
			case err == nil && ended:
				return deliverAll(held, deliver)
			case err == nil:
				// Full up to the offset limit: more than the count said.
				// Its records sample the span better than the first page.
				size = w.maxWindow() + 1
				sample = held
			case !errors.Is(err, errWindowChanged):
				return w.offsetLimitErrorFor(err, win)
			case attr == "" && w.idsRanged():
				// Offsets shifted, and no range attribute cuts the span:
				// spans of ids, which one answer each holds, do.
				win.cancel()
				return w.listByIDSpans(ctx, base, nil, 0, deliver)
			case attr == "" || sp.single():
				// Nothing cuts the span finer: read it again, a few times.
				win.cancel()
				sent := win.expr
				win = nil
				if reread+1 >= maxWindowRereads {
					return w.unsteadyError(sent, attr, sp, maxWindowRereads)
				}
				continue
			default:
				// Cut it, however small its count says it is: only a first
				// page that comes back short is one answer, and a span of
				// exactly a page, or one whose records come in another
				// order on every request, never shows that on two pages.
				size = max(size, len(held), w.pageSize+1)
				target = max(w.pageSize/2, min(size/4, target))
			}
		}
		win.cancel()
		return w.listCut(ctx, base, sp, cutBy[T]{sample: r0.page, ids: sample, size: size, target: target}, deliver)
	}
}

// unsteadyError says that a span no cut can narrow disagreed between its
// pages times reads in a row: the store changed under each read, or it
// gives the span's records in another order on every request (records
// that share every value the listing can bound, which the service
// documents no order for). Any goroutine.
func (r *windowReader[T]) unsteadyError(sent, attr string, sp rangeSpan, times int) error {
	query := ""
	if sent != "" {
		query = "?filter=" + sent
	}
	what := "the records"
	if attr != "" && sp.single() {
		what = fmt.Sprintf("the records with %s = %d", attr, *sp.lo)
	}
	return r.contractError(query,
		"%s disagreed between pages %d reads in a row (counts, page sizes or ids): the store changed under every read, or it gives these records in another order on every request, and they are more than one page of %d, which is all one answer holds",
		what, times, r.pageSize)
}

// cutBy is how a span is cut: by the range attribute's values in sample
// (the first page of the span's window), into parts of about target
// records of the size the span holds.
type cutBy[T commerce.Record] struct {
	sample commerce.Page[T]
	// ids, where set, are the records of a window read whole before it
	// proved too large: a larger sample of the span's ids (see
	// listByIDSpans).
	ids          []T
	size, target int
}

// listCut cuts sp as by says and lists the parts in turn.
// Traversal goroutine.
func (w *walk[T]) listCut(ctx context.Context, base filter.Parsed, sp rangeSpan, by cutBy[T], deliver func(T) (bool, error)) error {
	attr := w.kind.RangeAttribute
	p0, size, target := by.sample, by.size, by.target
	if attr == "" && w.idsRanged() {
		// More than offsets reach, or a span that offsets cannot read
		// whole: spans of ids cut it.
		return w.listByIDSpans(ctx, base, by.ids, size, deliver)
	}
	if attr == "" {
		return &UnlistableError{Endpoint: w.kind.Name, Total: size, OffsetLimit: w.offsetLimit(),
			Reason: fmt.Sprintf("%s records match, the service serves at most %d of them by page offset, and it does not sort %s (nor can they be cut into ranges), so no other way reaches the rest",
				matchesText(p0.Count, size), w.offsetLimit(), w.kind.Name),
			Fix: w.unlistableFix()}
	}
	subs, err := w.splitSpan(base, sp, p0, size, attr, target)
	if err != nil {
		return err
	}
	// The sub-windows' first pages go out together; each then tells
	// whether it needs cutting again.
	ws := make([]*pageWindow[T], len(subs))
	for i, s := range subs {
		if ws[i], err = w.open(ctx, base, unsorted, s.terms(attr)); err != nil {
			return err
		}
	}
	for i, s := range subs {
		if err := w.listSpan(ctx, base, s, deliver, ws[i]); err != nil {
			for _, rest := range ws[i+1:] {
				rest.cancel()
			}
			return err
		}
	}
	return nil
}

// matches says, for messages, how many records match: the count where it
// is exact, else at least the records known to.
func matchesText(c commerce.Count, size int) string {
	if c.Steady() && c.N == size {
		return strconv.Itoa(size)
	}
	return "more than " + strconv.Itoa(size-1)
}

// split cuts sp, which holds about size records, into spans of about
// target records each, at quantiles of the range attribute in the window's
// first page, which the service returns in its own order (a sample of the
// window). A value that fills much of the sample gets a span of its own,
// so that a tie group is isolated at once rather than halved again and
// again. Any goroutine (it touches nothing shared).
func (r *windowReader[T]) splitSpan(base filter.Parsed, sp rangeSpan, p0 commerce.Page[T], size int, attr string, target int) ([]rangeSpan, error) {
	if sp.single() {
		return nil, &UnlistableError{Endpoint: r.kind.Name, Total: size, OffsetLimit: commerce.OffsetLimit,
			Reason: fmt.Sprintf("%s %s have %s = %d%s, more than the %d the service serves by page offset, and the service cannot sort or filter them any finer",
				matchesText(p0.Count, size), r.kind.Name, attr, *sp.lo, filterNote(base), commerce.OffsetLimit),
			Fix: fmt.Sprintf("narrow the filter so that at most %d of them match, e.g. with %s", commerce.OffsetLimit, r.narrowHint())}
	}
	vals, err := r.sample(p0, attr)
	if err != nil {
		return nil, err
	}
	cuts := quantileCuts(vals, max(2, size/max(target, 1)+1), sp)
	if len(cuts) == 0 {
		// Every sampled value sits on sp's lower end: isolate it.
		c := vals[0] + 1
		if !sp.canCutAt(c) {
			return nil, r.contractError("", "the records of %s %s have %s values outside it", attr, sp.rangeText(), attr)
		}
		cuts = []int64{c}
	}
	return sp.splitAt(cuts), nil
}

// sample is the range attribute's values in p0, sorted. Any goroutine.
func (r *windowReader[T]) sample(p0 commerce.Page[T], attr string) ([]int64, error) {
	vals := make([]int64, 0, len(p0.Records))
	for _, rec := range p0.Records {
		v, ok := rec.SortValue(attr)
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return nil, r.contractError("", "record %s has no whole-number %s (%q) to cut the listing by", rec.RecordID(), attr, v)
		}
		vals = append(vals, n)
	}
	if len(vals) == 0 {
		return nil, r.contractError("", "results.total is %s but the first page holds no records", p0.Count)
	}
	slices.Sort(vals)
	return vals, nil
}

// quantileCuts are the values, inside sp and ascending, that cut the
// sorted sample vals into parts, with a heavy value cut off on both sides.
func quantileCuts(vals []int64, parts int, sp rangeSpan) []int64 {
	var cuts []int64
	for i := 1; i < parts; i++ {
		c := vals[i*len(vals)/parts]
		cuts = append(cuts, c)
		// A heavy value: cut right after it too.
		first, _ := slices.BinarySearch(vals, c)
		if n := countFrom(vals, first); n*parts >= len(vals)/2 {
			cuts = append(cuts, c+1)
		}
	}
	if lo, hi := vals[0], vals[len(vals)-1]; lo == hi {
		cuts = append(cuts, lo, lo+1)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	return slices.DeleteFunc(cuts, func(c int64) bool { return !sp.canCutAt(c) })
}

func countFrom(sorted []int64, i int) int {
	n := 0
	for j := i; j < len(sorted) && sorted[j] == sorted[i]; j++ {
		n++
	}
	return n
}

// unlistableFix is what a user can do about a listing larger than the
// offset limit that nothing can cut: narrow it by the filters the endpoint
// takes, where any are known. Any goroutine.
func (r *windowReader[T]) unlistableFix() string {
	res := r.kind.Endpoint
	_, known := commerce.EndpointForPath(res.Path)
	switch f, ok := res.Filters["created_at"]; {
	case ok && f.Ranged():
		return fmt.Sprintf("narrow the filter so that at most %d match, e.g. with a created_at range", r.offsetLimit())
	case len(res.Filters) > 0:
		return fmt.Sprintf("narrow the filter so that at most %d match, e.g. with %s", r.offsetLimit(), r.narrowHint())
	case known:
		return fmt.Sprintf("%s take no filter either, so only a store with at most %d of them can be listed completely", res.Name, r.offsetLimit())
	}
	return fmt.Sprintf("narrow the filter so that at most %d match, if the endpoint takes one (the provider does not know its attributes)", r.offsetLimit())
}

func filterNote(base filter.Parsed) string {
	if len(base.Terms) == 0 {
		return ""
	}
	return " (with filter " + base.Text() + ")"
}

// narrowHint suggests filter terms the endpoint accepts, for messages.
// Any goroutine.
func (r *windowReader[T]) narrowHint() string {
	var hints []string
	for _, name := range r.kind.FilterAttributeNames() {
		f := r.kind.Filters[name]
		if f.Allows(filter.Like) && len(hints) < 2 {
			hints = append(hints, "like("+name+",...)")
		}
	}
	if len(hints) == 0 {
		return "another filter attribute"
	}
	return strings.Join(hints, " or ")
}
