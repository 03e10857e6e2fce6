package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/excerpt"
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

// BadRequest reports whether the service refused the request as malformed
// (400).
func (e *APIError) BadRequest() bool { return e.StatusCode == http.StatusBadRequest }

// RefusedParameter reports whether the service answered 400 to a request
// that carried the query parameter name, in an error entry that names
// name as its source.parameter, or names no parameter but mentions name in
// its words; it returns that entry's words.
func (e *APIError) RefusedParameter(name string) (string, bool) {
	if !e.BadRequest() || !strings.Contains(e.Path, name+"=") {
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
