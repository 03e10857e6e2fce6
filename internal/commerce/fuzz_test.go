package commerce

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"unicode/utf8"
)

const fuzzPath = "/v2/orders?page%5Blimit%5D=100&page%5Boffset%5D=0"

// FuzzDecodeListBody feeds arbitrary bodies to the decoding every list page
// goes through.
// Whatever the body, decoding must not panic, and it must either fail (a
// ProtocolError naming the request, or a JSON error that the client
// retries) or return a page that honours the contract: a non-negative
// total, at most limit records, each with a distinct non-empty id.
func FuzzDecodeListBody(f *testing.F) {
	f.Add([]byte(`{"data":[{"type":"order","id":"a","meta":{"timestamps":{"created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-01-01T00:00:00.000Z"}}}],"meta":{"page":{"limit":100,"offset":0,"current":1,"total":1},"results":{"total":1}}}`), uint8(0), uint8(99), uint16(0), false)
	f.Add([]byte(`{"data":[{"id":"f","created_at":"2024-01-01T00:00:00Z","file_size":"12"}],"page":{"page[limit]":2},"results":{"total":7}}`), uint8(1), uint8(1), uint16(5), true)
	f.Add([]byte(`{"data":[],"meta":{"results":{"total":0}}}`), uint8(2), uint8(9), uint16(0), false)
	f.Add([]byte(`{"data":[{"id":"x"},{"id":"x"}],"meta":{"results":{"total":2}}}`), uint8(0), uint8(99), uint16(0), false)
	f.Add([]byte(`{"data":[{"id":null}],"meta":{"results":{"total":1}}}`), uint8(0), uint8(99), uint16(0), false)
	f.Add([]byte(`{"data":[{"id":"x"`), uint8(0), uint8(99), uint16(0), false)
	f.Fuzz(func(t *testing.T, body []byte, kind, limit uint8, offset uint16, keepRaw bool) {
		lim := int(limit%MaxPageSize) + 1
		switch kind % 3 {
		case 0:
			checkDecodeListBody(t, body, Orders, lim, int(offset), keepRaw)
		case 1:
			checkDecodeListBody(t, body, Files, lim, int(offset), keepRaw)
		default:
			checkDecodeListBody(t, body, Accounts, lim, int(offset), keepRaw)
		}
	})
}

func checkDecodeListBody[T Record](t *testing.T, body []byte, kind Kind[T], limit, offset int, keepRaw bool) {
	// The one pass every page takes (decodeAll) and the record-by-record
	// decoding it falls back to, with encoding/json, agree wherever the
	// one pass succeeds.
	if one, err := kind.decodeAll(body); err == nil {
		each, err := decodeEach(body, kind.decodeRecord, false)
		if err != nil || !reflect.DeepEqual(one, each) {
			t.Fatalf("one pass decoded %+v; record by record %+v, error %v", one, each, err)
		}
	}
	p, err := DecodeListBody(body, kind, limit, offset, keepRaw, fuzzPath)
	if err != nil {
		var pErr *ProtocolError
		if errors.As(err, &pErr) {
			if pErr.Path != fuzzPath || pErr.Method != http.MethodGet || pErr.Problem == "" {
				t.Fatalf("protocol error %+v does not name the request", pErr)
			}
			if !utf8.ValidString(pErr.Error()) {
				t.Fatalf("protocol error is not valid UTF-8: %q", pErr.Error())
			}
			return
		}
		// Anything else is a body that is not a JSON list document: the
		// client retries it as a malformed answer.
		if json.Unmarshal(body, new(struct {
			listEnvelope
			Data *[]json.RawMessage `json:"data"`
		})) == nil {
			t.Fatalf("decoding failed with %v (%T), but the body is a valid JSON list document", err, err)
		}
		return
	}
	if p.Offset != offset || p.Count.N < 0 || len(p.Records) > limit {
		t.Fatalf("page offset %d total %d with %d records; requested offset %d limit %d", p.Offset, p.Count.N, len(p.Records), offset, limit)
	}
	ids := map[string]bool{}
	for i, rec := range p.Records {
		id := rec.RecordID()
		if id == "" || ids[id] {
			t.Fatalf("record %d has id %q, empty or repeated", i, id)
		}
		ids[id] = true
		raw := rec.Base().JSON
		if keepRaw != (raw != "") || (keepRaw && !json.Valid([]byte(raw))) {
			t.Fatalf("record %d raw JSON %q with keepRaw %v", i, raw, keepRaw)
		}
	}
	// Decoding is a function of the body.
	again, err := DecodeListBody(body, kind, limit, offset, keepRaw, fuzzPath)
	if err != nil || again.Count.N != p.Count.N || len(again.Records) != len(p.Records) {
		t.Fatalf("decoding the same body again gave %d records, total %d, error %v", len(again.Records), again.Count.N, err)
	}
}
