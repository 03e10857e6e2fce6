package client

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// requestCounts counts the resource requests of one listing. A Client is
// shared by every data source of a run, whose listings may run at once, so
// the counts travel with the listing's context rather than in the Client:
// get and attempt add to the counts of the context they are given, if any,
// and fetchPage the display attributes of an unexpected type its page
// held (decoded, see lenient.go).
type requestCounts struct {
	requests  atomic.Int64 // requests sent, retries included
	retries   atomic.Int64 // requests sent again after a failed attempt
	throttled atomic.Int64 // 429 Too Many Requests answers
	decoded   decodeLog
}

type requestCountsKey struct{}

// withRequestCounts gives ctx a fresh set of counts.
func withRequestCounts(ctx context.Context) (context.Context, *requestCounts) {
	counts := &requestCounts{}
	return context.WithValue(ctx, requestCountsKey{}, counts), counts
}

// countsOf returns the counts ctx carries, or nil; the methods of a nil
// *requestCounts do nothing.
func countsOf(ctx context.Context) *requestCounts {
	counts, _ := ctx.Value(requestCountsKey{}).(*requestCounts)
	return counts
}

func (r *requestCounts) sent() {
	if r != nil {
		r.requests.Add(1)
	}
}

func (r *requestCounts) retried() {
	if r != nil {
		r.retries.Add(1)
	}
}

func (r *requestCounts) throttled429() {
	if r != nil {
		r.throttled.Add(1)
	}
}

// fill copies the counts into stats.
func (r *requestCounts) fill(stats *ListStats) {
	stats.Requests = int(r.requests.Load())
	stats.Retries = int(r.retries.Load())
	stats.Throttled = int(r.throttled.Load())
}

// RequestRate is the listing's effective rate in requests per second over
// elapsed (0 for an empty duration).
func (s ListStats) RequestRate(elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(s.Requests) / elapsed.Seconds()
}

// warnThrottled logs, once at the end of a listing the service answered 429,
// how often it did, at what rate the listing sent requests and the budget
// the client has learned in answer.
func (c *Client) warnThrottled(ctx context.Context, resource string, stats ListStats, elapsed time.Duration) {
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
