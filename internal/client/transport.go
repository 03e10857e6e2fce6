package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"
)

// TransportError is a request that never got an answer the client could use:
// connection failures, timeouts, truncated or undecodable bodies.
type TransportError struct {
	Method, Path string
	// URL is the address requested (base_url, path and query); it never
	// carries credentials. Empty in errors built by hand.
	URL      string
	Attempts int           // how many times the request was sent before giving up
	Elapsed  time.Duration // from the first attempt until the client gave up
	Err      error
}

// Error says "could not reach URL (cause) after N attempts over T s"; a body
// that arrived but could not be decoded keeps "METHOD path: malformed ...".
func (e *TransportError) Error() string {
	var malformed malformedError
	if errors.As(e.Err, &malformed) {
		msg := fmt.Sprintf("%s %s: %v", e.Method, e.Path, e.Err)
		if e.Attempts > 1 {
			msg += " (gave up " + attemptsOver(e.Attempts, e.Elapsed) + ")"
		}
		return msg
	}
	target := e.URL
	if target == "" {
		target = e.Path
	}
	msg := fmt.Sprintf("could not reach %s (%v)", target, causeOf(e.Err))
	if e.Attempts > 0 {
		msg += " " + attemptsOver(e.Attempts, e.Elapsed)
	}
	return msg
}

func (e *TransportError) Unwrap() error { return e.Err }

// attemptsOver is "after 6 attempts over 11.7 s".
func attemptsOver(attempts int, elapsed time.Duration) string {
	noun := "attempts"
	if attempts == 1 {
		noun = "attempt"
	}
	return fmt.Sprintf("after %d %s over %.1f s", attempts, noun, elapsed.Seconds())
}

// causeOf drops the *url.Error wrapper ("Get \"URL\": ..."), whose URL the
// message already names, and keeps what went wrong, e.g. "dial tcp
// 127.0.0.1:1: connect: connection refused".
func causeOf(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// noAnswer reports whether err is a request that got no answer at all from
// the server (connection refused, DNS, TLS, timeout), as opposed to an
// answer the client could not use or a request its caller cancelled.
func noAnswer(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && !errors.Is(err, context.Canceled)
}

// finalError is the error get gives up with: attempts and elapsed time are
// recorded in it, and a context that ended is named before the last error.
func finalError(ctx context.Context, err error, attempts int, elapsed time.Duration) error {
	var apiErr *APIError
	var tErr *TransportError
	switch {
	case errors.As(err, &apiErr):
		apiErr.Attempts = attempts
	case errors.As(err, &tErr):
		tErr.Attempts = attempts
		tErr.Elapsed = elapsed
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("%w (last error: %v)", ctxErr, err)
	}
	return err
}

// warnRetry logs, at WARN, a request that got no usable answer and is about
// to be sent again: a user watching a run sees why it is slow.
func (c *Client) warnRetry(ctx context.Context, shown string, attempt int, wait time.Duration, err error) {
	c.cfg.Logger.Warn(ctx, "request got no usable answer; retrying", map[string]any{
		"method": "GET", "path": shown, "attempt": attempt, "cause": causeOf(err).Error(), "wait_ms": wait.Milliseconds(),
	})
}
