// Package emulator is a local, in-memory implementation of the commerce
// service: the client-credentials token endpoint and the paginated, sortable
// and filterable list and read endpoints of orders, files and accounts, as
// described in the service's API documentation plus the known behaviour of
// the real service. It serves seeded, deterministic data, can inject latency,
// rate limits and faults, and counts what it sees, for the provider's unit
// tests, acceptance tests and benchmarks, and for users trying the provider
// without credentials (see cmd/commerce-emulator).
package emulator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Server. Zero values take the documented defaults.
type Options struct {
	// Seed selects the generated data: the same Options give the same
	// records, ids and order.
	Seed int64
	// Record counts. 0 takes the default (2,500 orders, 300 files, 250
	// accounts); a negative count means none.
	Orders, Files, Accounts int
	// BaseTime is the created_at of the first record of each resource.
	// Default 2024-01-01T00:00:00Z. Records span at most a year after it.
	BaseTime time.Time
	// Tie groups: the sizes of groups of records sharing one exact
	// created_at (and updated_at), placed around evenly spaced points of the
	// range (the middle for one group). nil takes the default of one group
	// of 350 orders, 40 files or 30 accounts (smaller for small counts); an
	// empty non-nil slice means none.
	OrderTieGroups, FileTieGroups, AccountTieGroups []int
	// FileSizeTieGroups are the sizes of groups of files sharing one exact
	// file_size that no other file has (e.g. 10,001, more than one list can
	// page through by offset). Default none: sizes spread from 512 B to
	// 20 MiB.
	FileSizeTieGroups []int

	// ClientID and ClientSecret are the accepted credentials. Default
	// "emulator-client-id" and "emulator-client-secret".
	ClientID, ClientSecret string
	// TokenLifetime is the lifetime of issued tokens. Default 1h.
	TokenLifetime time.Duration
	// TokenRequests is how many resource requests each token is accepted
	// for; later ones get 401 as if it had been revoked. 0 means unlimited.
	TokenRequests int

	// Latency is added to every request, the token endpoint included.
	Latency time.Duration
	// RateLimit is the number of requests per second the server accepts
	// (token bucket with a burst of max(1, RateLimit)); excess requests get
	// 429 with Retry-After. 0 means unlimited.
	RateLimit float64
	// Faults, if set, is consulted for every request; see SetFaults.
	Faults FaultFunc

	// DefaultPageLimit is the page size without page[limit]. Default 25.
	DefaultPageLimit int
	// MaxPageLimit is the largest page[limit] accepted. Default 100.
	MaxPageLimit int
	// OffsetLimit is the largest page[offset] accepted. Default 10,000. It
	// is a hard limit for orders and files and a soft one for accounts.
	OffsetLimit int
	// LenientSoftOffsetLimit lets accounts (the soft offset limit) serve
	// offsets above OffsetLimit. By default they are refused with 400 like
	// the hard limit. See also SetSoftOffsetLimitEnforced.
	LenientSoftOffsetLimit bool

	// StringStatus sends the status of JSON:API errors as a string ("400")
	// instead of a number, as the real service sometimes does.
	StringStatus bool
	// FlatTimestamps puts created_at and updated_at at the top level of
	// records and page and results at the top level of list bodies (the
	// documented flat form) instead of under meta.
	FlatTimestamps bool
	// IgnoreSort lists resources ("orders", "files", "accounts") whose list
	// endpoint accepts any sort value and ignores it, serving its default
	// order, as a looser service would. By default an unsupported sort gets
	// 400, and files refuse every sort. See also SetIgnoreSort.
	IgnoreSort []string

	// Now is the wall clock used for timestamps of writes (which are also
	// always later than every seeded timestamp and strictly increasing).
	// Default time.Now.
	Now func() time.Time
	// RequestLogSize is the number of recent requests kept in Stats.
	// Default 10,000; negative keeps none.
	RequestLogSize int
	// CacheSize is the number of filtered and sorted results kept. Default
	// 32; negative disables the cache.
	CacheSize int
}

// Defaults of Options.
const (
	DefaultOrders        = 2500
	DefaultFiles         = 300
	DefaultAccounts      = 250
	DefaultClientID      = "emulator-client-id"
	DefaultClientSecret  = "emulator-client-secret"
	DefaultTokenLifetime = time.Hour
	DefaultPageLimit     = 25
	MaxPageLimit         = 100
	OffsetLimit          = 10000
)

