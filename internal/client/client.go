package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// maxBodyBytes bounds what one response may make the client read; a page of
// 100 records is a few hundred KB at most.
const maxBodyBytes = 64 << 20

// Client talks to the service. It is safe for concurrent use; one Client
// (and so one access token and one request budget) serves every data
// source of a provider run.
type Client struct {
	cfg      Config
	http     *http.Client
	tokens   *tokenManager
	retries  *retrier
	budget   *budget // requests per second, shared by every request
	inFlight *adaptiveLimit
	// requests counts the resource requests sent (retries included). Only
	// tests read it (export_test.go); a read counts its own in a Meter.
	requests atomic.Int64
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
	policy := &retryPolicy{maxRetries: cfg.MaxRetries, waitMin: cfg.RetryWaitMin, waitMax: cfg.RetryWaitMax}
	inFlight := newAdaptiveLimit(cfg.MaxParallelRequests)
	budget := newBudget(cfg, policy.backoff, inFlight)
	// The budget sits below the User-Agent and above the connection: the
	// token requests go through it too, since they count against the
	// store's rate limit like every other.
	base := &http.Client{Transport: userAgent{cfg.UserAgent, budgetTransport{budget, transport}}}

	retries := &retrier{policy: policy, budget: budget, log: cfg.Logger}
	// The token request gets the same per-attempt timeout as every other,
	// started once the budget lets it go (tokenManager.try). It reads the
	// token's fields at the top level or inside data, the two shapes the
	// vendor documents (auth.go).
	tokenHTTP := &http.Client{Transport: tokenShape{base.Transport}}
	return &Client{
		cfg:      cfg,
		http:     base,
		tokens:   newTokenManager(cfg, tokenHTTP, retries),
		retries:  retries,
		budget:   budget,
		inFlight: inFlight,
	}, nil
}

// AccessToken returns the client's cached access token if it stays valid
// for at least minLifetime, else a new one, which the client's own
// requests then use too: one token request serves both while the token is
// fresh. Its errors are those of every token request (*AuthError), or a
// *TokenLifetimeError.
func (c *Client) AccessToken(ctx context.Context, minLifetime time.Duration) (AccessToken, error) {
	t, _, err := c.tokens.tokenFor(ctx, minLifetime)
	if err != nil {
		return AccessToken{}, err
	}
	// A token just fetched is handed out whatever its lifetime; one with
	// less than asked for says the service issues no longer ones.
	if left := time.Until(t.Expiry); !t.Expiry.IsZero() && left < minLifetime {
		return AccessToken{}, &TokenLifetimeError{Asked: minLifetime, Lifetime: left}
	}
	return t, nil
}

// MaxParallelRequests is the most requests the client lets be in flight
// at once: the listing engine sizes its workers by it.
func (c *Client) MaxParallelRequests() int { return c.cfg.MaxParallelRequests }

// Authenticate fetches (or reuses) the access token, so that a caller can
// report bad credentials before doing anything else.
func (c *Client) Authenticate(ctx context.Context) error {
	_, _, err := c.tokens.Token(ctx)
	return err
}

// Get sends GET path?query with the access token, retrying what can be
// retried (see do), and hands a 2xx body to decode. A decode failure
// counts as a failed attempt and is retried, unless its error says it is
// final (a Final() bool method that returns true): an answer that breaks
// the service's contract will break it again.
//
// path is below base_url; query may be nil. Get is the one way the
// listing engine reaches the service; a read's engine reaches it through
// the read's Meter, which counts what the read sent.
func (c *Client) Get(ctx context.Context, path string, query url.Values, decode func([]byte) error) error {
	return c.get(ctx, path, query, decode, nil)
}

// Expect tells the Client how many more requests a read expects to send,
// as far as it knows: before a store's first 429 the client probes its
// limit by a share of the requests its reads expect (see probe). The
// listing engine says so once a listing's first page has a count.
func (c *Client) Expect(requests int) { c.budget.expect(requests) }

