package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// Trace counts the resource requests a Client sends for one caller, such
// as one listing. A Client is shared by every data source of a run, whose
// listings may run at once, so the counts travel with the caller's context
// (as net/http/httptrace's hooks do): WithTrace gives a context its own,
// and Get adds to the Trace of the context it is given, if any.
type Trace struct {
	requests  atomic.Int64 // requests sent, retries included
	retries   atomic.Int64 // requests sent again after a failed attempt
	throttled atomic.Int64 // 429 Too Many Requests answers
}

// TraceStats are a Trace's counts once its caller is done.
type TraceStats struct {
	// Requests counts the resource requests sent, retries included;
	// Retries those sent again after a failed attempt (429, 5xx, 401, no
	// usable answer); Throttled the 429 Too Many Requests answers.
	Requests, Retries, Throttled int
	// Budget is the Client's learned request budget then, in requests per
	// second: 0 while the service has never throttled the Client (see
	// budget.go).
	Budget float64
}

type traceKey struct{}

// WithTrace gives ctx a fresh Trace.
func WithTrace(ctx context.Context) (context.Context, *Trace) {
	t := &Trace{}
	return context.WithValue(ctx, traceKey{}, t), t
}

// traceOf returns the Trace ctx carries, or nil; the methods of a nil
// *Trace do nothing.
func traceOf(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

func (t *Trace) sent() {
	if t != nil {
		t.requests.Add(1)
	}
}

func (t *Trace) retried() {
	if t != nil {
		t.retries.Add(1)
	}
}

func (t *Trace) throttled429() {
	if t != nil {
		t.throttled.Add(1)
	}
}

// RequestRate is the effective rate in requests per second over elapsed
// (0 for an empty duration).
func (s TraceStats) RequestRate(elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(s.Requests) / elapsed.Seconds()
}

// Finish ends the work t traced (a read of resource at path, which took
// elapsed and ended in err): it returns t's counts and err, and, if the
// service throttled it, logs one WARN with how often and at what pace, and
// turns a context that ran out while the store's rate limit set the pace
// into a ThrottledError, which says so instead of a bare "deadline
// exceeded". The caller of a read calls it, with the Trace it gave the
// read's context: what the transport counted and how it ended a read are
// the transport's to say, not the engine's.
func (c *Client) Finish(ctx context.Context, t *Trace, resource, path string, elapsed time.Duration, err error) (TraceStats, error) {
	stats := TraceStats{
		Requests: int(t.requests.Load()), Retries: int(t.retries.Load()), Throttled: int(t.throttled.Load()),
		Budget: round1(c.budget.rate()),
	}
	c.warnThrottled(ctx, resource, stats, elapsed)
	// The read's deadline, or its shared listing's (the same), ran out.
	if errors.Is(err, context.DeadlineExceeded) && stats.Throttled > 0 && stats.Budget > 0 {
		tErr := c.budget.throttledError(http.MethodGet, path, stats.Throttled, nil)
		tErr.Cause = err
		err = tErr
	}
	return stats, err
}

// warnThrottled logs, once at the end of a listing the service answered 429,
// how often it did, at what rate the listing sent requests and the budget
// the client has learned in answer.
func (c *Client) warnThrottled(ctx context.Context, resource string, stats TraceStats, elapsed time.Duration) {
	if stats.Throttled == 0 {
		return
	}
	rate := stats.RequestRate(elapsed)
	parallel := c.inFlight.current()
	c.cfg.Logger.Warn(ctx, fmt.Sprintf("the service throttled the listing of %s: %d answers 429 Too Many Requests out of %d requests (%.1f requests/s); "+
		"the provider now paces all its requests at %.1f requests/s, with up to %d in flight. "+
		"The store's rate limit is shared with its storefront: set rate_limit below it to leave room if this recurs.",
		resource, stats.Throttled, stats.Requests, rate, stats.Budget, parallel), map[string]any{
		"resource": resource, "throttled_429": stats.Throttled, "requests": stats.Requests, "retries": stats.Retries,
		"request_rate_per_s": rate, "budget_per_s": stats.Budget, "parallelism": parallel, "max_parallel_requests": c.cfg.MaxParallelRequests,
		"rate_limit": c.cfg.RateLimit, "duration_ms": elapsed.Milliseconds(),
	})
}