// DefaultBaseTime is the default Options.BaseTime.
var DefaultBaseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func (o Options) withDefaults() Options {
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defInt(&o.Orders, DefaultOrders)
	defInt(&o.Files, DefaultFiles)
	defInt(&o.Accounts, DefaultAccounts)
	defInt(&o.MaxPageLimit, MaxPageLimit)
	defInt(&o.DefaultPageLimit, DefaultPageLimit)
	o.DefaultPageLimit = min(o.DefaultPageLimit, o.MaxPageLimit)
	defInt(&o.OffsetLimit, OffsetLimit)
	defInt(&o.RequestLogSize, 10000)
	defInt(&o.CacheSize, 32)
	if o.BaseTime.IsZero() {
		o.BaseTime = DefaultBaseTime
	}
	o.BaseTime = o.BaseTime.UTC().Truncate(time.Millisecond)
	if o.ClientID == "" {
		o.ClientID = DefaultClientID
	}
	if o.ClientSecret == "" {
		o.ClientSecret = DefaultClientSecret
	}
	if o.TokenLifetime <= 0 {
		o.TokenLifetime = DefaultTokenLifetime
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Server is the emulated service. It is an http.Handler; Start also serves
// it on a loopback port.
type Server struct {
	opts Options

	mu                      sync.RWMutex // guards the tables and clock
	orders, files, accounts *table
	clock                   int64 // ms of the last write, or the latest seeded timestamp

	cache  *resultCache
	tokens tokenStore
	stats  *statsCollector

	latency            atomic.Int64 // time.Duration
	tokenLifetime      atomic.Int64 // time.Duration
	softOffsetEnforced atomic.Bool
	ignoreSort         atomic.Uint32 // resourceBit set
	limiter            rateLimiter
	faults             atomic.Pointer[FaultFunc]

	seq      atomic.Int64
	idPrefix string

	httpSrv *http.Server
	url     string
}

// New generates the data and returns a server that is not listening; use it
// as an http.Handler (for example with httptest) or call Start instead.
func New(opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{
		opts:  opts,
		cache: newResultCache(opts.CacheSize),
		stats: newStatsCollector(opts.RequestLogSize),
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.orders = genOrders(&opts) })
	wg.Go(func() { s.files = genFiles(&opts) })
	wg.Go(func() { s.accounts = genAccounts(&opts) })
	wg.Wait()
	s.clock = opts.BaseTime.UnixMilli()
	for _, t := range []*table{s.orders, s.files, s.accounts} {
		s.clock = t.latest(s.clock)
	}
	s.ignoreSort.Store(resourceBits(opts.IgnoreSort))
	s.latency.Store(int64(opts.Latency))
	s.tokenLifetime.Store(int64(opts.TokenLifetime))
	s.tokens.maxUses.Store(int64(max(opts.TokenRequests, 0)))
	s.softOffsetEnforced.Store(!opts.LenientSoftOffsetLimit)
	s.limiter.set(opts.RateLimit, time.Now())
	s.SetFaults(opts.Faults)
	var p [4]byte
	_, _ = rand.Read(p[:])
	s.idPrefix = hex.EncodeToString(p[:]) + "-"
	return s
}

// Start generates the data and serves it on 127.0.0.1 at a free port.
func Start(opts Options) (*Server, error) { return StartOn("127.0.0.1:0", opts) }

// StartOn is Start on a given address, which must be a loopback address
// (127.0.0.0/8, ::1 or localhost) with a port: the emulator's credentials
// are public, so it never listens on a network.
func StartOn(addr string, opts Options) (*Server, error) {
	if err := CheckLoopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := New(opts)
	s.httpSrv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	s.url = "http://" + ln.Addr().String()
	go func() { _ = s.httpSrv.Serve(ln) }()
	return s, nil
}

// CheckLoopback returns an error unless addr is host:port with a loopback
// host.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("emulator address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("emulator address %q: refusing to listen on a non-loopback address; use 127.0.0.1:<port>", addr)
	}
	return nil
}

// URL returns the base URL ("http://127.0.0.1:port") when the server was
// started with Start, or "" otherwise. It is both the base_url and the
// auth_url.
func (s *Server) URL() string { return s.url }

// Close stops serving and closes all connections. It is a no-op for a
// server that was not started.
func (s *Server) Close() {
	if s.httpSrv != nil {
		_ = s.httpSrv.Close()
	}
}

// SetLatency sets the delay added to every request.
func (s *Server) SetLatency(d time.Duration) { s.latency.Store(int64(d)) }

// SetTokenLifetime sets the lifetime of tokens issued from now on; tokens
// already issued keep theirs.
func (s *Server) SetTokenLifetime(d time.Duration) { s.tokenLifetime.Store(int64(d)) }

// SetTokenRequests sets how many resource requests each token is accepted
// for (0 = unlimited). It applies at once, to tokens already issued too:
// their requests so far count.
func (s *Server) SetTokenRequests(n int) { s.tokens.maxUses.Store(int64(max(n, 0))) }