// get is Get with the request counted in t (nil: for nobody).
func (c *Client) get(ctx context.Context, path string, query url.Values, decode func([]byte) error, t *tally) error {
	target := c.cfg.BaseURL + path
	shown := path
	if len(query) > 0 {
		target += "?" + query.Encode()
		shown += "?" + query.Encode()
	}
	return c.retries.do(ctx, call{
		kind: resourceRequest, method: http.MethodGet, shown: shown, tokens: c.tokens, tally: t,
		try: func(ctx context.Context, attempt int) tryResult {
			return c.attempt(ctx, target, shown, attempt, decode)
		},
	})
}

// attempt sends one resource request: what came back, with the
// generation of the access token sent (0 if none was).
func (c *Client) attempt(ctx context.Context, target, shown string, attempt int, decode func([]byte) error) tryResult {
	inFlight, err := c.inFlight.acquire(ctx)
	if err != nil {
		return tryResult{err: err}
	}
	// The slot is held while the request is on the wire, not while its
	// body is decoded: decoding then overlaps with the next request.
	release := inFlight.release
	defer release()

	token, gen, err := c.tokens.Token(ctx)
	if err != nil {
		return tryResult{err: err}
	}
	// The budget first, then request_timeout: the timeout bounds the
	// attempt on the wire, not its wait for the store's rate limit.
	admitted, err := c.budget.admit(ctx)
	if err != nil {
		return tryResult{gen: gen, err: err}
	}
	actx, cancel := context.WithTimeout(admitted, c.cfg.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, target, nil)
	if err != nil {
		return tryResult{gen: gen, err: err}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")

	start := time.Now()
	inFlight.sent()
	resp, body, err := c.send(req)
	release()
	fields := map[string]any{"method": http.MethodGet, "path": shown, "attempt": attempt, "duration_ms": time.Since(start).Milliseconds()}
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			err = fmt.Errorf("no complete answer within request_timeout (%s)", c.cfg.RequestTimeout)
		}
		fields["error"] = err.Error()
		c.cfg.Logger.Debug(ctx, "request failed", fields)
		return tryResult{sent: true, gen: gen, err: &TransportError{Method: http.MethodGet, Path: shown, URL: target, Attempts: attempt, Err: err}}
	}
	fields["status"] = resp.StatusCode
	c.cfg.Logger.Debug(ctx, "request", fields)
	if tokenAccepted(resp.StatusCode) {
		c.tokens.served(gen)
		c.inFlight.tokenServed()
	}
	res := outcome(resp, body, shown, attempt, decode)
	res.sent, res.gen = true, gen
	return res
}

// tokenAccepted reports whether an answer with status says the access token
// it was sent with was accepted: anything the service answered but a
// refusal of the token (401, 403), a 429 (counted before the token is
// looked at) and a failure of its own (5xx).
func tokenAccepted(status int) bool {
	return status < 500 && status != http.StatusUnauthorized && status != http.StatusForbidden && status != http.StatusTooManyRequests
}

// send puts req on the wire and reads the answer, counting the request for
// the Client.
func (c *Client) send(req *http.Request) (*http.Response, []byte, error) {
	c.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
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
// (a body it cannot decode is retried like a transport failure, one whose
// error is final is not), or the service's error.
func outcome(resp *http.Response, body []byte, shown string, attempt int, decode func([]byte) error) tryResult {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if err := decode(body); err != nil {
			if isFinal(err) {
				return tryResult{err: err}
			}
			return tryResult{err: &TransportError{Method: http.MethodGet, Path: shown, Attempts: attempt, Err: malformedError{err}}}
		}
		return tryResult{status: resp.StatusCode}
	}
	apiErr := newAPIError(resp, body, http.MethodGet, shown)
	apiErr.Attempts = attempt
	return tryResult{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), err: apiErr}
}

// The RoundTrippers every request of a Client goes through, outermost
// first: userAgent names the provider; budgetTransport (below) holds
// the request back until the store's rate budget lets it go and feeds the
// answer back into the budget; then the connection.

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

