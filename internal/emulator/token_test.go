package emulator

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestTokenEndpoint(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10})
	form := func(kv ...string) string { return q(kv...).Encode() }
	good := form("grant_type", "client_credentials", "client_id", DefaultClientID, "client_secret", DefaultClientSecret)
	formCT := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	jsonCT := map[string]string{"Content-Type": "application/json"}

	okCases := []struct {
		name   string
		body   string
		header map[string]string
	}{
		{"form", good, formCT},
		{"json object", `{"grant_type":"client_credentials","client_id":"emulator-client-id","client_secret":"emulator-client-secret"}`, jsonCT},
		// The documented example: form data with a JSON content type.
		{"form with json content type", good, jsonCT},
		{"json with charset", `{"grant_type":"client_credentials","client_id":"emulator-client-id","client_secret":"emulator-client-secret"}`,
			map[string]string{"Content-Type": "application/json; charset=utf-8"}},
	}
	seen := map[string]bool{}
	for _, tc := range okCases {
		t.Run(tc.name, func(t *testing.T) {
			before := time.Now().Unix()
			resp, body := c.do(http.MethodPost, "/oauth/access_token", "", strings.NewReader(tc.body), tc.header)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var tok tokenBody
			if err := json.Unmarshal(body, &tok); err != nil {
				t.Fatal(err)
			}
			if tok.AccessToken == "" || tok.TokenType != "Bearer" || tok.Identifier != "client_credentials" ||
				tok.ExpiresIn == nil || *tok.ExpiresIn != 3600 || tok.Expires == nil {
				t.Fatalf("token body %s", body)
			}
			if *tok.Expires < before+3600 || *tok.Expires > time.Now().Unix()+3600 {
				t.Errorf("expires %d, want about now+3600", *tok.Expires)
			}
			if seen[tok.AccessToken] || strings.Contains(tok.AccessToken, DefaultClientSecret) || len(tok.AccessToken) < 32 {
				t.Errorf("token %q is reused, too short or derived from the secret", tok.AccessToken)
			}
			seen[tok.AccessToken] = true
			// The token works.
			resp, body = c.do(http.MethodGet, "/v2/orders", "", nil, map[string]string{"Authorization": "Bearer " + tok.AccessToken})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("using token: %d %s", resp.StatusCode, body)
			}
		})
	}

	t.Run("multipart", func(t *testing.T) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, v := range map[string]string{"grant_type": "client_credentials", "client_id": DefaultClientID, "client_secret": DefaultClientSecret} {
			_ = mw.WriteField(k, v)
		}
		_ = mw.Close()
		resp, body := c.do(http.MethodPost, "/oauth/access_token", "", &buf, map[string]string{"Content-Type": mw.FormDataContentType()})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
	})

	errCases := []struct {
		name   string
		method string
		body   string
		header map[string]string
		status int
		detail string
	}{
		{"wrong secret", "POST", form("grant_type", "client_credentials", "client_id", DefaultClientID, "client_secret", "nope"), formCT, 401, "invalid"},
		{"wrong id", "POST", form("grant_type", "client_credentials", "client_id", "x", "client_secret", DefaultClientSecret), formCT, 401, "invalid"},
		{"json wrong secret", "POST", `{"grant_type":"client_credentials","client_id":"emulator-client-id","client_secret":"x"}`, jsonCT, 401, "invalid"},
		{"missing secret", "POST", form("grant_type", "client_credentials", "client_id", DefaultClientID), formCT, 400, `"client_secret"`},
		{"missing id", "POST", form("grant_type", "client_credentials", "client_secret", DefaultClientSecret), formCT, 400, `"client_id"`},
		{"missing grant", "POST", form("client_id", DefaultClientID, "client_secret", DefaultClientSecret), formCT, 400, `"grant_type"`},
		{"json missing secret", "POST", `{"grant_type":"client_credentials","client_id":"emulator-client-id"}`, jsonCT, 400, `"client_secret"`},
		{"empty body", "POST", "", formCT, 400, "missing"},
		{"wrong grant", "POST", form("grant_type", "password", "client_id", DefaultClientID, "client_secret", DefaultClientSecret), formCT, 422, "client_credentials"},
		{"bad json", "POST", `{"grant_type":`, jsonCT, 400, "JSON"},
		{"json number", "POST", `{"grant_type":"client_credentials","client_id":1,"client_secret":"x"}`, jsonCT, 400, "string"},
		{"GET", "GET", "", nil, 405, "POST"},
		// Credentials in the query string are not form data.
		{"query string", "POST", "", formCT, 400, "missing"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			rawQuery := ""
			if tc.name == "query string" {
				rawQuery = good
			}
			resp, body := c.do(tc.method, "/oauth/access_token", rawQuery, strings.NewReader(tc.body), tc.header)
			e := c.wantError(tc.status, resp, body)
			if !strings.Contains(e.Detail, tc.detail) {
				t.Errorf("detail %q does not mention %q", e.Detail, tc.detail)
			}
			if strings.Contains(string(body), DefaultClientSecret) {
				t.Errorf("error body echoes the secret: %s", body)
			}
		})
	}
}

