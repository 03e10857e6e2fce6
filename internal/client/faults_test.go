package client

// The fault matrix: every scenario lists against the emulator with faults
// injected and asserts the exact final result, either the complete and
// correct ids in order (compared with the emulator's own answer) or a
// precise error. Every listing runs under a deadline and the emulator's
// request counters are checked against a bound, so that a listing that
// loops fails the test instead of hanging it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// listDeadline bounds every listing of the matrix.
const listDeadline = 45 * time.Second

// listWithin lists like listIDs, under listDeadline.
func listWithin[T Record](t testing.TB, c *Client, kind Kind[T], q ListQuery) ([]string, ListStats, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), listDeadline)
	defer cancel()
	var ids []string
	stats, err := List(ctx, c, kind, q, func(r T) error {
		ids = append(ids, r.RecordID())
		return nil
	})
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the listing did not end within %v (listed %d): %v", listDeadline, len(ids), err)
	}
	return ids, stats, err
}

// mustList lists and compares with the emulator's answer for the same query,
// in order.
func mustList[T Record](t testing.TB, srv *emulator.Server, c *Client, kind Kind[T], q ListQuery) ListStats {
	t.Helper()
	got, stats, err := listWithin(t, c, kind, q)
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	want := wantIDs(t, srv, kind.Resource, q.Filter, q.Sort)
	if !slices.Equal(got, want) {
		t.Fatalf("listed %d ids, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if stats.Listed != len(want) {
		t.Fatalf("stats.Listed = %d, want %d", stats.Listed, len(want))
	}
	return stats
}

// clientRetries is how many resource requests the client itself sent again:
// attempts minus the pages the engine asked for.
func clientRetries(c *Client, stats ListStats) int { return int(c.Requests()) - stats.Pages }

func isOrdersList(r *http.Request) bool { return r.URL.Path == OrdersResource.Path }

func offsetOf(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page[offset]"))
	if err != nil {
		return -1
	}
	return n
}

// editList returns a Fault.Mutate that decodes a list body, lets edit change
// it, and encodes it again. Bodies that are not list bodies (errors) pass
// unchanged.
func editList(edit func(doc map[string]any)) func([]byte) []byte {
	return func(body []byte) []byte {
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return body
		}
		if _, ok := doc["data"].([]any); !ok {
			return body
		}
		edit(doc)
		out, err := json.Marshal(doc)
		if err != nil {
			panic(err)
		}
		return out
	}
}

func docRecords(doc map[string]any) []any { return doc["data"].([]any) }

func docRecord(doc map[string]any, i int) map[string]any {
	return docRecords(doc)[i].(map[string]any)
}

func docTotal(doc map[string]any) int {
	n, _ := doc["meta"].(map[string]any)["results"].(map[string]any)["total"].(json.Number).Int64()
	return int(n)
}

func setDocTotal(doc map[string]any, total int) {
	doc["meta"].(map[string]any)["results"].(map[string]any)["total"] = total
}

func recordTimestamps(rec map[string]any) map[string]any {
	return rec["meta"].(map[string]any)["timestamps"].(map[string]any)
}

// atomicMin keeps the smallest value stored.
type atomicMin struct{ v atomic.Int64 }

func (m *atomicMin) store(x int) {
	for {
		old := m.v.Load()
		if int64(x) >= old || m.v.CompareAndSwap(old, int64(x)) {
			return
		}
	}
}

// ---- 1. 429 storms ----

func TestFault429StormWithRetryAfter(t *testing.T) {
	srv := startEmulator(t, emulator.Options{Orders: 12000})
	c := newClient(t, srv, func(c *Config) { c.MaxRetries = 10 })
	var low atomicMin
	low.v.Store(int64(c.MaxParallelRequests()))
	// A storm that passes: every 3rd of the first 30 resource requests is
	// answered 429 with Retry-After: 1.
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if !isOrdersList(r) {
			return nil
		}
		low.store(c.inFlight.current())
		if i := n.Add(1); i <= 30 && i%3 == 0 {
			return &emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"}
		}
		return nil
	})
	start := time.Now()
	stats := mustList(t, srv, c, Orders, ListQuery{})
	elapsed := time.Since(start)
	st := srv.Stats()
	if st.StatusCounts[http.StatusTooManyRequests] != 10 || st.Faults != 10 {
		t.Errorf("429s = %d, faults = %d; want 10", st.StatusCounts[http.StatusTooManyRequests], st.Faults)
	}
	if got := clientRetries(c, stats); got != 10 {
		t.Errorf("client retries = %d, want one per 429 (10)", got)
	}
	if elapsed < time.Second {
		t.Errorf("listing took %v; every 429 asked for a 1s wait", elapsed)
	}
	if l := int(low.v.Load()); l >= c.MaxParallelRequests() {
		t.Errorf("concurrency limit never dropped below %d during the storm", l)
	}
	if got := c.inFlight.current(); got != c.MaxParallelRequests() {
		t.Errorf("concurrency limit is %d after the storm, want it recovered to %d", got, c.MaxParallelRequests())
	}
	t.Logf("listing took %v, lowest concurrency limit %d, %d pages, peak concurrency %d", elapsed, low.v.Load(), stats.Pages, st.MaxConcurrent)
}

