package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/commerce-tf/terraform-provider-commerce/internal/logging"
)

// tokenManager holds the one access token a Client shares between all of its
// requests. It fetches a token lazily, refreshes it shortly before it
// expires, and lets a request that was answered 401 drop it.
//
// Tokens are numbered in the order they were fetched (their generation), so
// that a request answered 401 can tell whether a newer token already exists.
//
// Every fetch runs with the context of the request that needs the token, not
// with a context captured at construction: a token source bound to the
// provider's Configure context would fail once Terraform ends that call.
type tokenManager struct {
	cfg     clientcredentials.Config
	http    *http.Client
	timeout time.Duration // request_timeout, of one attempt once the budget let it go
	retries *retrier
	log     logging.Logger

	// fetching is a one-slot semaphore: one fetch at a time, and waiters can
	// give up when their context ends (a sync.Mutex cannot do that).
	fetching chan struct{}

	mu        sync.Mutex
	token     string    // the newest token; "" once dropped
	tokenType string    // its type, as the service names it ("Bearer")
	gen       int       // generation of the newest token fetched, = tokens fetched
	refresh   time.Time // when to fetch a new one; zero: the service gave no lifetime
	expiry    time.Time // when it expires; zero: the service gave no lifetime

	// failures counts fetches that ended for good without a token (retries
	// spent, or an answer no retry helps), and lastFailure is the newest.
	// A request that waited for such a fetch gets its error instead of
	// starting another round of retries: with an unreachable auth_url, the
	// read that waited for Configure's background fetch would otherwise
	// double the wait, and eight waiting workers multiply it.
	failures    int
	lastFailure error

	// uses counts, by generation, the requests each of the newest tokens
	// served (answers other than 401, 403 and 429): a token that served
	// requests and is then refused died young (the service revoked it, or
	// counts its uses); one refused with none served was never good.
	uses map[int]int
	// unserved is the run, oldest first, of the newest tokens refused
	// while none of their requests had been served (refusedUnserved).
	unserved []int
}

// keptUses is how many generations uses remembers: far more than a
// request is refused in a row before it gives up.
const keptUses = 256

func newTokenManager(c Config, httpClient *http.Client, retries *retrier) *tokenManager {
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
		timeout:  c.RequestTimeout,
		retries:  retries,
		log:      c.Logger,
		fetching: make(chan struct{}, 1),
	}
}

// Token returns a valid access token and its generation, fetching one if
// needed.
func (m *tokenManager) Token(ctx context.Context) (string, int, error) {
	t, gen, err := m.tokenFor(ctx, 0)
	return t.Value, gen, err
}

// tokenFor returns the cached token if it stays valid for minLifetime,
// else a new one (whatever its lifetime), and its generation. One fetch
// runs at a time; the requests that waited for it share its token, or its
// failure.
func (m *tokenManager) tokenFor(ctx context.Context, minLifetime time.Duration) (AccessToken, int, error) {
	if t, gen, ok := m.cachedFor(time.Now(), minLifetime); ok {
		return t, gen, nil
	}
	failedBefore := m.failureCount()
	select {
	case m.fetching <- struct{}{}:
	case <-ctx.Done():
		return AccessToken{}, 0, ctx.Err()
	}
	defer func() { <-m.fetching }()
	// Another request may have fetched one while this one waited, or failed
	// to for good.
	if t, gen, ok := m.cachedFor(time.Now(), minLifetime); ok {
		return t, gen, nil
	}
	if err := m.failureSince(failedBefore); err != nil {
		return AccessToken{}, 0, err
	}
	return m.fetch(ctx)
}

// cachedFor returns the cached token and its generation if it is not due
// for refresh and stays valid for at least minLifetime after now.
func (m *tokenManager) cachedFor(now time.Time, minLifetime time.Duration) (AccessToken, int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.token == "", !m.refresh.IsZero() && !now.Before(m.refresh):
		return AccessToken{}, 0, false
	case !m.expiry.IsZero() && m.expiry.Sub(now) < minLifetime:
		return AccessToken{}, 0, false
	}
	return AccessToken{Value: m.token, Type: m.tokenType, Expiry: m.expiry}, m.gen, true
}

