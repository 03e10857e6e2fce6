package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
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
	// What the client gives up with when nothing listens at the address.
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/oauth/access_token", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}
	unreachableAuth := &client.AuthError{TokenURL: "http://127.0.0.1:1/oauth/access_token", Attempts: 6, Elapsed: 11700 * time.Millisecond, Err: refused}
	unreachableBase := &client.TransportError{Method: "GET", Path: "/v2/orders?page%5Blimit%5D=100", URL: "http://127.0.0.1:1/v2/orders?page%5Blimit%5D=100",
		Attempts: 6, Elapsed: 11700 * time.Millisecond, Err: &url.Error{Op: "Get", URL: "http://127.0.0.1:1/v2/orders?page%5Blimit%5D=100", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}}

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
		not: []string{"try again later"},
	}, {
		name: "token endpoint refusal as the client wraps it",
		err: &client.AuthError{TokenURL: "https://auth.example/oauth/access_token", Attempts: 1,
			Err: fmt.Errorf("%w: %w", client.ErrCredentialsRefused, &client.APIError{StatusCode: 400, Method: "POST", Path: "/oauth/access_token"})},
		summary: "Authentication failed",
		detail:  []string{"Status:  400 Bad Request", "Check client_id and client_secret"},
	}, {
		name: "token endpoint fails without refusing the credentials",
		err: &client.AuthError{TokenURL: "https://auth.example/oauth/access_token", Attempts: 6,
			Err: &client.APIError{StatusCode: 503, Method: "POST", Path: "/oauth/access_token", Attempts: 6}},
		summary: "Authentication failed",
		detail:  []string{"Status:  503 Service Unavailable", "Attempts: 6", "Check that auth_url (or the COMMERCE_AUTH_URL environment variable; it defaults to base_url, COMMERCE_BASE_URL)"},
		not:     []string{"client_secret", "client_id"},
	}, {
		name:    "token endpoint unreachable",
		err:     unreachableAuth,
		summary: "Could not reach the service",
		detail: []string{"Could not list orders: could not obtain an access token: could not reach http://127.0.0.1:1/oauth/access_token " +
			"(dial tcp 127.0.0.1:1: connect: connection refused) after 6 attempts over 11.7 s",
			"Check auth_url (or the COMMERCE_AUTH_URL environment variable; it defaults to base_url, COMMERCE_BASE_URL): the access token is requested from http://127.0.0.1:1/oauth/access_token.",
			"Is the service running at that address"},
		not: []string{"client_secret", "client_id", "Authentication failed", "Status:"},
	}, {
		name:    "token endpoint unreachable, wrapped",
		err:     fmt.Errorf("page 1: %w", unreachableAuth),
		summary: "Could not reach the service",
		detail:  []string{"Check auth_url"},
		not:     []string{"client_secret"},
	}, {
		name:    "token request cancelled",
		err:     &client.AuthError{TokenURL: "http://127.0.0.1:1/oauth/access_token", Attempts: 1, Err: &url.Error{Op: "Post", URL: "http://127.0.0.1:1/oauth/access_token", Err: context.Canceled}},
		summary: "Cancelled",
	}, {
		name:    "token request ran out of read time",
		ctx:     expired,
		err:     &client.AuthError{TokenURL: "http://127.0.0.1:1/oauth/access_token", Attempts: 1, Err: &url.Error{Op: "Post", URL: "http://127.0.0.1:1/oauth/access_token", Err: context.DeadlineExceeded}},
		summary: "Timed out",
	}, {
		name:    "base_url unreachable",
		err:     unreachableBase,
		summary: "Could not reach the service",
		detail: []string{"Could not list orders: could not reach http://127.0.0.1:1/v2/orders?page%5Blimit%5D=100 (dial tcp 127.0.0.1:1: connect: connection refused) after 6 attempts over 11.7 s",
			"Check base_url (or the COMMERCE_BASE_URL environment variable)", "raise request_timeout or max_retries"},
		not: []string{"client_secret", "auth_url", "Get \""},
	}, {
		name:    "API refuses every fresh token",
		err:     &client.TokenRejectedError{Tokens: 3, Err: withStatus(401, "Unauthorized")},
		summary: "Could not list orders: the service refuses the access tokens",
		detail:  []string{"Status:  401 Unauthorized", "(3 in a row, each the newest issued)", "has access to this store", "base_url is the store's API address"},
	}, {
		name:    "offset limit",
		err:     &listing.OffsetLimitError{Endpoint: "orders", OffsetLimit: 10000, Count: commerce.Count{N: 25000}, Listed: 10000, Err: badFilter()},
		summary: "Cannot list past the service's offset limit",
		detail: []string{"25000 orders match", "serves at most 10000 of them by page offset", "(10000 were listed before it stopped)",
			"does not return a truncated list", "The service said: Request: GET /v2/orders?filter=eq(colour,red)",
			"so that at most 10000 records match", "ge(created_at,2026-01-01T00:00:00.000Z):lt(created_at,2026-02-01T00:00:00.000Z)", "max_results"},
	}, {
		name:    "offset limit, a lazy count",
		err:     &listing.OffsetLimitError{Endpoint: "orders", OffsetLimit: 10000, Count: commerce.Count{N: 1000, Method: commerce.CountLowerBound}, Listed: 10000, Err: badFilter()},
		summary: "Cannot list past the service's offset limit",
		detail:  []string{"more than 10000 orders match", "(10000 were listed before it stopped)"},
		not:     []string{"1000 orders"},
	}, {
		name:    "unlistable",
		err:     fmt.Errorf("listing: %w", &listing.UnlistableError{Endpoint: "files", Total: 10001, OffsetLimit: 10000, Reason: "10001 files have file_size = 512", Fix: "narrow the filter"}),
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
		detail:  []string{"Could not list orders: could not reach /v2/orders (context deadline exceeded) after 1 attempt over 0.0 s", "raise request_timeout or max_retries"},
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
		detail:  []string{"kept rate-limiting", "max_parallel_requests", "rate_limit"},
		not:     []string{"refused", "max_retries"},
	}, {
		name: "store accepted nothing for the patience",
		err: &client.ThrottledError{Method: "GET", Path: "/v2/orders", Refused: 40, Waited: 5 * time.Minute, Budget: 1.5, RateLimit: 10,
			Err: withStatus(429, "Too Many Requests")},
		summary: "Could not list orders: the store kept answering 429 Too Many Requests",
		detail: []string{"answered 429 Too Many Requests 40 times and accepted no request of this provider for 5m0s", "1.5 requests/s (rate_limit 10)",
			"Status:  429 Too Many Requests", "shared by its storefront", "without using up max_retries", "rate_limit = 10", "max_parallel_requests", "timeouts.read"},
	}, {
		name:    "read timeout ran out while throttled",
		ctx:     expired,
		err:     &client.ThrottledError{Method: "GET", Path: "/v2/orders", Refused: 3, Budget: 4, Cause: context.DeadlineExceeded},
		summary: "Could not list orders: the store kept answering 429 Too Many Requests",
		detail:  []string{"the time given to the read ran out", "context deadline exceeded", "timeouts.read"},
		not:     []string{"The service's last answer"},
	}, {
		name:    "protocol",
		err:     &commerce.ProtocolError{Method: "GET", Path: "/v2/orders?page[offset]=100", Problem: "results.total changed from 250 to 251"},
		summary: "Unexpected response from the service",
		detail:  []string{"Could not list orders, because the provider cannot vouch for a complete and correct result", "results.total changed from 250 to 251"},
	}, {
		name:    "transport",
		err:     &client.TransportError{Method: "GET", Path: "/v2/orders", Attempts: 4, Err: errors.New("connection reset by peer")},
		summary: "Could not reach the service",
		detail:  []string{"Could not list orders: could not reach /v2/orders (connection reset by peer) after 4 attempts over 0.0 s", "Check base_url"},
		not:     []string{"client_secret"},
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

// syncBuffer is a log sink the provider's background token fetch may write
// to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// readWith configures the provider in process with the given provider
// attributes, reads commerce_accounts, and returns the diagnostics the
// plan stops at (Configure's, when it fails; else the read's) and the
// provider's log (JSON lines, as tflogtest writes them).
func readWith(t *testing.T, provider map[string]tftypes.Value) ([]*tfprotov6.Diagnostic, string) {
	t.Helper()
	clearEnv(t)
	var logs syncBuffer
	ctx := tflogtest.RootLogger(t.Context(), &logs)
	server, err := NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := dynamicValue(t, nullObject(schemas.Provider.ValueType(), provider))
	configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "test", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range configured.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			// Terraform stops at a provider that could not be
			// configured: this is what the user meets.
			return configured.Diagnostics, logs.String()
		}
	}
	ds := dynamicValue(t, nullObject(schemas.DataSourceSchemas["commerce_accounts"].ValueType(), nil))
	resp, err := server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "commerce_accounts", Config: ds})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics, logs.String()
}

