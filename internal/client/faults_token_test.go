package client

// The fault matrix (see faults_helpers_test.go): access tokens that expire
// or are revoked during a listing, and a failing token endpoint.

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// ---- token expiring during a long listing ----

func TestFaultTokenExpiresDuringListing(t *testing.T) {
	longTest(t)
	// 400 pages of 50 at 40ms each, four at a time: at least 4s, two token
	// lifetimes at the least.
	srv := emulatortest.Start(t, emulator.Options{Orders: 20000, TokenLifetime: 2 * time.Second, Latency: 40 * time.Millisecond})
	c := newClient(t, srv, func(c *testConfig) { c.PageSize = 50; c.MaxParallelRequests = 4 })
	start := time.Now()
	stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
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
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if i := n.Add(1); isOrdersList(r) && (i == 40 || i == 80) {
			srv.ExpireAllTokens()
		}
		return nil
	})
	c := newClient(t, srv)
	stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
	st := srv.Stats()
	unauth := st.StatusCounts[http.StatusUnauthorized]
	if st.TokenRequests != 3 || unauth < 2 || clientRetries(c, stats) != unauth {
		t.Errorf("token requests %d, 401s %d, client retries %d; want 3 tokens and one retry per 401", st.TokenRequests, unauth, clientRetries(c, stats))
	}
}

// ---- token endpoint failures ----

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
		srv := emulatortest.Start(t, emulator.Options{Orders: 500})
		srv.SetFaults(onToken(emulator.Fault{Status: http.StatusServiceUnavailable}, 2))
		c := newClient(t, srv)
		mustList(t, srv, c, commerce.Orders, ListQuery{})
		if st := srv.Stats(); st.Faults != 2 || st.TokenRequests != 1 || c.TokenFetches() != 1 {
			t.Errorf("faults %d, token requests %d, fetches %d; want 2, 1, 1", st.Faults, st.TokenRequests, c.TokenFetches())
		}
	})
	t.Run("transient_slow", func(t *testing.T) {
		// A token answer slower than request_timeout is retried too.
		srv := emulatortest.Start(t, emulator.Options{Orders: 500})
		srv.SetFaults(onToken(emulator.Fault{Delay: time.Second}, 1))
		c := newClient(t, srv, func(c *testConfig) { c.RequestTimeout = 200 * time.Millisecond })
		mustList(t, srv, c, commerce.Orders, ListQuery{})
		if st := srv.Stats(); st.Faults != 1 || st.TokenRequests != 1 {
			t.Errorf("faults %d, token requests %d; want 1 and 1", st.Faults, st.TokenRequests)
		}
	})
	t.Run("permanent_503", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 500})
		srv.SetFaults(onToken(emulator.Fault{Status: http.StatusServiceUnavailable}, 1<<30))
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 3 })
		_, _, err := listWithin(t, c, commerce.Orders, ListQuery{})
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
		srv := emulatortest.Start(t, emulator.Options{Orders: 500})
		c := newClient(t, srv, func(c *testConfig) { c.ClientSecret = "not-the-secret" })
		_, _, err := listWithin(t, c, commerce.Orders, ListQuery{})
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