func TestFault429StormBackoff(t *testing.T) {
	srv := startEmulator(t, emulator.Options{Orders: 12000})
	c := newClient(t, srv, func(c *Config) { c.MaxRetries = 12 })
	var low atomicMin
	low.v.Store(int64(c.MaxParallelRequests()))
	every3rd := emulator.FailEveryNth(3, emulator.Fault{Status: http.StatusTooManyRequests})
	srv.SetFaults(func(r *http.Request, seq int64) *emulator.Fault {
		if isOrdersList(r) {
			low.store(c.inFlight.current())
		}
		return every3rd(r, seq)
	})
	stats := mustList(t, srv, c, Orders, ListQuery{})
	st := srv.Stats()
	if st.StatusCounts[http.StatusTooManyRequests] != st.Faults || st.Faults < 40 {
		t.Errorf("429s = %d, faults = %d; want every 3rd request (at least 40)", st.StatusCounts[http.StatusTooManyRequests], st.Faults)
	}
	if got := clientRetries(c, stats); got != st.Faults {
		t.Errorf("client retries = %d, want one per 429 (%d)", got, st.Faults)
	}
	if l := int(low.v.Load()); l >= c.MaxParallelRequests() {
		t.Errorf("concurrency limit never dropped below %d during the storm", l)
	}
	// The storm is over: a clean listing brings the limit back to the
	// maximum and actually runs requests in parallel again.
	srv.SetFaults(nil)
	srv.SetLatency(2 * time.Millisecond) // so that parallel requests overlap
	srv.ResetStats()
	mustList(t, srv, c, Orders, ListQuery{})
	if got := c.inFlight.current(); got != c.MaxParallelRequests() {
		t.Errorf("concurrency limit is %d after a clean listing, want it recovered to %d", got, c.MaxParallelRequests())
	}
	if got := srv.Stats().MaxConcurrent; got < 2 {
		t.Errorf("peak concurrency after recovery = %d, want parallel requests again", got)
	}
	t.Logf("lowest concurrency limit %d, %d 429s", low.v.Load(), st.Faults)
}

// ---- 2. server errors ----

func TestFaultServerErrorBursts(t *testing.T) {
	statuses := []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
	t.Run("every_4th_rotating", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 12000})
		var n atomic.Int64
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if !isOrdersList(r) {
				return nil
			}
			if i := n.Add(1); i%4 == 0 {
				return &emulator.Fault{Status: statuses[(i/4)%4]}
			}
			return nil
		})
		c := newClient(t, srv, func(c *Config) { c.MaxRetries = 10 })
		stats := mustList(t, srv, c, Orders, ListQuery{})
		st := srv.Stats()
		for _, s := range statuses {
			if st.StatusCounts[s] == 0 {
				t.Errorf("no %d was injected", s)
			}
		}
		if got := clientRetries(c, stats); got != st.Faults {
			t.Errorf("client retries = %d, want one per fault (%d)", got, st.Faults)
		}
	})
	t.Run("burst", func(t *testing.T) {
		// Twenty resource requests in a row fail: every page in flight
		// fails two or three times over.
		srv := startEmulator(t, emulator.Options{Orders: 12000})
		var n atomic.Int64
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if i := n.Add(1); isOrdersList(r) && i > 10 && i <= 30 {
				return &emulator.Fault{Status: statuses[i%4]}
			}
			return nil
		})
		c := newClient(t, srv, func(c *Config) { c.MaxRetries = 10 })
		stats := mustList(t, srv, c, Orders, ListQuery{})
		if st := srv.Stats(); st.Faults != 20 || clientRetries(c, stats) != 20 {
			t.Errorf("faults = %d, client retries = %d; want 20 and 20", st.Faults, clientRetries(c, stats))
		}
	})
	t.Run("random_seeded", func(t *testing.T) {
		// 20% of all requests fail, token requests included.
		srv := startEmulator(t, emulator.Options{Orders: 5000})
		srv.SetFaults(emulator.FailRandomly(0.2, 42, emulator.Fault{Status: http.StatusServiceUnavailable}))
		c := newClient(t, srv, func(c *Config) { c.MaxRetries = 10 })
		mustList(t, srv, c, Orders, ListQuery{})
		if st := srv.Stats(); st.Faults == 0 {
			t.Error("no fault was injected")
		}
	})
	t.Run("permanent_503", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 500})
		srv.SetFaults(emulator.FailFirst(1<<30, emulator.Fault{Status: http.StatusServiceUnavailable}))
		c := newClient(t, srv, func(c *Config) { c.MaxRetries = 3 })
		ids, _, err := listWithin(t, c, Orders, ListQuery{})
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("error = %v, want *APIError 503", err)
		}
		if apiErr.Attempts != 4 || !strings.Contains(err.Error(), "gave up after 4 attempts") {
			t.Errorf("error = %q (attempts %d), want 4 attempts", err, apiErr.Attempts)
		}
		if len(ids) != 0 {
			t.Errorf("listed %d records before the first page succeeded", len(ids))
		}
		if st := srv.Stats(); st.Faults != 4 || c.Requests() != 4 {
			t.Errorf("faults = %d, client requests = %d; want exactly 4", st.Faults, c.Requests())
		}
	})
}

