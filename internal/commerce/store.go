package commerce

import (
	"encoding/json"
	"net/url"
	"strings"
)

// The store behind the credentials, as the vendor's own CLI finds it: the
// settings endpoint's data object carries the store's id (and the store's
// limits on lists), and the store endpoint gives that id's name. The
// service's reference documents neither the id in the settings nor the
// store endpoint; the vendor's CLI relies on both, and treats a refused
// store endpoint (a key without access to it) as "name unknown", not as a
// failure.

// SettingsPath is the settings endpoint: one object, the store's settings.
const SettingsPath = "/v2/settings"

// StorePath is the path of the store with id.
func StorePath(id string) string { return "/v2/stores/" + url.PathEscape(id) }

// StoreSettings are what the settings endpoint says of the store behind
// the credentials. A limit the answer does not carry is 0.
type StoreSettings struct {
	// ID is the store's id.
	ID string
	// PageLength is the store's page length without page[limit].
	PageLength int
	// PageOffsetLimit is the largest page[offset] the store serves.
	PageOffsetLimit int
	// FilterLimit is the most terms a filter may have.
	FilterLimit int
}

// DecodeSettingsBody decodes the answer to GET SettingsPath. A body that is
// not JSON is a plain error (the caller retries it); one without the
// store's id is a ProtocolError.
func DecodeSettingsBody(body []byte) (StoreSettings, error) {
	var doc struct {
		Data *struct {
			ID              string `json:"id"`
			PageLength      int    `json:"page_length"`
			PageOffsetLimit int    `json:"page_offset_limit"`
			FilterLimit     int    `json:"filter_limit"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return StoreSettings{}, err
	}
	if doc.Data == nil {
		return StoreSettings{}, ContractBroken(SettingsPath, "the response has no data object")
	}
	if strings.TrimSpace(doc.Data.ID) == "" {
		return StoreSettings{}, ContractBroken(SettingsPath, "the settings carry no store id (data.id)")
	}
	d := doc.Data
	return StoreSettings{ID: d.ID, PageLength: d.PageLength, PageOffsetLimit: d.PageOffsetLimit, FilterLimit: d.FilterLimit}, nil
}

// DecodeStoreBody decodes the answer to GET StorePath(id): the store's
// name. The store must be the one asked for.
func DecodeStoreBody(body []byte, id string) (string, error) {
	var doc struct {
		Data *struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", err
	}
	p := StorePath(id)
	switch {
	case doc.Data == nil:
		return "", ContractBroken(p, "the response has no data object")
	case !strings.EqualFold(doc.Data.ID, id):
		return "", ContractBroken(p, "asked for store %s but the service answered with store %q", id, doc.Data.ID)
	}
	return doc.Data.Name, nil
}
