package emulator

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// listParams is a validated list request.
type listParams struct {
	q      *query
	limit  int
	offset int
	// filterRaw and sortRaw are echoed into the links.
	filterRaw, sortRaw string
	hasFilter, hasSort bool
	// totalMethod is page[total_method], "" when not asked.
	totalMethod string
}

var listParamNames = []string{"page[limit]", "page[offset]", "page[total_method]", "sort", "filter"}

// parseDigits parses a non-negative decimal integer made of digits only
// (no sign, no spaces). Values too large for an int saturate.
func parseDigits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<62)/10 {
			n = 1 << 62
			continue
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// parseListParams validates the query string of a list request.
func (s *Server) parseListParams(t *table, rawQuery string) (*listParams, *apiError) {
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, badRequest("", "The query string is malformed: %v.", err)
	}
	for name, vs := range values {
		if !slices.Contains(listParamNames, name) {
			return nil, badRequest(name, "Unknown query parameter %q: the supported parameters are page[limit], page[offset], page[total_method], sort and filter.", name)
		}
		if len(vs) > 1 {
			return nil, badRequest(name, "Query parameter %q is given %d times; give it at most once.", name, len(vs))
		}
	}
	p := &listParams{limit: s.opts.DefaultPageLimit}
	maxLimit := s.opts.MaxPageLimit
	if vs, ok := values["page[limit]"]; ok {
		n, ok := parseDigits(vs[0])
		if !ok || n < 1 || n > maxLimit {
			return nil, badRequest("page[limit]", "Invalid page[limit] %q: it must be an integer between 1 and %d.", vs[0], maxLimit)
		}
		p.limit = n
	}
	if vs, ok := values["page[offset]"]; ok {
		n, ok := parseDigits(vs[0])
		if !ok {
			return nil, badRequest("page[offset]", "Invalid page[offset] %q: it must be an integer of 0 or more.", vs[0])
		}
		if limit := s.opts.OffsetLimit; n > limit && (t.res.hardOffsetLimit || s.softOffsetEnforced.Load()) {
			return nil, t.res.offsetLimitError(vs[0], limit)
		}
		p.offset = n
	}
	if vs, ok := values["page[total_method]"]; ok {
		if !slices.Contains(countMethods, vs[0]) {
			return nil, badRequest("page[total_method]", "Invalid page[total_method] %q: it must be one of %s.", vs[0], strings.Join(countMethods, ", "))
		}
		p.totalMethod = vs[0]
	}
	if vs, ok := values["sort"]; ok {
		p.sortRaw, p.hasSort = vs[0], true
	}
	if vs, ok := values["filter"]; ok {
		p.filterRaw, p.hasFilter = vs[0], true
	}
	q, aerr := compileQuery(&t.res.schema, p.filterRaw, p.hasFilter, p.sortRaw, p.hasSort, s.ignoresSort(t.res))
	if aerr != nil {
		return nil, aerr
	}
	p.q = q
	return p, nil
}

// parseGetParams validates the query string of a GET of one record: only
// include, on a resource the vendor documents it for. It returns the
// documented values asked for (comma-separated); others are ignored, as the
// vendor's includes guide says the service does.
func parseGetParams(res *resource, rawQuery string) (includeSet, *apiError) {
	if rawQuery == "" {
		return 0, nil
	}
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		return 0, badRequest("", "The query string is malformed: %v.", err)
	}
	for name, vs := range values {
		switch {
		case len(res.includes) == 0:
			return 0, badRequest(name, "Unknown query parameter %q: reading one %s takes no query parameters.", name, res.typ)
		case name != "include":
			return 0, badRequest(name, "Unknown query parameter %q: reading one %s takes only include.", name, res.typ)
		case len(vs) > 1:
			return 0, badRequest(name, "Query parameter %q is given %d times; give it at most once.", name, len(vs))
		}
	}
	var asked includeSet
	for _, v := range strings.Split(values.Get("include"), ",") {
		// The vendor's includes guide: a value the service does not support
		// is ignored, not refused.
		if i := slices.Index(res.includes, v); i >= 0 {
			asked |= 1 << i
		}
	}
	return asked, nil
}

// offsetLimitError refuses page[offset] raw, above limit, with a hint
// that fits the resource: keyset paging where it can be sorted, filters
// where it cannot.
func (sch *schema) offsetLimitError(raw string, limit int) *apiError {
	how := "filter and sort instead of paging by offset (for example sort=created_at with ge(created_at,<last created_at seen>))"
	switch col, ok := sch.firstRangeCol(); {
	case len(sch.sortCols) > 0:
	case ok:
		how = "narrow the list with filters instead of paging by offset (" + sch.name + " cannot be sorted; for example split it by ranges of " + sch.cols[col].name + ")"
	default:
		how = "raise the store's offset limit: " + sch.name + " can be neither sorted nor cut into ranges"
	}
	return badRequest("page[offset]", "Invalid page[offset] %q: %s accepts offsets up to %s. To reach further records, %s.",
		raw, sch.name, groupThousands(limit), how)
}

// firstRangeCol is the first column filterable with gt, if any.
func (sch *schema) firstRangeCol() (int, bool) {
	for i, c := range sch.cols {
		if c.ops.has(opGt) {
			return i, true
		}
	}
	return 0, false
}

func groupThousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