// TestDiagnosticsWhatANewUserMeets reads through the provider with an
// address nothing listens on, and with a wrong secret: the diagnostic
// points at the setting at fault, and retries show up at WARN.
func TestDiagnosticsWhatANewUserMeets(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3})
	addr := emulatortest.ClosedAddr(t)
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	creds := func(secret string, more map[string]tftypes.Value) map[string]tftypes.Value {
		more["client_id"], more["client_secret"] = str(emulator.DefaultClientID), str(secret)
		more["max_retries"] = tftypes.NewValue(tftypes.Number, 1)
		return more
	}
	cases := []struct {
		name              string
		provider          map[string]tftypes.Value
		summary           string
		detail, not, logs []string
	}{{
		name:     "unreachable base_url, auth_url defaulting to it",
		provider: creds(emulator.DefaultClientSecret, map[string]tftypes.Value{"base_url": str("http://" + addr)}),
		summary:  "Could not reach the service",
		detail: []string{"could not reach http://" + addr + "/oauth/access_token (dial tcp " + addr + ": connect: connection refused) after 2 attempts over ",
			"Check auth_url (or the COMMERCE_AUTH_URL environment variable; it defaults to base_url, COMMERCE_BASE_URL)"},
		not:  []string{"client_secret", "client_id", emulator.DefaultClientSecret},
		logs: []string{`"@level":"warn","@message":"access token request got no answer; retrying"`},
	}, {
		name:     "unreachable base_url",
		provider: creds(emulator.DefaultClientSecret, map[string]tftypes.Value{"base_url": str("http://" + addr), "auth_url": str(srv.URL())}),
		summary:  "Could not reach the service",
		detail: []string{"could not reach http://" + addr + "/v2/accounts?", "(dial tcp " + addr + ": connect: connection refused) after 2 attempts over ",
			"Check base_url (or the COMMERCE_BASE_URL environment variable)"},
		not: []string{"client_secret", "client_id", "auth_url"},
		logs: []string{`"@level":"warn","@message":"request got no usable answer; retrying"`,
			`"@message":"listing stopped: `, `"retries":1`, `"requests":2`},
	}, {
		name:     "wrong secret",
		provider: creds("not-the-secret", map[string]tftypes.Value{"base_url": str(srv.URL())}),
		summary:  "Authentication failed",
		detail:   []string{"Status:  401 Unauthorized", "Check client_id and client_secret"},
		not:      []string{"Could not reach", "not-the-secret"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			diags, logs := readWith(t, tc.provider)
			if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError {
				t.Fatalf("diagnostics %v, want one error", diags)
			}
			d := diags[0]
			if d.Summary != tc.summary {
				t.Errorf("summary %q, want %q (detail: %s)", d.Summary, tc.summary, d.Detail)
			}
			for _, want := range tc.detail {
				if !strings.Contains(d.Detail, want) {
					t.Errorf("detail lacks %q:\n%s", want, d.Detail)
				}
			}
			for _, unwanted := range tc.not {
				if strings.Contains(d.Detail, unwanted) {
					t.Errorf("detail holds %q:\n%s", unwanted, d.Detail)
				}
			}
			for _, want := range tc.logs {
				if !strings.Contains(logs, want) {
					t.Errorf("log lacks %s:\n%s", want, logs)
				}
			}
		})
	}
}

// A data source without a timeouts block logs nothing about it: the
// timeouts library said, for every data source, that it found no read
// timeout.
func TestNoTimeoutsBlockLogsNothing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3})
	diags, logs := readWith(t, map[string]tftypes.Value{"base_url": str(srv.URL()),
		"client_id": str(emulator.DefaultClientID), "client_secret": str(emulator.DefaultClientSecret)})
	if len(diags) != 0 {
		t.Fatalf("read: %s", summaries(diags))
	}
	if strings.Contains(logs, "timeout") {
		t.Errorf("the read logged about timeouts:\n%s", logs)
	}
	if !strings.Contains(logs, `"@message":"listing finished: 3 accounts in 1 requests"`) {
		t.Errorf("no listing finished line with its figures first:\n%s", logs)
	}
}
