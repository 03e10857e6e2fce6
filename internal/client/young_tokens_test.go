package client

// Access tokens that die young: the service revokes each token after a few
// requests (emulator.Options.TokenRequests). A token that served requests
// is not a refused token: the read goes on with fresh ones, with fewer
// requests in flight, and gives up only when fresh tokens serve nothing.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestYoungTokensListing lists at the conditions of the issue: tokens good
// for 7 requests, 10 ms away, 6,000 accounts (7 runs in 9 failed before),
// and tokens good for 3 requests over 5,000 orders (failed).
func TestYoungTokensListing(t *testing.T) {
	for _, tc := range []struct {
		name           string
		perToken, runs int
		opts           emulator.Options
		list           func(t *testing.T, srv *emulator.Server, c *Client) ListStats
	}{
		{"accounts_7_uses", 7, 5, emulator.Options{Accounts: 6000, Latency: 10 * time.Millisecond},
			func(t *testing.T, srv *emulator.Server, c *Client) ListStats {
				return mustList(t, srv, c, commerce.Accounts, ListQuery{})
			}},
		{"orders_3_uses", 3, 1, emulator.Options{Orders: 5000, Latency: 10 * time.Millisecond},
			func(t *testing.T, srv *emulator.Server, c *Client) ListStats {
				return mustList(t, srv, c, commerce.Orders, ListQuery{})
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.TokenRequests = tc.perToken
			srv := emulatortest.Start(t, tc.opts)
			for run := 1; run <= tc.runs; run++ {
				unauth := srv.Stats().StatusCounts[http.StatusUnauthorized]
				c := newClient(t, srv) // the default: up to 32 in flight
				start := time.Now()
				stats := tc.list(t, srv, c)
				unauth = srv.Stats().StatusCounts[http.StatusUnauthorized] - unauth
				t.Logf("run %d: %d pages in %v, %d requests, %d tokens, %d 401s, in flight now %d",
					run, stats.Pages, time.Since(start).Round(time.Millisecond), c.Requests(), c.TokenFetches(), unauth, c.inFlight.current())
				// Each token serves perToken requests: at least
				// pages/perToken tokens, and not many more.
				if lo := (stats.Pages + tc.perToken - 1) / tc.perToken; c.TokenFetches() < lo || c.TokenFetches() > 2*lo+1 {
					t.Errorf("run %d: %d tokens for %d pages; want %d to %d", run, c.TokenFetches(), stats.Pages, lo, 2*lo+1)
				}
			}
		})
	}
}

// TestYoungTokensLookups: 50 lookups at once, with tokens good for 3
// requests (4 of 50 failed before).
func TestYoungTokensLookups(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 50, TokenRequests: 3, Latency: 10 * time.Millisecond})
	c := newClient(t, srv)
	var wg sync.WaitGroup
	for _, a := range srv.Accounts() {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), listDeadline)
			defer cancel()
			got, err := Get(ctx, c, commerce.Accounts, a.ID, false)
			if err != nil || got.ID != a.ID {
				t.Errorf("get %s: %v", a.ID, err)
			}
		})
	}
	wg.Wait()
	t.Logf("%d requests, %d tokens, %d 401s", c.Requests(), c.TokenFetches(), srv.Stats().StatusCounts[http.StatusUnauthorized])
}

// TestYoungTokensLimitInFlight: while tokens die young, the requests in
// flight drop to what a token serves; once tokens live again, they grow
// back.
func TestYoungTokensLimitInFlight(t *testing.T) {
	a := newAdaptiveLimit(32)
	a.tokenDiedYoung(1, 7)
	if got := a.current(); got != 7 {
		t.Fatalf("after a token that served 7 requests died: %d in flight, want 7", got)
	}
	a.tokenDiedYoung(1, 3) // the same token, reported again
	if got := a.current(); got != 7 {
		t.Errorf("one token lowered the limit twice: %d, want 7", got)
	}
	a.tokenDiedYoung(2, 3)
	if got := a.current(); got != 3 {
		t.Errorf("after a token that served 3: %d, want 3", got)
	}
	for range 1000 {
		a.tokenServed()
	}
	if got := a.current(); got != 32 {
		t.Errorf("after 1,000 requests served: %d in flight, want 32 again", got)
	}
}

