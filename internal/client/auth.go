package client

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// tokenManager holds the one access token a Client shares between all of its
// requests. It fetches a token lazily, refreshes it shortly before it
// expires, and lets a request that was answered 401 drop it.
//
// Every fetch runs with the context of the request that needs the token, not
// with a context captured at construction: a token source bound to the
// provider's Configure context would fail once Terraform ends that call.
type tokenManager struct {
	cfg    clientcredentials.Config
	http   *http.Client
	policy *retryPolicy
	log    Logger

	// fetching is a one-slot semaphore: one fetch at a time, and waiters can
	// give up when their context ends (a sync.Mutex cannot do that).
	fetching chan struct{}

	mu      sync.Mutex
	token   string
	expiry  time.Time // zero: the service gave no lifetime
	refresh time.Time // when to fetch a new one
	fetches int
}

func newTokenManager(c Config, httpClient *http.Client, policy *retryPolicy) *tokenManager {
	return &tokenManager{
		cfg: clientcredentials.Config{
			ClientID:     c.ClientID,
			ClientSecret: c.ClientSecret,
			TokenURL:     c.AuthURL + TokenPath,
			// The service reads the credentials from the form body, not from
			// HTTP basic auth.
			AuthStyle: oauth2.AuthStyleInParams,
		},
		http:     httpClient,
		policy:   policy,
		log:      c.Logger,
		fetching: make(chan struct{}, 1),
	}
}

// current returns the cached token if it is not due for refresh.
func (m *tokenManager) current(now time.Time) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.token != "" && (m.refresh.IsZero() || now.Before(m.refresh)) {
		return m.token
	}
	return ""
}

// Token returns a valid access token, fetching one if needed.
func (m *tokenManager) Token(ctx context.Context) (string, error) {
	if tok := m.current(time.Now()); tok != "" {
		return tok, nil
	}
	select {
	case m.fetching <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-m.fetching }()
	// Another request may have fetched one while this one waited.
	if tok := m.current(time.Now()); tok != "" {
		return tok, nil
	}
	return m.fetch(ctx)
}

// Invalidate drops token if it is still the cached one, so that the next
// Token call fetches a new one. Comparing first keeps a burst of 401s from
// throwing away a token that another request has just fetched.
func (m *tokenManager) Invalidate(token string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.token == token {
		m.token = ""
	}
}

// Fetches reports how many tokens were obtained, for tests and benchmarks.
func (m *tokenManager) Fetches() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fetches
}

func (m *tokenManager) fetch(ctx context.Context) (string, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, m.http)
	var lastErr error
	for attempt := 1; ; attempt++ {
		start := time.Now()
		tok, err := m.cfg.Token(ctx)
		if err == nil {
			m.store(tok, start)
			m.log.Debug(ctx, "obtained access token", map[string]any{
				"token_url": m.cfg.TokenURL, "attempt": attempt,
				"duration_ms": time.Since(start).Milliseconds(), "expires_in_s": secondsUntil(tok.Expiry, start),
			})
			return tok.AccessToken, nil
		}
		lastErr = m.describe(err, attempt)
		wait, retry := m.policy.shouldRetry(ctx, attempt, statusOf(err), retryAfterOf(err), err)
		m.log.Debug(ctx, "access token request failed", map[string]any{
			"token_url": m.cfg.TokenURL, "attempt": attempt, "error": lastErr.Error(), "retry": retry,
		})
		if !retry {
			return "", &AuthError{TokenURL: m.cfg.TokenURL, Err: lastErr}
		}
		if err := sleep(ctx, wait); err != nil {
			return "", &AuthError{TokenURL: m.cfg.TokenURL, Err: lastErr}
		}
	}
}

func (m *tokenManager) store(tok *oauth2.Token, obtained time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.token = tok.AccessToken
	m.expiry = tok.Expiry
	m.refresh = time.Time{}
	if !tok.Expiry.IsZero() {
		// Refresh a little before expiry so that a request never leaves with
		// a token that dies on the way: a tenth of the lifetime, at most 60s.
		margin := min(tok.Expiry.Sub(obtained)/10, time.Minute)
		m.refresh = tok.Expiry.Add(-margin)
	}
	m.fetches++
}

// describe turns an oauth2 error into the service's own words. The oauth2
// package's own message can include the raw response body; ours is built
// from the parsed error document only.
func (m *tokenManager) describe(err error, attempt int) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		apiErr := newAPIError(re.Response, re.Body, http.MethodPost, TokenPath)
		apiErr.Attempts = attempt
		return apiErr
	}
	return err
}

func statusOf(err error) int {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.StatusCode
	}
	return 0
}

func retryAfterOf(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.Header.Get("Retry-After")
	}
	return ""
}

func secondsUntil(t, from time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return int64(t.Sub(from).Seconds())
}