// ---- 3. connection resets and truncated bodies ----

func TestFaultResetAndTruncate(t *testing.T) {
	t.Run("truncated_every_5th", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 12000})
		srv.SetFaults(emulator.FailEveryNth(5, emulator.Fault{Truncate: true}))
		c := newClient(t, srv)
		stats := mustList(t, srv, c, Orders, ListQuery{})
		st := srv.Stats()
		// The transport cannot retry a body cut after the headers: every
		// truncation is the client's own retry.
		if st.Faults < 20 || clientRetries(c, stats) != st.Faults {
			t.Errorf("truncations = %d, client retries = %d; want equal (and at least 20)", st.Faults, clientRetries(c, stats))
		}
	})
	t.Run("reset_first_two", func(t *testing.T) {
		// The first page request goes out on the token request's idle
		// connection: Go's transport sends it again by itself on a fresh
		// one after the reset, and that one is reset too, which the client
		// must retry on its own.
		srv := startEmulator(t, emulator.Options{Orders: 2500})
		srv.SetFaults(emulator.FailFirst(2, emulator.Fault{Reset: true}))
		c := newClient(t, srv)
		stats := mustList(t, srv, c, Orders, ListQuery{})
		st := srv.Stats()
		if st.StatusCounts[0] != 2 {
			t.Errorf("resets = %d, want 2", st.StatusCounts[0])
		}
		if got := clientRetries(c, stats); got < 1 || got > 2 {
			t.Errorf("client retries = %d, want 1 (or 2 if the transport did not retry)", got)
		}
		t.Logf("2 resets: %d retried by the client, %d by the transport", clientRetries(c, stats), 2-clientRetries(c, stats))
	})
	t.Run("random_mixed", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 12000})
		resets := emulator.FailRandomly(0.08, 7, emulator.Fault{Reset: true})
		truncs := emulator.FailRandomly(0.08, 8, emulator.Fault{Truncate: true})
		var truncated atomic.Int64
		srv.SetFaults(func(r *http.Request, seq int64) *emulator.Fault {
			if !isOrdersList(r) {
				return nil
			}
			if f := resets(r, seq); f != nil {
				return f
			}
			if f := truncs(r, seq); f != nil {
				truncated.Add(1)
				return f
			}
			return nil
		})
		c := newClient(t, srv, func(c *Config) { c.MaxRetries = 10 })
		stats := mustList(t, srv, c, Orders, ListQuery{})
		st := srv.Stats()
		if st.StatusCounts[0] == 0 || truncated.Load() == 0 {
			t.Fatalf("resets = %d, truncations = %d; want both", st.StatusCounts[0], truncated.Load())
		}
		if got := clientRetries(c, stats); got < int(truncated.Load()) {
			t.Errorf("client retries = %d, want at least one per truncation (%d)", got, truncated.Load())
		}
		t.Logf("resets %d (client saw %d of them), truncations %d", st.StatusCounts[0], clientRetries(c, stats)-int(truncated.Load()), truncated.Load())
	})
}

// ---- 4. invalid JSON ----

func TestFaultMalformedBody(t *testing.T) {
	garbage := func([]byte) []byte { return []byte(`{"data":[{"id":"x"`) }
	t.Run("transient", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 12000})
		srv.SetFaults(emulator.FailEveryNth(7, emulator.Fault{Mutate: garbage}))
		c := newClient(t, srv)
		stats := mustList(t, srv, c, Orders, ListQuery{})
		if st := srv.Stats(); st.Faults < 10 || clientRetries(c, stats) != st.Faults {
			t.Errorf("garbled pages = %d, client retries = %d; want equal (and at least 10)", st.Faults, clientRetries(c, stats))
		}
	})
	t.Run("permanent", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 500})
		srv.SetFaults(emulator.FailFirst(1<<30, emulator.Fault{Mutate: garbage}))
		c := newClient(t, srv, func(c *Config) { c.MaxRetries = 2 })
		_, _, err := listWithin(t, c, Orders, ListQuery{})
		var tErr *TransportError
		var malformed errMalformed
		if !errors.As(err, &tErr) || !errors.As(err, &malformed) {
			t.Fatalf("error = %v, want a *TransportError for a malformed body", err)
		}
		if tErr.Attempts != 3 {
			t.Errorf("attempts = %d, want 3", tErr.Attempts)
		}
		for _, part := range []string{"GET /v2/orders?", "malformed response body", "unexpected end of JSON input", "(gave up after 3 attempts)"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
		if got := srv.Stats().ListRequests["orders"]; got != 3 {
			t.Errorf("list requests = %d, want 3", got)
		}
	})
}

// ---- 5. token expiring during a long listing ----

