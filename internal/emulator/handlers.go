package emulator

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// handle routes a request that passed latency, rate limit and faults.
func (s *Server) handle(r *http.Request) *response {
	path := r.URL.Path
	switch {
	case path == "/oauth/access_token":
		return s.handleToken(r)
	case isStorePath(path):
		if aerr := s.authenticate(r); aerr != nil {
			return s.errorResponse(aerr)
		}
		if r.Method != http.MethodGet {
			return s.getOnly(r)
		}
		return s.handleStore(r)
	case isResourcePath(path):
		if aerr := s.authenticate(r); aerr != nil {
			return s.errorResponse(aerr)
		}
		t, id, hasID := s.route(path)
		if t == nil || (hasID && (id == "" || strings.Contains(id, "/"))) {
			return s.notFound(path)
		}
		if r.Method != http.MethodGet {
			return s.getOnly(r)
		}
		if hasID {
			return s.handleGet(r, t, id)
		}
		return s.handleList(r, t)
	}
	return s.notFound(path)
}

// getOnly is the answer to a request other than GET on an endpoint the
// emulator serves: the provider only reads, and a test changes the store
// through the Server's methods, not through HTTP.
func (s *Server) getOnly(r *http.Request) *response {
	return s.errorResponse(&apiError{status: http.StatusMethodNotAllowed,
		detail: fmt.Sprintf("Method %s is not allowed on %s; the emulator serves GET only.", r.Method, r.URL.Path),
		header: [][2]string{{"Allow", "GET"}}})
}

// route finds the table whose list path path is, or is below: then id is
// the rest after the list path's slash.
func (s *Server) route(path string) (t *table, id string, hasID bool) {
	for alias, name := range s.opts.Aliases {
		if rest, ok := strings.CutPrefix(path, alias); ok && (rest == "" || rest[0] == '/') {
			id, hasID = strings.CutPrefix(rest, "/")
			return s.table(name), id, hasID
		}
	}
	for _, t := range s.tables {
		rest, ok := strings.CutPrefix(path, t.res.path())
		if !ok || (rest != "" && rest[0] != '/') {
			continue
		}
		id, hasID = strings.CutPrefix(rest, "/")
		return t, id, hasID
	}
	return nil, "", false
}

func (s *Server) notFound(path string) *response {
	var groups []string
	for _, prefix := range resourcePrefixes {
		var names []string
		for _, r := range resources {
			if r.prefix == prefix {
				names = append(names, r.name)
			}
		}
		groups = append(groups, "GET "+prefix+"/{"+strings.Join(names, ",")+"}[/{id}]")
	}
	return s.errorResponse(&apiError{status: http.StatusNotFound,
		detail: fmt.Sprintf("No endpoint at %s: the service serves POST /oauth/access_token, GET %s, GET %s{id} and %s.", path, settingsPath, storesPath, orList(groups))})
}

// handleGet serves GET {prefix}/{resource}/{id}.
func (s *Server) handleGet(r *http.Request, t *table, id string) *response {
	s.stats.countGet()
	asked, aerr := parseGetParams(t.res, r.URL.RawQuery)
	if aerr != nil {
		return s.errorResponse(aerr)
	}
	enc := newEncoding(r, s.opts.FlatTimestamps)
	bp := getBuf()
	s.mu.RLock()
	row, ok := t.lookup(id)
	if ok {
		b := append(*bp, `{"data":`...)
		b = t.res.appendRecord(b, t, row, enc)
		if asked != 0 {
			b = t.res.appendIncluded(b, t, row, enc, asked)
		}
		*bp = append(b, '}')
	}
	s.mu.RUnlock()
	if !ok {
		putBuf(bp)
		return s.errorResponse(&apiError{status: http.StatusNotFound,
			detail: fmt.Sprintf("No %s with id %q exists.", t.res.typ, id)})
	}
	return &response{status: http.StatusOK, buf: bp}
}

// handleList serves GET {prefix}/{resource}.
func (s *Server) handleList(r *http.Request, t *table) *response {
	s.stats.countList(t.res.name)
	p, aerr := s.parseListParams(t, r.URL.RawQuery)
	if aerr != nil {
		return s.errorResponse(aerr)
	}
	enc := newEncoding(r, s.opts.FlatTimestamps)
	bp := getBuf()
	b := append(*bp, `{"data":[`...)
	s.mu.RLock()
	rows := s.run(t, p.q)
	total := len(rows)
	from := min(p.offset, total)
	to := min(from+p.limit, total)
	page := rows[from:to]
	if s.opts.ShuffleTies && p.hasSort && !s.ignoresSort(t.res) {
		page = shuffledTies(t, rows, from, to, p.q.sortCol, s.tieShuffles.Add(1))
	}
	for i, row := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.res.appendRecord(b, t, row, enc)
	}
	s.mu.RUnlock()
	count := s.countFor(t.res.name, p.totalMethod, total, from, to-from, r.URL.RawQuery+"#"+strconv.FormatInt(s.estimates.Add(1), 10))
	b = append(b, `],"links":`...)
	b = appendLinks(b, r, p, total, count.present)
	if s.opts.FlatTimestamps {
		b = append(b, ',')
	} else {
		b = append(b, `,"meta":{`...)
	}
	b = appendPaging(b, p, count)
	if !s.opts.FlatTimestamps {
		b = append(b, '}')
	}
	*bp = b
	return &response{status: http.StatusOK, buf: bp}
}

