package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

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

// Throttled reports whether the service answered 429 Too Many Requests.
func (e *APIError) Throttled() bool { return e.StatusCode == http.StatusTooManyRequests }

// NotFound reports whether err is the service's 404 for a record.
func NotFound(err error) bool { return IsStatus(err, http.StatusNotFound) }

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

// maxExcerpt bounds how much of a non-JSON body reaches a diagnostic.
const maxExcerpt = 200

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
	return nil, excerpt(body)
}

// excerpt turns an arbitrary body into a short single-line printable text.
func excerpt(body []byte) string {
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxExcerpt {
		r := []rune(s)
		s = string(r[:maxExcerpt]) + "…"
	}
	return s
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

// OffsetLimitError says that a listing needed to go past the service's
// offset limit and the service refused the keyset filter that does so.
type OffsetLimitError struct {
	Resource    string
	OffsetLimit int
	Total       int   // how many records the filter matches
	Listed      int   // how many were listed before the engine had to stop
	Err         error // the service's answer to the keyset request
}

func (e *OffsetLimitError) Error() string {
	return fmt.Sprintf("%s: %d records match, but the service serves at most %d by offset and refused the keyset filter needed to list the rest (listed %d): %v",
		e.Resource, e.Total, e.OffsetLimit, e.Listed, e.Err)
}

func (e *OffsetLimitError) Unwrap() error { return e.Err }

// ProtocolError is a response that breaks the documented API contract in a
// way that would make the listing incomplete or wrong if it were ignored.
type ProtocolError struct {
	Method, Path string
	Problem      string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("%s %s: the service's response breaks the API contract: %s", e.Method, e.Path, e.Problem)
}

// contractBroken is the ProtocolError of a GET of path (with its query).
func contractBroken(path, format string, args ...any) error {
	return &ProtocolError{Method: http.MethodGet, Path: path, Problem: fmt.Sprintf(format, args...)}
}

// UnlistableError says the service offers no way to list every record the
// query matches: the provider refuses to return a truncated list.
type UnlistableError struct {
	Resource    string
	Total       int // records the query matches, as the service counts them
	OffsetLimit int
	Reason      string // why no strategy reaches them all
	Fix         string // what the user can do
}

func (e *UnlistableError) Error() string {
	return fmt.Sprintf("%s: %s; %s", e.Resource, e.Reason, e.Fix)
}

// sortUnusableError reports, from the first page of a sorted listing, that
// the service refused the sort= parameter or ignored it.
type sortUnusableError struct{ cause string }

func (e *sortUnusableError) Error() string { return e.cause }

// errWindowChanged says a window changed while it was read by offsets: a
// record was inserted, deleted or moved, so offsets shifted and a record
// may have slipped between two pages.
var errWindowChanged = errors.New("window changed while it was listed")

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