func TestTokenCustomCredentialsAndLifetime(t *testing.T) {
	c := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5, ClientID: "id-1", ClientSecret: "s3cret", TokenLifetime: 90 * time.Second})
	resp, body := c.do(http.MethodPost, "/oauth/access_token", "", strings.NewReader(q(
		"grant_type", "client_credentials", "client_id", "id-1", "client_secret", "s3cret").Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	var tok tokenBody
	if resp.StatusCode != 200 || json.Unmarshal(body, &tok) != nil || *tok.ExpiresIn != 90 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	c.s.SetTokenLifetime(2 * time.Hour)
	c.token = c.fetchToken()
	st := c.s.Stats()
	if st.TokenRequests != 3 {
		t.Errorf("TokenRequests = %d, want 3", st.TokenRequests)
	}
}

func TestAuthentication(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10})
	cases := []struct {
		name, header, detail string
	}{
		{"missing", "", "Authorization"},
		{"not bearer", "Basic " + c.token, "Bearer"},
		{"empty token", "Bearer ", "Bearer"},
		{"unknown", "Bearer not-a-token", "invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.header != "" {
				h["Authorization"] = tc.header
			}
			for _, path := range []string{"/v2/orders", "/v2/files/x", "/v2/accounts", "/v2/nothing"} {
				resp, body := c.do(http.MethodGet, path, "", nil, h)
				e := c.wantError(401, resp, body)
				if !strings.Contains(e.Detail, tc.detail) {
					t.Errorf("%s: detail %q does not mention %q", path, e.Detail, tc.detail)
				}
				if resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("no WWW-Authenticate")
				}
			}
		})
	}
	t.Run("scheme is case-insensitive", func(t *testing.T) {
		resp, body := c.do(http.MethodGet, "/v2/orders", "", nil, map[string]string{"Authorization": "bearer " + c.token})
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	})
	t.Run("ExpireAllTokens", func(t *testing.T) {
		if resp, body := c.get("/v2/orders", ""); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		c.s.ExpireAllTokens()
		resp, body := c.get("/v2/orders", "")
		if e := c.wantError(401, resp, body); !strings.Contains(e.Detail, "expired") {
			t.Errorf("detail %q does not say expired", e.Detail)
		}
		c.token = c.fetchToken() // new tokens work again
		if resp, body := c.get("/v2/orders", ""); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	})
	t.Run("lifetime", func(t *testing.T) {
		c.s.SetTokenLifetime(150 * time.Millisecond)
		c.token = c.fetchToken()
		if resp, body := c.get("/v2/accounts", ""); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		time.Sleep(250 * time.Millisecond)
		resp, body := c.get("/v2/accounts", "")
		if e := c.wantError(401, resp, body); !strings.Contains(e.Detail, "expired") {
			t.Errorf("detail %q does not say expired", e.Detail)
		}
	})
}

