package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestReauthBurstsOf401 lists with tokens that the service revokes after 10
// requests, 8 requests in flight: every token dies with several requests on
// the way. Before generations, 3 runs in 3 failed.
func TestReauthBurstsOf401(t *testing.T) {
	const perToken, parallel = 10, 8
	srv := emulatortest.Start(t, emulator.Options{Accounts: 6000, TokenRequests: perToken})
	want, err := srv.SortedIDs("accounts", "", "created_at")
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 10; run++ {
		c := newClient(t, srv, func(c *testConfig) { c.MaxParallelRequests = parallel })
		issued, unauth := srv.TokensIssued(), srv.Stats().StatusCounts[http.StatusUnauthorized]
		got, stats, err := listWithin(t, c, commerce.Accounts, ListQuery{})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: listed %d ids, want %d; first difference at %d", run, len(got), len(want), emulatortest.FirstDiff(got, want))
		}
		issued = srv.TokensIssued() - issued
		unauth = srv.Stats().StatusCounts[http.StatusUnauthorized] - unauth
		tokens := c.TokenFetches()
		t.Logf("run %d: %d pages, %d requests, %d tokens, %d 401s", run, stats.Pages, c.Requests(), tokens, unauth)
		if tokens != issued {
			t.Fatalf("run %d: client counted %d tokens, emulator issued %d", run, tokens, issued)
		}
		// Each page is accepted once, and a token accepts at most perToken
		// requests: at least ceil(pages/perToken) tokens. A new token is
		// fetched only after a 401 on the newest, that is after the newest
		// served its perToken requests: at most one token more than that.
		lo := (stats.Pages + perToken - 1) / perToken
		if tokens < lo || tokens > lo+1 {
			t.Errorf("run %d: %d tokens for %d pages; want %d or %d", run, tokens, stats.Pages, lo, lo+1)
		}
		// A request refused a token never sends it again, and at most
		// parallel requests hold a token at once.
		if unauth > tokens*parallel || int(c.Requests()) != stats.Pages+unauth {
			t.Errorf("run %d: %d 401s, %d requests for %d pages and %d tokens", run, unauth, c.Requests(), stats.Pages, tokens)
		}
	}
}

// getOrder reads one order: one request per attempt, no listing engine.
func getOrder(c *Client, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), listDeadline)
	defer cancel()
	_, err := Get(ctx, c, commerce.Orders, id, false)
	return err
}

// replaceTokenDuring makes the client fetch a newer token while the emulator
// handles a resource request, and expires the one the request carries: the
// request is answered 401 on a token older than the newest.
func replaceTokenDuring(t *testing.T, srv *emulator.Server, c *Client, times int) {
	var n atomic.Int64
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path == TokenPath || n.Add(1) > int64(times) {
			return nil
		}
		srv.ExpireAllTokens()
		c.tokens.Invalidate(c.tokens.Newest())
		if err := c.Authenticate(r.Context()); err != nil {
			t.Errorf("fetching a newer token: %v", err)
		}
		return nil
	})
}

func TestReauth401OnOlderTokenIsFree(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	// No retries at all: only a free retry can succeed.
	c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 0 })
	if err := c.Authenticate(context.Background()); err != nil {
		t.Fatal(err)
	}
	replaceTokenDuring(t, srv, c, 1)
	if err := getOrder(c, srv.Orders()[0].ID); err != nil {
		t.Fatalf("get: %v", err)
	}
	// Two tokens: the first and the one fetched during the request; the
	// retry used the latter without fetching another.
	if c.TokenFetches() != 2 || srv.TokensIssued() != 2 || c.Requests() != 2 {
		t.Errorf("token fetches %d, issued %d, requests %d; want 2, 2, 2", c.TokenFetches(), srv.TokensIssued(), c.Requests())
	}
	if st := srv.Stats(); st.StatusCounts[http.StatusUnauthorized] != 1 {
		t.Errorf("401s = %d, want 1", st.StatusCounts[http.StatusUnauthorized])
	}
}

