// Package emulator is a local, in-memory implementation of the commerce
// service: the client-credentials token endpoint and the paginated, sortable
// and filterable list and read endpoints of orders, files, accounts,
// customers and catalogue hierarchies, as described in the service's API
// documentation plus the known behaviour of the real service. It serves
// seeded, deterministic data, can inject latency, rate limits and faults,
// and counts what it sees, for the provider's unit tests, acceptance tests
// and benchmarks, and for users trying the provider without credentials
// (see cmd/commerce-emulator).
package emulator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is the emulated service. It is an http.Handler; Start also serves
// it on a loopback port.
type Server struct {
	opts Options

	mu     sync.RWMutex // guards the tables and clock
	tables []*table     // one per resources entry, in its order
	clock  int64        // ms of the last write, or the latest seeded timestamp

	cache  *resultCache
	tokens tokenStore
	stats  *statsCollector

	latency             atomic.Int64 // time.Duration
	tokenLifetime       atomic.Int64 // time.Duration
	softOffsetEnforced  atomic.Bool
	ignoreSort          atomic.Uint32 // resourceBits set
	counting            atomic.Pointer[countPlan]
	limiter             rateLimiter
	rateLimitRetryAfter atomic.Bool
	faults              atomic.Pointer[FaultFunc]

	seq         atomic.Int64
	tieShuffles atomic.Int64 // seeds of ShuffleTies, one per request
	estimates   atomic.Int64 // draws of CountEstimate, one per list answer
	idPrefix    string

	httpSrv *http.Server
	url     string
}

// New generates the data and returns a server that is not listening; use it
// as an http.Handler (for example with httptest) or call Start instead.
func New(opts Options) *Server {
	opts = opts.withDefaults()
	for alias, name := range opts.Aliases {
		if err := CheckAlias(alias, name); err != nil {
			panic("emulator: " + err.Error())
		}
	}
	s := &Server{
		opts:  opts,
		cache: newResultCache(opts.CacheSize),
		stats: newStatsCollector(opts.RequestLogSize, opts.RequestLines),
	}
	s.tables = make([]*table, len(resources))
	var wg sync.WaitGroup
	for i, r := range resources {
		wg.Go(func() { s.tables[i] = generate(r, &opts) })
	}
	wg.Wait()
	s.clock = opts.BaseTime.UnixMilli()
	for _, t := range s.tables {
		s.clock = t.latest(s.clock)
	}
	s.ignoreSort.Store(resourceBits(opts.IgnoreSort))
	s.counting.Store(&countPlan{byRes: map[string]Counting{}})
	s.SetCounting(opts.Counting)
	for name, c := range opts.CountingFor {
		s.SetCounting(c, name)
	}
	s.latency.Store(int64(opts.Latency))
	s.tokenLifetime.Store(int64(opts.TokenLifetime))
	s.tokens.maxUses.Store(int64(max(opts.TokenRequests, 0)))
	s.softOffsetEnforced.Store(!opts.LenientSoftOffsetLimit)
	s.limiter.set(opts.RateLimit)
	s.limiter.setCountRefused(opts.RateLimitCountsRefused)
	s.rateLimitRetryAfter.Store(opts.RateLimitRetryAfter)
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
// empties the window.
func (s *Server) SetRateLimit(rps float64) { s.limiter.set(rps) }

// SetRateLimitCountsRefused switches whether refused requests take a place
// in the rate limit's window (see Options.RateLimitCountsRefused).
func (s *Server) SetRateLimitCountsRefused(on bool) { s.limiter.setCountRefused(on) }

// SetRateLimitRetryAfter switches whether a 429 of the rate limit carries
// Retry-After (see Options.RateLimitRetryAfter).
func (s *Server) SetRateLimitRetryAfter(on bool) { s.rateLimitRetryAfter.Store(on) }

// SetSoftOffsetLimitEnforced switches whether the resources with the soft
// offset limit (accounts, customers, hierarchies) refuse offsets above it
// (the default) or serve them.
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

// CheckAlias reports whether Options.Aliases may serve resource at path.
func CheckAlias(path, name string) error {
	if !isResourcePath(path) || strings.Count(path, "/") < 2 || strings.HasSuffix(path, "/") {
		return fmt.Errorf("alias %s: the path must be a list path below %s", path, strings.Join(resourcePrefixes, " or "))
	}
	if !slices.ContainsFunc(resources, func(r *resource) bool { return r.name == name }) {
		return fmt.Errorf("alias %s: %q is not one of the emulator's resources", path, name)
	}
	return nil
}

// isResourcePath reports whether path is below a resource prefix ("/v2",
// "/pcm"), where requests need a token and count as resource requests.
func isResourcePath(path string) bool {
	for _, p := range resourcePrefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

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
		e := &apiError{
			status: http.StatusTooManyRequests,
			detail: fmt.Sprintf("Rate limit exceeded: this store accepts %g requests per second.", s.limiter.rps()),
		}
		// The real service documents no Retry-After; some gateways send one.
		if s.rateLimitRetryAfter.Load() {
			e.header = [][2]string{{"Retry-After", strconv.Itoa(retryAfter)}}
		}
		resp := s.errorResponse(e)
		return s.write(w, resp, reqID)
	}
	if ff := s.faults.Load(); ff != nil {
		if f := (*ff)(r, seq); f != nil {
			s.stats.countFault()
			return s.serveFault(w, r, f, reqID)
		}
	}
	if e := s.checkFilterLimits(r); e != nil {
		return s.write(w, s.errorResponse(e), reqID)
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
