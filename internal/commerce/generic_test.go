package commerce

import (
	"strings"
	"testing"
)

func TestGenericDecode(t *testing.T) {
	for _, tc := range []struct {
		name, raw       string
		want            Common
		typ, err        string
		values, missing map[string]string
	}{
		{name: "meta.timestamps, as the /v2 services send them",
			raw:  `{"type":"customer","id":"c1","name":"Ron","meta":{"timestamps":{"created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-02-01T00:00:00Z"}}}`,
			want: Common{ID: "c1", CreatedAt: "2024-01-01T00:00:00.000Z", UpdatedAt: "2024-02-01T00:00:00Z"}, typ: "customer",
			values: map[string]string{"name": "Ron"}},
		{name: "meta, as the catalogue services send them",
			raw:  `{"type":"hierarchy","id":"h1","attributes":{"name":"Shoes"},"meta":{"created_at":"2024-01-10T20:16:35.343Z","owner":"store","updated_at":"2024-01-10T20:30:50.867Z"}}`,
			want: Common{ID: "h1", CreatedAt: "2024-01-10T20:16:35.343Z", UpdatedAt: "2024-01-10T20:30:50.867Z"}, typ: "hierarchy",
			values: map[string]string{"name": "Shoes"}, missing: map[string]string{"owner": ""}},
		{name: "top level, the documented flat form",
			raw:    `{"id":"f1","created_at":"2024-03-01T00:00:00.000Z","file_size":2048,"width":12.0,"ratio":1.5}`,
			want:   Common{ID: "f1", CreatedAt: "2024-03-01T00:00:00.000Z"},
			values: map[string]string{"file_size": "2048", "width": "12", "ratio": "1.5"}, missing: map[string]string{"updated_at": ""}},
		{name: "meta.timestamps before meta before the top level",
			raw: `{"id":"x","created_at":"2020-01-01T00:00:00.000Z","updated_at":"2020-01-02T00:00:00.000Z",` +
				`"meta":{"created_at":"2021-01-01T00:00:00.000Z","timestamps":{"updated_at":"2022-01-02T00:00:00.000Z"}}}`,
			want: Common{ID: "x", CreatedAt: "2021-01-01T00:00:00.000Z", UpdatedAt: "2022-01-02T00:00:00.000Z"}},
		{name: "odd members read as absent",
			raw:  `{"id":"y","type":7,"created_at":1700000000,"meta":"none","attributes":[1]}`,
			want: Common{ID: "y"}, missing: map[string]string{"name": "", "created_at": ""}},
		{name: "a dotted attribute reaches into objects",
			raw:  `{"id":"o1","contact":{"email":"a@b.test"},"meta":{"display_price":{"with_tax":{"amount":"1050"}}}}`,
			want: Common{ID: "o1"}, values: map[string]string{"contact.email": "a@b.test"}, missing: map[string]string{"contact": ""}},
		{name: "no id", raw: `{"type":"x","meta":{}}`, err: "no id"},
		{name: "null id", raw: `{"id":null}`, err: "no id"},
		{name: "empty id", raw: `{"id":""}`, err: "not a non-empty string"},
		{name: "number id", raw: `{"id":42}`, err: "not a non-empty string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, _, err := GenericKind(Endpoint{Path: "/x"}).DecodeRecord([]byte(tc.raw), false)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.JSON != tc.raw {
				t.Errorf("JSON not kept without being asked: %q", rec.JSON)
			}
			got := rec.Common
			got.JSON = ""
			if got != tc.want || rec.Type != tc.typ {
				t.Errorf("got %+v type %q, want %+v type %q", got, rec.Type, tc.want, tc.typ)
			}
			var absent []string
			for a := range tc.missing {
				absent = append(absent, a)
			}
			checkSortValues(t, rec, tc.values, absent...)
		})
	}
	// The range attribute of orders lives in meta.display_price.
	rec, _, err := GenericKind(OrdersEndpoint).DecodeRecord([]byte(`{"id":"o","meta":{"display_price":{"with_tax":{"amount":12345}}}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	checkSortValues(t, rec, map[string]string{"with_tax": "12345"}, "without_tax")
}
