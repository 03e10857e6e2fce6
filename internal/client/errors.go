package client

// The transport's own errors: a request that got no usable answer, a token
// that could not be had or was not accepted, a store that kept throttling.
// The service's own error answers are APIErrors (below).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/excerpt"
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

// tokensRevokedError says that the API kept refusing a request's access
// tokens with 401 after each had served other requests: the service
// revokes its tokens, or lets them expire, after a few uses, faster than
// this request got its turn. The credentials are good (every token
// served), so it does not unwrap to the 401, which callers read as access
// refused: it is the service's doing, in the service's words.
type tokensRevokedError struct {
	Method, Path string
	Tokens       int       // tokens refused to this request after they served others
	Uses         int       // the most requests one of them served
	Err          *APIError // the last 401; nil if it was not the service's error document
}

func (e *tokensRevokedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: the service answered 401 Unauthorized", e.Method, e.Path)
	if e.Err != nil {
		var words []string
		for _, obj := range e.Err.Errors {
			words = append(words, obj.Summary())
		}
		if id := e.Err.FirstRequestID(); id != "" {
			words = append(words, "request id "+id)
		}
		if len(words) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(words, "; "))
		}
	}
	fmt.Fprintf(&b, " to %d access tokens in a row, each after it had served at most %d %s: the service revokes or expires its access tokens after about %d %s, "+
		"before this request's turn came; the credentials are accepted. Try again when the store is less busy, or lower max_parallel_requests",
		e.Tokens, e.Uses, plural(e.Uses, "request"), e.Uses, plural(e.Uses, "use"))
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// ErrorObject is one entry of the service's JSON:API error body.
type ErrorObject struct {
	Status    int    // HTTP status the service put in the entry (it may send it as a number or a string)
	Title     string // short summary, e.g. "Bad Request"
	Detail    string // the service's explanation, e.g. "Could not parse the supplied filter"
	RequestID string // the service's request id, for support tickets
	Parameter string // source.parameter: the query parameter at fault, if named
}

// APIError is a response the service answered with a non-success status.
// It keeps the service's own words so that they reach the user unchanged.
type APIError struct {
	StatusCode int
	Method     string
	Path       string // path and query of the request (never carries credentials)
	Errors     []ErrorObject
	// BodyExcerpt is a short, printable excerpt of a body that was not a
	// JSON:API error document, such as a proxy's HTML error page.
	BodyExcerpt string
	RequestID   string // from the X-Request-Id header when the body had none
	Attempts    int    // how many times the request was sent before giving up
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	for i, obj := range e.Errors {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(obj.Summary())
	}
	if len(e.Errors) == 0 && e.BodyExcerpt != "" {
		fmt.Fprintf(&b, ": response body was not a JSON:API error document: %q", e.BodyExcerpt)
	}
	if id := e.FirstRequestID(); id != "" {
		fmt.Fprintf(&b, " (request id %s)", id)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Summary renders "title: detail" without repeating a detail that merely
// restates the title.
func (o ErrorObject) Summary() string {
	switch {
	case o.Title == "":
		return o.Detail
	case o.Detail == "" || strings.EqualFold(o.Title, o.Detail):
		return o.Title
	default:
		return o.Title + ": " + o.Detail
	}
}

// FirstRequestID returns the request id the service gave, if any.
func (e *APIError) FirstRequestID() string {
	for _, obj := range e.Errors {
		if obj.RequestID != "" {
			return obj.RequestID
		}
	}
	return e.RequestID
}

// Title is the first error's title, or the HTTP status text.
func (e *APIError) Title() string {
	if len(e.Errors) > 0 && e.Errors[0].Title != "" {
		return e.Errors[0].Title
	}
	return http.StatusText(e.StatusCode)
}

// StatusLine is the status code and its text, e.g. "400 Bad Request".
func (e *APIError) StatusLine() string {
	return fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// Refused reports whether the service refused the credentials or the access
// they give (401, 403).
func (e *APIError) Refused() bool {
	return e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden
}

// BadRequest reports whether the service refused the request as malformed
// (400).
func (e *APIError) BadRequest() bool { return e.StatusCode == http.StatusBadRequest }

// RefusedParameter reports whether the service answered 400 to a request
// that carried the query parameter name, in an error entry that names
// name as its source.parameter, or names no parameter but mentions name in
// its words; it returns that entry's words.
func (e *APIError) RefusedParameter(name string) (string, bool) {
	sent := e.Path
	if unescaped, err := url.QueryUnescape(sent); err == nil {
		sent = unescaped // page%5Boffset%5D= is page[offset]=
	}
	if !e.BadRequest() || !strings.Contains(sent, name+"=") {
		return "", false
	}
	for _, o := range e.Errors {
		if o.Parameter != "" && o.Parameter != name {
			continue
		}
		if o.Parameter == name || strings.Contains(strings.ToLower(o.Title+" "+o.Detail), name) {
			return o.Summary(), true
		}
	}
	return "", false
}

// NotFound reports whether err is the service's 404 for a record.
func NotFound(err error) bool { return IsStatus(err, http.StatusNotFound) }

// Forbidden reports whether err is the service's 403: the credentials have
// no access to what was asked.
func Forbidden(err error) bool { return IsStatus(err, http.StatusForbidden) }

// IsStatus reports whether err is an APIError with the given HTTP status.
func IsStatus(err error, status int) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == status
}

// flexibleStatus accepts a JSON:API status given as a number or a string.
type flexibleStatus int

func (s *flexibleStatus) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		if str == "" {
			*s = 0
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(str))
		if err != nil {
			return fmt.Errorf("error status %q is not a number", str)
		}
		*s = flexibleStatus(n)
		return nil
	}
	if string(b) == "null" {
		*s = 0
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*s = flexibleStatus(n)
	return nil
}

type errorDocument struct {
	Errors []struct {
		Status    flexibleStatus `json:"status"`
		Title     string         `json:"title"`
		Detail    string         `json:"detail"`
		RequestID string         `json:"request_id"`
		Source    struct {
			Parameter string `json:"parameter"`
		} `json:"source"`
	} `json:"errors"`
}

// parseErrorBody decodes a JSON:API error document. It returns the entries
// it found, or an excerpt of the body when the body is not such a document.
func parseErrorBody(body []byte) ([]ErrorObject, string) {
	var doc errorDocument
	if err := json.Unmarshal(body, &doc); err == nil && len(doc.Errors) > 0 {
		out := make([]ErrorObject, 0, len(doc.Errors))
		for _, e := range doc.Errors {
			out = append(out, ErrorObject{Status: int(e.Status), Title: e.Title, Detail: e.Detail, RequestID: e.RequestID, Parameter: e.Source.Parameter})
		}
		return out, ""
	}
	return nil, excerpt.Of(body)
}

func newAPIError(resp *http.Response, body []byte, method, path string) *APIError {
	objs, ex := parseErrorBody(body)
	return &APIError{
		StatusCode:  resp.StatusCode,
		Method:      method,
		Path:        path,
		Errors:      objs,
		BodyExcerpt: ex,
		RequestID:   resp.Header.Get("X-Request-Id"),
	}
}
