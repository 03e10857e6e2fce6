package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/logging"
)

// maxRetryAfter bounds how long the client sleeps on the service's word
// alone; a longer Retry-After ends the request with the service's error, so
// that a run fails with an explanation instead of hanging.
const maxRetryAfter = 10 * time.Minute

type retryPolicy struct {
	maxRetries int
	waitMin    time.Duration
	waitMax    time.Duration
}

// retryableStatus lists the answers that say "try again later": rate
// limiting and the gateway-style failures of a busy or restarting service.
func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// shouldRetry decides whether attempt (1-based) may be followed by another,
// and how long to wait before it. status is 0 when no response arrived; err
// is then the transport error.
func (p *retryPolicy) shouldRetry(ctx context.Context, attempt, status int, retryAfter string, err error) (time.Duration, bool) {
	if ctx.Err() != nil || attempt > p.maxRetries {
		return 0, false
	}
	switch {
	case status != 0:
		if !retryableStatus(status) {
			return 0, false
		}
	case err == nil:
		return 0, false
	case errors.Is(err, context.Canceled):
		return 0, false
	}
	if d, ok := parseRetryAfter(retryAfter, time.Now()); ok {
		if d > maxRetryAfter {
			return 0, false
		}
		// A little more than asked, at random, so that the requests the
		// service turned away together do not all come back at one instant.
		return d + time.Duration(rand.Int64N(int64(d/10)+int64(50*time.Millisecond))), true
	}
	return p.backoff(attempt), true
}

