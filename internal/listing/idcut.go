package listing

import (
	"context"
	"fmt"
	"slices"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Id cuts, for a tie group at an endpoint that filters ids by range but
// does not sort by them (it ignores or refuses sort=id): the group is read
// in spans of ids, each cut until its first page comes back short. A short
// first page is one answer holding every record of its span, whatever
// order the service gives them in, whatever changed before or after it,
// so the spans together hold every record present from the group's first
// request to its last exactly once (an id lies in one span). Offset pages
// cannot promise that where the service gives tied records in another
// order on every request.

// idSpan is a range of ids compared bytewise, as the service compares
// them: from lo (excluded if after) up to hi (excluded); "" bounds are
// open. only: the span is the id lo alone.
type idSpan struct {
	lo, hi      string
	after, only bool
}

func (s idSpan) terms() filter.Expr {
	var e filter.Expr
	switch {
	case s.only:
		return filter.Expr{filter.NewTerm(filter.Eq, idKey.attr, s.lo)}
	case s.lo != "" && s.after:
		e = append(e, filter.NewTerm(filter.Gt, idKey.attr, s.lo))
	case s.lo != "":
		e = append(e, filter.NewTerm(filter.Ge, idKey.attr, s.lo))
	}
	if s.hi != "" {
		e = append(e, filter.NewTerm(filter.Lt, idKey.attr, s.hi))
	}
	return e
}

func (s idSpan) holds(id string) bool {
	switch {
	case s.only:
		return id == s.lo
	case id < s.lo || (s.after && id == s.lo):
		return false
	}
	return s.hi == "" || id < s.hi
}

// listByIDSpans lists every record of base, in no particular order, by
// spans of ids (see above). Records go to deliver. sample, where set, are
// records of base already read (a window of them, read whole, that
// reaches the offset limit), and size about how many base matches: the
// first spans are cut at their ids' quantiles, all requested at once.
// From the one span of all ids, each cut of a page's sample made two or
// three spans, a level at a time: a read of 17,000 records in pages of 25
// waited on some 2,000 requests at most three at a time. Traversal
// goroutine.
func (w *walk[T]) listByIDSpans(ctx context.Context, base filter.Parsed, sample []T, size int, deliver func(T) (bool, error)) error {
	spans := []idSpan{{}}
	if len(sample) > w.pageSize {
		var err error
		if spans, err = w.cutIDSpan(idSpan{}, sample, size); err != nil {
			return err
		}
	}
	return w.listIDSpans(ctx, base, spans, deliver)
}

// listIDSpans lists spans, their first pages requested together, and
// each span as soon as its page comes: one that comes back full is cut,
// and its parts requested, while pages of other spans are still out, so
// that a page that stalls holds up no other span. In turn, one stalled
// span's page held back the parts of every span after it. Traversal
// goroutine.
func (w *walk[T]) listIDSpans(ctx context.Context, base filter.Parsed, spans []idSpan, deliver func(T) (bool, error)) error {
	type open struct {
		sp  idSpan
		win *pageWindow[T]
	}
	come := make(chan struct{}, 1)
	var out []open
	defer func() {
		for _, o := range out {
			o.win.cancel()
		}
	}()
	request := func(spans []idSpan) error {
		for _, sp := range spans {
			narrowed, _, err := w.narrowed(base, sp.terms(), "",
				fmt.Sprintf("the service does not sort %s by id, so the provider lists records that share a sort value in ranges of id, each of which one page holds", w.kind.Name))
			if err != nil {
				return err
			}
			out = append(out, open{sp, w.onePage(ctx, narrowed, come)})
		}
		return nil
	}
	if err := request(spans); err != nil {
		return err
	}
	for len(out) > 0 {
		i := slices.IndexFunc(out, func(o open) bool { _, done := o.win.firstPageIfCome(); return done })
		if i < 0 {
			if _, err := await(ctx, come); err != nil {
				return err
			}
			continue
		}
		o := out[i]
		out = slices.Delete(out, i, i+1)
		r0, _ := o.win.firstPageIfCome()
		o.win.cancel()
		if r0.err != nil {
			return r0.err
		}
		recs := r0.page.Records
		if len(recs) < w.pageSize || o.sp.only {
			if err := deliverAll(recs, deliver); err != nil {
				return err
			}
			continue
		}
		subs, err := w.cutIDSpan(o.sp, recs, r0.page.Count.Hint())
		if err != nil {
			return err
		}
		if err := request(subs); err != nil {
			return err
		}
	}
	return nil
}

// cutIDSpan cuts sp, whose full first page held recs (a sample of the
// span) and whose count says about size records, into spans of about
// windowFill of a page each, at quantiles of the sampled ids. Each part
// holds a sampled record and fewer records than sp, so cutting ends: every
// cut is a sampled id above sp's lowest, and where there is none (a page
// of one record, the lowest id there is) that id gets a span of its own.
// Any goroutine (it touches nothing shared).
func (r *windowReader[T]) cutIDSpan(sp idSpan, recs []T, size int) ([]idSpan, error) {
	ids := make([]string, 0, len(recs))
	for _, rec := range recs {
		id := rec.RecordID()
		if !sp.holds(id) {
			return nil, r.contractError("?filter="+sp.terms().String(), "record %s is outside the range of ids asked for", id)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if i := duplicateAt(ids); i >= 0 {
		return nil, r.contractError("?filter="+sp.terms().String(), "one page holds id %s twice", ids[i])
	}
	target := max(1, int(windowFill*float64(r.pageSize)))
	parts := max(2, max(size, len(recs)+1)/target+1)
	var subs []idSpan
	low := sp
	for i := 1; i < parts; i++ {
		c := ids[min(len(ids)-1, i*len(ids)/parts)]
		if c == ids[0] || !low.holds(c) || c == low.lo {
			continue
		}
		subs = append(subs, idSpan{lo: low.lo, after: low.after, hi: c})
		low = idSpan{lo: c, hi: sp.hi}
	}
	if len(subs) == 0 {
		// One sampled id, and it is the lowest the span holds.
		return []idSpan{{lo: ids[0], only: true}, {lo: ids[0], after: true, hi: sp.hi}}, nil
	}
	return append(subs, low), nil
}

// duplicateAt is the index of an id that sorted ids holds twice, or -1.
func duplicateAt(ids []string) int {
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return i
		}
	}
	return -1
}
