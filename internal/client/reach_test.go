package client

// What a user meets when the service cannot be reached, refuses the
// credentials, or throttles: the error names the address and the cause,
// retries are logged at WARN, and each listing counts its own retries and
// 429s.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// checkRetryWarnings asserts one WARN per retry (attempts 1..retries) with
// the method, a path or URL, the attempt, the cause and the wait.
func checkRetryWarnings(t *testing.T, logs *emulatortest.Logs, msg, method, where, wherePrefix string, retries int) {
	t.Helper()
	warns := logs.Find("WARN: " + msg)
	if len(warns) != retries {
		t.Fatalf("%d WARN lines %q, want one per retry (%d); log: %s", len(warns), msg, retries, logs)
	}
	for i, f := range warns {
		if f["method"] != method || f["attempt"] != i+1 {
			t.Errorf("WARN %d: method %v, attempt %v; want %s, %d", i, f["method"], f["attempt"], method, i+1)
		}
		if s, _ := f[where].(string); !strings.HasPrefix(s, wherePrefix) {
			t.Errorf("WARN %d: %s = %q, want it to start with %q", i, where, s, wherePrefix)
		}
		if c, _ := f["cause"].(string); !strings.Contains(c, "connection refused") {
			t.Errorf("WARN %d: cause %q, want the connection refusal", i, c)
		}
		if _, ok := f["wait_ms"].(int64); !ok {
			t.Errorf("WARN %d: no wait_ms in %v", i, f)
		}
		if strings.Contains(fmt.Sprint(f), emulator.DefaultClientSecret) {
			t.Errorf("WARN %d carries the client secret: %v", i, f)
		}
	}
}

func TestUnreachableAuthURL(t *testing.T) {
	addr := emulatortest.ClosedAddr(t)
	logs := &emulatortest.Logs{}
	c, err := New(Config{BaseURL: "http://" + addr, ClientID: "id", ClientSecret: emulator.DefaultClientSecret,
		MaxRetries: 2, RetryWaitMin: time.Millisecond, RetryWaitMax: 20 * time.Millisecond, Logger: logs})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = listWithin(t, c, commerce.Orders, ListQuery{})
	var authErr *AuthError
	if !errors.As(err, &authErr) {
		t.Fatalf("error = %v, want *AuthError", err)
	}
	if !authErr.Unreachable() || authErr.CredentialsRefused() {
		t.Errorf("Unreachable = %v, CredentialsRefused = %v; want true, false", authErr.Unreachable(), authErr.CredentialsRefused())
	}
	if authErr.Attempts != 3 || authErr.Elapsed <= 0 {
		t.Errorf("attempts = %d, elapsed = %v; want 3 and the time they took", authErr.Attempts, authErr.Elapsed)
	}
	want := fmt.Sprintf("could not obtain an access token: could not reach http://%s/oauth/access_token (dial tcp %s: connect: connection refused) after 3 attempts over ", addr, addr)
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), " s") {
		t.Errorf("error %q\nwant it to start with %q and end with the seconds", err, want)
	}
	if strings.Contains(err.Error(), "client") || strings.Contains(err.Error(), "Post ") {
		t.Errorf("error %q speaks of the credentials or repeats the URL", err)
	}
	checkRetryWarnings(t, logs, "access token request got no answer; retrying", http.MethodPost, "token_url", "http://"+addr+TokenPath, 2)
}

func TestUnreachableBaseURL(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	addr := emulatortest.ClosedAddr(t)
	logs := &emulatortest.Logs{}
	c := newClient(t, srv, func(c *testConfig) {
		c.AuthURL, c.BaseURL, c.MaxRetries, c.Logger = srv.URL(), "http://"+addr, 3, logs
	})
	_, stats, err := listWithin(t, c, commerce.Orders, ListQuery{})
	var tErr *TransportError
	if !errors.As(err, &tErr) {
		t.Fatalf("error = %v, want *TransportError", err)
	}
	if tErr.Attempts != 4 || tErr.Elapsed <= 0 {
		t.Errorf("attempts = %d, elapsed = %v; want 4 and the time they took", tErr.Attempts, tErr.Elapsed)
	}
	for _, part := range []string{"could not reach http://" + addr + "/v2/orders?page%5Blimit%5D=100&page%5Boffset%5D=0",
		"(dial tcp " + addr + ": connect: connection refused) after 4 attempts over "} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %q", err, part)
		}
	}
	if stats.Requests != 4 || stats.Retries != 3 || stats.Throttled != 0 {
		t.Errorf("requests %d, retries %d, 429s %d; want 4, 3, 0", stats.Requests, stats.Retries, stats.Throttled)
	}
	checkRetryWarnings(t, logs, "request got no usable answer; retrying", http.MethodGet, "path", "/v2/orders?", 3)
	if got := logs.Find("DEBUG: retrying request"); len(got) != 0 {
		t.Errorf("transport retries also logged at DEBUG: %v", got)
	}
}

func TestCredentialsRefusedIsNotUnreachable(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 5})
	logs := &emulatortest.Logs{}
	c := newClient(t, srv, func(c *testConfig) { c.ClientSecret, c.Logger = "wrong-secret-value", logs })
	_, _, err := listWithin(t, c, commerce.Orders, ListQuery{})
	var authErr *AuthError
	if !errors.As(err, &authErr) || !errors.Is(err, ErrCredentialsRefused) {
		t.Fatalf("error = %v, want *AuthError wrapping ErrCredentialsRefused", err)
	}
	if authErr.Unreachable() || !authErr.CredentialsRefused() || authErr.Attempts != 1 {
		t.Errorf("Unreachable = %v, CredentialsRefused = %v, attempts = %d; want false, true, 1",
			authErr.Unreachable(), authErr.CredentialsRefused(), authErr.Attempts)
	}
	if want := "could not obtain an access token from " + srv.URL() + TokenPath + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start with %q", err, want)
	}
	if got := logs.Find("WARN"); len(got) != 0 {
		t.Errorf("a refusal is not retried, yet WARN lines were logged: %v", got)
	}
}

