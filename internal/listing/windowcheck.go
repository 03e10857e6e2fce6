package listing

// The checks of a window: what the traversal goroutine checks of each
// window it reads, so that a store that changed under the listing cannot
// make it skip or repeat a record unnoticed, and that the records are in
// the order asked for. They know the window's shape, not how its pages
// were requested (pager.go).

import (
	"fmt"
	"slices"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// windowShape is what the checks need of the window they check, fixed
// once its first page sized it.
type windowShape struct {
	key      sortKey
	pageSize int
	// stride is how far apart the window's pages start; less than pageSize
	// where pages overlap (see sharedRecords).
	stride int
	// lastOffset is the offset of the page that ends where the window's
	// reach did when it was sized.
	lastOffset int
	// path is the endpoint's, which a contract error names.
	path string
	// maxWindow is how many records a window reaches by offset now: a
	// store's refusal lowers it while the listing runs.
	maxWindow func() int
}

// pageOffset is the offset of page i of a window whose pages start
// stride apart: i strides on, but for the last page, which ends where the
// window's reach does (lastOffset), sharing more records with the page
// before it.
func pageOffset(i, stride, lastOffset int) int { return min(i*stride, lastOffset) }

func (s windowShape) offsetOf(i int) int { return pageOffset(i, s.stride, s.lastOffset) }

// outOfOrder is the contract error of records out of key's order at the
// endpoint's path, what describing the first pair.
func outOfOrder(path string, key sortKey, what string) error {
	return disorderError{commerce.ContractBroken(path+"?sort="+key.param(), "records are out of %s order: %s", key.param(), what)}
}

// windowCheck tells whether a window read by offsets held still where it
// matters: pages that overlap share their records (where they do not, a
// steady count, commerce.Count.Steady, stays what the first page said), no
// id comes twice, and the window does not end short of what the last
// page's count promises (errWindowChanged otherwise); and the records are
// in order, where the client can tell (a ProtocolError otherwise). The end
// itself is the first short page, whatever the count said. Traversal
// goroutine.
type windowCheck[T commerce.Record] struct {
	windowShape
	count    commerce.Count // the first page's
	inWindow map[string]struct{}
	prevKey  string
	tieRun   int // records handed out in a row, up to the last, whose value is prevKey
	prev     []T // the records of the page checked last
	offset   int // of the page checked last, in the window
	shared   int // records the page checked last shares with the one before
}

func newWindowCheck[T commerce.Record](shape windowShape, count commerce.Count) *windowCheck[T] {
	return &windowCheck[T]{windowShape: shape, count: count,
		inWindow: make(map[string]struct{}, min(count.Hint(), shape.maxWindow()))}
}

// page checks page i and returns its records that are new: without the
// records it shares with the page before, where pages overlap (see
// stride). Traversal goroutine.
func (c *windowCheck[T]) page(i int, p commerce.Page[T]) ([]T, error) {
	prevOffset := c.offset
	c.offset = c.offsetOf(i)
	overlap := c.stride != c.pageSize
	if !overlap && (!p.Count.Steady() || p.Count.N != c.count.N) {
		// Pages that do not overlap show a write by the count alone, so
		// each must give the steady count the first gave (stride chose
		// them on it). Overlapping pages show it where it matters, at
		// their shared records; a count that moved elsewhere skipped
		// nothing.
		return nil, errWindowChanged
	}
	prev := c.prev
	c.prev, c.shared = p.Records, 0
	if !overlap || i == 0 {
		return p.Records, nil
	}
	// The page before was full: this one shares its records from this
	// page's offset on.
	c.shared = prevOffset + c.pageSize - c.offset
	if len(p.Records) < c.shared || !slices.EqualFunc(p.Records[:c.shared], prev[len(prev)-c.shared:], sameRecord[T]) {
		return nil, errWindowChanged
	}
	return p.Records[c.shared:], nil
}

// sameRecord reports whether a and b are one record, by id.
func sameRecord[T commerce.Record](a, b T) bool { return a.RecordID() == b.RecordID() }

// tieAtBoundary reports the sort value of the records p, the page
// checked last, shares with the page before, where they all have that one
// value: their places then prove less than a change of value would (see
// sharedRecords). Called before p's records are. Traversal goroutine.
func (c *windowCheck[T]) tieAtBoundary(p commerce.Page[T]) (string, bool) {
	if c.shared < 1 || !c.key.checked() {
		return "", false
	}
	first, err := keyOf(c.key, p.Records[0])
	if err != nil {
		return "", false
	}
	for _, rec := range p.Records[1:c.shared] {
		if k, err := keyOf(c.key, rec); err != nil || k != first {
			return "", false
		}
	}
	return first, true
}

// record checks the next record before it is handed out. Traversal
// goroutine.
func (c *windowCheck[T]) record(rec T) error {
	id := rec.RecordID()
	if _, dup := c.inWindow[id]; dup {
		// Offsets shifted under the listing.
		return errWindowChanged
	}
	c.inWindow[id] = struct{}{}
	if !c.key.checked() {
		return nil
	}
	k, err := keyOf(c.key, rec)
	if err != nil {
		return commerce.ContractBroken(c.path, "%v", err)
	}
	if c.prevKey != "" && c.key.before(k, c.prevKey) {
		if !c.key.fixed() {
			// A value that writes change (updated_at): pages answered
			// with updates between them disagree on the order, as where
			// a page answered late starts with records updated after
			// the page before was read. A service that sorts wrongly
			// shows it within one page: the first (the provider then
			// sorts itself) or one of the re-read (disorder).
			return errWindowChanged
		}
		return outOfOrder(c.path, c.key, fmt.Sprintf("%s %s came after %s", c.key.attr, k, c.prevKey))
	}
	if k != c.prevKey {
		c.tieRun = 0
	}
	c.prevKey = k
	c.tieRun++
	return nil
}

// end checks a window that ended on the short page p against p's count:
// no count but an estimate may say more records match than the window
// reaches (a lower bound and an observation are at most the truth, and an
// unlabelled count is exact or a lower bound), and an exact count says
// exactly how many. Where pages overlap, the window reaches p's offset and
// p's records, as the service counted them when it answered p: a write
// elsewhere in time does not count against it. Otherwise it holds the
// records read. A window that disagrees changed while it was read, or a
// page came back short that should not have. Traversal goroutine.
func (c *windowCheck[T]) end(p commerce.Page[T]) error {
	held, n := len(c.inWindow), p.Count.N
	if c.stride != c.pageSize {
		held = c.offset + len(p.Records)
	}
	switch p.Count.Method {
	case commerce.CountExact:
		if held != n {
			return errWindowChanged
		}
	case commerce.CountUnlabelled, commerce.CountLowerBound, commerce.CountObserved:
		if held < min(n, c.maxWindow()) {
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

// disorder describes the first pair of records out of k's order, or "" when
// they are in order or k is an order the client cannot check.
func disorder[T commerce.Record](k sortKey, recs []T) string {
	if !k.checked() {
		return ""
	}
	prev := ""
	for _, rec := range recs {
		v, err := keyOf(k, rec)
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