func TestFaultTokenExpiresDuringListing(t *testing.T) {
	// 400 pages of 50 at 40ms each, four at a time: at least 4s, two token
	// lifetimes at the least.
	srv := startEmulator(t, emulator.Options{Orders: 20000, TokenLifetime: 2 * time.Second, Latency: 40 * time.Millisecond})
	c := newClient(t, srv, func(c *Config) { c.PageSize = 50; c.MaxParallelRequests = 4 })
	start := time.Now()
	stats := mustList(t, srv, c, Orders, ListQuery{})
	elapsed := time.Since(start)
	st := srv.Stats()
	lifetimes := int(elapsed / (2 * time.Second))
	if st.TokenRequests < 2 || st.TokenRequests < lifetimes {
		t.Errorf("token requests = %d over %v; want a new token every lifetime (at least %d)", st.TokenRequests, elapsed, max(2, lifetimes))
	}
	if c.TokenFetches() != st.TokenRequests {
		t.Errorf("client fetched %d tokens, emulator issued %d", c.TokenFetches(), st.TokenRequests)
	}
	// A request that found its token expired on arrival is retried with a
	// new one, and that costs one extra request at most per token.
	if unauth := st.StatusCounts[http.StatusUnauthorized]; unauth > st.TokenRequests || clientRetries(c, stats) != unauth {
		t.Errorf("401s = %d, client retries = %d, tokens = %d", unauth, clientRetries(c, stats), st.TokenRequests)
	}
	t.Logf("%v, %d tokens, %d 401s, %d pages", elapsed, st.TokenRequests, st.StatusCounts[http.StatusUnauthorized], stats.Pages)
}

func TestFaultTokenRevokedDuringListing(t *testing.T) {
	// The service revokes every token twice during the listing, with
	// requests in flight: each of them is answered 401 once and sent again
	// with the one new token.
	srv := startEmulator(t, emulator.Options{Orders: 12000})
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if i := n.Add(1); isOrdersList(r) && (i == 40 || i == 80) {
			srv.ExpireAllTokens()
		}
		return nil
	})
	c := newClient(t, srv)
	stats := mustList(t, srv, c, Orders, ListQuery{})
	st := srv.Stats()
	unauth := st.StatusCounts[http.StatusUnauthorized]
	if st.TokenRequests != 3 || unauth < 2 || clientRetries(c, stats) != unauth {
		t.Errorf("token requests %d, 401s %d, client retries %d; want 3 tokens and one retry per 401", st.TokenRequests, unauth, clientRetries(c, stats))
	}
}

// ---- 6. token endpoint failures ----

func TestFaultTokenEndpoint(t *testing.T) {
	onToken := func(f emulator.Fault, times int) emulator.FaultFunc {
		var n atomic.Int64
		return func(r *http.Request, _ int64) *emulator.Fault {
			if r.URL.Path == TokenPath && n.Add(1) <= int64(times) {
				return &f
			}
			return nil
		}
	}
	t.Run("transient_503", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 500})
		srv.SetFaults(onToken(emulator.Fault{Status: http.StatusServiceUnavailable}, 2))
		c := newClient(t, srv)
		mustList(t, srv, c, Orders, ListQuery{})
		if st := srv.Stats(); st.Faults != 2 || st.TokenRequests != 1 || c.TokenFetches() != 1 {
			t.Errorf("faults %d, token requests %d, fetches %d; want 2, 1, 1", st.Faults, st.TokenRequests, c.TokenFetches())
		}
	})
	t.Run("transient_slow", func(t *testing.T) {
		// A token answer slower than request_timeout is retried too.
		srv := startEmulator(t, emulator.Options{Orders: 500})
		srv.SetFaults(onToken(emulator.Fault{Delay: time.Second}, 1))
		c := newClient(t, srv, func(c *Config) { c.RequestTimeout = 200 * time.Millisecond })
		mustList(t, srv, c, Orders, ListQuery{})
		if st := srv.Stats(); st.Faults != 1 || st.TokenRequests != 1 {
			t.Errorf("faults %d, token requests %d; want 1 and 1", st.Faults, st.TokenRequests)
		}
	})
	t.Run("permanent_503", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 500})
		srv.SetFaults(onToken(emulator.Fault{Status: http.StatusServiceUnavailable}, 1<<30))
		c := newClient(t, srv, func(c *Config) { c.MaxRetries = 3 })
		_, _, err := listWithin(t, c, Orders, ListQuery{})
		var authErr *AuthError
		var apiErr *APIError
		if !errors.As(err, &authErr) || !errors.As(authErr.Err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("error = %v, want *AuthError wrapping the 503 *APIError", err)
		}
		if apiErr.Attempts != 4 || apiErr.Method != http.MethodPost || apiErr.Path != TokenPath {
			t.Errorf("api error %+v, want POST %s after 4 attempts", apiErr, TokenPath)
		}
		for _, part := range []string{"could not obtain an access token from " + srv.URL() + TokenPath, "503 Service Unavailable", "(gave up after 4 attempts)"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
		st := srv.Stats()
		if st.Faults != 4 || st.ListRequests["orders"] != 0 || c.TokenFetches() != 0 {
			t.Errorf("token attempts %d, list requests %d, fetches %d; want 4, 0, 0", st.Faults, st.ListRequests["orders"], c.TokenFetches())
		}
	})
	t.Run("wrong_credentials", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 500})
		c := newClient(t, srv, func(c *Config) { c.ClientSecret = "not-the-secret" })
		_, _, err := listWithin(t, c, Orders, ListQuery{})
		var authErr *AuthError
		var apiErr *APIError
		if !errors.As(err, &authErr) || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
			t.Fatalf("error = %v, want *AuthError wrapping a 401", err)
		}
		if apiErr.Attempts != 1 || strings.Contains(err.Error(), "gave up") || strings.Contains(err.Error(), "not-the-secret") {
			t.Errorf("error = %q (attempts %d); want one attempt, no secret", err, apiErr.Attempts)
		}
		if st := srv.Stats(); st.TokenRequests != 1 || st.ListRequests["orders"] != 0 {
			t.Errorf("token requests %d, list requests %d; want 1 and 0", st.TokenRequests, st.ListRequests["orders"])
		}
	})
}

