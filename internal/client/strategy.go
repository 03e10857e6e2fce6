package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// How a listing reaches every record, as ListStats.Strategy reports it.
const (
	// StrategyKeyset: the service sorts, and keyset windows bound by the
	// sort attribute reach past the offset limit.
	StrategyKeyset = "keyset"
	// StrategyKeysetSortedHere: keyset windows on an order the service
	// gives, then the provider sorts the complete list in the order asked.
	StrategyKeysetSortedHere = "keyset, sorted by the provider"
	// StrategyWindowsSortedHere: the service cannot sort; offset pages in
	// its own order, in windows of the range attribute above the offset
	// limit, then the provider sorts the complete list.
	StrategyWindowsSortedHere = "range windows, sorted by the provider"
)

// UnlistableError says the service offers no way to list every record the
// query matches: the provider refuses to return a truncated list.
type UnlistableError struct {
	Resource    string
	Total       int // records the query matches, as the service counts them
	OffsetLimit int
	Reason      string // why no strategy reaches them all
	Fix         string // what the user can do
}

func (e *UnlistableError) Error() string {
	return fmt.Sprintf("%s: %s; %s", e.Resource, e.Reason, e.Fix)
}

// SortUnavailableError says the service refused or ignored an order the
// capability table says it gives, and the provider cannot produce that
// order itself (the service's collation of text is not the provider's).
type SortUnavailableError struct {
	Resource string
	Sort     string
	Cause    string // what the service did
}

func (e *SortUnavailableError) Error() string {
	return fmt.Sprintf("%s: the service cannot sort by %s (%s), and the provider cannot reproduce the service's order of %s itself",
		e.Resource, e.Sort, e.Cause, strings.TrimPrefix(e.Sort, "-"))
}

// errSortUnusable reports, from the first page of a sorted listing, that
// the service refused the sort= parameter or ignored it.
type errSortUnusable struct{ cause string }

func (e *errSortUnusable) Error() string { return e.cause }

// sortRefusal recognises a 400 that names the sort parameter.
func sortRefusal(err error) (string, bool) {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || !strings.Contains(apiErr.Path, "sort=") {
		return "", false
	}
	for _, o := range apiErr.Errors {
		if o.Parameter != "" && o.Parameter != "sort" {
			continue
		}
		if o.Parameter == "sort" || strings.Contains(strings.ToLower(o.Title+" "+o.Detail), "sort") {
			return "it answered 400 " + o.Summary(), true
		}
	}
	return "", false
}

// run lists with the best strategy the capability table allows, and
// switches once per endpoint and run when the service turns out not to sort
// as the table says: it refused sort= or ignored it, which shows on the
// first page, before any record was handed out.
func (l *lister[T]) run(ctx context.Context, key sortKey) error {
	r := l.kind.Resource
	for {
		var err error
		serviceSorts := r.keysetCapable(key.attr) && !l.c.sortUnusable(r.Path)
		if serviceSorts {
			l.stats.Strategy = StrategyKeyset
			l.key = key
			err = l.traverse(ctx, l.q.Filter, key, nil, true)
			if err == nil && key.attr == "updated_at" && key.desc {
				err = l.catchUp(ctx)
			}
		} else if cause, unusable := l.c.sortCause(r.Path); unusable && !key.computable() {
			return &SortUnavailableError{Resource: r.Name, Sort: key.param(), Cause: cause}
		} else {
			err = l.sortHere(ctx, key)
		}
		cause, unusable := sortRefusal(err)
		var ignored *errSortUnusable
		if errors.As(err, &ignored) {
			cause, unusable = ignored.cause, true
		}
		if !unusable || l.stats.Listed > 0 || l.c.sortUnusable(r.Path) {
			return err
		}
		l.c.markSortUnusable(ctx, r.Path, key.param(), cause)
		l.seen = make(map[string]struct{})
		l.head, l.dropped = "", 0
	}
}

// computable reports whether the provider can sort by k itself: values it
// compares exactly, unlike text, whose order is the service's collation.
func (k sortKey) computable() bool { return k.timestamp || k.number || k.attr == "id" }