// backoff is exponential with "equal jitter": half the delay is fixed so
// that waits keep growing, half is random so that parallel requests that
// failed together do not come back together. Ten lines rather than
// go-retryablehttp's, measured with the client's bounds (250 ms to 30 s),
// 8 requests failing together, 2,000 trials: its DefaultBackoff brings all
// 8 back within the same 20 ms at every attempt (this one at most 2.8 on
// average at the first, 1.5 at the fourth), and its LinearJitterBackoff
// waits 15 to 60 s on average where this one waits 0.19 to 1.5 s.
func (p *retryPolicy) backoff(attempt int) time.Duration {
	d := p.waitMin
	for i := 1; i < attempt && d < p.waitMax; i++ {
		d *= 2
	}
	d = min(d, p.waitMax)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// retrier runs the one retry loop every request of a Client goes through,
// resource and token requests alike: the retry policy, the answer to a 429
// (the request budget's, budget.go) and to a 401 (a newer token).
type retrier struct {
	policy *retryPolicy
	budget *budget
	log    logging.Logger
}

// call is one request as the retry loop sees it.
type call struct {
	kind   *requestKind
	method string
	// shown is what logs and errors name: the path and query, or the
	// token URL.
	shown string
	// tokens, for a request sent with the access token, lets a 401 be
	// retried with a newer one; nil for the token request itself.
	tokens tokenLedger
	// tally counts the request for the read that sent it (its Meter's);
	// nil counts it for nobody (a token request, a Get outside a Meter).
	tally *tally
	// try sends one attempt (attempt counts from 1).
	try func(ctx context.Context, attempt int) tryResult
}

// requestKind is what the retry loop does differently for the two kinds
// of request a Client sends: the resource requests of its callers, and
// its own token requests.
type requestKind struct {
	// logKey is the log field a call's shown goes in.
	logKey string
	// noAnswer and retrying are the WARN line of a retry after no usable
	// answer and the DEBUG line of any other retry.
	noAnswer, retrying string
	// giveUp is the request's error once retries are spent or may not go
	// on; nil returns the last error as it is.
	giveUp func(ctx context.Context, err error, attempts int, elapsed time.Duration) error
}

var (
	resourceRequest = &requestKind{logKey: "path", giveUp: finalError,
		noAnswer: "request got no usable answer; retrying", retrying: "retrying request"}
	// A token request's error is wrapped by its caller (tokenManager.fetch)
	// in an AuthError, which names the credentials.
	tokenRequest = &requestKind{logKey: "token_url",
		noAnswer: "access token request got no answer; retrying", retrying: "retrying access token request"}
)

// fields are the log fields of a line about r: its method and what it
// shows, added to more.
func (r call) fields(more map[string]any) map[string]any {
	more["method"], more[r.kind.logKey] = r.method, r.shown
	return more
}

// tokenLedger is what the retry loop needs of the access tokens to answer
// a 401 (tokenManager, auth.go, keeps them): which token is the newest,
// how many requests one served, and to drop one. Tokens are numbered by
// generation, in the order they were fetched.
type tokenLedger interface {
	Newest() int
	usesOf(gen int) int
	// refusedUnserved records a refusal of gen while it had served
	// nothing, and says how many of the newest tokens in a row did so.
	refusedUnserved(gen int) int
	Invalidate(gen int)
}

// tryResult is what one attempt got: the HTTP status (0 without an
// answer), the Retry-After header, the generation of the access token sent
// (0 if none was), and an error for anything but success.
type tryResult struct {
	// sent says the attempt went on the wire: the read's tally counts it.
	sent       bool
	status     int
	retryAfter string
	gen        int
	err        error
}

// maxFreeRetries bounds the free retries (401 on a token older than the
// newest) between two counted attempts, so that a service that revokes
// tokens as fast as they come cannot keep a request looping for free.
const maxFreeRetries = 3

// isFinal reports whether err ends a request at once: a token request that
// already retried on its own, or an answer whose decoder says it breaks
// the contract (it will break it again).
func isFinal(err error) bool {
	var authErr *AuthError
	var final interface{ Final() bool }
	return errors.As(err, &authErr) || errors.As(err, &final) && final.Final()
}

// maxYoungTokens bounds the access tokens one request may see die young
// (refused after they served other requests) before it gives up: far more
// than a read meets while its requests in flight come down to what a token
// serves (TestYoungTokensListing), and an end for a service that revokes
// every token before this request's turn comes.
const maxYoungTokens = 100

// retryState is what the loop knows of one request across its attempts.
type retryState struct {
	began     time.Time
	free      int // free retries since the last counted attempt
	young     int // tokens refused to this request after they served others
	youngUses int // the most requests one of them served
	throttled int // 429s to this request
	last429   *APIError
}

// do sends r until it succeeds or may not go on.
//
// A 429 is the service asking the client to slow down, not a failure: the
// request goes again once the budget lets it (see budget.go), and uses up
// no retry. It ends only when the service has accepted nothing of this
// client for the throttle patience, or ctx ends.
//
// A 401 on a token older than the newest one the client holds is retried at
// once with the newest, for free: another request has already replaced it. A
// 401 on the newest token drops it and retries with a new one (fetched once
// for all the requests it failed). A token that had served requests died
// young (the service revoked it, or counts its uses): that retry is free
// too, up to maxYoungTokens, and lowers the requests in flight. One that
// served nothing counts as an attempt, so a service that refuses every
// token ends the request after max_retries.
func (rt *retrier) do(ctx context.Context, r call) error {
	st := retryState{began: time.Now()}
	for attempt, sent := 1, 0; ; attempt, sent = attempt+1, sent+1 {
		if sent > 0 {
			r.tally.retried()
		}
		res := r.try(ctx, attempt)
		if res.sent {
			r.tally.sent()
		}
		switch {
		case res.err == nil:
			return nil
		case isFinal(res.err):
			return res.err
		case res.status == http.StatusTooManyRequests && ctx.Err() == nil:
			r.tally.throttled429()
			if err := rt.throttled(ctx, r, res, &st); err != nil {
				return err
			}
			attempt-- // throttling uses up no retry
			continue
		case ctx.Err() != nil && st.last429 != nil && res.status == 0:
			// The read's time ran out while the request waited for the
			// store's rate limit: say so, not just "deadline exceeded".
			tErr := rt.budget.throttledError(r.method, r.shown, st.throttled, st.last429)
			tErr.Cause = ctx.Err()
			return tErr
		case res.status == http.StatusUnauthorized && r.tokens != nil && ctx.Err() == nil:
			free, err := rt.unauthorized(ctx, r, res, attempt, &st)
			if err != nil {
				return err
			}
			if free {
				attempt--
			}
			continue
		}
		st.free = 0
		if err := rt.waitToRetry(ctx, r, attempt, res); err != nil {
			return r.end(ctx, err, attempt, st.began)
		}
	}
}

// throttled is the loop's answer to a 429: nil to ask again once the
// budget lets the request go, or the ThrottledError that ends it.
func (rt *retrier) throttled(ctx context.Context, r call, res tryResult, st *retryState) error {
	st.throttled++
	errors.As(res.err, &st.last429)
	if tErr := rt.budget.throttled(r.method, r.shown, st.began, st.throttled, res.retryAfter, st.last429); tErr != nil {
		return tErr
	}
	rt.log.Debug(ctx, "throttled; asking again within the request budget", r.fields(map[string]any{"throttled_429": st.throttled, "budget_per_s": round1(rt.budget.rate())}))
	return nil
}

// unauthorized is the loop's answer to a 401 on attempt: a free retry with
// the newer token another request already fetched, or after a token that
// died young, a counted retry with a new one, or the error that ends the
// request.
func (rt *retrier) unauthorized(ctx context.Context, r call, res tryResult, attempt int, st *retryState) (free bool, err error) {
	if res.gen < r.tokens.Newest() && st.free < maxFreeRetries {
		st.free++
		rt.log.Debug(ctx, "retrying with a newer access token", r.fields(map[string]any{"attempt": attempt, "generation": res.gen}))
		return true, nil
	}
	st.free = 0
	if uses := r.tokens.usesOf(res.gen); uses > 0 {
		r.tokens.Invalidate(res.gen)
		return true, rt.diedYoung(ctx, r, res, uses, st)
	}
	// A request that gives up leaves the refused token cached: the next
	// one is refused it too and ends without fetching yet another.
	if refused := r.tokens.refusedUnserved(res.gen); refused > rt.policy.maxRetries {
		var apiErr *APIError
		if errors.As(res.err, &apiErr) {
			apiErr.Attempts = attempt
			return false, &TokenRejectedError{Tokens: refused, Err: apiErr}
		}
		return false, r.end(ctx, res.err, attempt, st.began)
	}
	r.tokens.Invalidate(res.gen)
	rt.log.Debug(ctx, "access token refused; retrying with a new one", r.fields(map[string]any{"attempt": attempt, "generation": res.gen, "reason": res.err.Error()}))
	return false, nil
}

// diedYoung is the loop's answer to a 401 on a token that had served uses
// requests: the service revoked it, or counts its uses, and a new one will
// serve too. It lowers the requests in flight toward what a token serves,
// and ends the request only once maxYoungTokens died young on it.
func (rt *retrier) diedYoung(ctx context.Context, r call, res tryResult, uses int, st *retryState) error {
	st.young++
	st.youngUses = max(st.youngUses, uses)
	rt.budget.inFlight.tokenDiedYoung(res.gen, uses)
	if st.young >= maxYoungTokens {
		revoked := &tokensRevokedError{Method: r.method, Path: r.shown, Tokens: st.young, Uses: st.youngUses}
		errors.As(res.err, &revoked.Err)
		return revoked
	}
	rt.log.Debug(ctx, "access token refused after it served requests; retrying with a new one", r.fields(map[string]any{"generation": res.gen, "served": uses, "reason": res.err.Error()}))
	return nil
}

// end is the error r gives up with.
func (r call) end(ctx context.Context, err error, attempts int, began time.Time) error {
	if r.kind.giveUp == nil {
		return err
	}
	return r.kind.giveUp(ctx, err, attempts, time.Since(began))
}

// waitToRetry waits before the next attempt of r after res, or returns
// res.err when it may not be retried. A failure without a usable answer is
// logged at WARN (a user watching a run sees why it is slow), the
// service's own answers (5xx) at DEBUG.
func (rt *retrier) waitToRetry(ctx context.Context, r call, attempt int, res tryResult) error {
	wait, retry := rt.policy.shouldRetry(ctx, attempt, res.status, res.retryAfter, res.err)
	if !retry {
		return res.err
	}
	var tErr *TransportError
	if errors.As(res.err, &tErr) || noAnswer(res.err) {
		rt.log.Warn(ctx, r.kind.noAnswer, r.fields(map[string]any{"attempt": attempt, "cause": causeOf(res.err).Error(), "wait_ms": wait.Milliseconds()}))
	} else {
		rt.log.Debug(ctx, r.kind.retrying, r.fields(map[string]any{"attempt": attempt, "wait_ms": wait.Milliseconds(), "reason": res.err.Error()}))
	}
	if sleep(ctx, wait) != nil {
		return res.err
	}
	return nil
}

// tally counts the resource requests a Client sends for one read (see
// Meter). A Client is shared by every data source of a run, whose reads
// may run at once, so each read's requests go through a Meter of its own,
// which hands its tally to every request it sends. The methods of a nil
// *tally do nothing.
type tally struct {
	requests  atomic.Int64 // requests sent, retries included
	retries   atomic.Int64 // requests sent again after a failed attempt
	throttled atomic.Int64 // 429 Too Many Requests answers
}

// ReadCost is what one read's requests cost, as its Meter counted them.
type ReadCost struct {
	// Requests counts the resource requests sent, retries included;
	// Retries those sent again after a failed attempt (429, 5xx, 401, no
	// usable answer); Throttled the 429 Too Many Requests answers.
	Requests, Retries, Throttled int
	// Budget is the Client's learned request budget then, in requests per
	// second: 0 while the service has never throttled the Client (see
	// budget.go).
	Budget float64
	// Elapsed is the time from the Meter's start to its Finish.
	Elapsed time.Duration
}

func (t *tally) sent() {
	if t != nil {
		t.requests.Add(1)
	}
}

func (t *tally) retried() {
	if t != nil {
		t.retries.Add(1)
	}
}

func (t *tally) throttled429() {
	if t != nil {
		t.throttled.Add(1)
	}
}

// RequestRate is the read's rate in requests per second (0 for a read
// that took no time).
func (s ReadCost) RequestRate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Requests) / s.Elapsed.Seconds()
}
