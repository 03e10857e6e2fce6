package emulator

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// apiError is a client error that becomes a JSON:API error response.
type apiError struct {
	status    int
	detail    string
	parameter string // query parameter at fault, if any
	header    [][2]string
}

func (e *apiError) Error() string { return e.detail }

func badRequest(param, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, detail: fmt.Sprintf(format, args...), parameter: param}
}

// term is one compiled filter term.
type term struct {
	col  int
	kind colKind
	op   filterOp
	strs []string    // kindString
	like likePattern // kindString with like
	nums []int64     // kindTime (ms) and kindNumber
	bols []bool      // kindBool
	src  filterTerm  // as parsed
}

// canon returns the term with its values in Go quotes, for cache keys:
// terms that mean the same have the same text however they were quoted.
func (tm *term) canon() string {
	var b strings.Builder
	b.WriteString(tm.src.op.String())
	b.WriteByte('(')
	b.WriteString(tm.src.attr)
	for _, v := range tm.src.values {
		b.WriteByte(',')
		b.WriteString(strconv.Quote(v))
	}
	b.WriteByte(')')
	return b.String()
}

// match reports whether row satisfies the term.
func (tm *term) match(t *table, row int32) bool {
	switch tm.kind {
	case kindString:
		v := t.str[tm.col][row]
		if tm.op == opLike {
			return tm.like.match(v)
		}
		return compare(tm.op, v, tm.strs)
	case kindTime, kindNumber:
		v := t.num[tm.col][row]
		return v != nullNum && compare(tm.op, v, tm.nums)
	case kindBool:
		v := t.boo[tm.col][row]
		switch tm.op {
		case opEq:
			return v == tm.bols[0]
		case opIn:
			return slices.Contains(tm.bols, v)
		}
	}
	return false
}

// parseInteger parses a plain decimal integer: an optional minus sign and
// digits, nothing else.
func parseInteger(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n != nullNum
}

// compileFilter parses and checks a filter for sch's resource: attributes,
// the operators the service accepts on each, and values.
func compileFilter(sch *schema, raw string) ([]term, *apiError) {
	expr, err := parseFilter(raw)
	if err != nil {
		return nil, badRequest("filter", "Could not parse the supplied filter: %s", err.Error())
	}
	terms := make([]term, 0, len(expr))
	for _, ft := range expr {
		col, ok := sch.filterCol(ft.attr)
		if !ok && sch.filterableNames() == "" {
			return nil, badRequest("filter", "Cannot filter %s on attribute %q: filtering is not supported on %s; remove the filter parameter.",
				sch.name, ft.attr, sch.name)
		}
		if !ok {
			return nil, badRequest("filter", "Cannot filter %s on attribute %q: the filterable attributes are %s.",
				sch.name, ft.attr, sch.filterableNames())
		}
		c := sch.cols[col]
		if !c.ops.has(ft.op) {
			return nil, badRequest("filter", "Could not parse the supplied filter: operator %s is not supported on attribute %q of %s; the supported operators for %s are %s.",
				ft.op, ft.attr, sch.name, ft.attr, c.ops)
		}
		// The parser enforces the arity already; this guards the evaluator.
		if ft.op == opIn && len(ft.values) == 0 {
			return nil, badRequest("filter", "Operator in on attribute %q takes one or more values.", ft.attr)
		}
		if ft.op != opIn && len(ft.values) != 1 {
			return nil, badRequest("filter", "Operator %s on attribute %q takes exactly one value.", ft.op, ft.attr)
		}
		tm := term{col: col, kind: c.kind, op: ft.op, src: ft}
		for _, v := range ft.values {
			if err := tm.addValue(v); err != nil {
				return nil, err
			}
		}
		if tm.op == opLike && tm.kind == kindString {
			tm.like = compileLike(tm.strs[0])
		}
		terms = append(terms, tm)
	}
	return terms, nil
}

// addValue parses one value of the term for the attribute's kind.
func (tm *term) addValue(v string) *apiError {
	attr := tm.src.attr
	switch tm.kind {
	case kindString:
		tm.strs = append(tm.strs, v)
	case kindTime:
		ms, ok := parseFilterTime(v)
		if !ok {
			return badRequest("filter", "Invalid value %q for %s: give a date as YYYY-MM-DD (e.g. 2026-01-02), milliseconds since 1970-01-01 (e.g. 1767312000000), or an ISO 8601 timestamp (e.g. 2026-01-02T03:04:05Z or 2026-01-02T03:04:05.678Z).", v, attr)
		}
		tm.nums = append(tm.nums, ms)
	case kindNumber:
		n, ok := parseInteger(v)
		if !ok {
			return badRequest("filter", "Invalid value %q for %s: expected an integer (prices in minor units, e.g. 1050 for 10.50).", v, attr)
		}
		tm.nums = append(tm.nums, n)
	case kindBool:
		switch v {
		case "true":
			tm.bols = append(tm.bols, true)
		case "false":
			tm.bols = append(tm.bols, false)
		default:
			return badRequest("filter", "Invalid value %q for %s: expected true or false.", v, attr)
		}
	}
	return nil
}

// query is a compiled list request, independent of paging.
type query struct {
	sch     *schema
	sortCol int
	desc    bool
	terms   []term
}

