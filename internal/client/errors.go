package client

// The transport's own errors: a request that got no usable answer, a token
// that could not be had or was not accepted, a store that kept throttling.
// The service's own error answers are APIErrors (apierror.go).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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

// malformedError marks a 2xx body the caller could not decode; the request
// is retried like a transport failure, since a cut or garbled body is
// usually the network's doing.
type malformedError struct{ err error }

func (e malformedError) Error() string { return "malformed response body: " + e.err.Error() }
func (e malformedError) Unwrap() error { return e.err }

// AuthError is a failed token request. It wraps the underlying cause (an
// *APIError for an answer from the service, or a transport error).
type AuthError struct {
	TokenURL string
	Attempts int           // token requests sent before giving up
	Elapsed  time.Duration // from the first token request until the client gave up
	Err      error
}

func (e *AuthError) Error() string {
	if e.Unreachable() {
		msg := fmt.Sprintf("could not obtain an access token: could not reach %s (%v)", e.TokenURL, causeOf(e.Err))
		if e.Attempts > 0 {
			msg += " " + attemptsOver(e.Attempts, e.Elapsed)
		}
		return msg
	}
	return fmt.Sprintf("could not obtain an access token from %s: %v", e.TokenURL, e.Err)
}

// Unreachable reports whether the token request never got an answer
// (connection refused, DNS, TLS, timeout): auth_url, or the network path to
// it, is at fault, not the credentials.
func (e *AuthError) Unreachable() bool { return noAnswer(e.Err) }

// CredentialsRefused reports whether the token endpoint refused the client
// credentials: it answered 400 or 401.
func (e *AuthError) CredentialsRefused() bool {
	return errors.Is(e.Err, ErrCredentialsRefused) || IsStatus(e.Err, http.StatusBadRequest) || IsStatus(e.Err, http.StatusUnauthorized)
}

func (e *AuthError) Unwrap() error { return e.Err }

// Throttled reports whether the service answered 429 Too Many Requests.
func (e *APIError) Throttled() bool { return e.StatusCode == http.StatusTooManyRequests }

// ThrottledError says that the service kept answering a request 429 Too
// Many Requests until the client stopped asking: it accepted no request of
// this client for the client's patience (DefaultThrottlePatience), asked
// for a longer wait than that (Retry-After), or the caller's context ended
// while the request waited for the store's rate limit.
type ThrottledError struct {
	Method, Path string
	Refused      int           // 429 answers to this request
	Waited       time.Duration // since the service last accepted a request of this client, or since this one began
	Budget       float64       // the client's learned budget then, requests/s; 0 if none was learned
	RateLimit    float64       // the configured ceiling (rate_limit); 0 if none
	RetryAfter   time.Duration // a Retry-After longer than the patience, if that ended the request
	Cause        error         // the context's error, if that ended the request
	Err          *APIError     // the last 429
}

func (e *ThrottledError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: the service answered 429 Too Many Requests %s", e.Method, e.Path, times(e.Refused))
	switch {
	case e.Cause != nil:
		fmt.Fprintf(&b, ", and the time given to the read ran out while requests went at the pace of the store's rate limit (%v)", e.Cause)
	case e.RetryAfter > 0:
		fmt.Fprintf(&b, " and asked to be left alone for %s (Retry-After)", e.RetryAfter)
	default:
		fmt.Fprintf(&b, " and accepted no request of this provider for %s", e.Waited.Round(time.Second))
	}
	if e.Budget > 0 {
		fmt.Fprintf(&b, "; the provider had brought its pace down to %.1f requests/s", e.Budget)
	}
	if e.RateLimit > 0 {
		fmt.Fprintf(&b, " (rate_limit %g)", e.RateLimit)
	}
	return b.String()
}

// Unwrap gives the last 429 and, if it ended the request, the context's
// error.
func (e *ThrottledError) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// ErrCredentialsRefused is wrapped by the *AuthError of a token request the
// token endpoint answered 400 or 401.
var ErrCredentialsRefused = errors.New("the token endpoint refused the client credentials (client_id and client_secret)")

// TokenRejectedError says that the API answered 401 to every access token a
// request was sent with, each the newest the client had, although the token
// endpoint keeps issuing them: the credentials are valid but give no access
// to this store, so more tokens will not help.
type TokenRejectedError struct {
	Tokens int       // newest tokens refused in a row
	Err    *APIError // the last 401
}

func (e *TokenRejectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: the service answered 401 Unauthorized to ", e.Err.Method, e.Err.Path)
	if e.Tokens == 1 {
		b.WriteString("the newest access token")
	} else {
		fmt.Fprintf(&b, "%d freshly issued access tokens in a row", e.Tokens)
	}
	var words []string
	for _, obj := range e.Err.Errors {
		words = append(words, obj.Summary())
	}
	if len(words) == 0 && e.Err.BodyExcerpt != "" {
		words = append(words, strconv.Quote(e.Err.BodyExcerpt))
	}
	if id := e.Err.FirstRequestID(); id != "" {
		words = append(words, "request id "+id)
	}
	if len(words) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(words, "; "))
	}
	b.WriteString(": the credentials are accepted by the token endpoint but their tokens are not by the API; check that the application key has access to this store")
	return b.String()
}

func (e *TokenRejectedError) Unwrap() error { return e.Err }
