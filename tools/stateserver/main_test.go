package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The http backend's protocol as Terraform speaks it: no state yet, a state
// written and read back per path, counted, and deleted.
func TestStatesAsTheHTTPBackendUsesThem(t *testing.T) {
	s := &states{body: map[string][]byte{}, writes: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/writes", s.count)
	mux.HandleFunc("/", s.serve)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	if code, _ := do(http.MethodGet, "/a", ""); code != http.StatusNoContent {
		t.Errorf("GET before any state: %d, want 204", code)
	}
	for _, body := range []string{`{"serial":1}`, `{"serial":2}`} {
		if code, _ := do(http.MethodPost, "/a", body); code != http.StatusOK {
			t.Fatalf("POST: %d", code)
		}
	}
	if _, body := do(http.MethodGet, "/a", ""); body != `{"serial":2}` {
		t.Errorf("GET /a: %q, want the last state written", body)
	}
	if code, _ := do(http.MethodGet, "/b", ""); code != http.StatusNoContent {
		t.Errorf("GET /b: %d, want 204: each path holds its own state", code)
	}
	if _, n := do(http.MethodGet, "/writes?path=/a", ""); strings.TrimSpace(n) != "2" {
		t.Errorf("writes of /a: %q, want 2", n)
	}
	do(http.MethodDelete, "/a", "")
	if code, _ := do(http.MethodGet, "/a", ""); code != http.StatusNoContent {
		t.Errorf("GET after DELETE: %d, want 204", code)
	}
	if code, _ := do(http.MethodPut, "/a", ""); code != http.StatusMethodNotAllowed {
		t.Errorf("PUT: %d, want 405", code)
	}
}
