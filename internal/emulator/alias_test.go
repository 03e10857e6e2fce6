package emulator

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// An alias serves a resource, with all its capabilities, at a path the
// provider's capability table does not know.
func TestAliases(t *testing.T) {
	c := startServer(t, Options{Customers: 30, Aliases: map[string]string{"/v2/members": "customers"}})
	want := c.list("customers", q("sort", "created_at", "page[limit]", "100")).ids()
	resp, body := c.get("/v2/members", q("sort", "created_at", "page[limit]", "100").Encode())
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v2/members: %d %s", resp.StatusCode, body)
	}
	var lb listBody
	if err := json.Unmarshal(body, &lb); err != nil {
		t.Fatal(err)
	}
	if got := lb.ids(); !slices.Equal(got, want) || len(got) != 30 {
		t.Errorf("/v2/members lists %d ids %v, want the 30 customers %v", len(got), got[:min(3, len(got))], want[:3])
	}
	resp, body = c.get("/v2/members/"+want[0], "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want[0]) {
		t.Errorf("GET /v2/members/{id}: %d %s", resp.StatusCode, body)
	}
	for _, bad := range []map[string]string{{"/v2/members": "members"}, {"/elsewhere/members": "customers"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New accepted the alias %v", bad)
				}
			}()
			New(Options{Aliases: bad})
		}()
	}
}