// TestYoungTokensGiveUp: a read that fresh tokens never serve still ends
// with the credentials' error; one whose tokens keep dying young, past the
// bound, says the service revokes them and after how many requests.
func TestYoungTokensGiveUp(t *testing.T) {
	t.Run("tokens_serve_nothing", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, Latency: 5 * time.Millisecond})
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if r.URL.Path != TokenPath {
				srv.ExpireAllTokens()
			}
			return nil
		})
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 3 })
		_, _, err := listWithin(t, c, commerce.Accounts, ListQuery{})
		var rejected *TokenRejectedError
		if !errors.As(err, &rejected) || rejected.Tokens != 4 || !strings.Contains(err.Error(), "check that the application key has access to this store") {
			t.Fatalf("error = %v, want *TokenRejectedError after 4 tokens, blaming the credentials", err)
		}
		t.Logf("%d token fetches, %d requests: %v", c.TokenFetches(), c.Requests(), err)
	})
	t.Run("tokens_die_young_forever", func(t *testing.T) {
		// Every token serves two requests of other readers (marked served
		// here, as the client would count them), then refuses this one.
		var c *Client
		var issued atomic.Int64
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Path == TokenPath {
				_, _ = fmt.Fprintf(w, `{"access_token":"t%d","token_type":"Bearer","expires_in":3600}`, issued.Add(1))
				return
			}
			gen := c.tokens.Newest()
			c.tokens.served(gen)
			c.tokens.served(gen)
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"errors":[{"status":401,"title":"Unauthorized","detail":"The access token has been revoked. Request a new token."}]}`))
		}))
		t.Cleanup(ts.Close)
		var err error
		c, err = New(Config{BaseURL: ts.URL, ClientID: "id", ClientSecret: "secret", MaxRetries: 3, RetryWaitMin: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		err = getOrder(c, "doomed")
		var young *tokensRevokedError
		if !errors.As(err, &young) {
			t.Fatalf("error = %v, want *tokensRevokedError", err)
		}
		var rejected *TokenRejectedError
		var apiErr *APIError
		if errors.As(err, &rejected) || errors.As(err, &apiErr) || strings.Contains(err.Error(), "application key") {
			t.Errorf("error = %q blames the credentials (or unwraps to the 401, which the provider reads so)", err)
		}
		want := "GET /v2/orders/doomed: the service answered 401 Unauthorized (Unauthorized: The access token has been revoked. Request a new token.) " +
			"to 100 access tokens in a row, each after it had served at most 2 requests: the service revokes or expires its access tokens after about 2 uses"
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error =\n%s\nwant it to begin with\n%s", err, want)
		}
		if c.TokenFetches() != maxYoungTokens || c.Requests() != maxYoungTokens {
			t.Errorf("%d token fetches, %d requests; want %d and %d", c.TokenFetches(), c.Requests(), maxYoungTokens, maxYoungTokens)
		}
	})
}

// TestYoungTokensPastStalledRequests: while tokens die young the requests
// in flight are capped at what a token serves, but a request out for
// longer than slowRequest no longer counts against that cap. Four list
// requests in a row stall for 2.5 s at a store whose tokens serve 3
// requests: counted, they held every slot, and the read waited for them.
func TestYoungTokensPastStalledRequests(t *testing.T) {
	const stall = slowRequest * 5 / 2
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000, TokenRequests: 3})
	var mu sync.Mutex
	lists, during := 0, 0
	var until time.Time
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != commerce.Accounts.Path {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		lists++
		switch {
		case lists >= 30 && lists < 34:
			if until.IsZero() {
				until = time.Now().Add(stall)
			}
			return &emulator.Fault{Delay: stall}
		case !until.IsZero() && time.Now().Before(until):
			during++
		}
		return nil
	})
	c := newClient(t, srv, func(c *testConfig) { c.PageSize, c.RateLimit = 25, 1000 })
	stats := mustList(t, srv, c, commerce.Accounts, ListQuery{})
	t.Logf("%d pages, %d list requests arrived while four were stalled for %s", stats.Pages, during, stall)
	if during < 10 {
		t.Errorf("%d list requests arrived while four were stalled for %s: the stalled requests held the young tokens' slots", during, stall)
	}
}
