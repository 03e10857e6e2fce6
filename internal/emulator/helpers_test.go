package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// testClient talks to a started emulator over real HTTP.
type testClient struct {
	t     testing.TB
	s     *Server
	hc    *http.Client
	token string
}

// expectedIDs is s.ExpectedIDs, failing t when the emulator cannot answer:
// a test that compares with it never compares with nothing.
func expectedIDs(t testing.TB, s *Server, resource, filter, sort string) []string {
	t.Helper()
	ids, err := s.ExpectedIDs(resource, filter, sort)
	if err != nil {
		t.Fatalf("expected ids of %s filter=%q sort=%q: %v", resource, filter, sort, err)
	}
	return ids
}

func startServer(t testing.TB, opts Options) *testClient {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	c := &testClient{t: t, s: s, hc: &http.Client{Timeout: 20 * time.Second}}
	c.token = c.fetchToken()
	return c
}

func (c *testClient) fetchToken() string {
	c.t.Helper()
	resp, body := c.do(http.MethodPost, "/oauth/access_token", "", strings.NewReader(url.Values{
		"grant_type": {"client_credentials"}, "client_id": {c.s.opts.ClientID}, "client_secret": {c.s.opts.ClientSecret},
	}.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("token: status %d: %s", resp.StatusCode, body)
	}
	var tok tokenBody
	if err := json.Unmarshal(body, &tok); err != nil {
		c.t.Fatal(err)
	}
	return tok.AccessToken
}

// do sends a request and returns the response (body already read).
func (c *testClient) do(method, path, rawQuery string, body io.Reader, header map[string]string) (*http.Response, []byte) {
	c.t.Helper()
	u := c.s.URL() + path
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading body: %v", method, u, err)
	}
	return resp, b
}

// get sends an authenticated GET.
func (c *testClient) get(path, rawQuery string) (*http.Response, []byte) {
	c.t.Helper()
	return c.do(http.MethodGet, path, rawQuery, nil, map[string]string{"Authorization": "Bearer " + c.token})
}

// getJSON gets path as c.get does and decodes the body into into; any
// status but 200, or a body that is not JSON of into's shape, ends the
// test: a check of the body is worth nothing after either.
func (c *testClient) getJSON(path, rawQuery string, into any) []byte {
	c.t.Helper()
	resp, body := c.get(path, rawQuery)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET %s?%s: status %d: %s", path, rawQuery, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		c.t.Fatalf("GET %s?%s: %v: %s", path, rawQuery, err, body)
	}
	return body
}

// listPath is the list path of a registered resource: "/v2/orders",
// "/pcm/hierarchies".
func listPath(resource string) string {
	for _, r := range resources {
		if r.name == resource {
			return r.path()
		}
	}
	return "/v2/" + resource
}

// list fetches a list page and requires 200.
func (c *testClient) list(resource string, q url.Values) *listBody {
	c.t.Helper()
	resp, body := c.get(listPath(resource), q.Encode())
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET %s?%s: status %d: %s", listPath(resource), q.Encode(), resp.StatusCode, body)
	}
	var lb listBody
	if err := json.Unmarshal(body, &lb); err != nil {
		c.t.Fatalf("decoding %s: %v", body, err)
	}
	return &lb
}

// wantError requires a JSON:API error with the status and returns it.
func (c *testClient) wantError(status int, resp *http.Response, body []byte) apiErrorBody {
	c.t.Helper()
	if resp.StatusCode != status {
		c.t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	return checkErrorBody(c.t, resp, body, status)
}

func checkErrorBody(t testing.TB, resp *http.Response, body []byte, status int) apiErrorBody {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var eb struct{ Errors []apiErrorBody }
	if err := json.Unmarshal(body, &eb); err != nil || len(eb.Errors) != 1 {
		t.Fatalf("not a JSON:API error document (%v): %s", err, body)
	}
	e := eb.Errors[0]
	if string(e.Status) != itoa(status) && string(e.Status) != `"`+itoa(status)+`"` {
		t.Errorf("error status %s, want %d", e.Status, status)
	}
	if e.Title != http.StatusText(status) {
		t.Errorf("title %q, want %q", e.Title, http.StatusText(status))
	}
	if e.Detail == "" || e.RequestID == "" || e.RequestID != resp.Header.Get("X-Request-Id") {
		t.Errorf("detail %q, request_id %q, X-Request-Id %q", e.Detail, e.RequestID, resp.Header.Get("X-Request-Id"))
	}
	return e
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

type tokenBody struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	Identifier  string `json:"identifier"`
	ExpiresIn   *int64 `json:"expires_in"`
	Expires     *int64 `json:"expires"`
}

type apiErrorBody struct {
	Status    json.RawMessage `json:"status"`
	Title     string          `json:"title"`
	Detail    string          `json:"detail"`
	RequestID string          `json:"request_id"`
	Source    *struct {
		Parameter string `json:"parameter"`
	} `json:"source"`
}

type pageInfo struct {
	Limit   *int `json:"limit"`
	Offset  *int `json:"offset"`
	Current *int `json:"current"`
	Total   *int `json:"total"`
}

type resultsInfo struct {
	Total       *int    `json:"total"`
	TotalMethod *string `json:"total_method"`
}

type listBody struct {
	Data  []record           `json:"data"`
	Links map[string]*string `json:"links"`
	Meta  *struct {
		Page    *pageInfo    `json:"page"`
		Results *resultsInfo `json:"results"`
	} `json:"meta"`
	// The flat form.
	Page    *pageInfo    `json:"page"`
	Results *resultsInfo `json:"results"`
}

// record holds the attributes the tests look at, from any resource and
// either timestamp form.
type record struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	Meta      struct {
		Timestamps struct {
			CreatedAt string `json:"created_at"`
			UpdatedAt string `json:"updated_at"`
		} `json:"timestamps"`
	} `json:"meta"`
}

func (r record) created() string {
	if r.CreatedAt != "" {
		return r.CreatedAt
	}
	return r.Meta.Timestamps.CreatedAt
}

// pagination returns page and results from either form.
func (lb *listBody) pagination() (pageInfo, int) {
	p, r := lb.Page, lb.Results
	if lb.Meta != nil {
		p, r = lb.Meta.Page, lb.Meta.Results
	}
	if p == nil || r == nil || p.Limit == nil || p.Offset == nil || p.Current == nil || p.Total == nil || r.Total == nil {
		panic("incomplete pagination")
	}
	return *p, *r.Total
}

func (lb *listBody) ids() []string {
	ids := make([]string, len(lb.Data))
	for i, r := range lb.Data {
		ids[i] = r.ID
	}
	return ids
}

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}