func TestReauth401OnOlderTokenBounded(t *testing.T) {
	// Every request finds a newer token fetched while it was on the way:
	// without a bound the free retries would never end.
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 2 })
	if err := c.Authenticate(context.Background()); err != nil {
		t.Fatal(err)
	}
	replaceTokenDuring(t, srv, c, 1<<30)
	err := getOrder(c, srv.Orders()[0].ID)
	var rejected *TokenRejectedError
	if !errors.As(err, &rejected) || rejected.Tokens != 3 || rejected.Err.Attempts != 3 {
		t.Fatalf("error = %v (%+v), want *TokenRejectedError after 3 attempts", err, rejected)
	}
	// Three counted attempts, each after maxFreeRetries free ones.
	if want := int64(3 * (maxFreeRetries + 1)); c.Requests() != want {
		t.Errorf("requests = %d, want %d", c.Requests(), want)
	}
}

func TestReauth401OnNewestFetchesOneToken(t *testing.T) {
	t.Run("one_request", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 5})
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 1 })
		if err := c.Authenticate(context.Background()); err != nil {
			t.Fatal(err)
		}
		srv.ExpireAllTokens()
		if err := getOrder(c, srv.Orders()[0].ID); err != nil {
			t.Fatalf("get: %v", err)
		}
		if c.TokenFetches() != 2 || c.Requests() != 2 {
			t.Errorf("token fetches %d, requests %d; want 2 and 2", c.TokenFetches(), c.Requests())
		}
	})
	t.Run("counts_as_a_retry", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 5})
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 0 })
		if err := c.Authenticate(context.Background()); err != nil {
			t.Fatal(err)
		}
		srv.ExpireAllTokens()
		err := getOrder(c, srv.Orders()[0].ID)
		var rejected *TokenRejectedError
		if !errors.As(err, &rejected) || rejected.Tokens != 1 {
			t.Fatalf("error = %v, want *TokenRejectedError for one token", err)
		}
		if !strings.Contains(err.Error(), "401 Unauthorized to the newest access token") {
			t.Errorf("error = %q", err)
		}
		if c.TokenFetches() != 1 || c.Requests() != 1 {
			t.Errorf("token fetches %d, requests %d; want 1 and 1", c.TokenFetches(), c.Requests())
		}
	})
	t.Run("shared_by_concurrent_requests", func(t *testing.T) {
		// Eight requests in flight on one token, all refused: one new token
		// serves them all.
		srv := emulatortest.Start(t, emulator.Options{Orders: 8, Latency: 20 * time.Millisecond})
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 1 })
		if err := c.Authenticate(context.Background()); err != nil {
			t.Fatal(err)
		}
		srv.ExpireAllTokens()
		var wg sync.WaitGroup
		for _, o := range srv.Orders() {
			wg.Go(func() {
				if err := getOrder(c, o.ID); err != nil {
					t.Errorf("get %s: %v", o.ID, err)
				}
			})
		}
		wg.Wait()
		// A request that starts after the first 401 waits for the new
		// token instead: at most 8 refusals, one each.
		unauth := srv.Stats().StatusCounts[http.StatusUnauthorized]
		if c.TokenFetches() != 2 || unauth < 1 || unauth > 8 || int(c.Requests()) != 8+unauth {
			t.Errorf("token fetches %d, 401s %d, requests %d; want 2 fetches and one retry per 401", c.TokenFetches(), unauth, c.Requests())
		}
	})
}