// ---- 7. slow answers ----

func TestFaultSlowerThanRequestTimeout(t *testing.T) {
	const timeout = 250 * time.Millisecond
	t.Run("some_slow", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 5000})
		srv.SetFaults(emulator.FailEveryNth(10, emulator.Fault{Delay: 4 * timeout}))
		c := newClient(t, srv, func(c *Config) { c.RequestTimeout = timeout })
		stats := mustList(t, srv, c, Orders, ListQuery{})
		if st := srv.Stats(); st.Faults < 5 || clientRetries(c, stats) != st.Faults {
			t.Errorf("slow answers = %d, client retries = %d; want equal (and at least 5)", st.Faults, clientRetries(c, stats))
		}
	})
	t.Run("always_slow", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 500})
		srv.SetFaults(emulator.FailFirst(1<<30, emulator.Fault{Delay: 4 * timeout}))
		c := newClient(t, srv, func(c *Config) { c.RequestTimeout = timeout; c.MaxRetries = 2 })
		start := time.Now()
		_, _, err := listWithin(t, c, Orders, ListQuery{})
		var tErr *TransportError
		if !errors.As(err, &tErr) || tErr.Attempts != 3 {
			t.Fatalf("error = %v, want *TransportError after 3 attempts", err)
		}
		for _, part := range []string{"GET /v2/orders?", "no complete answer within request_timeout (250ms)", "(gave up after 3 attempts)"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v must not look like the caller's own deadline", err)
		}
		if d := time.Since(start); d > 3*timeout+time.Second {
			t.Errorf("three timed-out attempts took %v", d)
		}
	})
}

// ---- 8. cancellation ----

// settleGoroutines waits until the goroutine count is back to at most
// baseline, and reports the count.
func settleGoroutines(baseline int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(3 * time.Second); n > baseline && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestFaultCancelMidListing(t *testing.T) {
	check := func(t *testing.T, srv *emulator.Server, run func(c *Client, cancelled *atomic.Int64) error) {
		t.Helper()
		baseline := runtime.NumGoroutine()
		c := newClient(t, srv)
		var cancelledAt atomic.Int64
		err := run(c, &cancelledAt)
		returned := time.Now()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
		if cancelledAt.Load() == 0 {
			t.Fatal("the listing ended before it was cancelled")
		}
		if d := returned.Sub(time.Unix(0, cancelledAt.Load())); d > time.Second {
			t.Errorf("List returned %v after the cancellation", d)
		}
		c.http.CloseIdleConnections()
		if n := settleGoroutines(baseline); n > baseline {
			buf := make([]byte, 1<<20)
			t.Errorf("goroutines: %d before, %d after the listing\n%s", baseline, n, buf[:runtime.Stack(buf, true)])
		}
	}
	t.Run("in_emit_after_1950", func(t *testing.T) {
		srv := startEmulator(t, emulator.Options{Orders: 20000, Latency: 5 * time.Millisecond})
		check(t, srv, func(c *Client, cancelledAt *atomic.Int64) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			listed := 0
			_, err := List(ctx, c, Orders, ListQuery{}, func(Order) error {
				if listed++; listed == 1950 {
					cancelledAt.Store(time.Now().UnixNano())
					cancel()
				}
				return nil
			})
			// The rest of the page being handed over may still arrive;
			// no page after it, though several are fetched already.
			if listed > 2000 {
				t.Errorf("emit called %d times, want no page after the one cancelled at 1950", listed)
			}
			return err
		})
	})
	t.Run("requests_in_flight", func(t *testing.T) {
		// Every answer takes 300ms: the cancellation lands while all
		// workers wait on the service.
		srv := startEmulator(t, emulator.Options{Orders: 20000, Latency: 300 * time.Millisecond})
		check(t, srv, func(c *Client, cancelledAt *atomic.Int64) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var listed atomic.Int64
			go func() {
				for listed.Load() < 150 {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond)
				cancelledAt.Store(time.Now().UnixNano())
				cancel()
			}()
			_, err := List(ctx, c, Orders, ListQuery{}, func(Order) error { listed.Add(1); return nil })
			return err
		})
	})
	t.Run("during_retry_after", func(t *testing.T) {
		// The service asks for a 30s pause: the cancellation must cut it.
		srv := startEmulator(t, emulator.Options{Orders: 2000})
		var n atomic.Int64
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if isOrdersList(r) && n.Add(1) > 3 {
				return &emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: "30"}
			}
			return nil
		})
		check(t, srv, func(c *Client, cancelledAt *atomic.Int64) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				for srv.Stats().StatusCounts[http.StatusTooManyRequests] < 2 {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(50 * time.Millisecond)
				cancelledAt.Store(time.Now().UnixNano())
				cancel()
			}()
			_, err := List(ctx, c, Orders, ListQuery{}, func(Order) error { return nil })
			return err
		})
	})
}

