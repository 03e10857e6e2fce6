package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// maxBodyBytes bounds what one response may make the client read; a page of
// 100 records is a few hundred KB at most.
const maxBodyBytes = 64 << 20

// Client talks to the service. It is safe for concurrent use; one Client
// (and so one access token) serves every data source of a provider run.
type Client struct {
	cfg      Config
	http     *http.Client
	tokens   *tokenManager
	policy   *retryPolicy
	budget   *budget // requests per second, shared by every request
	inFlight *adaptiveLimit
	// requests counts the resource requests sent (retries included). Only
	// tests read it (export_test.go); a listing counts its own in ListStats.
	requests atomic.Int64

	// unsortable holds the endpoints (by path) that refused or ignored a
	// sort the capability table promised: listed without sort from then on.
	unsortable sync.Map
	// probes holds, by path, what Probe found out about endpoints the
	// capability table does not know (*probeCall).
	probes sync.Map
}

// New checks cfg and builds a Client. It does not contact the service: the
// first request fetches the token.
func New(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{Proxy: http.ProxyFromEnvironment}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		transport = dt.Clone() // keeps the standard dial and TLS timeouts
	}
	// Parallel page requests would otherwise open and close a connection
	// each time: the default keeps only two idle ones per host.
	transport.MaxIdleConnsPerHost = cfg.MaxParallelRequests + 2
	policy := &retryPolicy{maxRetries: cfg.MaxRetries, waitMin: cfg.retryWaitMin, waitMax: cfg.retryWaitMax}
	budget := newBudget(cfg, policy.backoff)
	// The budget sits below the User-Agent and above the connection: the
	// token requests go through it too, since they count against the
	// store's rate limit like every other.
	base := &http.Client{Transport: userAgent{cfg.UserAgent, budgetTransport{budget, transport}}}

	c := &Client{
		cfg:      cfg,
		http:     base,
		policy:   policy,
		budget:   budget,
		inFlight: newAdaptiveLimit(cfg.MaxParallelRequests),
	}
	// The token request gets the same per-attempt timeout as every other.
	tokenHTTP := &http.Client{Transport: base.Transport, Timeout: cfg.RequestTimeout}
	c.tokens = newTokenManager(cfg, tokenHTTP, policy, budget)
	return c, nil
}

// Authenticate fetches (or reuses) the access token, so that a caller can
// report bad credentials before doing anything else.
func (c *Client) Authenticate(ctx context.Context) error {
	_, _, err := c.tokens.Token(ctx)
	return err
}

type userAgent struct {
	value string
	next  http.RoundTripper
}

func (u userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.value)
	return u.next.RoundTrip(r)
}

