package client

// The service takes at most filter.MaxTerms terms in a request's filter,
// and at most MaxRequestBytes of request target. The listing engine adds
// terms of its own to the user's filter (keyset window bounds, tie groups,
// range windows, the consistency buffer), so it merges each of them into
// a term of the user's on the same attribute and side wherever one of the
// two implies the other, instead of appending it: a window's
// ge(created_at,X) replaces the user's looser ge(created_at,2024-01-02),
// and is dropped when the user's own bound is tighter. Either way the
// request selects exactly the records of both, with no more terms than
// the user wrote where the user bounds that attribute already.

import (
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// MaxRequestBytes is the longest request target (path and query string, as
// sent) of a request with a filter that the service takes: the vendor's
// filtering guide limits such requests to 8 KB, which is about 200 ids in
// an in().
const MaxRequestBytes = 8192

// narrow returns base with every term of extra merged in (see mergeTerm).
// It never modifies base or extra.
func (r Resource) narrow(base, extra filter.Expr) filter.Expr {
	out := filter.And(base, nil)
	for _, t := range filter.And(extra, nil) {
		// Its position is in another text than base's.
		t.Start, t.End = 0, 0
		out = r.mergeTerm(out, t)
	}
	return out
}

// side is which way a range operator bounds its attribute.
type side int

const (
	noSide side = iota
	lower       // gt, ge
	upper       // lt, le
)

func sideOf(op filter.Op) side {
	switch op {
	case filter.Gt, filter.Ge:
		return lower
	case filter.Lt, filter.Le:
		return upper
	}
	return noSide
}

// mergeTerm adds t to e: it replaces a bound of e on the same attribute and
// side that t implies, is dropped when such a bound implies t, or when an
// eq term of e holds a value within t; else it is appended. Only values
// the client can compare (timestamps in any form, numbers, ids) merge;
// text compares by the service's collation, which the client does not
// know, so bounds on text are only merged with identical terms.
func (r Resource) mergeTerm(e filter.Expr, t filter.Term) filter.Expr {
	s := sideOf(t.Op)
	for i, u := range e {
		if u.Attribute != t.Attribute {
			continue
		}
		if u.Op == t.Op && slices.Equal(u.Values, t.Values) {
			return e // already there
		}
		if s == noSide || sideOf(u.Op) != s {
			continue
		}
		c, ok := r.compareValues(t.Attribute, t.Values[0], u.Values[0])
		if !ok {
			continue
		}
		if tighter(s, c, t.Op, u.Op) {
			e[i] = t
		}
		return e
	}
	if s != noSide {
		for _, u := range e {
			if u.Attribute == t.Attribute && u.Op == filter.Eq && r.satisfies(t, u.Values[0]) {
				return e
			}
		}
	}
	return append(e, t)
}

// tighter reports whether a bound with op a implies one with op b on the
// same side, where c compares a's value with b's.
func tighter(s side, c int, a, b filter.Op) bool {
	if s == upper {
		c = -c
	}
	switch {
	case c > 0:
		return true
	case c < 0:
		return false
	}
	// Equal values: the strict operator is the tighter one.
	return a == filter.Gt || a == filter.Lt || a == b
}

// satisfies reports whether value v of t's attribute passes the bound t;
// false when the client cannot compare them.
func (r Resource) satisfies(t filter.Term, v string) bool {
	c, ok := r.compareValues(t.Attribute, v, t.Values[0])
	if !ok {
		return false
	}
	switch t.Op {
	case filter.Gt:
		return c > 0
	case filter.Ge:
		return c >= 0
	case filter.Lt:
		return c < 0
	case filter.Le:
		return c <= 0
	}
	return false
}

// compareValues compares two filter values of attr as the service does,
// where the client knows how: -1, 0 or +1, and false where it does not.
func (r Resource) compareValues(attr, a, b string) (int, bool) {
	switch {
	case r.sortKind(attr) == KindTimestamp:
		x, errA := filter.ParseTimestamp(a)
		y, errB := filter.ParseTimestamp(b)
		if errA != nil || errB != nil {
			return 0, false
		}
		return x.Compare(y), true
	case r.sortKind(attr) == KindNumber:
		x, okA := new(big.Rat).SetString(a)
		y, okB := new(big.Rat).SetString(b)
		if !okA || !okB {
			return 0, false
		}
		return x.Cmp(y), true
	case attr == idKey.attr && isUUID(a) && isUUID(b):
		// Ids are lowercase UUIDs, which every collation orders as bytes
		// (see sortKey.before).
		return strings.Compare(a, b), true
	}
	return 0, false
}

// isUUID reports whether s is a UUID in the lowercase form the service
// gives ids.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}

// FilterLimitError says that a request the listing needs would break one
// of the service's limits on filters: more than filter.MaxTerms terms, or
// a request target longer than MaxRequestBytes. The provider stops before
// sending it: the service would refuse it with 400.
type FilterLimitError struct {
	Resource string
	Filter   string // the filter that request would carry
	Terms    int    // its terms
	Bytes    int    // its request target's length
	// Why says why the provider adds terms to the user's filter, or is
	// empty when the user's filter alone is over the limit.
	Why string
	Fix string
}

func (e *FilterLimitError) Error() string {
	var over string
	if e.Terms > filter.MaxTerms {
		over = fmt.Sprintf("%d filter terms, and the service takes at most %d per request", e.Terms, filter.MaxTerms)
	} else {
		over = fmt.Sprintf("a %d-byte request, and the service takes requests with filters of at most %d bytes", e.Bytes, MaxRequestBytes)
	}
	msg := fmt.Sprintf("listing %s would need %s", e.Resource, over)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg + "; the filter would be " + e.Filter + ". " + e.Fix
}

// narrowed is the filter text base (the user's filter, perhaps with terms
// the engine merged in before) narrowed by extra, checked against the
// service's limits for a request sorted by sort. Terms of base that stay
// are sent as written, so that a quoted operand stays quoted. why says,
// for messages, why the engine adds extra. Either goroutine.
func (r *windowReader[T]) narrowed(base string, extra filter.Expr, sort, why string) (string, error) {
	var parsed filter.Expr
	if len(base) > filter.MaxLength {
		// Longer than any request the service takes: no need to parse it.
		return "", r.limitError(nil, base, listRequestLength(r.kind.Path, base, sort, OffsetLimit, r.pageSize), nil, why)
	}
	if base != "" {
		var err error
		if parsed, err = filter.Parse(base); err != nil {
			return "", fmt.Errorf("filter: %w", err)
		}
	}
	merged := r.kind.narrow(parsed, extra)
	text := merged.Render(base)
	if n := listRequestLength(r.kind.Path, text, sort, OffsetLimit, r.pageSize); len(merged) > filter.MaxTerms || n > MaxRequestBytes {
		return "", r.limitError(merged, text, n, extra, why)
	}
	return text, nil
}

// limitError describes a request over the service's filter limits, and
// what the user can do about it.
func (r *windowReader[T]) limitError(merged filter.Expr, text string, n int, extra filter.Expr, why string) error {
	e := &FilterLimitError{Resource: r.kind.Name, Filter: text, Terms: len(merged), Bytes: n, Why: why}
	switch {
	case len(merged) > filter.MaxTerms && len(extra) > 0:
		e.Fix = fmt.Sprintf("Use at most %d terms in filter and where together, or make one of them %s, which the provider's own bound then replaces where it is tighter.",
			filter.MaxTerms-(len(merged)-filter.MaxTerms), boundHint(extra))
	case len(merged) > filter.MaxTerms:
		e.Fix = fmt.Sprintf("Use at most %d terms in filter and where together.", filter.MaxTerms)
	default:
		e.Fix = "Use fewer or shorter values (an in() of about 200 ids fills a request), or split the list into several data sources."
	}
	return e
}

// boundHint names the bounds a user can write so that extra merges into
// them, e.g. "a ge or gt bound on created_at".
func boundHint(extra filter.Expr) string {
	var hints []string
	seen := map[string]bool{}
	for _, t := range extra {
		var h string
		switch sideOf(t.Op) {
		case lower:
			h = "a ge or gt bound on " + t.Attribute
		case upper:
			h = "an lt or le bound on " + t.Attribute
		default:
			continue
		}
		if !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	if len(hints) == 0 {
		return "a bound on the attribute the provider bounds"
	}
	return strings.Join(hints, " and ")
}

// ListRequestLength is the length of the request target of the longest
// request of the first window of a listing of path with filter expr and
// sort: the provider checks it against MaxRequestBytes at plan time.
func ListRequestLength(path, expr, sort string) int {
	return listRequestLength(path, expr, sort, OffsetLimit, DefaultPageSize)
}

// listRequestLength is the length of the request target of a list
// request, as fetchPage builds it.
func listRequestLength(path, expr, sort string, offset, limit int) int {
	return len(path) + 1 + len(listParams(expr, sort, offset, limit).Encode())
}

// listParams are the query parameters of a list request.
func listParams(expr, sort string, offset, limit int) url.Values {
	q := url.Values{}
	q.Set("page[limit]", strconv.Itoa(limit))
	q.Set("page[offset]", strconv.Itoa(offset))
	if sort != "" {
		q.Set("sort", sort)
	}
	if expr != "" {
		q.Set("filter", expr)
	}
	return q
}