// ExpireAllTokens makes every token issued so far expired: requests with
// them get 401 saying so.
func (s *Server) ExpireAllTokens() { s.tokens.expireAll(time.Now()) }

// IssuedTokens returns the access tokens issued so far, so that tests can
// check that none of them leaks into logs, errors or state.
func (s *Server) IssuedTokens() []string { return s.tokens.all() }

// SetRateLimit sets the requests per second accepted (0 = unlimited) and
// refills the token bucket.
func (s *Server) SetRateLimit(rps float64) { s.limiter.set(rps, time.Now()) }

// SetSoftOffsetLimitEnforced switches whether accounts refuse offsets above
// the soft offset limit (the default) or serve them.
func (s *Server) SetSoftOffsetLimitEnforced(enforced bool) { s.softOffsetEnforced.Store(enforced) }

// SetIgnoreSort sets the resources whose list endpoint accepts and ignores
// any sort (see Options.IgnoreSort); none restores the strict default.
func (s *Server) SetIgnoreSort(resources ...string) { s.ignoreSort.Store(resourceBits(resources)) }

// SetFaults installs a fault plan consulted for every request; nil clears it.
func (s *Server) SetFaults(f FaultFunc) {
	if f == nil {
		s.faults.Store(nil)
		return
	}
	s.faults.Store(&f)
}

func (s *Server) table(resource string) *table {
	switch resource {
	case "orders":
		return s.orders
	case "files":
		return s.files
	case "accounts":
		return s.accounts
	}
	return nil
}

func isResourcePath(path string) bool { return path == "/v2" || strings.HasPrefix(path, "/v2/") }

// sleepCtx waits for d or until ctx is done; it reports whether d elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// ServeHTTP serves one request: latency, rate limit and faults first, then
// the token endpoint or the resource endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	seq := s.seq.Add(1)
	reqID := s.idPrefix + strconv.FormatInt(seq, 10)
	w.Header().Set("X-Request-Id", reqID)
	if isResourcePath(r.URL.Path) {
		s.stats.enter()
		defer s.stats.leave()
	}
	// The request is logged when its status is sent, before its body, so
	// that a client holding a response finds it in Stats; a connection
	// closed without a response is logged at the end.
	rw, lw := newLoggingWriter(w, s.stats, RequestLog{
		Seq: seq, RequestID: reqID, Time: start, Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
	})
	status := s.serve(rw, r, seq, reqID)
	if !lw.logged {
		lw.log(status)
	}
}

// serve answers the request and returns the status sent (0 for none).
func (s *Server) serve(w http.ResponseWriter, r *http.Request, seq int64, reqID string) int {
	if !sleepCtx(r.Context(), time.Duration(s.latency.Load())) {
		return 0
	}
	if ok, retryAfter := s.limiter.allow(time.Now()); !ok {
		s.stats.countRateLimited()
		resp := s.errorResponse(&apiError{
			status: http.StatusTooManyRequests,
			detail: fmt.Sprintf("Rate limit exceeded: this server accepts %g requests per second. Retry after %d seconds.", s.limiter.rps(), retryAfter),
			header: [][2]string{{"Retry-After", strconv.Itoa(retryAfter)}},
		})
		return s.write(w, resp, reqID)
	}
	if ff := s.faults.Load(); ff != nil {
		if f := (*ff)(r, seq); f != nil {
			s.stats.countFault()
			return s.serveFault(w, r, f, reqID)
		}
	}
	return s.write(w, s.handle(r), reqID)
}

// response is an answer not yet written.
type response struct {
	status      int
	buf         *[]byte // pooled body
	body        []byte  // body when buf is nil
	contentType string  // default application/json
	header      [][2]string
	err         *apiError // rendered as the body when set
}

func (s *Server) errorResponse(e *apiError) *response {
	return &response{status: e.status, err: e, header: e.header}
}

// render produces the final body bytes.
func (s *Server) render(resp *response, reqID string) []byte {
	if resp.err != nil && resp.buf == nil && resp.body == nil {
		resp.buf = getBuf()
		*resp.buf = s.appendError(*resp.buf, resp.status, resp.err.detail, resp.err.parameter, reqID)
	}
	if resp.buf != nil {
		return *resp.buf
	}
	return resp.body
}

// appendError appends a JSON:API error document with one error.
func (s *Server) appendError(b []byte, status int, detail, parameter, reqID string) []byte {
	b = append(b, `{"errors":[{"status":`...)
	if s.opts.StringStatus {
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, '"')
	} else {
		b = strconv.AppendInt(b, int64(status), 10)
	}
	title := http.StatusText(status)
	if title == "" {
		title = "Error"
	}
	b = append(b, `,"title":`...)
	b = appendString(b, title)
	b = append(b, `,"detail":`...)
	b = appendString(b, detail)
	b = append(b, `,"request_id":`...)
	b = appendString(b, reqID)
	if parameter != "" {
		b = append(b, `,"source":{"parameter":`...)
		b = appendString(b, parameter)
		b = append(b, '}')
	}
	return append(b, `}]}`...)
}

