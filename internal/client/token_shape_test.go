package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The token endpoint's answer in either shape the vendor documents (the
// fields at the top level: its guides and SDK; inside data: its
// authentication OpenAPI spec) gives the same token; an answer with the
// token in neither is the error it was.
func TestTokenInEitherShape(t *testing.T) {
	const fields = `"expires":1524486008,"identifier":"client_credentials","expires_in":3600,"access_token":"xa3521ca621113e44eeed9232fa3e54571cb08bc","token_type":"Bearer"`
	for _, tc := range []struct {
		name, body, err string
	}{
		{"top level", "{" + fields + "}", ""},
		{"inside data", `{"data":{` + fields + `}}`, ""},
		{"inside data, other members beside it", `{"data":{` + fields + `},"links":{}}`, ""},
		{"in neither", `{"data":{"token_type":"Bearer"}}`, "missing access_token"},
		{"data not an object", `{"data":"xa35"}`, "missing access_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bearer string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == TokenPath {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, tc.body)
					return
				}
				bearer = r.Header.Get("Authorization")
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"data":[]}`)
			}))
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL, ClientID: "id", ClientSecret: "secret", MaxRetries: 0})
			if err != nil {
				t.Fatal(err)
			}
			tok, err := c.AccessToken(context.Background(), 0)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.Value != "xa3521ca621113e44eeed9232fa3e54571cb08bc" || tok.Type != "Bearer" {
				t.Errorf("token %q of type %q", tok.Value, tok.Type)
			}
			if left := time.Until(tok.Expiry); left < 59*time.Minute || left > time.Hour {
				t.Errorf("expires in %s, want about an hour (expires_in)", left)
			}
			if err := c.Get(context.Background(), "/v2/x", nil, func([]byte) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if bearer != "Bearer xa3521ca621113e44eeed9232fa3e54571cb08bc" {
				t.Errorf("the request carried %q", bearer)
			}
		})
	}
}
