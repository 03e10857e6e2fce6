package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// testConfig is what a test tweaks: the client's configuration and the
// page size of the listings it runs on the client (see List).
type testConfig struct {
	Config
	PageSize int
}

// newClient builds a client for srv with short backoffs; tweak edits the
// config first.
func newClient(t testing.TB, srv *emulator.Server, tweak ...func(*testConfig)) *Client {
	t.Helper()
	cfg := testConfig{Config: Config{
		BaseURL:      srv.URL(),
		ClientID:     emulator.DefaultClientID,
		ClientSecret: emulator.DefaultClientSecret,
		MaxRetries:   DefaultMaxRetries,
		RetryWaitMin: time.Millisecond,
		RetryWaitMax: 20 * time.Millisecond,
	}}
	for _, f := range tweak {
		f(&cfg)
	}
	c, err := New(cfg.Config)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if cfg.PageSize != 0 {
		pageSizes.Store(c, cfg.PageSize)
	}
	return c
}

func listIDs[T commerce.Record](t testing.TB, c *Client, kind commerce.Kind[T], q ListQuery) ([]string, ListStats, error) {
	t.Helper()
	var ids []string
	stats, err := List(context.Background(), c, kind, q, func(r T) error {
		ids = append(ids, r.RecordID())
		return nil
	})
	return ids, stats, err
}

func TestOneTokenForManyRequests(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 2500})
	c := newClient(t, srv)
	for range 3 {
		if _, _, err := listIDs(t, c, commerce.Orders, ListQuery{}); err != nil {
			t.Fatal(err)
		}
	}
	st := srv.Stats()
	if st.TokenRequests != 1 {
		t.Errorf("token requests = %d, want 1 for %d list requests", st.TokenRequests, st.ListRequests["orders"])
	}
	if st.ListRequests["orders"] != 3*26 {
		t.Errorf("list requests = %d, want 78 (25 pages of 100 and the empty one that shows the end, three times)", st.ListRequests["orders"])
	}
}

func TestNewTokenAfterExpiry(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 50, TokenLifetime: 2 * time.Second})
	c := newClient(t, srv)
	if _, _, err := listIDs(t, c, commerce.Orders, ListQuery{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	if _, _, err := listIDs(t, c, commerce.Orders, ListQuery{}); err != nil {
		t.Fatal(err)
	}
	st := srv.Stats()
	if st.TokenRequests != 2 {
		t.Errorf("token requests = %d, want 2", st.TokenRequests)
	}
	// Refreshed before expiry: the service never had to refuse a token.
	if st.StatusCounts[http.StatusUnauthorized] != 0 {
		t.Errorf("401 answers = %d, want 0: the token should be refreshed before it expires", st.StatusCounts[http.StatusUnauthorized])
	}
}

func TestReauthenticatesOn401(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 50})
	c := newClient(t, srv)
	if err := c.Authenticate(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv.ExpireAllTokens() // revoked early, unknown to the client
	ids, _, err := listIDs(t, c, commerce.Orders, ListQuery{})
	if err != nil {
		t.Fatalf("list after revocation: %v", err)
	}
	if len(ids) != 50 {
		t.Errorf("listed %d, want 50", len(ids))
	}
	st := srv.Stats()
	if st.TokenRequests != 2 || st.StatusCounts[http.StatusUnauthorized] != 1 {
		t.Errorf("token requests = %d, 401s = %d; want 2 and 1", st.TokenRequests, st.StatusCounts[http.StatusUnauthorized])
	}
}

func TestBadCredentials(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	c := newClient(t, srv, func(c *testConfig) { c.ClientSecret = "wrong-secret-value" })
	_, _, err := listIDs(t, c, commerce.Orders, ListQuery{})
	var authErr *AuthError
	if !errors.As(err, &authErr) {
		t.Fatalf("error = %v, want *AuthError", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
		t.Fatalf("error = %v, want the service's 401", err)
	}
	if strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("error text leaks the secret: %v", err)
	}
	if srv.Stats().TokenRequests != 1 {
		t.Errorf("token requests = %d; a 401 from the token endpoint must not be retried", srv.Stats().TokenRequests)
	}
}

