package listing

import "github.com/commerce-tf/terraform-provider-commerce/internal/commerce"

// What the traversal goroutine checks of each window it reads, so that a
// store that changed under the listing cannot make it skip or repeat a
// record unnoticed.

// windowCheck tells whether a window read by offsets held still: a steady
// count (commerce.Count.Steady) stays what the first page said, pages that
// overlap share their record, no id comes twice, and the window does not
// end short of what the last page's count promises (errWindowChanged
// otherwise); and the records are in order, where the client can tell (a
// ProtocolError otherwise). The end itself is the first short page,
// whatever the count said. Traversal goroutine.
type windowCheck[T commerce.Record] struct {
	r        *windowReader[T]
	w        *window[T]
	count    commerce.Count // the first page's
	inWindow map[string]struct{}
	prevKey  string
	lastID   string // of the page before, where pages overlap
}

func newWindowCheck[T commerce.Record](r *windowReader[T], w *window[T], count commerce.Count) *windowCheck[T] {
	return &windowCheck[T]{r: r, w: w, count: count,
		inWindow: make(map[string]struct{}, min(count.Hint(), r.windowCap))}
}

// page checks page i and returns its records that are new: without the
// record it shares with the page before, where pages overlap (see stride).
// Traversal goroutine.
func (c *windowCheck[T]) page(i int, p commerce.Page[T]) ([]T, error) {
	if c.count.Steady() && p.Count.Steady() && p.Count.N != c.count.N {
		// (The first page may have asked for the exact count the others
		// did not: their labels may differ.)
		return nil, errWindowChanged
	}
	if c.w.stride == c.r.pageSize || i == 0 {
		c.lastID = lastID(p.Records)
		return p.Records, nil
	}
	if len(p.Records) == 0 || p.Records[0].RecordID() != c.lastID {
		return nil, errWindowChanged
	}
	c.lastID = lastID(p.Records)
	return p.Records[1:], nil
}

func lastID[T commerce.Record](recs []T) string {
	if len(recs) == 0 {
		return ""
	}
	return recs[len(recs)-1].RecordID()
}

// record checks the next record before it is handed out.
// Traversal goroutine.
func (c *windowCheck[T]) record(rec T) error {
	id := rec.RecordID()
	if _, dup := c.inWindow[id]; dup {
		// Offsets shifted under the listing.
		return errWindowChanged
	}
	c.inWindow[id] = struct{}{}
	if !c.key().checked() {
		return nil
	}
	k, err := keyOf(c.key(), rec)
	if err != nil {
		return c.r.contractError("", "%v", err)
	}
	if c.prevKey != "" && c.key().before(k, c.prevKey) {
		return c.r.contractError("?sort="+c.key().param(), "records are out of %s order: %s comes after %s", c.key().param(), k, c.prevKey)
	}
	c.prevKey = k
	return nil
}

func (c *windowCheck[T]) key() sortKey { return c.w.key }

// end checks a window that ended on the short page p against p's count:
// no count but an estimate may say more records match than the window
// holds (a lower bound and an observation are at most the truth, and an
// unlabelled count is exact or a lower bound), and an exact count says
// exactly how many. A window that disagrees changed while it was read, or
// a page came back short that should not have. Traversal goroutine.
func (c *windowCheck[T]) end(p commerce.Page[T]) error {
	held, n := len(c.inWindow), p.Count.N
	switch p.Count.Method {
	case commerce.CountExact:
		if held != n {
			return errWindowChanged
		}
	case commerce.CountUnlabelled, commerce.CountLowerBound, commerce.CountObserved:
		if held < min(n, c.r.windowCap) {
			return errWindowChanged
		}
	}
	return nil
}

// holdsAll reports whether the window holds every record the listing can
// match: as many as the query's filter names ids (maxMatches), so that no
// page past them is needed to show the end. Traversal goroutine.
func (c *windowCheck[T]) holdsAll(maxMatches int) bool {
	return maxMatches > 0 && len(c.inWindow) >= maxMatches
}
