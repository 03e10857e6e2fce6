package listing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Keyset windows, for orders the service gives: windows read by offsets,
// each starting from the sort value of the last record of the one before;
// and the tie groups no bound on the sort attribute can split, listed on
// their own, by id, before the traversal goes on strictly after them.

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
	bad := disorder(key, p0.Records)
	if bad == "" {
		if bad, err = w.ignoredSort(ctx, key, p0.Records); err != nil {
			return err
		}
	}
	if bad != "" {
		return &sortUnusableError{cause: "it ignored sort=" + key.param() + ": " + bad}
	}
	return w.traverseFrom(ctx, win, true)
}

// ignoredSort tells, with one request for one record, whether a first
// page in the order asked for came from a service that ignores sort=. The
// service's own order is by creation (the vendor documents -created_at),
// so a page in creation order as well cannot show it: sort -updated_at
// where few records were updated looks right for pages, and the records
// out of order come later, after the listing handed records out (nightly
// seed 2002551). Asked for the reverse order, a service that sorts gives
// the record the listing ends with, one that ignores sort= its own first
// again, which comes before the page's last. Only a page that may have
// more after it asks, and only where it is in creation order: a page in
// key order that holds every record to hand out is in order, and a page
// that is not in creation order showed the sort at work. It returns why
// the service ignored sort=, or "". Traversal goroutine.
func (w *walk[T]) ignoredSort(ctx context.Context, key sortKey, page []T) (string, error) {
	more := len(page) == w.e.pageSize && (w.need.MaxResults == 0 || w.need.MaxResults > len(page))
	if !more || !key.checked() || key.attr == createdKey.attr {
		return "", nil
	}
	if disorder(createdKey, page) != "" && disorder(createdKey.reversed(), page) != "" {
		return "", nil
	}
	reverse, err := w.fetch(ctx, pageRequest{filter: w.filter.Text(), sort: key.reversed().param(), limit: 1})
	if err != nil || len(reverse.Records) == 0 {
		return "", err
	}
	// What ends the listing must not come before the page's last record.
	if bad := disorder(key, []T{page[len(page)-1], reverse.Records[0]}); bad != "" {
		return "sort=" + key.reversed().param() + " gave first a record that belongs before the first page's last (" + bad + ")", nil
	}
	return "", nil
}

// traverse lists base in key order: a tie group by id, or a catch-up pass.
// Traversal goroutine.
func (w *walk[T]) traverse(ctx context.Context, base filter.Parsed, key sortKey) error {
	win, err := w.open(ctx, base, key, nil)
	if err != nil {
		return err
	}
	return w.traverseFrom(ctx, win, false)
}

