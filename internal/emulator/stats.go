package emulator

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Stats are counters of the requests a server has seen since it started or
// since the last ResetStats.
type Stats struct {
	// TotalRequests counts every request, whatever its path and outcome.
	TotalRequests int
	// TokenRequests counts POSTs that reached the token endpoint (not
	// rejected earlier by the rate limit or a fault).
	TokenRequests int
	// ListRequests counts list requests that reached their endpoint, per
	// resource ("orders", "files", "accounts"), whatever the outcome
	// (including 400s for bad parameters, excluding 401s).
	ListRequests map[string]int
	// GetRequests counts single-record requests that reached their endpoint.
	GetRequests int
	// StatusCounts counts responses by HTTP status; 0 counts connections
	// closed without a response (Fault.Reset).
	StatusCounts map[int]int
	// Faults counts requests a FaultFunc answered with a Fault.
	Faults int
	// RateLimited counts requests answered 429 by the rate limit.
	RateLimited int
	// MaxConcurrent is the peak number of resource (/v2) requests in flight
	// at once, latency included.
	MaxConcurrent int
	// Requests are the most recent requests, oldest first (at most
	// Options.RequestLogSize).
	Requests []RequestLog
}

// RequestLog records one request.
type RequestLog struct {
	Seq       int64 // 1-based sequence number (the seq given to FaultFunc)
	RequestID string
	Time      time.Time // when the request arrived
	Method    string
	Path      string
	RawQuery  string
	Status    int // 0: connection closed without a response
	Duration  time.Duration
}

// line is the request as -request-log prints it: time, sequence number,
// method, target with its query unescaped as a user wrote it, status ("-"
// for a connection closed without one) and duration.
func (e RequestLog) line() string {
	target := e.Path
	if e.RawQuery != "" {
		q, err := url.QueryUnescape(e.RawQuery)
		if err != nil {
			q = e.RawQuery
		}
		target += "?" + q
	}
	status := "-"
	if e.Status != 0 {
		status = strconv.Itoa(e.Status)
	}
	return fmt.Sprintf("%s #%d %s %s %s %s\n", e.Time.UTC().Format("15:04:05.000"), e.Seq, e.Method, target, status,
		e.Duration.Round(time.Millisecond))
}

type statsCollector struct {
	mu          sync.Mutex
	total       int
	token       int
	list        map[string]int
	get         int
	status      map[int]int
	faults      int
	rateLimited int
	log         []RequestLog // ring buffer
	logNext     int
	logSize     int
	inflight    atomic.Int64
	maxInflight atomic.Int64
	lines       io.Writer // Options.RequestLines
}

func newStatsCollector(logSize int, lines io.Writer) *statsCollector {
	return &statsCollector{list: map[string]int{}, status: map[int]int{}, logSize: logSize, lines: lines}
}

// enter marks a resource request in flight; leave must follow.
func (c *statsCollector) enter() {
	n := c.inflight.Add(1)
	for {
		m := c.maxInflight.Load()
		if n <= m || c.maxInflight.CompareAndSwap(m, n) {
			return
		}
	}
}

func (c *statsCollector) leave() { c.inflight.Add(-1) }

func (c *statsCollector) countToken() {
	c.mu.Lock()
	c.token++
	c.mu.Unlock()
}

func (c *statsCollector) countList(resource string) {
	c.mu.Lock()
	c.list[resource]++
	c.mu.Unlock()
}

func (c *statsCollector) countGet() {
	c.mu.Lock()
	c.get++
	c.mu.Unlock()
}

func (c *statsCollector) countFault() {
	c.mu.Lock()
	c.faults++
	c.mu.Unlock()
}

func (c *statsCollector) countRateLimited() {
	c.mu.Lock()
	c.rateLimited++
	c.mu.Unlock()
}

// record logs a finished request.
func (c *statsCollector) record(e RequestLog) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total++
	c.status[e.Status]++
	if c.lines != nil {
		// Under the lock: one line at a time, in the order they finished.
		_, _ = io.WriteString(c.lines, e.line())
	}
	if c.logSize <= 0 {
		return
	}
	if len(c.log) < c.logSize {
		c.log = append(c.log, e)
		return
	}
	c.log[c.logNext] = e
	c.logNext = (c.logNext + 1) % c.logSize
}

func (c *statsCollector) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Stats{
		TotalRequests: c.total,
		TokenRequests: c.token,
		ListRequests:  maps.Clone(c.list),
		GetRequests:   c.get,
		StatusCounts:  maps.Clone(c.status),
		Faults:        c.faults,
		RateLimited:   c.rateLimited,
		MaxConcurrent: int(c.maxInflight.Load()),
		Requests:      make([]RequestLog, 0, len(c.log)),
	}
	st.Requests = append(st.Requests, c.log[c.logNext:]...)
	st.Requests = append(st.Requests, c.log[:c.logNext]...)
	return st
}

func (c *statsCollector) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total, c.token, c.get, c.faults, c.rateLimited = 0, 0, 0, 0, 0
	c.list = map[string]int{}
	c.status = map[int]int{}
	c.log = c.log[:0]
	c.logNext = 0
	c.maxInflight.Store(c.inflight.Load())
}

// loggingWriter logs its request when the status is written.
type loggingWriter struct {
	http.ResponseWriter
	stats  *statsCollector
	entry  RequestLog
	logged bool
}

func (w *loggingWriter) log(status int) {
	w.logged = true
	w.entry.Status = status
	w.entry.Duration = time.Since(w.entry.Time)
	w.stats.record(w.entry)
}

func (w *loggingWriter) WriteHeader(status int) {
	if !w.logged {
		w.log(status)
	}
	w.ResponseWriter.WriteHeader(status)
}

// hijackableWriter is a loggingWriter over a ResponseWriter that can hand
// over its connection (for faults that break it); the request is then
// logged with the status serve reports.
type hijackableWriter struct{ *loggingWriter }

func (w hijackableWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok { // newLoggingWriter wraps only writers that can
		return nil, nil, http.ErrNotSupported
	}
	return hj.Hijack()
}

// newLoggingWriter wraps w, keeping its ability to be hijacked.
func newLoggingWriter(w http.ResponseWriter, stats *statsCollector, entry RequestLog) (http.ResponseWriter, *loggingWriter) {
	lw := &loggingWriter{ResponseWriter: w, stats: stats, entry: entry}
	if _, ok := w.(http.Hijacker); ok {
		return hijackableWriter{lw}, lw
	}
	return lw, lw
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats { return s.stats.snapshot() }

// ResetStats zeroes the counters and clears the request log. MaxConcurrent
// restarts from the number of requests currently in flight.
func (s *Server) ResetStats() { s.stats.reset() }
