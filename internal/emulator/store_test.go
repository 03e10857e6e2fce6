package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// TestSettingsNameTheStore: the settings give the store's id and the limits
// the emulator enforces; the store endpoint gives that id's name; the id
// is the seed's, so another seed is another store.
func TestSettingsNameTheStore(t *testing.T) {
	c := startServer(t, Options{Seed: 7, Orders: 1, Files: 1, Accounts: 1, Customers: 1, Hierarchies: 1,
		StoreName: "Acme EU", DefaultPageLimit: 40, MaxFilterTerms: 9})
	got := c.settings()
	want := settingsBody{Type: "settings", ID: got.ID, PageLength: 40, PageOffsetLimit: OffsetLimit, FilterLimit: 9}
	if got != want || len(got.ID) != 36 || got.ID != c.s.StoreID() {
		t.Errorf("settings = %+v, want %+v with the store's UUID", got, want)
	}
	var store struct {
		Data struct{ Type, ID, Name string }
	}
	c.getJSON("/v2/stores/"+strings.ToUpper(got.ID), "", &store)
	if store.Data.Type != "store" || store.Data.ID != got.ID || store.Data.Name != "Acme EU" {
		t.Errorf("store = %+v, want store %s named Acme EU", store.Data, got.ID)
	}
	again := startServer(t, Options{Seed: 7, Orders: 1, Files: 1, Accounts: 1, Customers: 1, Hierarchies: 1})
	other := startServer(t, Options{Seed: 8, Orders: 1, Files: 1, Accounts: 1, Customers: 1, Hierarchies: 1})
	for _, tc := range []struct {
		c    *testClient
		same bool
	}{{again, true}, {other, false}} {
		if id := tc.c.settings().ID; (id == got.ID) != tc.same {
			t.Errorf("seed %d: id %s (seed 7: %s)", tc.c.s.opts.Seed, id, got.ID)
		}
	}
}

// TestStoreEndpointRefusals: another store's id is 404, a key without
// access to the store endpoint 403, a request without a token 401, and a
// write 405, each with the errors body.
func TestStoreEndpointRefusals(t *testing.T) {
	c := startServer(t, Options{Orders: 1, Files: 1, Accounts: 1, Customers: 1, Hierarchies: 1})
	resp, body := c.get("/v2/stores/00000000-0000-4000-8000-000000000000", "")
	if e := c.wantError(http.StatusNotFound, resp, body); !strings.Contains(e.Detail, "/v2/settings") {
		t.Errorf("404 detail %q does not say where the id comes from", e.Detail)
	}
	resp, body = c.do(http.MethodGet, "/v2/settings", "", nil, nil)
	c.wantError(http.StatusUnauthorized, resp, body)
	resp, body = c.do(http.MethodPut, "/v2/settings", "", nil, map[string]string{"Authorization": "Bearer " + c.token})
	c.wantError(http.StatusMethodNotAllowed, resp, body)

	refusing := startServer(t, Options{Orders: 1, Files: 1, Accounts: 1, Customers: 1, Hierarchies: 1, StoreNameForbidden: true})
	resp, body = refusing.get("/v2/stores/"+refusing.settings().ID, "")
	refusing.wantError(http.StatusForbidden, resp, body)
}

// settingsBody is what the tests read of GET /v2/settings.
type settingsBody struct {
	Type            string `json:"type"`
	ID              string `json:"id"`
	PageLength      int    `json:"page_length"`
	PageOffsetLimit int    `json:"page_offset_limit"`
	FilterLimit     int    `json:"filter_limit"`
}

// settings gets /v2/settings, which must be the store's.
func (c *testClient) settings() settingsBody {
	c.t.Helper()
	var doc struct {
		Data settingsBody
		Meta struct{ Owner string }
	}
	c.getJSON("/v2/settings", "", &doc)
	if doc.Meta.Owner != "store" {
		c.t.Errorf("settings meta.owner %q, want store", doc.Meta.Owner)
	}
	return doc.Data
}