// compileQuery validates sort and filter. hasFilter distinguishes an absent
// filter from an empty one (which the parser rejects). With ignoreSort any
// sort is accepted and the list keeps the resource's default order.
func compileQuery(sch *schema, filterRaw string, hasFilter bool, sortRaw string, hasSort, ignoreSort bool) (*query, *apiError) {
	q := &query{sch: sch, sortCol: sch.defaultSort, desc: sch.defaultDesc}
	if hasSort && !ignoreSort {
		if len(sch.sortCols) == 0 {
			return nil, badRequest("sort", "Sorting is not supported on %s: the service lists %s in its own order; remove the sort parameter.",
				sch.name, sch.name)
		}
		name, desc := strings.CutPrefix(sortRaw, "-")
		col, ok := sch.sortCol(name)
		if !ok {
			return nil, badRequest("sort", "Invalid sort %q for %s: the allowed values are %s (a leading - sorts in descending order).",
				sortRaw, sch.name, sch.sortValues())
		}
		q.sortCol, q.desc = col, desc
	}
	if hasFilter {
		terms, err := compileFilter(sch, filterRaw)
		if err != nil {
			return nil, err
		}
		q.terms = terms
	}
	return q, nil
}

// run returns the positions of the matching records in sort order. The
// caller holds Server.mu for reading and must not modify the result.
//
// Terms comparing the sort attribute (gt, ge, lt, le, eq) select a
// contiguous range of any list sorted by that attribute, so they are applied
// last, by binary search. The other terms are evaluated over the sorted
// index once per data version and the result is cached: paging through a
// filter by offset, or by keyset (sort=created_at plus a moving
// ge(created_at,...) bound), costs two binary searches per page.
func (s *Server) run(t *table, q *query) []int32 {
	idx := t.index(q.sortCol, q.desc)
	var ranges, rest []*term
	for i := range q.terms {
		tm := &q.terms[i]
		switch {
		case tm.col != q.sortCol:
			rest = append(rest, tm)
		case tm.op == opEq:
			ge, le := *tm, *tm
			ge.op, le.op = opGe, opLe
			ranges = append(ranges, &ge, &le)
		case tm.op == opGt || tm.op == opGe || tm.op == opLt || tm.op == opLe:
			ranges = append(ranges, tm)
		default:
			rest = append(rest, tm)
		}
	}
	base := idx
	if len(rest) > 0 {
		base = s.filtered(t, q, idx, rest)
	}
	lo, hi := 0, len(base)
	for _, tm := range ranges {
		lo, hi = narrow(t, base, lo, hi, tm, q.desc)
	}
	return base[lo:hi]
}

// filtered returns the rows of idx matching all of terms, from the cache when
// possible.
func (s *Server) filtered(t *table, q *query, idx []int32, terms []*term) []int32 {
	canon := make([]string, len(terms))
	for i, tm := range terms {
		canon[i] = tm.canon()
	}
	slices.Sort(canon) // AND is commutative: equivalent filters share a key
	key := cacheKey{resource: t.res.name, version: t.version, sortCol: q.sortCol, desc: q.desc, filter: strings.Join(canon, ":")}
	if rows, ok := s.cache.get(key); ok {
		return rows
	}
	rows := make([]int32, 0, 64)
	for _, row := range idx {
		ok := true
		for _, tm := range terms {
			if !tm.match(t, row) {
				ok = false
				break
			}
		}
		if ok {
			rows = append(rows, row)
		}
	}
	rows = slices.Clip(rows)
	s.cache.put(key, rows)
	return rows
}

// narrow shrinks [lo,hi) of the sorted index idx to the rows satisfying a
// comparison term on the sort attribute. Within a sorted index such a term
// holds on a prefix or a suffix of any range.
func narrow(t *table, idx []int32, lo, hi int, tm *term, desc bool) (int, int) {
	if lo >= hi {
		return lo, hi
	}
	suffix := tm.op == opGt || tm.op == opGe // true on a suffix of an ascending index
	if desc {
		suffix = !suffix
	}
	n := hi - lo
	if suffix {
		return lo + sort.Search(n, func(i int) bool { return tm.match(t, idx[lo+i]) }), hi
	}
	return lo, lo + sort.Search(n, func(i int) bool { return !tm.match(t, idx[lo+i]) })
}

// compare applies a comparison operator to v and the term's values.
func compare[V cmp.Ordered](op filterOp, v V, vals []V) bool {
	switch op {
	case opEq:
		return v == vals[0]
	case opIn:
		return slices.Contains(vals, v)
	case opGt:
		return v > vals[0]
	case opGe:
		return v >= vals[0]
	case opLt:
		return v < vals[0]
	case opLe:
		return v <= vals[0]
	}
	return false
}

// likePattern is a compiled like value: each * matches any run of
// characters, none included, and every other character itself, case
// sensitively. Matching bytes is matching characters: in UTF-8 no
// character's encoding occurs inside another's.
type likePattern struct {
	wild   bool     // the value has a *; without one it must equal the text
	prefix string   // before the first *
	middle []string // between the first and the last *, split at each *
	suffix string   // after the last *
}

func compileLike(v string) likePattern {
	first := strings.IndexByte(v, '*')
	if first < 0 {
		return likePattern{prefix: v}
	}
	last := strings.LastIndexByte(v, '*')
	lp := likePattern{wild: true, prefix: v[:first], suffix: v[last+1:]}
	if first < last {
		for _, m := range strings.Split(v[first+1:last], "*") {
			if m != "" {
				lp.middle = append(lp.middle, m)
			}
		}
	}
	return lp
}

// match reports whether s matches. Taking each middle piece at its first
// occurrence is enough: a later one leaves less room for the rest.
func (lp *likePattern) match(s string) bool {
	if !lp.wild {
		return s == lp.prefix
	}
	if len(s) < len(lp.prefix)+len(lp.suffix) || !strings.HasPrefix(s, lp.prefix) || !strings.HasSuffix(s, lp.suffix) {
		return false
	}
	rest := s[len(lp.prefix) : len(s)-len(lp.suffix)]
	for _, m := range lp.middle {
		k := strings.Index(rest, m)
		if k < 0 {
			return false
		}
		rest = rest[k+len(m):]
	}
	return true
}
