package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

// badFilter is the service's answer to a filter it cannot parse.
func badFilter() *client.APIError {
	return &client.APIError{StatusCode: 400, Method: "GET", Path: "/v2/orders?filter=eq(colour,red)",
		Errors: []client.ErrorObject{{Status: 400, Title: "Bad Request", Detail: "Unknown filter attribute colour", RequestID: "req-42"}}}
}

func withStatus(status int, title string) *client.APIError {
	return &client.APIError{StatusCode: status, Method: "GET", Path: "/v2/orders", Errors: []client.ErrorObject{{Title: title}}}
}

func TestErrorDiagnostic(t *testing.T) {
	live := context.Background()
	expired, cancel := context.WithDeadline(live, time.Now().Add(-time.Second))
	defer cancel()
	timeout := &client.TransportError{Method: "GET", Path: "/v2/orders", Attempts: 1, Err: context.DeadlineExceeded}

	cases := []struct {
		name    string
		ctx     context.Context
		err     error
		summary string
		detail  []string // phrases the detail holds
		not     []string // phrases it must not hold
	}{{
		name: "token endpoint refuses the credentials",
		err: &client.AuthError{TokenURL: "https://auth.example/oauth/access_token", Err: &client.APIError{StatusCode: 401, Method: "POST", Path: "/oauth/access_token",
			Errors: []client.ErrorObject{{Title: "Unauthorized", Detail: "invalid client secret"}}}},
		summary: "Authentication failed",
		detail: []string{"The service did not issue an access token.", "Request: POST /oauth/access_token", "Status:  401 Unauthorized",
			"Detail:  invalid client secret", "client_id and client_secret", "COMMERCE_CLIENT_ID and COMMERCE_CLIENT_SECRET", "COMMERCE_AUTH_URL",
			"the token is requested from https://auth.example/oauth/access_token."},
	}, {
		name:    "token endpoint unreachable",
		err:     &client.AuthError{TokenURL: "https://auth.example/oauth/access_token", Err: errors.New("dial tcp: connection refused")},
		summary: "Authentication failed",
		detail:  []string{"The service did not issue an access token.\n\ndial tcp: connection refused\n\n"},
		not:     []string{"Status:"},
	}, {
		name:    "API refuses every fresh token",
		err:     &client.TokenRejectedError{Tokens: 3, Err: withStatus(401, "Unauthorized")},
		summary: "Could not list orders: the service refuses the access tokens",
		detail:  []string{"Status:  401 Unauthorized", "(3 in a row, each the newest issued)", "has access to this store", "base_url is the store's API address"},
	}, {
		name:    "offset limit",
		err:     &client.OffsetLimitError{Resource: "orders", OffsetLimit: 10000, Total: 25000, Listed: 10000, Err: badFilter()},
		summary: "Cannot list past the service's offset limit",
		detail: []string{"25000 orders match", "serves at most 10000 of them by page offset", "(10000 were listed before it stopped)",
			"does not return a truncated list", "The service said: Request: GET /v2/orders?filter=eq(colour,red)",
			"so that at most 10000 records match", "ge(created_at,2026-01-01T00:00:00.000Z):lt(created_at,2026-02-01T00:00:00.000Z)", "max_results"},
	}, {
		name:    "unlistable",
		err:     fmt.Errorf("listing: %w", &client.UnlistableError{Resource: "files", Total: 10001, OffsetLimit: 10000, Reason: "10001 files have file_size = 512", Fix: "narrow the filter"}),
		summary: "Cannot list every file",
		detail:  []string{"Could not list orders completely: 10001 files have file_size = 512. The provider does not return a truncated list.\n\nTo fix it, narrow the filter."},
	}, {
		name:    "read timeout ran out",
		ctx:     expired,
		err:     timeout,
		summary: "Timed out",
		detail:  []string{"Could not list orders before the read timeout ran out", "context deadline exceeded", "Raise timeouts.read"},
	}, {
		// One attempt timed out while the read had time left: that is the
		// network's doing, not timeouts.read's.
		name:    "request attempt timed out",
		err:     timeout,
		summary: "Could not reach the service",
		detail:  []string{"Could not list orders: GET /v2/orders: context deadline exceeded", "raise request_timeout or max_retries"},
		not:     []string{"timeouts.read"},
	}, {
		name:    "cancelled",
		err:     fmt.Errorf("page 3: %w", context.Canceled),
		summary: "Cancelled",
		detail:  []string{"Stopped before it could list orders: page 3: context canceled"},
	}, {
		name:    "400 keeps the service's words",
		err:     badFilter(),
		summary: "Could not list orders: 400 Bad Request",
		detail: []string{"Request: GET /v2/orders?filter=eq(colour,red)\nStatus:  400 Bad Request\nTitle:   Bad Request\n" +
			"Detail:  Unknown filter attribute colour\nRequest id: req-42"},
		not: []string{"refused", "rate-limiting", "Attempts"},
	}, {
		name: "502 from a proxy, after retries",
		err: fmt.Errorf("list: %w", &client.APIError{StatusCode: 502, Method: "GET", Path: "/v2/orders",
			BodyExcerpt: "<html>Bad Gateway</html>", RequestID: "hdr-7", Attempts: 5}),
		summary: "Could not list orders: 502 Bad Gateway",
		detail:  []string{"Status:  502 Bad Gateway", "Body (not a JSON:API error document): <html>Bad Gateway</html>", "Request id: hdr-7", "Attempts: 5 (retries exhausted)"},
	}, {
		name:    "401 after a fresh token",
		err:     withStatus(401, "Unauthorized"),
		summary: "Could not list orders: 401 Unauthorized",
		detail:  []string{"refused even after a new one was fetched", "may read this resource"},
	}, {
		name:    "403",
		err:     withStatus(403, "Forbidden"),
		summary: "Could not list orders: 403 Forbidden",
		detail:  []string{"refused even after a new one was fetched"},
	}, {
		name:    "429 after retries",
		err:     withStatus(429, "Too Many Requests"),
		summary: "Could not list orders: 429 Too Many Requests",
		detail:  []string{"kept rate-limiting", "max_parallel_requests", "rate_limit", "max_retries"},
		not:     []string{"refused"},
	}, {
		name:    "protocol",
		err:     &client.ProtocolError{Method: "GET", Path: "/v2/orders?page[offset]=100", Problem: "results.total changed from 250 to 251"},
		summary: "Unexpected response from the service",
		detail:  []string{"Could not list orders, because the provider cannot vouch for a complete and correct result", "results.total changed from 250 to 251"},
	}, {
		name:    "transport",
		err:     &client.TransportError{Method: "GET", Path: "/v2/orders", Attempts: 4, Err: errors.New("connection reset by peer")},
		summary: "Could not reach the service",
		detail:  []string{"Could not list orders: GET /v2/orders: connection reset by peer (gave up after 4 attempts)", "Check base_url"},
	}, {
		name:    "anything else",
		err:     errors.New("boom"),
		summary: "Could not list orders",
		detail:  []string{"boom"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = live
			}
			d := errorDiagnostic(ctx, "list orders", tc.err)
			if d.Severity() != diag.SeverityError {
				t.Errorf("severity %v, want error", d.Severity())
			}
			if d.Summary() != tc.summary {
				t.Errorf("summary %q, want %q", d.Summary(), tc.summary)
			}
			for _, want := range tc.detail {
				if !strings.Contains(d.Detail(), want) {
					t.Errorf("detail lacks %q:\n%s", want, d.Detail())
				}
			}
			for _, unwanted := range tc.not {
				if strings.Contains(d.Detail(), unwanted) {
					t.Errorf("detail holds %q:\n%s", unwanted, d.Detail())
				}
			}
		})
	}
}

func TestServiceWordsSkipsEmptyParts(t *testing.T) {
	err := &client.APIError{StatusCode: 404, Method: "GET", Path: "/v2/files/x",
		Errors: []client.ErrorObject{{Detail: "No file found"}, {Title: "Not Found"}}}
	want := "Request: GET /v2/files/x\nStatus:  404 Not Found\nDetail:  No file found\nTitle:   Not Found"
	if got := serviceWords(err); got != want {
		t.Errorf("serviceWords =\n%s\nwant\n%s", got, want)
	}
}
