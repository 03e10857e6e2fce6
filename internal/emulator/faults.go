package emulator

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// FaultFunc decides, for every request, whether to answer it with a fault.
// seq is the 1-based number of the request among all requests the server
// has seen (all paths). Returning nil serves the request normally. It is
// called once per request, after the latency and the rate limit, possibly
// from many goroutines at once.
type FaultFunc func(r *http.Request, seq int64) *Fault

// Fault describes a failure to inject. The fields combine in this order:
// Delay, then Reset (nothing else happens), then the response — the fault's
// own error if Status is set, otherwise the real one — which Mutate rewrites
// and Truncate cuts.
type Fault struct {
	// Status answers with this HTTP status (e.g. 429, 500, 502, 503, 504)
	// and a JSON:API error body, unless Body is set.
	Status int
	// RetryAfter is sent as the Retry-After header if non-empty (seconds or
	// an HTTP date).
	RetryAfter string
	// Body replaces the JSON:API error body of Status (e.g. an HTML 502
	// page from a proxy).
	Body string
	// ContentType of Body; default text/html for a body starting with "<",
	// else text/plain.
	ContentType string
	// Delay is waited before answering (to exceed client timeouts).
	Delay time.Duration
	// Reset closes the connection without answering (with a TCP RST).
	Reset bool
	// Truncate sends the headers with the full Content-Length but only the
	// first half of the body, then closes the connection.
	Truncate bool
	// Mutate rewrites the response body (to break the contract: drop meta,
	// wrong totals, extra records...). Content-Length follows the result.
	Mutate func(body []byte) []byte
}

// FailFirst fails the first n resource (/v2) requests with f.
func FailFirst(n int, f Fault) FaultFunc {
	var count atomic.Int64
	return func(r *http.Request, _ int64) *Fault {
		if !isResourcePath(r.URL.Path) || count.Add(1) > int64(n) {
			return nil
		}
		return &f
	}
}

// FailEveryNth fails every nth resource (/v2) request (the nth, the 2nth,
// ...) with f.
func FailEveryNth(n int, f Fault) FaultFunc {
	var count atomic.Int64
	return func(r *http.Request, _ int64) *Fault {
		if n <= 0 || !isResourcePath(r.URL.Path) || count.Add(1)%int64(n) != 0 {
			return nil
		}
		return &f
	}
}

// FailRandomly fails each request (any path, the token endpoint included)
// with probability rate, drawn from a random stream seeded with seed.
func FailRandomly(rate float64, seed int64, f Fault) FaultFunc {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6661756c74)) // "fault"
	return func(*http.Request, int64) *Fault {
		mu.Lock()
		fail := rng.Float64() < rate
		mu.Unlock()
		if !fail {
			return nil
		}
		return &f
	}
}

// serveFault answers a request with f and returns the status sent (0 for
// none).
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f *Fault, reqID string) int {
	if !sleepCtx(r.Context(), f.Delay) {
		return 0
	}
	if f.Reset {
		resetConnection(w)
		return 0
	}
	var resp *response
	if f.Status != 0 {
		if f.Body != "" {
			ct := f.ContentType
			if ct == "" {
				ct = "text/plain; charset=utf-8"
				if strings.HasPrefix(strings.TrimSpace(f.Body), "<") {
					ct = "text/html; charset=utf-8"
				}
			}
			resp = &response{status: f.Status, body: []byte(f.Body), contentType: ct}
		} else {
			resp = s.errorResponse(&apiError{status: f.Status,
				detail: fmt.Sprintf("The service could not handle the request (injected fault, status %d).", f.Status)})
			resp.contentType = f.ContentType
		}
	} else {
		resp = s.handle(r)
	}
	if f.RetryAfter != "" {
		resp.header = append(slices.Clip(resp.header), [2]string{"Retry-After", f.RetryAfter})
	}
	if f.Mutate != nil {
		body := slices.Clone(s.render(resp, reqID))
		putBuf(resp.buf)
		resp.buf, resp.err = nil, nil
		resp.body = f.Mutate(body)
	}
	if f.Truncate {
		return s.writeTruncated(w, resp, reqID)
	}
	return s.write(w, resp, reqID)
}

// resetConnection closes the client connection without a response.
func resetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // makes net/http drop the connection
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close with RST rather than FIN
	}
	_ = conn.Close()
}

// writeTruncated sends the status line and headers of resp, announcing the
// full Content-Length, then half of the body, and closes the connection.
func (s *Server) writeTruncated(w http.ResponseWriter, resp *response, reqID string) int {
	body := s.render(resp, reqID)
	defer putBuf(resp.buf)
	half := body[:len(body)/2]
	hj, ok := w.(http.Hijacker)
	if !ok { // e.g. httptest.ResponseRecorder: send the short body
		setHeaders(w.Header(), resp, len(body))
		w.WriteHeader(resp.status)
		_, _ = w.Write(half)
		return resp.status
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	defer conn.Close()
	h := w.Header().Clone()
	setHeaders(h, resp, len(body))
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	bw := bufio.NewWriter(conn)
	if rw != nil && rw.Writer != nil {
		bw = rw.Writer
	}
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\n", resp.status, http.StatusText(resp.status))
	_ = h.Write(bw)
	_, _ = bw.WriteString("\r\n")
	_, _ = bw.Write(half)
	_ = bw.Flush()
	return resp.status
}