func TestReauth401OnEveryToken(t *testing.T) {
	// The token endpoint issues tokens, the API refuses each on arrival.
	srv := emulatortest.Start(t, emulator.Options{Orders: 500})
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != TokenPath {
			srv.ExpireAllTokens()
		}
		return nil
	})
	t.Run("get", func(t *testing.T) {
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 3 })
		id := srv.Orders()[0].ID
		err := getOrder(c, id)
		var rejected *TokenRejectedError
		var apiErr *APIError
		if !errors.As(err, &rejected) || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized || apiErr.Attempts != 4 {
			t.Fatalf("error = %v, want *TokenRejectedError wrapping a 401 after 4 attempts", err)
		}
		want := fmt.Sprintf("GET /v2/orders/%s: the service answered 401 Unauthorized to 4 freshly issued access tokens in a row "+
			"(Unauthorized: The access token has expired. Request a new token.; request id %s): "+
			"the credentials are accepted by the token endpoint but their tokens are not by the API; check that the application key has access to this store",
			id, apiErr.FirstRequestID())
		if err.Error() != want {
			t.Errorf("error =\n%s\nwant\n%s", err, want)
		}
		if c.TokenFetches() != 4 || c.Requests() != 4 {
			t.Errorf("token fetches %d, requests %d; want 4 and 4 (max_retries+1)", c.TokenFetches(), c.Requests())
		}
	})
	t.Run("list", func(t *testing.T) {
		// The first page passes, so that the refusals hit pages in flight.
		srv := emulatortest.Start(t, emulator.Options{Orders: 500, Latency: 5 * time.Millisecond})
		var n atomic.Int64
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if r.URL.Path != TokenPath && n.Add(1) > 1 {
				srv.ExpireAllTokens()
			}
			return nil
		})
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 3; c.PageSize = 10 })
		_, _, err := listWithin(t, c, commerce.Orders, ListQuery{})
		// Every failure is a 401, so the request that ends the listing
		// was refused max_retries+1 newest tokens in a row.
		var rejected *TokenRejectedError
		if !errors.As(err, &rejected) || rejected.Tokens != 4 {
			t.Fatalf("error = %v, want *TokenRejectedError after 4 tokens", err)
		}
		t.Logf("%d token fetches, %d requests", c.TokenFetches(), c.Requests())
		// The requests refused one token wait for the same next one and
		// stay in step: the listing ends after about max_retries+1 new
		// tokens. A request delayed past a fetch drops out of step and
		// takes its free retries, so allow three times that. (Measured
		// 4-7 in 40 runs under -race; one token per refused request would
		// be about 30.)
		if c.TokenFetches() > 3*4 {
			t.Errorf("token fetches = %d, want at most %d", c.TokenFetches(), 3*4)
		}
	})
}

func TestReauthCredentialsRefused(t *testing.T) {
	t.Run("401_emulator", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 5})
		c := newClient(t, srv, func(c *testConfig) { c.ClientSecret = "not-the-secret" })
		err := getOrder(c, srv.Orders()[0].ID)
		var authErr *AuthError
		if !errors.As(err, &authErr) || !errors.Is(err, ErrCredentialsRefused) || !IsStatus(err, http.StatusUnauthorized) {
			t.Fatalf("error = %v, want *AuthError with the 401 and ErrCredentialsRefused", err)
		}
		if !strings.Contains(err.Error(), "refused the client credentials") || strings.Contains(err.Error(), "not-the-secret") {
			t.Errorf("error = %q", err)
		}
		if st := srv.Stats(); st.TokenRequests != 1 || st.GetRequests != 0 || c.Requests() != 0 {
			t.Errorf("token requests %d, get requests %d; want 1 and 0", st.TokenRequests, st.GetRequests)
		}
	})
	t.Run("400_invalid_client", func(t *testing.T) {
		// OAuth 2 lets the token endpoint answer invalid_client with 400.
		var tokenRequests, apiRequests atomic.Int64
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != TokenPath {
				apiRequests.Add(1)
				w.WriteHeader(http.StatusOK)
				return
			}
			tokenRequests.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"errors":[{"status":400,"title":"Bad Request","detail":"invalid_client"}]}`))
		}))
		t.Cleanup(ts.Close)
		c, err := New(Config{BaseURL: ts.URL, ClientID: "id", ClientSecret: "secret", MaxRetries: 3, RetryWaitMin: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		err = getOrder(c, "x")
		var authErr *AuthError
		if !errors.As(err, &authErr) || !errors.Is(err, ErrCredentialsRefused) || !IsStatus(err, http.StatusBadRequest) {
			t.Fatalf("error = %v, want *AuthError with the 400 and ErrCredentialsRefused", err)
		}
		if tokenRequests.Load() != 1 || apiRequests.Load() != 0 {
			t.Errorf("token requests %d, API requests %d; want 1 and 0", tokenRequests.Load(), apiRequests.Load())
		}
	})
}
