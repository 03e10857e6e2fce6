package emulator

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawGet sends an authenticated GET with a fresh connection and returns the
// response with its body, or the transport/read error.
func (c *testClient) rawGet(path string, timeout time.Duration) (*http.Response, []byte, error) {
	hc := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest(http.MethodGet, c.s.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func TestFaultStatus(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10})
	c.s.ResetStats()
	c.s.SetFaults(FailFirst(2, Fault{Status: 503, RetryAfter: "1"}))
	for i := range 2 {
		resp, body := c.get("/v2/orders", "")
		c.wantError(503, resp, body)
		if resp.Header.Get("Retry-After") != "1" {
			t.Errorf("attempt %d: Retry-After %q", i, resp.Header.Get("Retry-After"))
		}
	}
	// The token endpoint is not a resource request: FailFirst ignores it.
	c.token = c.fetchToken()
	if resp, body := c.get("/v2/orders", ""); resp.StatusCode != 200 {
		t.Fatalf("third request: %d %s", resp.StatusCode, body)
	}
	st := c.s.Stats()
	if st.Faults != 2 || st.StatusCounts[503] != 2 || st.StatusCounts[200] != 2 || st.ListRequests["orders"] != 1 {
		t.Errorf("stats %+v", st)
	}

	c.s.SetFaults(FailFirst(1, Fault{Status: 502, Body: "<html><body>Bad gateway</body></html>"}))
	resp, body := c.get("/v2/accounts", "")
	if resp.StatusCode != 502 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !bytes.Contains(body, []byte("Bad gateway")) {
		t.Errorf("HTML 502: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	c.s.SetFaults(FailFirst(1, Fault{Status: 429, RetryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", Body: "slow down", ContentType: "text/plain"}))
	resp, body = c.get("/v2/files", "")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "Wed, 21 Oct 2015 07:28:00 GMT" || string(body) != "slow down" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("429: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	c.s.SetFaults(nil)
	if resp, _ := c.get("/v2/files", ""); resp.StatusCode != 200 {
		t.Errorf("after clearing faults: %d", resp.StatusCode)
	}
}

func TestFailEveryNthAndSeq(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10})
	every := FailEveryNth(3, Fault{Status: 500})
	var seqs []int64
	var mu sync.Mutex
	c.s.SetFaults(func(r *http.Request, seq int64) *Fault {
		mu.Lock()
		seqs = append(seqs, seq)
		mu.Unlock()
		return every(r, seq)
	})
	var statuses []int
	for range 7 {
		resp, _ := c.get("/v2/orders", "")
		statuses = append(statuses, resp.StatusCode)
	}
	want := []int{200, 200, 500, 200, 200, 500, 200}
	if !slices.Equal(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	// The token request was seq 1.
	if len(seqs) != 7 || seqs[0] != 2 || seqs[6] != 8 {
		t.Errorf("seqs %v", seqs)
	}
}

func TestFaultDelay(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10})
	c.s.SetFaults(FailFirst(1, Fault{Delay: 400 * time.Millisecond}))
	start := time.Now()
	_, _, err := c.rawGet("/v2/orders", 100*time.Millisecond)
	if err == nil || time.Since(start) > 350*time.Millisecond {
		t.Fatalf("err %v after %v, want a client timeout", err, time.Since(start))
	}
	// A delay alone then serves normally.
	c.s.SetFaults(FailFirst(1, Fault{Delay: 50 * time.Millisecond}))
	start = time.Now()
	resp, _, err := c.rawGet("/v2/orders", 5*time.Second)
	if err != nil || resp.StatusCode != 200 || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("delayed request: %v %v after %v", resp, err, time.Since(start))
	}
}

func TestFaultReset(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10})
	c.s.ResetStats()
	c.s.SetFaults(FailFirst(1, Fault{Reset: true}))
	_, _, err := c.rawGet("/v2/orders", 5*time.Second)
	if err == nil {
		t.Fatal("no error for a reset connection")
	}
	if resp, _, err := c.rawGet("/v2/orders", 5*time.Second); err != nil || resp.StatusCode != 200 {
		t.Fatalf("after reset: %v", err)
	}
	// The reset handler records its request after the client has already
	// seen the connection die, so give it a moment.
	deadline := time.Now().Add(2 * time.Second)
	for c.s.Stats().StatusCounts[0] != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	st := c.s.Stats()
	if st.StatusCounts[0] != 1 || st.StatusCounts[200] != 1 {
		t.Errorf("stats %+v, want one reset (status 0) and one 200", st.StatusCounts)
	}
}