// Invalidate drops the token of generation gen if it is still the cached
// one, so that the next Token call fetches a new one. Comparing first keeps a
// burst of 401s from throwing away a token that another request has just
// fetched: the burst costs one new token, not one per request.
func (m *tokenManager) Invalidate(gen int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen == gen {
		m.token = ""
	}
}

// served counts one request that the token of generation gen served.
func (m *tokenManager) served(gen int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if gen > 0 && gen > m.gen-keptUses {
		m.uses[gen]++
	}
}

// usesOf is how many requests the token of generation gen has served, as
// far as their answers have come back.
func (m *tokenManager) usesOf(gen int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.uses[gen]
}

// refusedUnserved records that the token of generation gen was refused
// although it had served no request yet, and returns how many tokens in a
// row, up to the newest so refused, have served none: tokens the service
// never accepts. It counts for all the client's requests, so that a store
// that refuses every token costs a few tokens, not a few per request. The
// answers of requests a token served may come back after another
// request's 401 on it, so the run is judged again each time, and starts
// after the newest token that served.
func (m *tokenManager) refusedUnserved(gen int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.unserved, gen) {
		m.unserved = append(m.unserved, gen)
		slices.Sort(m.unserved)
	}
	newest := m.unserved[len(m.unserved)-1]
	for g := newest; g > max(0, newest-keptUses); g-- {
		if m.uses[g] > 0 {
			m.unserved = slices.DeleteFunc(m.unserved, func(u int) bool { return u < g })
			break
		}
	}
	return len(m.unserved)
}

// Newest is the generation of the newest token fetched (0 before the first),
// whether or not it is still cached.
func (m *tokenManager) Newest() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// fetch asks the token endpoint for a new token, through the same retry
// loop as every other request.
func (m *tokenManager) fetch(ctx context.Context) (AccessToken, int, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, m.http)
	began := time.Now()
	var got AccessToken
	var gen, attempts int
	err := m.retries.do(ctx, call{
		kind: tokenRequest, method: http.MethodPost, shown: m.cfg.TokenURL,
		try: func(ctx context.Context, attempt int) tryResult {
			attempts = attempt
			var res tryResult
			got, gen, res = m.try(ctx, attempt)
			return res
		},
	})
	if err == nil {
		return got, gen, nil
	}
	authErr := &AuthError{TokenURL: m.cfg.TokenURL, Attempts: attempts, Elapsed: time.Since(began), Err: err}
	if ctx.Err() == nil {
		// Not cut short by this caller's context: an outcome worth sharing
		// with the requests that waited for it.
		m.recordFailure(authErr)
	}
	return AccessToken{}, 0, authErr
}

// try is one token request: the token and its generation, or what went
// wrong, in the service's own words.
func (m *tokenManager) try(ctx context.Context, attempt int) (AccessToken, int, tryResult) {
	// The budget first, then request_timeout, as for every resource
	// request (Client.attempt).
	admitted, err := m.retries.budget.admit(ctx)
	if err != nil {
		return AccessToken{}, 0, tryResult{err: err}
	}
	actx, cancel := context.WithTimeout(admitted, m.timeout)
	defer cancel()
	start := time.Now()
	tok, err := m.cfg.Token(actx)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		err = fmt.Errorf("no complete answer within request_timeout (%s): %w", m.timeout, err)
	}
	if err == nil {
		gen := m.store(tok, start)
		m.log.Debug(ctx, "obtained access token", map[string]any{
			"token_url": m.cfg.TokenURL, "attempt": attempt, "generation": gen,
			"duration_ms": time.Since(start).Milliseconds(), "expires_in_s": secondsUntil(tok.Expiry, start),
		})
		return AccessToken{Value: tok.AccessToken, Type: tok.Type(), Expiry: tok.Expiry}, gen, tryResult{}
	}
	status := statusOf(err)
	described := m.describe(err, attempt)
	m.log.Debug(ctx, "access token request failed", map[string]any{
		"token_url": m.cfg.TokenURL, "attempt": attempt, "error": described.Error(),
	})
	if status == http.StatusBadRequest || status == http.StatusUnauthorized {
		// OAuth 2 answers invalid_client with either; no retry helps.
		described = fmt.Errorf("%w: %w", ErrCredentialsRefused, described)
	}
	return AccessToken{}, 0, tryResult{status: status, retryAfter: retryAfterOf(err), err: described}
}

