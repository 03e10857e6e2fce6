package emulator

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The service's limits on filters (the vendor's filtering guide): at most
// 10 terms in one request, and a request that carries a filter of at most
// 8 KB. Both are checked before anything else of a list request, with the
// emulator's own reading of the grammar (not the filter package's), so that
// a client that miscounts its terms is caught here.

// Defaults of Options.MaxFilterTerms and Options.MaxFilterRequestBytes.
const (
	DefaultMaxFilterTerms        = 10
	DefaultMaxFilterRequestBytes = 8192
)

// checkFilterLimits refuses a request whose filter has too many terms or
// whose request target is too long; nil when it is within the limits or
// has no filter.
func (s *Server) checkFilterLimits(r *http.Request) *apiError {
	// Most requests carry no filter: spare them a second parse of the query.
	if !isResourcePath(r.URL.Path) || !strings.Contains(r.URL.RawQuery, "filter") {
		return nil
	}
	// A malformed query is the handler's to report.
	q, _ := url.ParseQuery(r.URL.RawQuery)
	if !q.Has("filter") {
		return nil
	}
	if most := s.opts.MaxFilterRequestBytes; most > 0 && len(r.URL.RequestURI()) > most {
		return badRequest("filter", "The request is %d bytes long; a request containing a filter must not exceed %d bytes (about 200 ids in an in filter).",
			len(r.URL.RequestURI()), most)
	}
	if most := s.opts.MaxFilterTerms; most > 0 {
		if n := countTerms(q.Get("filter")); n > most {
			return badRequest("filter", "The filter has %d terms; at most %d filters are allowed on a single request.", n, most)
		}
	}
	return nil
}

// countTerms counts the terms of a filter: the ':' that join them stand
// outside parentheses and quotes (a timestamp's colons are inside a term).
func countTerms(f string) int {
	n, depth := 1, 0
	var quote byte
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case quote != 0 && c == '\\':
			i++ // the escaped character
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ':' && depth == 0:
			n++
		}
	}
	return n
}

// isoTimestamp is ISO 8601 date and time with or without milliseconds, in
// UTC or with an offset.
var isoTimestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2})$`)

var (
	dateOnly    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	epochMillis = regexp.MustCompile(`^\d{1,15}$`)
)

// parseFilterTime reads a timestamp filter value in the forms the vendor
// documents: YYYY-MM-DD (midnight UTC), integer milliseconds since the
// epoch, and ISO 8601 with or without milliseconds. It returns epoch
// milliseconds.
func parseFilterTime(v string) (int64, bool) {
	switch {
	case epochMillis.MatchString(v):
		ms, err := strconv.ParseInt(v, 10, 64)
		return ms, err == nil && ms <= 253402300799999
	case dateOnly.MatchString(v):
		t, err := time.ParseInLocation("2006-01-02", v, time.UTC)
		return t.UnixMilli(), err == nil
	case isoTimestamp.MatchString(v):
		t, err := time.Parse(time.RFC3339Nano, v)
		return t.UnixMilli(), err == nil
	}
	return 0, false
}