// TestListingCountsItsOwnThrottling runs a listing the service throttles
// next to one it does not, on one Client: each counts its own requests,
// retries and 429s, and only the throttled one ends with a WARN.
func TestListingCountsItsOwnThrottling(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 3000, Accounts: 3000})
	logs := &emulatortest.Logs{}
	// No retries: throttling uses none.
	c := newClient(t, srv, func(c *testConfig) { c.MaxRetries, c.Logger = 0, logs })
	var n, ordersSeen, throttled atomic.Int64
	// Every third of the first 12 orders requests is throttled: a short
	// storm, after which the client's budget climbs back.
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		n.Add(1)
		if !isOrdersList(r) {
			return nil
		}
		if i := ordersSeen.Add(1); i <= 12 && i%3 == 0 {
			throttled.Add(1)
			return &emulator.Fault{Status: http.StatusTooManyRequests}
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), listDeadline)
	defer cancel()
	var orders, accounts ListStats
	var ordersErr, accountsErr error
	var wg sync.WaitGroup
	wg.Go(func() { orders, ordersErr = List(ctx, c, commerce.Orders, ListQuery{}, discard[commerce.Order]) })
	wg.Go(func() {
		accounts, accountsErr = List(ctx, c, commerce.Accounts, ListQuery{}, discard[commerce.Account])
	})
	wg.Wait()
	if ordersErr != nil || accountsErr != nil || orders.Listed != 3000 || accounts.Listed != 3000 {
		t.Fatalf("orders: %d listed, %v; accounts: %d listed, %v; want 3000 each", orders.Listed, ordersErr, accounts.Listed, accountsErr)
	}
	if orders.Throttled != int(throttled.Load()) || orders.Throttled != 4 || orders.Retries != orders.Throttled {
		t.Errorf("orders: 429s %d, retries %d; want both %d (the 429s sent, 4)", orders.Throttled, orders.Retries, throttled.Load())
	}
	if orders.Requests != orders.Pages+orders.Retries {
		t.Errorf("orders: requests %d, want pages %d + retries %d = %d sent", orders.Requests, orders.Pages, orders.Retries, n.Load())
	}
	if accounts.Throttled != 0 || accounts.Retries != 0 || accounts.Requests != accounts.Pages {
		t.Errorf("accounts: 429s %d, retries %d, requests %d (pages %d); want 0, 0 and one per page",
			accounts.Throttled, accounts.Retries, accounts.Requests, accounts.Pages)
	}
	if got := int(c.Requests()); got != orders.Requests+accounts.Requests || int64(got)+1 != n.Load() {
		t.Errorf("client sent %d requests, the listings counted %d + %d, the service saw %d and a token request", got, orders.Requests, accounts.Requests, n.Load()-1)
	}
	warns := logs.Find("WARN: the service throttled the read of ")
	if len(warns) != 1 || warns[0]["resource"] != "orders" {
		t.Fatalf("throttling WARN lines: %v; want one, for orders", warns)
	}
	w := warns[0]
	if w["throttled_429"] != orders.Throttled || w["requests"] != orders.Requests {
		t.Errorf("WARN fields %v, want throttled_429 %d and requests %d", w, orders.Throttled, orders.Requests)
	}
	if rate, _ := w["request_rate_per_s"].(float64); rate <= 0 {
		t.Errorf("WARN request_rate_per_s = %v, want a positive rate", w["request_rate_per_s"])
	}
	if p, _ := w["parallelism"].(int); p < 1 || p > c.MaxParallelRequests() {
		t.Errorf("WARN parallelism = %v, want 1..%d", w["parallelism"], c.MaxParallelRequests())
	}
}

func discard[T commerce.Record](T) error { return nil }

// TestFailedTokenFetchIsShared: a token endpoint that keeps failing is
// retried in one round, whoever waits for it. The background fetch the
// provider starts at Configure, and the eight workers of the listing that
// waits for it, share that round and its error instead of each starting
// another: before, the user waited twice as long as the error said.
func TestFailedTokenFetchIsShared(t *testing.T) {
	var tokenRequests atomic.Int64
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5})
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path == TokenPath {
			tokenRequests.Add(1)
			// Slow enough that the listing starts while the round runs.
			return &emulator.Fault{Status: http.StatusServiceUnavailable, Delay: 40 * time.Millisecond}
		}
		return nil
	})
	c := newClient(t, srv, func(cfg *testConfig) { cfg.MaxRetries = 3 })
	background := make(chan error, 1)
	go func() { background <- c.Authenticate(context.Background()) }()
	time.Sleep(20 * time.Millisecond) // let the background fetch take the slot
	_, _, err := listIDs(t, c, commerce.Accounts, ListQuery{})
	var authErr *AuthError
	if !errors.As(err, &authErr) || authErr.Attempts != 4 {
		t.Fatalf("got %v, want the AuthError of one round of 4 attempts", err)
	}
	if bgErr := <-background; !errors.Is(bgErr, err) && bgErr.Error() != err.Error() {
		t.Errorf("the listing failed with %v, the fetch it waited for with %v", err, bgErr)
	}
	if n := tokenRequests.Load(); n != 4 {
		t.Errorf("%d token requests; one round of 1 + max_retries 3 = 4 serves everyone", n)
	}
}