func (m *tokenManager) failureCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.failures
}

// failureSince returns the newest failed fetch's error if one ended after
// failureCount returned since.
func (m *tokenManager) failureSince(since int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failures != since {
		return m.lastFailure
	}
	return nil
}

func (m *tokenManager) recordFailure(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failures++
	m.lastFailure = err
}

func (m *tokenManager) store(tok *oauth2.Token, obtained time.Time) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.token, m.tokenType, m.expiry = tok.AccessToken, tok.Type(), tok.Expiry
	m.refresh = time.Time{}
	if !tok.Expiry.IsZero() {
		// Refresh a little before expiry so that a request never leaves with
		// a token that dies on the way: a tenth of the lifetime, at most 60s.
		margin := min(tok.Expiry.Sub(obtained)/10, time.Minute)
		m.refresh = tok.Expiry.Add(-margin)
	}
	m.gen++
	if m.uses == nil {
		m.uses = make(map[int]int)
	}
	delete(m.uses, m.gen-keptUses)
	return m.gen
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

// tokenShape hands the token endpoint's answer to the oauth2 package in the
// shape it reads. The vendor's guides and SDK show the token's fields at
// the top level of the body; its authentication OpenAPI spec shows the
// same fields inside a data object. A 2xx body with no access_token of its
// own but one inside data is passed on as that data object; every other
// answer is passed on as it came, and a body that has neither stays the
// error it is (oauth2: "server response missing access_token").
type tokenShape struct{ next http.RoundTripper }

// maxTokenBody bounds what the token endpoint's answer may make the client
// read: a token body is a few hundred bytes.
const maxTokenBody = 1 << 20

func (t tokenShape) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenBody))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if inner, ok := tokenInData(body); ok {
		body = inner
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// CloseIdleConnections passes http.Client.CloseIdleConnections on.
func (t tokenShape) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// tokenInData returns the data object of a token body that holds the
// access token there rather than at the top level.
func tokenInData(body []byte) ([]byte, bool) {
	var doc struct {
		AccessToken json.RawMessage `json:"access_token"`
		Data        json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &doc) != nil || doc.AccessToken != nil || len(doc.Data) == 0 || doc.Data[0] != '{' {
		return nil, false
	}
	var inner struct {
		AccessToken json.RawMessage `json:"access_token"`
	}
	if json.Unmarshal(doc.Data, &inner) != nil || inner.AccessToken == nil {
		return nil, false
	}
	return doc.Data, true
}

// AccessToken is the client's access token, handed out for use outside the
// client: by tools that call the service beside the provider.
type AccessToken struct {
	Value  string
	Type   string    // as the service names it: "Bearer"
	Expiry time.Time // zero: the service gave no lifetime
}

// TokenLifetimeError says that the service issues tokens with less
// lifetime than a caller asked for, so no new token would do either.
type TokenLifetimeError struct {
	Asked    time.Duration // the lifetime asked for
	Lifetime time.Duration // what a token the service just issued had left
}

func (e *TokenLifetimeError) Error() string {
	return fmt.Sprintf("the service issued an access token valid for %s, less than the %s asked for; ask for at most %s",
		e.Lifetime.Round(time.Second), e.Asked, e.Lifetime.Truncate(time.Minute))
}