// appendPaging appends the page and results members of a list body: the
// page count and results.total as count says, and its label.
func appendPaging(b []byte, p *listParams, count listCount) []byte {
	b = append(b, `"page":{"limit":`...)
	b = strconv.AppendInt(b, int64(p.limit), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(p.offset), 10)
	b = append(b, `,"current":`...)
	b = strconv.AppendInt(b, int64(p.offset/p.limit+1), 10)
	if count.present {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, int64((count.total+p.limit-1)/p.limit), 10)
	}
	b = append(b, `},"results":{`...)
	if count.present {
		b = append(b, `"total":`...)
		b = strconv.AppendInt(b, int64(count.total), 10)
	}
	if count.label != "" {
		if count.present {
			b = append(b, ',')
		}
		b = append(b, `"total_method":"`...)
		b = append(b, count.label...)
		b = append(b, '"')
	}
	return append(b, '}', '}')
}

// appendLinks appends the first, prev, next and last page links (prev and
// next are null at the ends; last is null when the answer has no count).
func appendLinks(b []byte, r *http.Request, p *listParams, total int, counted bool) []byte {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	prefix := make([]byte, 0, 256)
	prefix = append(prefix, scheme...)
	prefix = append(prefix, r.Host...)
	prefix = append(prefix, r.URL.EscapedPath()...)
	prefix = append(prefix, '?')
	if p.hasFilter {
		prefix = append(prefix, "filter="...)
		prefix = append(prefix, url.QueryEscape(p.filterRaw)...)
		prefix = append(prefix, '&')
	}
	if p.hasSort {
		prefix = append(prefix, "sort="...)
		prefix = append(prefix, url.QueryEscape(p.sortRaw)...)
		prefix = append(prefix, '&')
	}
	prefix = append(prefix, "page%5Blimit%5D="...)
	prefix = strconv.AppendInt(prefix, int64(p.limit), 10)
	prefix = append(prefix, "&page%5Boffset%5D="...)
	// The quoted, escaped prefix without its closing quote: it holds only
	// URL-safe characters and the request's Host.
	quoted := appendString(nil, string(prefix))
	quoted = quoted[:len(quoted)-1]
	link := func(b []byte, name string, offset int, ok bool) []byte {
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		if !ok {
			return append(b, "null"...)
		}
		b = append(b, quoted...)
		b = strconv.AppendInt(b, int64(offset), 10)
		return append(b, '"')
	}
	last := 0
	if total > 0 {
		last = (total - 1) / p.limit * p.limit
	}
	b = append(b, '{')
	b = link(b, "first", 0, true)
	b = append(b, ',')
	b = link(b, "prev", max(p.offset-p.limit, 0), p.offset > 0)
	b = append(b, ',')
	b = link(b, "next", p.offset+p.limit, p.offset+p.limit < total)
	b = append(b, ',')
	b = link(b, "last", last, counted)
	return append(b, '}')
}

// shuffledTies is rows[from:to] as a store that orders ties anew on every
// request would serve it: each run of rows sharing the value of col, as far
// as it reaches into the page, in an order drawn from seed. rows is not
// modified (it may be cached).
func shuffledTies(t *table, rows []int32, from, to, col int, seed int64) []int32 {
	if from >= to {
		return rows[from:to]
	}
	same := func(a, b int32) bool { return t.cmpValue(col, a, b) == 0 }
	lo, hi := from, to
	for lo > 0 && same(rows[lo-1], rows[from]) {
		lo--
	}
	for hi < len(rows) && same(rows[hi], rows[to-1]) {
		hi++
	}
	buf := slices.Clone(rows[lo:hi])
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	for start := 0; start < len(buf); {
		end := start + 1
		for end < len(buf) && same(buf[end], buf[start]) {
			end++
		}
		run := buf[start:end]
		r.Shuffle(len(run), func(i, j int) { run[i], run[j] = run[j], run[i] })
		start = end
	}
	return buf[from-lo : to-lo]
}