func TestFaultTruncate(t *testing.T) {
	c := startServer(t, Options{Orders: 100, Files: 10, Accounts: 10})
	c.s.SetFaults(FailFirst(1, Fault{Truncate: true}))
	resp, body, err := c.rawGet("/v2/orders?page[limit]=100", 5*time.Second)
	if resp == nil || resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("resp %v, err %v, want 200 and unexpected EOF", resp, err)
	}
	if resp.ContentLength <= int64(len(body)) || len(body) < 1000 {
		t.Errorf("Content-Length %d, body %d bytes", resp.ContentLength, len(body))
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("truncated response lacks X-Request-Id")
	}
	if resp, _, err := c.rawGet("/v2/orders", 5*time.Second); err != nil || resp.StatusCode != 200 {
		t.Fatalf("after truncation: %v", err)
	}
}

func TestFaultMutate(t *testing.T) {
	c := startServer(t, Options{Orders: 100, Files: 10, Accounts: 10})
	c.s.SetFaults(FailFirst(1, Fault{Mutate: func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"results":{"total":100}`), []byte(`"results":{"total":99999}`), 1)
	}}))
	lb := c.list("orders", nil)
	if _, total := lb.pagination(); total != 99999 || len(lb.Data) != 25 {
		t.Errorf("mutated total %d, %d records", total, len(lb.Data))
	}
	c.s.SetFaults(FailFirst(1, Fault{Mutate: func([]byte) []byte { return []byte(`{"data":[]}`) }}))
	resp, body := c.get("/v2/orders", "")
	if resp.StatusCode != 200 || string(body) != `{"data":[]}` {
		t.Errorf("replaced body: %d %s", resp.StatusCode, body)
	}
	// Mutate also applies to error responses, and Status+Truncate combine.
	c.s.SetFaults(FailFirst(1, Fault{Status: 500, Truncate: true}))
	resp2, body2, err := c.rawGet("/v2/orders", 5*time.Second)
	if resp2 == nil || resp2.StatusCode != 500 || err == nil || len(body2) == 0 {
		t.Errorf("truncated 500: %v %v %s", resp2, err, body2)
	}
}

// TestFaultsWithoutConnection runs faults through ServeHTTP directly.
func TestFaultsWithoutConnection(t *testing.T) {
	s := New(Options{Orders: 10, Files: 10, Accounts: 10})
	s.SetFaults(func(r *http.Request, seq int64) *Fault {
		if r.URL.Path == "/oauth/access_token" {
			return &Fault{Status: 503}
		}
		return &Fault{Truncate: true}
	})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/oauth/access_token", strings.NewReader("")))
	if rec.Code != 503 {
		t.Errorf("token fault: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v2/orders", nil))
	if rec.Code != 401 || rec.Body.Len() == 0 || rec.Header().Get("Content-Length") == itoa(rec.Body.Len()) {
		t.Errorf("truncated 401 via recorder: %d %q", rec.Code, rec.Body.String())
	}
}

func TestRateLimit(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10})
	c.s.ResetStats()
	c.s.SetRateLimit(2)
	var statuses []int
	var last *http.Response
	var lastBody []byte
	for range 3 {
		last, lastBody = c.get("/v2/orders", "")
		statuses = append(statuses, last.StatusCode)
	}
	if !slices.Equal(statuses, []int{200, 200, 429}) {
		t.Fatalf("statuses %v", statuses)
	}
	c.wantError(429, last, lastBody)
	if h := last.Header.Get("Retry-After"); h != "" {
		t.Errorf("Retry-After %q; the real service documents none", h)
	}
	// The token endpoint draws on the same budget.
	resp, body := c.do(http.MethodPost, "/oauth/access_token", "", nil, nil)
	c.wantError(429, resp, body)
	time.Sleep(1100 * time.Millisecond)
	if resp, _ := c.get("/v2/orders", ""); resp.StatusCode != 200 {
		t.Errorf("after the window passed: %d", resp.StatusCode)
	}
	if st := c.s.Stats(); st.RateLimited != 2 || st.StatusCounts[429] != 2 {
		t.Errorf("stats %+v", st)
	}
	// Slow rates: one request per 1/rate seconds; Retry-After on request
	// rounds up to whole seconds.
	c.s.SetRateLimitRetryAfter(true)
	c.s.SetRateLimit(0.4)
	c.get("/v2/orders", "")
	resp, _ = c.get("/v2/orders", "")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("0.4 rps: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	c.s.SetRateLimit(0)
	for range 20 {
		if resp, _ := c.get("/v2/orders", ""); resp.StatusCode != 200 {
			t.Fatal("unlimited rate still limits")
		}
	}
}

// A sliding window, unlike a token bucket, has no burst beyond its
// capacity at a window's edge, and the stricter store counts refusals.
func TestRateLimitWindow(t *testing.T) {
	var l rateLimiter
	l.set(3)
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	try := func(ms int) bool { ok, _ := l.allow(at(ms)); return ok }
	for i, ms := range []int{0, 100, 200} {
		if !try(ms) {
			t.Fatalf("request %d refused within capacity", i)
		}
	}
	if try(900) {
		t.Error("a fourth request within one second was accepted")
	}
	if ok, wait := l.allow(at(950)); ok || wait != 1 {
		t.Errorf("full window: ok %v, retry after %d s", ok, wait)
	}
	if !try(1000) || try(1050) || !try(1100) || !try(1200) || try(1999) {
		t.Error("places did not free one by one as the window slid")
	}

	l.set(2)
	l.setCountRefused(true)
	if !try(0) || !try(10) || try(500) || try(1005) {
		t.Error("strict store: want 2 accepted, then refusals that keep the window full")
	}
	// 0 and 10 have left; 500 and 1005 (refused, counted) are still in.
	if try(1400) {
		t.Error("strict store: accepted while refused requests fill the window")
	}
	if !try(2500) {
		t.Error("strict store: refused once the window had emptied")
	}
}

func TestLatencyAndConcurrency(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10, Latency: 80 * time.Millisecond})
	start := time.Now()
	c.token = c.fetchToken()
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("token request took %v, latency is 80ms", d)
	}
	c.s.ResetStats()
	var wg sync.WaitGroup
	var fails atomic.Int32
	for range 8 {
		wg.Go(func() {
			resp, _, err := c.rawGet("/v2/orders", 5*time.Second)
			if err != nil || resp.StatusCode != 200 {
				fails.Add(1)
			}
		})
	}
	wg.Wait()
	st := c.s.Stats()
	if fails.Load() != 0 || st.MaxConcurrent < 4 || st.MaxConcurrent > 8 || st.ListRequests["orders"] != 8 {
		t.Errorf("fails %d, MaxConcurrent %d, lists %d", fails.Load(), st.MaxConcurrent, st.ListRequests["orders"])
	}
	c.s.SetLatency(0)
	c.get("/v2/orders", "")
	st = c.s.Stats()
	if d := st.Requests[len(st.Requests)-1].Duration; d >= 80*time.Millisecond {
		t.Errorf("request took %v without latency", d)
	}
}

func TestStatsLog(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10, RequestLogSize: 5})
	c.s.ResetStats()
	ids := c.s.Orders()
	for i := range 4 {
		c.get("/v2/orders", "page[limit]="+itoa(i+1))
	}
	c.get("/v2/orders/"+ids[0].ID, "")
	c.get("/v2/orders/nope", "")
	c.get("/v2/files", "filter=gt(file_size,1000)")
	st := c.s.Stats()
	if st.TotalRequests != 7 || st.GetRequests != 2 || st.ListRequests["orders"] != 4 || st.ListRequests["files"] != 1 ||
		st.StatusCounts[200] != 6 || st.StatusCounts[404] != 1 {
		t.Errorf("stats %+v", st)
	}
	if len(st.Requests) != 5 {
		t.Fatalf("%d logged requests, want 5", len(st.Requests))
	}
	first, lastLog := st.Requests[0], st.Requests[4]
	if first.RawQuery != "page[limit]=3" || lastLog.Path != "/v2/files" || lastLog.RawQuery != "filter=gt(file_size,1000)" ||
		lastLog.Method != "GET" || lastLog.Status != 200 || lastLog.Seq != first.Seq+4 || lastLog.RequestID == "" {
		t.Errorf("log %+v", st.Requests)
	}
	c.s.ResetStats()
	if st := c.s.Stats(); st.TotalRequests != 0 || len(st.Requests) != 0 || len(st.StatusCounts) != 0 {
		t.Errorf("after reset %+v", st)
	}
}