// traverseFrom reads window after window from w on, each from where the
// one before ended, until the listing is complete. whole says the
// traversal is the query's own, whose last window's end is the listing's
// (recordSink.sawEnd). Traversal goroutine.
func (w *walk[T]) traverseFrom(ctx context.Context, win *pageWindow[T], whole bool) error {
	base, key := win.base, win.key
	for {
		done, cont, err := w.read(ctx, win, w.out.quota(), w.out.accept)
		var next filter.Expr
		switch {
		case errors.Is(err, errWindowChanged):
			// Offsets are unreliable while the data changes: read on with
			// keyset pages, which depend on no offset, then go back to
			// parallel offset pages. From the window's last whole page
			// handed out, where there is one: the records up to it are
			// complete, its pages having shared their records or given
			// one steady count.
			win.cancel()
			from := win.bound
			if win.progressed() {
				from = key.from(win.lastKey)
			}
			var ended bool
			if next, done, ended, err = w.rereadByKeyset(ctx, base, key, from); err != nil {
				return w.offsetLimitErrorFor(err, win)
			}
			w.out.sawEnd = w.out.sawEnd || (whole && ended)
		case err != nil:
			return w.offsetLimitErrorFor(err, win)
		case done:
			// The listing is complete, or has MaxResults records.
			w.out.sawEnd = w.out.sawEnd || (whole && win.ended)
		case cont.tie:
			// A tie group larger than a window: list it on its own, then
			// go on strictly after it.
			next, done, err = w.afterTieGroup(ctx, base, key, cont.tieKey, win.expr, fmt.Sprintf("window of %d records", w.maxWindow()))
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
// returns the bound to go on from, or done when the listing is complete
// or has MaxResults records: a keyset page is one answer from offset 0,
// so a short one holds every record its filter matches, whatever the
// count says. ended says the pass handed out its last record and saw
// nothing follows. Traversal goroutine.
func (w *walk[T]) rereadByKeyset(ctx context.Context, base filter.Parsed, key sortKey, bound filter.Expr) (next filter.Expr, done, ended bool, err error) {
	pass := w.newKeysetPass(key)
	var typical time.Duration // of an answer in this pass
	for covered := 0; covered < w.maxWindow(); {
		expr, err := w.windowFilter(base, key, bound)
		if err != nil {
			return nil, false, false, err
		}
		// The pass waits on each page alone: one that stalls goes out
		// again beside itself (hedged).
		start := time.Now()
		p, err := hedged(ctx, hedgeAfter(typical), func(ctx context.Context) (commerce.Page[T], error) {
			return w.fetch(ctx, pageRequest{filter: expr, sort: key.param()})
		})
		if err != nil {
			return nil, false, false, err
		}
		typical = typicalAnswer(typical, time.Since(start))
		if bad := disorder(key, p.Records); bad != "" {
			return nil, false, false, outOfOrder(w.kind.Path, key, bad)
		}
		covered += len(p.Records)
		if done, ended, err := w.acceptKeysetPage(pass, p.Records, expr); done || ended || err != nil {
			return nil, done, ended, err
		}
		firstKey, err := keyOf(key, p.Records[0])
		if err != nil {
			return nil, false, false, err
		}
		lastKey, err := keyOf(key, p.Records[len(p.Records)-1])
		if err != nil {
			return nil, false, false, err
		}
		if firstKey != lastKey {
			bound, pass.boundKey = key.from(lastKey), lastKey
			continue
		}
		// A tie group fills the page: list it on its own, then go on
		// strictly after it.
		after, done, err := w.afterTieGroup(ctx, base, key, lastKey, expr, "page of records")
		if done || err != nil {
			return nil, done, false, err
		}
		bound, pass.boundKey = after, ""
	}
	return bound, false, false, nil
}

// keysetPass is what a keyset pass remembers to tell a repeated record
// from one the service gave twice. Each page starts with the last sort
// value of the page before (boundKey), so the records of that value come
// again; any other id that comes twice in the pass (inPass), in an order
// no update changes, is the service's error, which the sink's
// deduplication would hide (and lose a record with). And a record already
// handed out never comes again past the last sort value handed out when
// the pass began (handedTo), where the pass goes by the sink's own order
// (a tie group's pass goes by id).
type keysetPass struct {
	key                sortKey
	inPass             map[string]struct{}
	boundKey, handedTo string
}

func (w *walk[T]) newKeysetPass(key sortKey) *keysetPass {
	pass := &keysetPass{key: key, inPass: map[string]struct{}{}}
	if key == w.out.key {
		pass.handedTo = w.out.tieKey
	}
	return pass
}

// acceptKeysetPage hands a keyset page's records to the sink. done: the
// sink has enough, or the page was short, which ends the pass; ended: the
// pass handed out its last record and saw nothing follows. Traversal
// goroutine.
func (w *walk[T]) acceptKeysetPage(pass *keysetPass, recs []T, sent string) (done, ended bool, err error) {
	short := len(recs) < w.pageSize
	for j, rec := range recs {
		if err := w.onceInPass(pass.inPass, pass.key, pass.boundKey, pass.handedTo, rec, sent); err != nil {
			return false, false, err
		}
		if done, err := w.out.accept(rec); done || err != nil {
			return done, done && short && j == len(recs)-1, err
		}
	}
	return short, short, nil
}

// onceInPass checks, where the sort value cannot change (an update moves
// a record by updated_at, where a pass meets it again), that rec's id is
// new to a keyset pass unless rec has the sort value the page started
// from (boundKey), whose records the page repeats; and that a record the
// sink already took does not come again past the last sort value it had
// taken when the pass began (handedTo). Traversal goroutine.
func (w *walk[T]) onceInPass(inPass map[string]struct{}, key sortKey, boundKey, handedTo string, rec T, sent string) error {
	if !key.fixed() {
		return nil
	}
	id := rec.RecordID()
	_, again := inPass[id]
	inPass[id] = struct{}{}
	k, err := keyOf(key, rec)
	if err != nil {
		return nil //nolint:nilerr // the record's own problem, reported when it is read
	}
	// (Taken before the pass began: the pass's own records are in inPass.)
	taken := !again && w.out.seen != nil && handedTo != "" && key.before(handedTo, k) && w.out.seen.Has(id)
	if again && k != boundKey || taken {
		return w.contractError("?filter="+sent, "two records have the same id %q (one of them at %s %s)", id, key.attr, k)
	}
	return nil
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
	if err := w.listTieGroup(ctx, base, key, tieKey, unit); err != nil {
		return nil, false, err
	}
	if w.out.full() {
		return nil, true, nil
	}
	return key.after(tieKey), false, nil
}

// listTieGroup lists the records of base whose sort value is tieKey, more
// than unit (a window or a page) holds, so that no bound on key tells them
// apart: by id where the service sorts and bounds ids; else read whole and
// sorted here by id, in spans of ids where the service bounds them (which
// holds whatever order it gives ties in), else in windows of the range
// attribute, else by offset pages, which reach the offset limit. Traversal
// goroutine.
func (w *walk[T]) listTieGroup(ctx context.Context, base filter.Parsed, key sortKey, tieKey, unit string) error {
	tie, _, err := w.narrowed(base, key.equal(tieKey), key.param(),
		fmt.Sprintf("a whole %s shares %s %s, so the provider lists those records on their own, bounded by that value", unit, key.attr, tieKey))
	if err != nil {
		return err
	}
	if sorted, err := w.listTieGroupByID(ctx, tie); sorted || err != nil {
		return err
	}
	// The group is read whole, whatever the limit: which of its records
	// come first is known only once they are sorted by id.
	var group []T
	collect := func(rec T) (bool, error) {
		group = append(group, rec)
		return false, nil
	}
	if w.idsRanged() {
		err = w.listByIDSpans(ctx, tie, nil, 0, collect)
	} else {
		err = w.listUnsorted(ctx, tie, collect)
	}
	if err != nil {
		return w.tieGroupUnlistable(err, key, tieKey)
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

// tieGroupUnlistable says what made a tie group unlistable, where err is
// an UnlistableError of its read in the service's own order: not that
// the endpoint does not sort (it sorted up to the group), but that the
// group's records share every value the provider can bound and are more
// than offsets reach. Traversal goroutine.
func (w *walk[T]) tieGroupUnlistable(err error, key sortKey, tieKey string) error {
	var unlistable *UnlistableError
	if !errors.As(err, &unlistable) {
		return err
	}
	unlistable.Reason = fmt.Sprintf("at least %d records share %s %s, more than the %d the service serves by page offset, and it neither sorts nor bounds %s by id, so nothing the provider can send tells those records apart",
		unlistable.Total, key.attr, tieKey, unlistable.OffsetLimit, w.kind.Name)
	unlistable.Fix = fmt.Sprintf("narrow the filter by an attribute other than %s so that at most %d of them match, or raise the store's page_offset_limit setting",
		key.attr, unlistable.OffsetLimit)
	return unlistable
}

// listTieGroupByID lists tie by id where the service sorts and bounds ids,
// as far as it knows. One that ignores sort=id shows it on the group's
// first page, before anything is handed out; one that refuses it answers
// that page with an error: the endpoint is marked, and sorted is false, for
// the caller to read the group another way. Traversal goroutine.
func (w *walk[T]) listTieGroupByID(ctx context.Context, tie filter.Parsed) (sorted bool, err error) {
	r := w.kind.Endpoint
	if !r.KeysetCapable(idKey.attr) || w.e.sortUnusable(r.Path) {
		return false, nil
	}
	win, err := w.open(ctx, tie, idKey, nil)
	if err != nil {
		return false, err
	}
	r0, err := win.firstPage(ctx)
	cause, refused := sortRefusal(err)
	switch {
	case refused:
	case err != nil:
		return false, w.offsetLimitErrorFor(err, win)
	default:
		if cause = disorder(idKey, r0.page.Records); cause == "" {
			return true, w.traverseFrom(ctx, win, false)
		}
		cause = "it ignored sort=" + idKey.param() + ": " + cause
	}
	win.cancel()
	w.e.markSortUnusable(ctx, r.Path, idKey.param(), cause)
	return false, nil
}