func TestTokenEndpointTransientFailureIsRetried(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	srv.SetFaults(func(r *http.Request, seq int64) *emulator.Fault {
		if r.URL.Path == TokenPath && seq <= 2 {
			return &emulator.Fault{Status: http.StatusServiceUnavailable}
		}
		return nil
	})
	c := newClient(t, srv)
	if _, _, err := listIDs(t, c, commerce.Orders, ListQuery{}); err != nil {
		t.Fatal(err)
	}
	if st := srv.Stats(); st.Faults != 2 || st.TokenRequests != 1 {
		t.Errorf("token endpoint answered %d faults and %d tokens; want two 503s, then one token", st.Faults, st.TokenRequests)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	srv.SetFaults(emulator.FailFirst(1, emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"}))
	c := newClient(t, srv)
	start := time.Now()
	if _, _, err := listIDs(t, c, commerce.Orders, ListQuery{}); err != nil {
		t.Fatal(err)
	}
	// Backoff alone would have waited about a millisecond.
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v; Retry-After asked for 1s", waited)
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	d, ok := parseRetryAfter(now.Add(3*time.Second).Format(http.TimeFormat), now)
	if !ok || d != 3*time.Second {
		t.Errorf("parseRetryAfter(date) = %v, %v; want 3s", d, ok)
	}
	if _, ok := parseRetryAfter("soon", now); ok {
		t.Error("parseRetryAfter accepted garbage")
	}
}

func TestServerErrorsRetriedThenReported(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	srv.SetFaults(emulator.FailFirst(2, emulator.Fault{Status: http.StatusBadGateway}))
	c := newClient(t, srv)
	if _, _, err := listIDs(t, c, commerce.Orders, ListQuery{}); err != nil {
		t.Fatalf("two 502s then success: %v", err)
	}

	srv.SetFaults(emulator.FailFirst(1000, emulator.Fault{Status: http.StatusServiceUnavailable}))
	c = newClient(t, srv, func(c *testConfig) { c.MaxRetries = 3 })
	_, _, err := listIDs(t, c, commerce.Orders, ListQuery{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("error = %v, want the service's 503", err)
	}
	if apiErr.Attempts != 4 || !strings.Contains(err.Error(), "gave up after 4 attempts") {
		t.Errorf("error = %q (attempts %d), want it to say 4 attempts", err, apiErr.Attempts)
	}
}

func TestNonJSONErrorBody(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	srv.SetFaults(emulator.FailFirst(100, emulator.Fault{Status: http.StatusBadGateway,
		Body: "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"}))
	c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 1 })
	_, _, err := listIDs(t, c, commerce.Orders, ListQuery{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v, want *APIError", err)
	}
	if len(apiErr.Errors) != 0 || !strings.Contains(apiErr.BodyExcerpt, "Bad Gateway") {
		t.Errorf("excerpt = %q, errors = %v", apiErr.BodyExcerpt, apiErr.Errors)
	}
	if !strings.Contains(err.Error(), "502 Bad Gateway: response body was not a JSON:API error document") {
		t.Errorf("error = %q", err)
	}
}

func TestJSONAPIErrorWithStringStatus(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5, StringStatus: true})
	c := newClient(t, srv)
	_, _, err := listIDs(t, c, commerce.Orders, ListQuery{Filter: filter.Parsed{Terms: filter.Expr{filter.NewTerm(filter.Eq, "nosuchfield", "1")}}})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || len(apiErr.Errors) == 0 || apiErr.Errors[0].Status != 400 {
		t.Fatalf("error = %#v", err)
	}
	if apiErr.Errors[0].Detail == "" || apiErr.FirstRequestID() == "" {
		t.Errorf("want the service's detail and request id, got %+v", apiErr.Errors[0])
	}
}

func TestRateLimitCeiling(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 1000})
	c := newClient(t, srv, func(c *testConfig) { c.RateLimit = 20; c.PageSize = 100 })
	start := time.Now()
	if _, _, err := listIDs(t, c, commerce.Orders, ListQuery{}); err != nil {
		t.Fatal(err)
	}
	// 10 requests at 20/s with a burst of 1 need at least 9 gaps of 50ms.
	if elapsed := time.Since(start); elapsed < 450*time.Millisecond {
		t.Errorf("10 requests took %v; rate_limit 20/s allows no less than 450ms", elapsed)
	}
}

func TestNormalizeServiceURL(t *testing.T) {
	good := map[string]string{
		"https://api.example.com":          "https://api.example.com",
		"https://api.example.com/":         "https://api.example.com",
		"https://example.com/commerce/":    "https://example.com/commerce",
		"http://127.0.0.1:8080":            "http://127.0.0.1:8080",
		"http://localhost:1234/":           "http://localhost:1234",
		"http://[::1]:99":                  "http://[::1]:99",
		"https://API.example.com:8443/api": "https://API.example.com:8443/api",
	}
	for in, want := range good {
		got, err := NormalizeServiceURL(in)
		if err != nil || got != want {
			t.Errorf("NormalizeServiceURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"api.example.com":                        "not an absolute URL",
		"http://api.example.com":                 "plain http",
		"http://10.0.0.1":                        "plain http",
		"ftp://example.com":                      "scheme",
		"https://example.com/?x=1":               "query string",
		"https://example.com/#frag":              "fragment",
		"https://user:pw@example.com":            "user information",
		"https://example.com/v2":                 "ends in /v2",
		"https://example.com/v2/":                "ends in /v2",
		" https://example.com":                   "white space",
		"https://example.com/oauth/access_token": "ends in /oauth/access_token",
	}
	for in, want := range bad {
		if _, err := NormalizeServiceURL(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NormalizeServiceURL(%q) error = %v; want it to mention %q", in, err, want)
		}
	}
}

func TestGetByID(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 30})
	c := newClient(t, srv)
	want := srv.Accounts()[3]
	got, err := Get(context.Background(), c, commerce.Accounts, want.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != want.Name || got.ID != want.ID || got.JSON == "" {
		t.Errorf("got %+v, want account %q", got, want.Name)
	}
	_, err = Get(context.Background(), c, commerce.Accounts, "no-such-id", false)
	if !IsStatus(err, http.StatusNotFound) {
		t.Errorf("unknown id: error = %v, want 404", err)
	}
}

// longTest skips a test that lists tens of thousands of records or waits on
// real clocks when `go test -short` (make unit) asks for the fast loop;
// make test and CI run it.
func longTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("long: runs in make test, not in make unit (-short)")
	}
}
