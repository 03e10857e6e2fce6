package commerce

import (
	"errors"
	"strings"
	"testing"
)

// TestStoreBodiesHoldTheContract: settings without the store's id, and a
// store answer for another store, are contract breaks that name what is
// wrong; a body that is not JSON is a plain error, which the transport
// retries.
func TestStoreBodiesHoldTheContract(t *testing.T) {
	s, err := DecodeSettingsBody([]byte(`{"data":{"type":"settings","id":"s-1","page_length":25,"page_offset_limit":10000}}`))
	if err != nil || s != (StoreSettings{ID: "s-1", PageLength: 25, PageOffsetLimit: 10000}) {
		t.Errorf("settings = %+v, %v", s, err)
	}
	var broken *ProtocolError
	for body, want := range map[string]string{
		`{"data":{"type":"settings","page_length":25}}`: "no store id (data.id)",
		`{"meta":{}}`: "no data object",
	} {
		if _, err := DecodeSettingsBody([]byte(body)); !errors.As(err, &broken) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a contract break saying %q", body, err, want)
		}
	}
	if _, err := DecodeSettingsBody([]byte(`<html>`)); err == nil || errors.As(err, &broken) {
		t.Errorf("not JSON: %v, want a plain error", err)
	}
	name, err := DecodeStoreBody([]byte(`{"data":{"type":"store","id":"S-1","name":"Acme"}}`), "s-1")
	if err != nil || name != "Acme" {
		t.Errorf("store = %q, %v", name, err)
	}
	if _, err := DecodeStoreBody([]byte(`{"data":{"type":"store","id":"s-2","name":"Other"}}`), "s-1"); !errors.As(err, &broken) || !strings.Contains(err.Error(), `asked for store s-1 but the service answered with store "s-2"`) {
		t.Errorf("another store: %v", err)
	}
}