// budgetTransport puts every request of a Client, the token request
// included, under its budget, and feeds every answer back into it.
type budgetTransport struct {
	budget *budget
	next   http.RoundTripper
}

func (t budgetTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	sent, ok := admitted(r.Context())
	var err error
	if !ok {
		sent, err = t.budget.wait(r.Context(), false)
	}
	if err != nil {
		if r.Body != nil {
			r.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, err
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		t.budget.unanswered(sent)
		return nil, err
	}
	t.budget.observe(r.Context(), sent, resp.StatusCode, resp.Header.Get("Retry-After"))
	return resp, nil
}

// CloseIdleConnections passes http.Client.CloseIdleConnections on.
func (t budgetTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// Meter is a Getter for one read: it sends through its Client and counts
// what the read sent, retries and 429s included. A read's engine sends
// through the read's own Meter (listing.Engine.Using), so that its cost is
// its own whatever else the Client serves at once; Finish returns it.
type Meter struct {
	client *Client
	tally  tally
	start  time.Time
}

// Meter starts the Meter of one read.
func (c *Client) Meter() *Meter {
	return &Meter{client: c, start: time.Now()}
}

// Get is Client.Get, counted for the Meter's read.
func (m *Meter) Get(ctx context.Context, path string, query url.Values, decode func([]byte) error) error {
	return m.client.get(ctx, path, query, decode, &m.tally)
}

// Expect is Client.Expect, for the Meter's read.
func (m *Meter) Expect(requests int) { m.client.Expect(requests) }

// Finish ends the Meter's read (of resource at path, ended in err): it
// returns what the read cost and err, and, if the service throttled it,
// logs one WARN with how often and at what pace, and turns a context that
// ran out while the store's rate limit set the pace into a
// ThrottledError, which says so instead of a bare "deadline exceeded".
// What the transport counted and how it ended a read are the transport's
// to say, not the engine's.
func (m *Meter) Finish(ctx context.Context, resource, path string, err error) (ReadCost, error) {
	c := m.client
	cost := ReadCost{
		Requests: int(m.tally.requests.Load()), Retries: int(m.tally.retries.Load()), Throttled: int(m.tally.throttled.Load()),
		Budget: round1(c.budget.rate()), Elapsed: time.Since(m.start),
	}
	c.warnThrottled(ctx, resource, cost)
	// The read's deadline, or its shared listing's (the same), ran out.
	if errors.Is(err, context.DeadlineExceeded) && cost.Throttled > 0 && cost.Budget > 0 {
		tErr := c.budget.throttledError(http.MethodGet, path, cost.Throttled, nil)
		tErr.Cause = err
		err = tErr
	}
	return cost, err
}

// warnThrottled logs, once at the end of a read the service answered 429,
// how often it did, at what rate the read sent requests and the budget
// the client has learned in answer.
func (c *Client) warnThrottled(ctx context.Context, resource string, cost ReadCost) {
	if cost.Throttled == 0 {
		return
	}
	rate := cost.RequestRate()
	parallel := c.inFlight.current()
	c.cfg.Logger.Warn(ctx, fmt.Sprintf("the service throttled the read of %s: %d answers 429 Too Many Requests out of %d requests (%.1f requests/s); "+
		"the provider now paces all its requests at %.1f requests/s, with up to %d in flight. "+
		"The store's rate limit is shared with its storefront: set rate_limit below it to leave room if this recurs.",
		resource, cost.Throttled, cost.Requests, rate, cost.Budget, parallel), map[string]any{
		"resource": resource, "throttled_429": cost.Throttled, "requests": cost.Requests, "retries": cost.Retries,
		"request_rate_per_s": rate, "budget_per_s": cost.Budget, "parallelism": parallel, "max_parallel_requests": c.cfg.MaxParallelRequests,
		"rate_limit": c.cfg.RateLimit, "duration_ms": cost.Elapsed.Milliseconds(),
	})
}
