package listing

import "github.com/commerce-tf/terraform-provider-commerce/internal/commerce"

// What the traversal goroutine checks of each window it reads, so that a
// store that changed under the listing cannot make it skip or repeat a
// record unnoticed.

// windowCheck tells whether a window read by offsets held still: every
// page agrees with the first on the total and holds what its offset
// promises, and no id comes twice (errWindowChanged otherwise); and the
// records are in order, where the client can tell (a ProtocolError
// otherwise). Traversal goroutine.
type windowCheck[T commerce.Record] struct {
	r        *windowReader[T]
	key      sortKey
	total    int // the first page's results.total
	covered  int // records the window reaches
	inWindow map[string]struct{}
	prevKey  string
	lastID   string // of the page before, where pages overlap
}

func newWindowCheck[T commerce.Record](r *windowReader[T], key sortKey, total int) *windowCheck[T] {
	covered := min(total, r.windowCap)
	return &windowCheck[T]{r: r, key: key, total: total, covered: covered,
		inWindow: make(map[string]struct{}, covered)}
}

// page checks page i before its records are read. Traversal goroutine.
func (c *windowCheck[T]) page(i int, p commerce.Page[T]) error {
	if expect := min(c.r.pageSize, c.covered-i*c.r.stride(c.key)); p.Total != c.total || len(p.Records) != expect {
		return errWindowChanged
	}
	return nil
}

// overlap checks that page i starts with the record the page before it
// ended with, where pages overlap (see stride), and returns the page's
// records that are new. Traversal goroutine.
func (c *windowCheck[T]) overlap(i int, p commerce.Page[T]) ([]T, error) {
	if c.r.stride(c.key) == c.r.pageSize || i == 0 {
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
	if !c.key.checked() {
		return nil
	}
	k, err := keyOf(c.key, rec)
	if err != nil {
		return c.r.contractError("", "%v", err)
	}
	if c.prevKey != "" && c.key.before(k, c.prevKey) {
		return c.r.contractError("?sort="+c.key.param(), "records are out of %s order: %s comes after %s", c.key.param(), k, c.prevKey)
	}
	c.prevKey = k
	return nil
}
