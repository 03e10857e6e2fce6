package client

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/commerce-tf/terraform-provider-commerce/internal/excerpt"
)

// FuzzParseErrorBody checks that any error body, however broken, gives
// either JSON:API error entries or a short, single-line, valid UTF-8 excerpt,
// and that the APIError built from it renders without panicking.
func FuzzParseErrorBody(f *testing.F) {
	f.Add([]byte(`{"errors":[{"status":"400","title":"Bad Request","detail":"Could not parse the supplied filter","request_id":"r-1"}]}`))
	f.Add([]byte(`{"errors":[{"status":503}]}`))
	f.Add([]byte("<html><head><title>502 Bad Gateway</title></head>\r\n<body><h1>Bad Gateway</h1></body></html>"))
	f.Add([]byte("\xff\xfe\x00 bad \x1b[31m utf-8\n\n"))
	f.Add([]byte(strings.Repeat("é", 300)))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		objs, ex := parseErrorBody(body)
		if len(objs) > 0 && ex != "" {
			t.Fatalf("both error entries and an excerpt %q", ex)
		}
		if !utf8.ValidString(ex) {
			t.Fatalf("excerpt %q is not valid UTF-8", ex)
		}
		if n := utf8.RuneCountInString(ex); n > excerpt.MaxRunes+1 || (n == excerpt.MaxRunes+1 && !strings.HasSuffix(ex, "…")) {
			t.Fatalf("excerpt of %d runes: %q", n, ex)
		}
		if strings.ContainsAny(ex, "\r\n\t") || strings.TrimSpace(ex) != ex || strings.Contains(ex, "  ") {
			t.Fatalf("excerpt %q is not one line of single-spaced words", ex)
		}
		if len(objs) == 0 && (ex == "") != (len(strings.Fields(string(body))) == 0) {
			t.Fatalf("excerpt %q of a body with %d words", ex, len(strings.Fields(string(body))))
		}
		e := &APIError{StatusCode: http.StatusBadGateway, Method: http.MethodGet, Path: "/v2/orders", Errors: objs, BodyExcerpt: ex, Attempts: 2}
		msg := e.Error()
		_ = e.Title()
		if !strings.HasPrefix(msg, "GET /v2/orders: 502 Bad Gateway") || !strings.HasSuffix(msg, "(gave up after 2 attempts)") {
			t.Fatalf("error message %q", msg)
		}
		if len(objs) == 0 && ex != "" && !utf8.ValidString(msg) {
			t.Fatalf("error message %q is not valid UTF-8", msg)
		}
	})
}
