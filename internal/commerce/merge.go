package commerce

// The service takes at most filter.MaxTerms terms in a request's filter,
// and at most MaxRequestBytes of request target. The listing engine adds
// terms of its own to the user's filter (keyset window bounds, tie groups,
// range windows, the consistency buffer), so it merges each of them into
// a term of the user's on the same attribute and side wherever one of the
// two implies the other, instead of appending it: a window's
// ge(created_at,X) replaces the user's looser ge(created_at,2024-01-02),
// and is dropped when the user's own bound is tighter. Either way the
// request selects exactly the records of both, with no more terms than
// the user wrote where the user bounds that attribute already. How two
// values compare is the service's model, so the rules live here.

import (
	"math/big"
	"slices"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Narrow returns base with every term of extra merged in (see mergeTerm).
// It never modifies base or extra.
func (r Endpoint) Narrow(base, extra filter.Expr) filter.Expr {
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
func (r Endpoint) mergeTerm(e filter.Expr, t filter.Term) filter.Expr {
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
func (r Endpoint) satisfies(t filter.Term, v string) bool {
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
func (r Endpoint) compareValues(attr, a, b string) (int, bool) {
	switch {
	case r.SortType(attr) == TimestampValue:
		x, errA := filter.ParseTimestamp(a)
		y, errB := filter.ParseTimestamp(b)
		if errA != nil || errB != nil {
			return 0, false
		}
		return x.Compare(y), true
	case r.SortType(attr) == NumberValue:
		x, okA := new(big.Rat).SetString(a)
		y, okB := new(big.Rat).SetString(b)
		if !okA || !okB {
			return 0, false
		}
		return x.Cmp(y), true
	case attr == "id" && isUUID(a) && isUUID(b):
		// Ids are lowercase UUIDs, which every collation orders as bytes.
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