// ---- 9. responses that break the contract ----

// contractCase mutates the list answers chosen by when and expects the
// listing of orders to end within maxRequests list requests.
type contractCase struct {
	name        string
	orders      int
	pageSize    int
	sort        string
	ties        []int                      // tie groups; none unless set
	prepare     func(srv *emulator.Server) // before the listing
	when        func(r *http.Request) bool
	mutate      func(doc map[string]any)
	maxRequests int
	check       func(t *testing.T, srv *emulator.Server, got []string, stats ListStats, err error)
}

func runContractCase(t *testing.T, cc contractCase) {
	ties := cc.ties
	if ties == nil {
		ties = []int{}
	}
	srv := startEmulator(t, emulator.Options{Orders: cc.orders, OrderTieGroups: ties})
	if cc.prepare != nil {
		cc.prepare(srv)
	}
	var mutated atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if !isOrdersList(r) || !cc.when(r) {
			return nil
		}
		return &emulator.Fault{Mutate: editList(func(doc map[string]any) {
			mutated.Add(1)
			cc.mutate(doc)
		})}
	})
	c := newClient(t, srv, func(c *Config) {
		if cc.pageSize > 0 {
			c.PageSize = cc.pageSize
		}
	})
	got, stats, err := listWithin(t, c, Orders, ListQuery{Sort: cc.sort})
	if mutated.Load() == 0 {
		t.Fatal("no answer was mutated")
	}
	if reqs := srv.Stats().ListRequests["orders"]; reqs > cc.maxRequests {
		t.Errorf("%d list requests, bound %d", reqs, cc.maxRequests)
	}
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Fatalf("%s listed twice", id)
		}
		seen[id] = true
	}
	cc.check(t, srv, got, stats, err)
}