// setHeaders sets the headers of resp for a body of n bytes.
func setHeaders(h http.Header, resp *response, n int) {
	ct := resp.contentType
	if ct == "" {
		ct = "application/json"
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(n))
	for _, kv := range resp.header {
		h.Set(kv[0], kv[1])
	}
}

// write sends resp and returns its status.
func (s *Server) write(w http.ResponseWriter, resp *response, reqID string) int {
	body := s.render(resp, reqID)
	setHeaders(w.Header(), resp, len(body))
	w.WriteHeader(resp.status)
	_, _ = w.Write(body)
	putBuf(resp.buf)
	return resp.status
}

// handle routes a request that passed latency, rate limit and faults.
func (s *Server) handle(r *http.Request) *response {
	path := r.URL.Path
	switch {
	case path == "/oauth/access_token":
		return s.handleToken(r)
	case isResourcePath(path):
		if aerr := s.authenticate(r); aerr != nil {
			return s.errorResponse(aerr)
		}
		name, id, hasID := strings.Cut(strings.TrimPrefix(path, "/v2/"), "/")
		t := s.table(name)
		if t == nil || (hasID && (id == "" || strings.Contains(id, "/"))) {
			return s.notFound(path)
		}
		if r.Method != http.MethodGet {
			return s.errorResponse(&apiError{status: http.StatusMethodNotAllowed,
				detail: fmt.Sprintf("Method %s is not allowed on %s; the emulator serves GET only.", r.Method, path),
				header: [][2]string{{"Allow", "GET"}}})
		}
		if hasID {
			return s.handleGet(r, t, id)
		}
		return s.handleList(r, t)
	}
	return s.notFound(path)
}

func (s *Server) notFound(path string) *response {
	return s.errorResponse(&apiError{status: http.StatusNotFound,
		detail: fmt.Sprintf("No endpoint at %s: the service serves POST /oauth/access_token and GET /v2/{orders,files,accounts}[/{id}].", path)})
}

// handleGet serves GET /v2/{resource}/{id}.
func (s *Server) handleGet(r *http.Request, t *table, id string) *response {
	s.stats.countGet()
	if r.URL.RawQuery != "" {
		values, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return s.errorResponse(badRequest("", "The query string is malformed: %v.", err))
		}
		for name := range values {
			return s.errorResponse(badRequest(name, "Unknown query parameter %q: reading one %s takes no query parameters.", name, t.sch.typ))
		}
	}
	enc := newEncoding(r, s.opts.FlatTimestamps)
	bp := getBuf()
	s.mu.RLock()
	row, ok := t.lookup(id)
	if ok {
		b := append(*bp, `{"data":`...)
		b = t.sch.appendRecord(b, t, row, enc)
		*bp = append(b, '}')
	}
	s.mu.RUnlock()
	if !ok {
		putBuf(bp)
		return s.errorResponse(&apiError{status: http.StatusNotFound,
			detail: fmt.Sprintf("No %s with id %q exists.", t.sch.typ, id)})
	}
	return &response{status: http.StatusOK, buf: bp}
}

// handleList serves GET /v2/{resource}.
func (s *Server) handleList(r *http.Request, t *table) *response {
	s.stats.countList(t.sch.resource)
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
	for i, row := range rows[from:to] {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.sch.appendRecord(b, t, row, enc)
	}
	s.mu.RUnlock()
	b = append(b, `],"links":`...)
	b = appendLinks(b, r, p, total)
	if s.opts.FlatTimestamps {
		b = append(b, ',')
	} else {
		b = append(b, `,"meta":{`...)
	}
	b = append(b, `"page":{"limit":`...)
	b = strconv.AppendInt(b, int64(p.limit), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(p.offset), 10)
	b = append(b, `,"current":`...)
	b = strconv.AppendInt(b, int64(p.offset/p.limit+1), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64((total+p.limit-1)/p.limit), 10)
	b = append(b, `},"results":{"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, '}', '}')
	if !s.opts.FlatTimestamps {
		b = append(b, '}')
	}
	*bp = b
	return &response{status: http.StatusOK, buf: bp}
}

// appendLinks appends the first, prev, next and last page links (prev and
// next are null at the ends).
func appendLinks(b []byte, r *http.Request, p *listParams, total int) []byte {
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
	b = link(b, "last", last, true)
	return append(b, '}')
}
