package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
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
// failed together do not come back together.
func (p *retryPolicy) backoff(attempt int) time.Duration {
	d := p.waitMin
	for i := 1; i < attempt && d < p.waitMax; i++ {
		d *= 2
	}
	d = min(d, p.waitMax)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