// CloseIdleConnections passes http.Client.CloseIdleConnections on to the
// transport, which the wrapper would otherwise hide.
func (u userAgent) CloseIdleConnections() {
	if c, ok := u.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// malformedError marks a 2xx body the caller could not decode; the request
// is retried like a transport failure, since a cut or garbled body is
// usually the network's doing.
type malformedError struct{ err error }

func (e malformedError) Error() string { return "malformed response body: " + e.err.Error() }
func (e malformedError) Unwrap() error { return e.err }

// maxFreeRetries bounds the free retries (401 on a token older than the
// newest) between two counted attempts, so that a service that revokes
// tokens as fast as they come cannot keep a request looping for free.
const maxFreeRetries = 3

// get sends GET path?query with the access token, retrying what can be
// retried, and hands a 2xx body to decode. A decode failure counts as a
// failed attempt.
//
// A 429 is the service asking the client to slow down, not a failure: the
// request goes again once the client's budget lets it (see budget.go), and
// uses up no retry. It ends only when the service has accepted nothing of
// this client for the throttle patience, or ctx ends.
//
// A 401 on a token older than the newest one the client holds is retried at
// once with the newest, for free: another request has already replaced it. A
// 401 on the newest token drops it and retries with a new one (fetched once
// for all the requests it failed); that counts as an attempt, so a service
// that refuses every token ends the request after max_retries.
//
// It is one loop on purpose, longer than the rest: the counts of free,
// throttled and counted retries are its state, and every branch updates
// them.
func (c *Client) get(ctx context.Context, path string, query url.Values, decode func([]byte) error) error {
	target := c.cfg.BaseURL + path
	shown := path
	if len(query) > 0 {
		target += "?" + query.Encode()
		shown += "?" + query.Encode()
		if query.Has("filter") && len(shown) > MaxRequestBytes {
			// The listing checks its requests before it builds them; this
			// guards every other path to the service.
			return &FilterLimitError{Resource: path, Filter: query.Get("filter"), Terms: -1, Bytes: len(shown),
				Fix: "Use fewer or shorter values (an in() of about 200 ids fills a request)."}
		}
	}
	began := time.Now()
	counts := countsOf(ctx)
	free := 0      // free retries since the last counted attempt
	refused := 0   // 401s in a row on the newest token
	throttled := 0 // 429s to this request
	var last429 *APIError
	for attempt, sent := 1, 0; ; attempt, sent = attempt+1, sent+1 {
		if sent > 0 {
			counts.retried()
		}
		status, retryAfter, gen, err := c.attempt(ctx, target, shown, attempt, decode)
		if err == nil {
			return nil
		}
		var authErr *AuthError
		var protoErr *ProtocolError
		if errors.As(err, &authErr) || errors.As(err, &protoErr) {
			// Token requests retry on their own, and a response that
			// breaks the contract will break it again.
			return err
		}
		if status == http.StatusTooManyRequests && ctx.Err() == nil {
			throttled++
			errors.As(err, &last429)
			if tErr := c.budget.throttled(http.MethodGet, shown, began, throttled, retryAfter, last429); tErr != nil {
				return tErr
			}
			attempt--
			c.cfg.Logger.Debug(ctx, "throttled; asking again within the request budget", map[string]any{
				"method": http.MethodGet, "path": shown, "throttled_429": throttled, "budget_per_s": round1(c.budget.rate()),
			})
			continue
		}
		if ctx.Err() != nil && last429 != nil && status == 0 {
			// The read's time ran out while the request waited for the
			// store's rate limit: say so, not just "deadline exceeded".
			tErr := c.budget.throttledError(http.MethodGet, shown, throttled, last429)
			tErr.Cause = ctx.Err()
			return tErr
		}
		if status == http.StatusUnauthorized && ctx.Err() == nil {
			if gen < c.tokens.Newest() && free < maxFreeRetries {
				free++
				attempt--
				c.cfg.Logger.Debug(ctx, "retrying with a newer access token", map[string]any{
					"method": http.MethodGet, "path": shown, "attempt": attempt + 1, "generation": gen,
				})
				continue
			}
			free = 0
			refused++
			c.tokens.Invalidate(gen)
			if attempt > c.policy.maxRetries {
				var apiErr *APIError
				if errors.As(err, &apiErr) {
					apiErr.Attempts = attempt
					return &TokenRejectedError{Tokens: refused, Err: apiErr}
				}
				return finalError(ctx, err, attempt, time.Since(began))
			}
			c.cfg.Logger.Debug(ctx, "access token refused; retrying with a new one", map[string]any{
				"method": http.MethodGet, "path": shown, "attempt": attempt, "generation": gen, "reason": err.Error(),
			})
			continue
		}
		free, refused = 0, 0
		if err := c.waitToRetry(ctx, shown, attempt, status, retryAfter, err); err != nil {
			return finalError(ctx, err, attempt, time.Since(began))
		}
	}
}

// waitToRetry waits before the next attempt of a request that failed with
// err, or returns err when it may not be retried. A failure without a usable
// answer is logged at WARN, the service's own answers (429, 5xx) at DEBUG.
func (c *Client) waitToRetry(ctx context.Context, shown string, attempt, status int, retryAfter string, err error) error {
	wait, retry := c.policy.shouldRetry(ctx, attempt, status, retryAfter, err)
	if !retry {
		return err
	}
	var tErr *TransportError
	if errors.As(err, &tErr) {
		c.warnRetry(ctx, shown, attempt, wait, err)
	} else {
		c.cfg.Logger.Debug(ctx, "retrying request", map[string]any{
			"method": http.MethodGet, "path": shown, "attempt": attempt, "wait_ms": wait.Milliseconds(), "reason": err.Error(),
		})
	}
	if sleep(ctx, wait) != nil {
		return err
	}
	return nil
}

// attempt sends one request. It returns the HTTP status (0 without an
// answer), the Retry-After header, the generation of the access token sent
// (0 if none was), and an error for anything but success.
func (c *Client) attempt(ctx context.Context, target, shown string, attempt int, decode func([]byte) error) (status int, retryAfter string, gen int, err error) {
	if err := c.inFlight.acquire(ctx); err != nil {
		return 0, "", 0, err
	}
	// The slot is held while the request is on the wire, not while its
	// body is decoded: decoding then overlaps with the next request.
	released := false
	release := func(throttled bool) {
		if !released {
			released = true
			c.inFlight.release(throttled)
		}
	}
	defer release(false)

	token, gen, err := c.tokens.Token(ctx)
	if err != nil {
		return 0, "", 0, err
	}
	actx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, target, nil)
	if err != nil {
		return 0, "", gen, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")

	start := time.Now()
	resp, body, err := c.send(ctx, req)
	release(err == nil && resp.StatusCode == http.StatusTooManyRequests)
	fields := map[string]any{"method": http.MethodGet, "path": shown, "attempt": attempt, "duration_ms": time.Since(start).Milliseconds()}
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			err = fmt.Errorf("no complete answer within request_timeout (%s)", c.cfg.RequestTimeout)
		}
		fields["error"] = err.Error()
		c.cfg.Logger.Debug(ctx, "request failed", fields)
		return 0, "", gen, &TransportError{Method: http.MethodGet, Path: shown, URL: target, Attempts: attempt, Err: err}
	}
	fields["status"] = resp.StatusCode
	c.cfg.Logger.Debug(ctx, "request", fields)
	status, retryAfter, err = outcome(resp, body, shown, attempt, decode)
	return status, retryAfter, gen, err
}

