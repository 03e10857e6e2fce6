package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The store behind the credentials: GET /v2/settings gives its id (as the
// vendor's CLI reads it) and its limits on lists, GET /v2/stores/{id} its
// name. Both are served in the legacy format, a data object without
// attributes, as the vendor's reference shows them.

// streamStore names the seeded random stream of the store's id.
const streamStore = 0x73746f7265 // "store"

const (
	settingsPath = "/v2/settings"
	storesPath   = "/v2/stores/"
)

// isStorePath reports whether path is one of the store's endpoints.
func isStorePath(path string) bool {
	return path == settingsPath || strings.HasPrefix(path, storesPath)
}

// handleStore serves GET /v2/settings and GET /v2/stores/{id}, to a GET
// that passed authentication.
func (s *Server) handleStore(r *http.Request) *response {
	s.stats.countGet()
	if r.URL.Path == settingsPath {
		return jsonBody(map[string]any{"data": s.settings(), "meta": map[string]any{"owner": "store"}})
	}
	id := strings.TrimPrefix(r.URL.Path, storesPath)
	switch {
	case !strings.EqualFold(id, s.opts.StoreID):
		return s.errorResponse(&apiError{status: http.StatusNotFound,
			detail: fmt.Sprintf("No store with id %q is reachable with these credentials; GET %s gives the id of theirs.", id, settingsPath)})
	case s.opts.StoreNameForbidden:
		return s.errorResponse(&apiError{status: http.StatusForbidden,
			detail: "The credentials have no access to the store endpoint."})
	}
	return jsonBody(map[string]any{"data": map[string]any{"type": "store", "id": s.opts.StoreID, "name": s.opts.StoreName}})
}

// settings is the settings endpoint's data object: the store's id and the
// limits this emulator enforces, beside the vendor's documented defaults of
// the settings it does not model.
func (s *Server) settings() map[string]any {
	d := map[string]any{
		"type": "settings", "id": s.opts.StoreID,
		"page_length": s.opts.DefaultPageLimit, "page_offset_limit": s.opts.OffsetLimit,
		"list_child_products": false, "additional_languages": []string{}, "calculation_method": "line",
		"currency_limit": 10, "field_limit": 100, "integration_limit": 100, "event_limit": 5,
		"tax_item_limit": 5, "promotions_limit": 1000, "promotion_codes_limit": 1000,
	}
	if s.opts.MaxFilterTerms > 0 {
		d["filter_limit"] = s.opts.MaxFilterTerms
	}
	return d
}

// jsonBody is a 200 answer with v as its JSON body.
func jsonBody(v any) *response {
	b, err := json.Marshal(v)
	if err != nil {
		panic("emulator: " + err.Error()) // maps of plain values always encode
	}
	return &response{status: http.StatusOK, body: b}
}

// StoreID is the id of the store behind the credentials, as GET
// /v2/settings gives it.
func (s *Server) StoreID() string { return s.opts.StoreID }