// sortHere lists every matching record in an order the service gives (or
// in none), then sorts the complete list by key and hands out the first
// MaxResults.
func (l *lister[T]) sortHere(ctx context.Context, key sortKey) error {
	var all []T
	emit, limit := l.emit, l.limit
	l.emit = func(rec T) error { all = append(all, rec); return nil }
	l.limit = 0 // which records come first is known only at the end
	defer func() { l.emit, l.limit = emit, limit }()
	var err error
	if base, ok := l.serviceKey(); ok {
		l.stats.Strategy = StrategyKeysetSortedHere
		l.key = base
		err = l.traverse(ctx, l.q.Filter, base, nil, true)
	} else {
		l.stats.Strategy = StrategyWindowsSortedHere
		err = l.listUnsorted(ctx, l.q.Filter, true, nil)
	}
	if err != nil {
		return err
	}
	if err := sortRecords(all, key); err != nil {
		return &ProtocolError{Method: http.MethodGet, Path: l.kind.Path, Problem: err.Error()}
	}
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	l.stats.Listed = len(all)
	for _, rec := range all {
		if err := emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// serviceKey is an order the service gives and keyset-pages on, to list
// everything by before sorting it here.
func (l *lister[T]) serviceKey() (sortKey, bool) {
	r := l.kind.Resource
	if l.c.sortUnusable(r.Path) {
		return sortKey{}, false
	}
	for _, attr := range r.ServiceSorts {
		if r.keysetCapable(attr) {
			return keyFor(r, attr), true
		}
	}
	return sortKey{}, false
}

// sortRecords sorts recs by k, stably, with ties (equal values, to the
// millisecond for timestamps) by id and records without a value last.
func sortRecords[T Record](recs []T, k sortKey) error {
	type sortable struct {
		rec T
		has bool
		s   string
		n   int64
	}
	items := make([]sortable, len(recs))
	for i, rec := range recs {
		it := sortable{rec: rec}
		if v, ok := rec.SortValue(k.attr); ok && v != "" {
			it.has = true
			switch {
			case k.timestamp:
				key, err := k.keyOf(rec)
				if err != nil {
					return err
				}
				it.s = key
			case k.number:
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return fmt.Errorf("record %s has %s %q, which is not a whole number", rec.RecordID(), k.attr, v)
				}
				it.n = n
			default:
				it.s = v
			}
		}
		items[i] = it
	}
	slices.SortStableFunc(items, func(a, b sortable) int {
		if a.has != b.has {
			if a.has {
				return -1
			}
			return 1
		}
		c := strings.Compare(a.s, b.s)
		if k.number {
			c = compareInt(a.n, b.n)
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

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// span is a half-open range [lo, hi) of the range attribute; nil bounds are
// open.
type span struct{ lo, hi *int64 }

func (s span) bound(attr string) filter.Expr {
	var e filter.Expr
	if s.lo != nil {
		e = append(e, filter.NewTerm(filter.Ge, attr, strconv.FormatInt(*s.lo, 10)))
	}
	if s.hi != nil {
		e = append(e, filter.NewTerm(filter.Lt, attr, strconv.FormatInt(*s.hi, 10)))
	}
	return e
}

func (s span) single() bool { return s.lo != nil && s.hi != nil && *s.hi == *s.lo+1 }

func (s span) String() string {
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

// listUnsorted lists every record matching base in the service's own order:
// offset pages below the offset limit, and above it windows of the range
// attribute, each cut small enough to list by offset. Records go to sink,
// or to deliver when sink is nil. top marks the query's own listing, whose
// first page sets ListStats.Total.
func (l *lister[T]) listUnsorted(ctx context.Context, base string, top bool, sink func(T) (bool, error)) error {
	return l.listSpan(ctx, base, span{}, top, sink, nil)
}

// listSpan lists the records of base within sp; w, if set, is the span's
// window, already opened.
//
// Offsets in the service's own order shift with every insert and delete,
// and there is no sort key to re-read a range by. A window whose pages
// disagree is therefore cut finer instead, down to windows of one page,
// which one answer serves whole: no write can tear them.
func (l *lister[T]) listSpan(ctx context.Context, base string, sp span, top bool, sink func(T) (bool, error), w *window[T]) error {
	attr := l.kind.RangeAttribute
	for reread := 0; ; reread++ {
		var err error
		if w == nil {
			if w, err = l.open(ctx, base, unsorted, sp.bound(attr), false); err != nil {
				return err
			}
		}
		w.sink = sink
		r0, err := w.first(ctx)
		if err != nil {
			return l.explain(err, w)
		}
		total := r0.page.total
		if top && reread == 0 {
			l.stats.Total = total
		}
		target := int(windowFill * float64(l.windowCap))
		if total <= l.windowCap {
			_, _, err := l.read(ctx, w, false)
			if !errors.Is(err, errRedo) {
				return l.explain(err, w)
			}
			w.cancel()
			if attr == "" || sp.single() || total <= l.ps {
				w = nil
				if reread+1 >= maxWindowRereads {
					return &ProtocolError{Method: http.MethodGet, Path: l.kind.Path + "?filter=" + and(base, sp.bound(attr).String()),
						Problem: fmt.Sprintf("the records changed under the listing %d times in a row (totals, page sizes or ids disagreed between pages)", maxWindowRereads)}
				}
				continue
			}
			target = max(l.ps, total/4)
		} else {
			w.cancel()
		}
		if attr == "" {
			return &UnlistableError{Resource: l.kind.Name, Total: total, OffsetLimit: OffsetLimit,
				Reason: fmt.Sprintf("%d records match, the service serves at most %d of them by page offset, and it does not sort %s (nor can they be cut into ranges), so no other way reaches the rest",
					total, OffsetLimit, l.kind.Name),
				Fix: fmt.Sprintf("narrow the filter so that at most %d match, e.g. with a created_at range", OffsetLimit)}
		}
		subs, err := l.split(base, sp, r0.page, attr, target)
		if err != nil {
			return err
		}
		// The sub-windows' first pages go out together; each then tells
		// whether it needs cutting again.
		ws := make([]*window[T], len(subs))
		for i, s := range subs {
			if ws[i], err = l.open(ctx, base, unsorted, s.bound(attr), false); err != nil {
				return err
			}
		}
		for i, s := range subs {
			if err := l.listSpan(ctx, base, s, false, sink, ws[i]); err != nil {
				for _, rest := range ws[i+1:] {
					rest.cancel()
				}
				return err
			}
		}
		return nil
	}
}

// windowFill is the share of the offset limit a cut aims at, leaving room
// for a sample that misjudges the spread.
const windowFill = 0.7

// split cuts sp into spans of about target records each, at
// quantiles of the range attribute in the window's first page, which the
// service returns in its own order (a sample of the window). A value that
// fills much of the sample gets a span of its own, so that a tie group is
// isolated at once rather than halved again and again.
func (l *lister[T]) split(base string, sp span, p0 page[T], attr string, target int) ([]span, error) {
	if sp.single() {
		return nil, &UnlistableError{Resource: l.kind.Name, Total: p0.total, OffsetLimit: OffsetLimit,
			Reason: fmt.Sprintf("%d %s have %s = %d%s, more than the %d the service serves by page offset, and the service cannot sort or filter them any finer",
				p0.total, l.kind.Name, attr, *sp.lo, filterNote(base), OffsetLimit),
			Fix: fmt.Sprintf("narrow the filter so that at most %d of them match, e.g. with %s", OffsetLimit, l.narrowHint())}
	}
	vals := make([]int64, 0, len(p0.records))
	for _, rec := range p0.records {
		v, ok := rec.SortValue(attr)
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return nil, &ProtocolError{Method: http.MethodGet, Path: l.kind.Path,
				Problem: fmt.Sprintf("record %s has no whole-number %s (%q) to cut the listing by", rec.RecordID(), attr, v)}
		}
		vals = append(vals, n)
	}
	if len(vals) == 0 {
		return nil, &ProtocolError{Method: http.MethodGet, Path: l.kind.Path,
			Problem: fmt.Sprintf("results.total is %d but the first page holds no records", p0.total)}
	}
	slices.Sort(vals)
	parts := max(2, p0.total/max(target, 1)+1)
	inside := func(c int64) bool { return (sp.lo == nil || c > *sp.lo) && (sp.hi == nil || c < *sp.hi) }
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
	cuts = slices.DeleteFunc(cuts, func(c int64) bool { return !inside(c) })
	if len(cuts) == 0 {
		// Every sampled value sits on sp's lower end: isolate it.
		c := vals[0] + 1
		if !inside(c) {
			return nil, &ProtocolError{Method: http.MethodGet, Path: l.kind.Path,
				Problem: fmt.Sprintf("the records of %s %s have %s values outside it", attr, sp, attr)}
		}
		cuts = []int64{c}
	}
	subs := make([]span, 0, len(cuts)+1)
	lo := sp.lo
	for _, c := range cuts {
		hi := c
		subs = append(subs, span{lo: lo, hi: &hi})
		lo = &hi
	}
	return append(subs, span{lo: lo, hi: sp.hi}), nil
}

func countFrom(sorted []int64, i int) int {
	n := 0
	for j := i; j < len(sorted) && sorted[j] == sorted[i]; j++ {
		n++
	}
	return n
}

func filterNote(base string) string {
	if base == "" {
		return ""
	}
	return " (with filter " + base + ")"
}

// narrowHint suggests filter terms the endpoint accepts, for messages.
func (l *lister[T]) narrowHint() string {
	var hints []string
	for _, name := range l.kind.FilterAttributeNames() {
		f := l.kind.Filters[name]
		if f.Allows(filter.Like) && len(hints) < 2 {
			hints = append(hints, "like("+name+",...)")
		}
	}
	if len(hints) == 0 {
		return "another filter attribute"
	}
	return strings.Join(hints, " or ")
}

// sortUnusable reports whether path refused or ignored sort= earlier in
// this run.
func (c *Client) sortUnusable(path string) bool {
	_, ok := c.unsortable.Load(path)
	return ok
}

// sortCause is what path did to a sort=, if it refused or ignored one.
func (c *Client) sortCause(path string) (string, bool) {
	v, ok := c.unsortable.Load(path)
	cause, _ := v.(string)
	return cause, ok
}

// markSortUnusable records that path cannot sort, once, and says so.
func (c *Client) markSortUnusable(ctx context.Context, path, sort, cause string) {
	if _, loaded := c.unsortable.LoadOrStore(path, cause); !loaded {
		c.cfg.Logger.Info(ctx, "the service does not sort this endpoint as documented; listing it in the service's own order from now on", map[string]any{
			"path": path, "sort": sort, "cause": cause,
		})
	}
}

// disorder describes the first pair of records out of k's order, or "" when
// they are in order or k is an order the client cannot check.
func disorder[T Record](k sortKey, recs []T) string {
	if !k.checked() {
		return ""
	}
	prev := ""
	for _, rec := range recs {
		v, err := k.keyOf(rec)
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

// listTieGroup lists the records of base whose sort value is tieKey, more
// than a window holds, so that no bound on key tells them apart: by id
// where the service sorts and bounds ids, else in windows of the range
// attribute and sorted here by id, else not at all.
func (l *lister[T]) listTieGroup(ctx context.Context, base string, key sortKey, tieKey string) error {
	tie := and(base, key.equal(tieKey).String())
	r := l.kind.Resource
	if r.keysetCapable(idKey.attr) && !l.c.sortUnusable(r.Path) {
		return l.traverse(ctx, tie, idKey, nil, false)
	}
	if r.RangeAttribute == "" {
		return &UnlistableError{Resource: r.Name, Total: l.stats.Total, OffsetLimit: OffsetLimit,
			Reason: fmt.Sprintf("more than %d %s have %s %s, and the service cannot sort or cut them any finer", OffsetLimit, r.Name, key.attr, tieKey),
			Fix:    "narrow the filter so that fewer records share one " + key.attr}
	}
	var group []T
	err := l.listUnsorted(ctx, tie, false, func(rec T) (bool, error) {
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

// full reports whether MaxResults records have been handed out.
func (l *lister[T]) full() bool { return !l.late && l.limit > 0 && l.stats.Listed >= l.limit }