func TestRouting(t *testing.T) {
	c := startServer(t, Options{Orders: 10, Files: 10, Accounts: 10})
	for _, path := range []string{"/v2/promotions", "/v2/orders/a/b", "/v2/orders/", "/v2", "/v1/orders",
		"/v2/hierarchies", "/pcm/orders", "/pcm", "/pcm/hierarchies/a/b", "/v2/customersx", "/pcm/hierarchies-x"} {
		resp, body := c.get(path, "")
		e := c.wantError(404, resp, body)
		if !strings.Contains(e.Detail, "GET /v2/{orders,files,accounts,customers}[/{id}] or GET /pcm/{hierarchies}[/{id}]") {
			t.Errorf("%s: detail %q does not name the endpoints", path, e.Detail)
		}
	}
	// The catalogue's paths need a token like the others.
	resp, body := c.do(http.MethodGet, "/pcm/hierarchies", "", nil, nil)
	c.wantError(401, resp, body)
	for _, path := range []string{"/v2/customers", "/pcm/hierarchies"} {
		if resp, body := c.get(path, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d: %s", path, resp.StatusCode, body)
		}
	}
	for _, path := range []string{"/", "/oauth/token"} {
		resp, body := c.do(http.MethodPost, path, "", nil, nil)
		c.wantError(404, resp, body)
	}
	resp, body = c.do(http.MethodPost, "/v2/orders", "", nil, map[string]string{"Authorization": "Bearer " + c.token})
	c.wantError(405, resp, body)
	if resp.Header.Get("Allow") != "GET" {
		t.Errorf("Allow %q", resp.Header.Get("Allow"))
	}
	// Every response carries a request id, also successful ones.
	resp, _ = c.get("/v2/orders", "")
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
}

func TestTokenRequestsLimit(t *testing.T) {
	c := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5, TokenRequests: 3})
	for i := range 3 {
		if resp, body := c.get("/v2/orders", ""); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	// The fourth request with the same token, whatever the path, is refused
	// like an expired token but says revoked.
	for _, path := range []string{"/v2/orders", "/v2/accounts"} {
		resp, body := c.get(path, "")
		e := c.wantError(401, resp, body)
		if e.Detail != "The access token has been revoked. Request a new token." {
			t.Errorf("%s: detail %q", path, e.Detail)
		}
		if !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("%s: WWW-Authenticate %q", path, resp.Header.Get("WWW-Authenticate"))
		}
	}
	// Each token has its own count; token requests do not use it up.
	c.token = c.fetchToken()
	for i := range 3 {
		if resp, body := c.get("/v2/files", ""); resp.StatusCode != 200 {
			t.Fatalf("new token, request %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	if resp, body := c.get("/v2/files", ""); resp.StatusCode != 401 {
		t.Fatalf("new token, request 4: %d %s", resp.StatusCode, body)
	}
	// 0 lifts the limit at once, for tokens already used up too; a higher
	// limit counts the requests made so far.
	c.s.SetTokenRequests(0)
	if resp, body := c.get("/v2/files", ""); resp.StatusCode != 200 {
		t.Fatalf("unlimited: %d %s", resp.StatusCode, body)
	}
	c.s.SetTokenRequests(6)
	if resp, body := c.get("/v2/files", ""); resp.StatusCode != 200 {
		t.Fatalf("limit 6, request 6: %d %s", resp.StatusCode, body)
	}
	if resp, body := c.get("/v2/files", ""); resp.StatusCode != 401 {
		t.Fatalf("limit 6, request 7: %d %s", resp.StatusCode, body)
	}
	// Expiry wins over the count in the detail.
	c.s.ExpireAllTokens()
	resp, body := c.get("/v2/files", "")
	if e := c.wantError(401, resp, body); !strings.Contains(e.Detail, "expired") {
		t.Errorf("detail %q does not say expired", e.Detail)
	}
	// startServer fetched one token, the test two; a refused request for a
	// token is not an issued token.
	c.do(http.MethodPost, "/oauth/access_token", "", strings.NewReader("grant_type=client_credentials&client_id=x&client_secret=y"),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if got, st := c.s.TokensIssued(), c.s.Stats(); got != 2 || st.TokenRequests != 3 {
		t.Errorf("TokensIssued = %d, TokenRequests = %d; want 2 and 3", got, st.TokenRequests)
	}
}