// send puts req on the wire and reads the answer, counting the request for
// the Client and for the listing ctx belongs to, if any.
func (c *Client) send(ctx context.Context, req *http.Request) (*http.Response, []byte, error) {
	c.requests.Add(1)
	counts := countsOf(ctx)
	counts.sent()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		counts.throttled429()
	}
	return resp, body, err
}

// readBody reads an answer's body, at most maxBodyBytes of it. With a
// Content-Length it reads into one buffer of that size: io.ReadAll grows
// its buffer by doubling, which for a listing of 100,000 records allocates
// twice the bytes the service sent.
func readBody(resp *http.Response) ([]byte, error) {
	r := io.LimitReader(resp.Body, maxBodyBytes)
	if n := resp.ContentLength; n > 0 && n <= maxBodyBytes {
		// One byte more than announced: a body that ends where it said
		// ends in io.ErrUnexpectedEOF right there.
		buf := make([]byte, n+1)
		k, err := io.ReadFull(r, buf)
		switch {
		case int64(k) == n && errors.Is(err, io.ErrUnexpectedEOF):
			return buf[:k], nil
		case err == nil: // longer than announced
			rest, err := io.ReadAll(r)
			return append(buf[:k], rest...), err
		}
		return buf[:k], err
	}
	return io.ReadAll(r)
}

// outcome is what attempt reports of an answer: a 2xx body handed to decode
// (a body it cannot decode is retried like a transport failure, one that
// breaks the contract is not), or the service's error.
func outcome(resp *http.Response, body []byte, shown string, attempt int, decode func([]byte) error) (status int, retryAfter string, err error) {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if err := decode(body); err != nil {
			var protoErr *ProtocolError
			if errors.As(err, &protoErr) {
				return 0, "", err
			}
			return 0, "", &TransportError{Method: http.MethodGet, Path: shown, Attempts: attempt, Err: malformedError{err}}
		}
		return resp.StatusCode, "", nil
	}
	apiErr := newAPIError(resp, body, http.MethodGet, shown)
	apiErr.Attempts = attempt
	return resp.StatusCode, resp.Header.Get("Retry-After"), apiErr
}