func wantProtocolError(parts ...string) func(*testing.T, *emulator.Server, []string, ListStats, error) {
	return func(t *testing.T, _ *emulator.Server, _ []string, _ ListStats, err error) {
		t.Helper()
		var pErr *ProtocolError
		if !errors.As(err, &pErr) {
			t.Fatalf("error = %v, want *ProtocolError", err)
		}
		for _, part := range parts {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
	}
}

// wantComplete accepts exactly all orders in the default order.
func wantComplete(t *testing.T, srv *emulator.Server, got []string, _ ListStats, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want, _ := srv.ExpectedIDs("orders", "", "created_at")
	if !slices.Equal(got, want) {
		t.Fatalf("listed %d ids, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}

// wantCompleteModuloTies accepts the records of a tie group (one created_at)
// in any order: the engine lists a tie group that fills a keyset page by id,
// and the service promises no order within one.
func wantCompleteModuloTies(t *testing.T, srv *emulator.Server, got []string, _ ListStats, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want, _ := srv.ExpectedIDs("orders", "", "created_at")
	if len(got) != len(want) {
		t.Fatalf("listed %d ids, want %d", len(got), len(want))
	}
	created := map[string]time.Time{}
	for _, o := range srv.Orders() {
		created[o.ID] = o.CreatedAt
	}
	for i := range want {
		if _, ok := created[got[i]]; !ok || !created[got[i]].Equal(created[want[i]]) {
			t.Fatalf("position %d holds %s (created %v), want a record created %v", i, got[i], created[got[i]], created[want[i]])
		}
	}
}

// wantTotalOffBy expects the ProtocolError of a keyset page whose
// results.total is off by delta from what the page holds.
func wantTotalOffBy(delta int) func(*testing.T, *emulator.Server, []string, ListStats, error) {
	return func(t *testing.T, _ *emulator.Server, _ []string, _ ListStats, err error) {
		t.Helper()
		var pErr *ProtocolError
		if !errors.As(err, &pErr) {
			t.Fatalf("error = %v, want *ProtocolError", err)
		}
		m := regexp.MustCompile(`results\.total is (\d+), so the page \(page\[limit\] 100\) should hold (\d+) records, but it holds (\d+)$`).FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("error %q does not compare the page with its total", err)
		}
		total, _ := strconv.Atoi(m[1])
		should, _ := strconv.Atoi(m[2])
		held, _ := strconv.Atoi(m[3])
		if remaining := total - delta; should != min(total, 100) || held != min(remaining, 100) || held == should {
			t.Errorf("error %q: want a total off by %d", err, delta)
		}
	}
}

func atOffset(offset int) func(*http.Request) bool {
	return func(r *http.Request) bool { return offsetOf(r) == offset && r.URL.Query().Get("filter") == "" }
}

// once lets when pass the first time only.
func once(when func(*http.Request) bool) func(*http.Request) bool {
	var done atomic.Bool
	return func(r *http.Request) bool { return when(r) && !done.Swap(true) }
}

func always(*http.Request) bool { return true }

func addToTotal(delta int) func(doc map[string]any) {
	return func(doc map[string]any) { setDocTotal(doc, max(0, docTotal(doc)+delta)) }
}

// swapCreatedAt swaps the created_at of the first two neighbours from
// record 10 on that differ.
func swapCreatedAt(doc map[string]any) {
	for i := 10; i+1 < len(docRecords(doc)); i++ {
		a, b := recordTimestamps(docRecord(doc, i)), recordTimestamps(docRecord(doc, i+1))
		if a["created_at"] != b["created_at"] {
			a["created_at"], b["created_at"] = b["created_at"], a["created_at"]
			return
		}
	}
	panic("no two records with different created_at")
}

func TestFaultContractBreaks(t *testing.T) {
	cases := []contractCase{
		{
			name: "missing_meta", orders: 2500, when: always,
			mutate:      func(doc map[string]any) { delete(doc, "meta") },
			maxRequests: 1,
			check:       wantProtocolError("GET /v2/orders?", "breaks the API contract", "the response has no results.total"),
		},
		{
			name: "data_null", orders: 2500, when: always,
			mutate:      func(doc map[string]any) { doc["data"] = nil },
			maxRequests: 1,
			check:       wantProtocolError("the response has no data array"),
		},
		{
			name: "negative_total", orders: 2500, when: always,
			mutate:      func(doc map[string]any) { setDocTotal(doc, -1) },
			maxRequests: 1,
			check:       wantProtocolError("results.total is negative (-1)"),
		},
		{
			// Every page claims 50 records more than exist. The offset
			// pages disagree at the end, the engine reads again by keyset,
			// and there a page holds fewer records than its own total says
			// it must: an error, after a bounded number of requests.
			name: "total_plus_50_everywhere", orders: 2500, when: always,
			mutate:      addToTotal(50),
			maxRequests: 60,
			check:       wantTotalOffBy(50),
		},
		{
			name: "total_plus_50_past_offset_limit", orders: 12000, when: always,
			mutate:      addToTotal(50),
			maxRequests: 160,
			check:       wantTotalOffBy(50),
		},
		{
			// A total 50 short: trusting it would end the listing 50 records
			// early; a keyset page holding more records than its total
			// gives it away.
			name: "total_minus_50_everywhere", orders: 2500, when: always,
			mutate:      addToTotal(-50),
			maxRequests: 60,
			check:       wantTotalOffBy(-50),
		},
		{
			// Only the first page is wrong: the other pages disagree with
			// it, the engine reads the range again by keyset, and the
			// listing is complete and correct.
			name: "total_plus_50_first_page_once", orders: 2500, when: once(atOffset(0)),
			mutate:      addToTotal(50),
			maxRequests: 60,
			check:       wantComplete,
		},
		{
			name: "total_minus_50_first_page_once", orders: 2500, when: once(atOffset(0)),
			mutate:      addToTotal(-50),
			maxRequests: 60,
			check:       wantComplete,
		},
		{
			// The same with tie groups, which the keyset pass lists by id.
			name: "total_plus_50_first_page_once_with_ties", orders: 2500, ties: []int{350, 150}, when: once(atOffset(0)),
			mutate:      addToTotal(50),
			maxRequests: 70,
			check:       wantCompleteModuloTies,
		},
		{
			name: "empty_page_in_the_middle_once", orders: 2500, when: once(atOffset(1200)),
			mutate:      func(doc map[string]any) { doc["data"] = []any{} },
			maxRequests: 60,
			check:       wantComplete,
		},
		{
			name: "more_records_than_limit", orders: 2500, when: atOffset(300),
			mutate: func(doc map[string]any) {
				extra := map[string]any{}
				for k, v := range docRecord(doc, 0) {
					extra[k] = v
				}
				extra["id"] = "an-extra-record"
				doc["data"] = append(docRecords(doc), extra)
			},
			maxRequests: 30,
			check:       wantProtocolError("page%5Boffset%5D=300", "page[limit] was 100 but the page holds 101 records"),
		},
		{
			name: "record_without_id", orders: 2500, when: atOffset(200),
			mutate:      func(doc map[string]any) { delete(docRecord(doc, 3), "id") },
			maxRequests: 30,
			check:       wantProtocolError("record 3 of the page at offset 200: a record has no id"),
		},
		{
			name: "record_with_numeric_id", orders: 2500, when: atOffset(200),
			mutate:      func(doc map[string]any) { docRecord(doc, 5)["id"] = 12345 },
			maxRequests: 30,
			check:       wantProtocolError("record 5 of the page at offset 200: a record has an id that is not a non-empty string: 12345"),
		},
		{
			name: "created_at_swapped", orders: 2500, when: atOffset(300),
			mutate:      swapCreatedAt,
			maxRequests: 30,
			check:       wantProtocolError("?sort=created_at", "records are out of created_at order"),
		},
		{
			name: "created_at_swapped_descending", orders: 2500, sort: "-created_at", when: atOffset(300),
			mutate:      swapCreatedAt,
			maxRequests: 30,
			check:       wantProtocolError("?sort=-created_at", "records are out of -created_at order"),
		},
		{
			name: "created_at_not_a_timestamp", orders: 2500, when: atOffset(300),
			mutate:      func(doc map[string]any) { recordTimestamps(docRecord(doc, 7))["created_at"] = "yesterday" },
			maxRequests: 30,
			check:       wantProtocolError(`created_at "yesterday", which is not an ISO 8601 timestamp`),
		},
	}
	for _, cc := range cases {
		t.Run(cc.name, func(t *testing.T) { runContractCase(t, cc) })
	}
}

// Duplicate ids across pages: the record at position 500 comes back with
// the id of record 499, the last of the page before.
//
// Once, it looks like offsets shifting under writes: the engine reads the
// window again by keyset and the list is complete and correct. Always, the
// keyset page holds both records under one id, which no answer may do:
// deduplicating would hide record 500, so the listing fails instead. Either
// way no id is listed twice.
func TestFaultDuplicateIDAcrossPages(t *testing.T) {
	var prev, victim string
	prepare := func(srv *emulator.Server) {
		ids, _ := srv.ExpectedIDs("orders", "", "created_at")
		prev, victim = ids[499], ids[500]
	}
	rename := func(doc map[string]any) {
		for _, r := range docRecords(doc) {
			if rec := r.(map[string]any); rec["id"] == victim {
				rec["id"] = prev
			}
		}
	}
	t.Run("once", func(t *testing.T) {
		runContractCase(t, contractCase{
			orders: 2500, prepare: prepare, when: once(atOffset(500)), mutate: rename, maxRequests: 60,
			check: wantComplete,
		})
	})
	t.Run("always", func(t *testing.T) {
		runContractCase(t, contractCase{
			orders: 2500, prepare: prepare, when: always, mutate: rename, maxRequests: 60,
			check: func(t *testing.T, srv *emulator.Server, got []string, stats ListStats, err error) {
				wantProtocolError(fmt.Sprintf("have the same id %q", prev))(t, srv, got, stats, err)
				if len(got) > 500 {
					t.Errorf("listed %d records, want none past the broken page", len(got))
				}
			},
		})
	})
}

// ---- 10. writes during the listing ----

func TestFaultWritesDuringListingHeavy(t *testing.T) {
	srv := startEmulator(t, emulator.Options{Orders: 12000, OrderTieGroups: []int{300, 300}})
	before := map[string]bool{}
	for _, o := range srv.Orders() {
		before[o.ID] = true
	}
	victims := srv.Orders()
	var mu sync.Mutex
	inserted := map[string]bool{}
	var n, writes atomic.Int64
	// Every other list request, synchronously before it is answered: two
	// inserts, three updates of old records, two deletes.
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		i := n.Add(1)
		if !isOrdersList(r) || i%2 != 0 {
			return nil
		}
		for k := range int64(2) {
			o := srv.InsertOrder()
			mu.Lock()
			inserted[o.ID] = true
			mu.Unlock()
			_ = k
		}
		for k := range int64(3) {
			_, _ = srv.UpdateOrder(victims[int(i*37+k*1009)%len(victims)].ID)
		}
		for k := range int64(2) {
			_ = srv.DeleteOrder(victims[int(i*101+k*503+13)%len(victims)].ID)
		}
		writes.Add(7)
		return nil
	})
	c := newClient(t, srv)
	for _, sort := range []string{"created_at", "updated_at", "-created_at", "-updated_at"} {
		t.Run(sort, func(t *testing.T) {
			var late []string
			got, _, err := listWithin(t, c, Orders, ListQuery{Sort: sort, Late: func(r Record) error {
				late = append(late, r.RecordID())
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			got = append(late, got...)
			listed := map[string]bool{}
			for _, id := range got {
				if listed[id] {
					t.Fatalf("%s listed twice", id)
				}
				listed[id] = true
				mu.Lock()
				known := before[id] || inserted[id]
				mu.Unlock()
				if !known {
					t.Fatalf("%s was listed but never existed", id)
				}
			}
			after := map[string]bool{}
			for _, o := range srv.Orders() {
				after[o.ID] = true
			}
			missed := 0
			for id := range before {
				if after[id] && !listed[id] {
					missed++
				}
			}
			if missed > 0 {
				t.Fatalf("%d records existed before and after the listing but were not listed", missed)
			}
			t.Logf("%d listed (%d late), %d writes so far", len(got), len(late), writes.Load())
		})
	}
}
