package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// listBody wraps records in a list body whose results.total counts them.
func listBody(records ...string) []byte {
	return fmt.Appendf(nil, `{"data":[%s],"meta":{"page":{"limit":100,"offset":0,"current":1,"total":1},"results":{"total":%d}}}`,
		strings.Join(records, ","), len(records))
}

// issueSet is a page's issues as "path id found" lines, sorted.
func issueSet(issues []decodeIssue) []string {
	out := make([]string, len(issues))
	for i, is := range issues {
		out[i] = is.path + " " + is.id + " " + is.found.name()
	}
	slices.Sort(out)
	return out
}

const (
	lenientCreated = `"timestamps":{"created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-01-02T00:00:00.000Z"}`
	lenientPrice   = `"display_price":{"with_tax":{"amount":1200,"currency":"EUR"},"without_tax":{"amount":1000,"currency":"EUR"}}`
)

// lenientCase is one fixture body: the records each decode to, and the
// issues the page notes.
type lenientCase[T Record] struct {
	kind   Kind[T]
	body   []byte
	want   []T
	issues []string
}

func (lc lenientCase[T]) run(t *testing.T) {
	t.Helper()
	for _, keepRaw := range []bool{false, true} {
		p, err := decodeListBody(lc.body, lc.kind, 100, 0, keepRaw, "/v2/x")
		if err != nil {
			t.Fatalf("keepRaw %v: %v", keepRaw, err)
		}
		if len(p.records) != len(lc.want) {
			t.Fatalf("keepRaw %v: %d records, want %d", keepRaw, len(p.records), len(lc.want))
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(lc.body, &struct {
			Data *[]json.RawMessage `json:"data"`
		}{&raws}); err != nil {
			t.Fatal(err)
		}
		for i, got := range p.records {
			want := lc.want[i]
			if keepRaw {
				// include_json is the record exactly as the service sent it.
				if got.Base().JSON != string(raws[i]) {
					t.Errorf("record %d JSON\n got %s\nwant %s", i, got.Base().JSON, raws[i])
				}
				got = withoutJSON(got)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("keepRaw %v: record %d\n got %s\nwant %s", keepRaw, i, dump(got), dump(want))
			}
		}
		if got := issueSet(p.issues); !slices.Equal(got, lc.issues) {
			t.Errorf("keepRaw %v: issues\n got %q\nwant %q", keepRaw, got, lc.issues)
		}
	}
}

// withoutJSON is rec with its raw JSON left out.
func withoutJSON[T Record](rec T) T {
	v := reflect.ValueOf(&rec).Elem()
	v.FieldByName("Common").FieldByName("JSON").SetString("")
	return rec
}

func TestLenientOrders(t *testing.T) {
	common := func(id string) Common {
		return Common{ID: id, CreatedAt: "2024-01-01T00:00:00.000Z", UpdatedAt: "2024-01-02T00:00:00.000Z"}
	}
	meta := `"meta":{` + lenientPrice + `,` + lenientCreated + `}`
	lenientCase[Order]{
		kind: Orders,
		body: listBody(
			`{"id":"o1","order_number":1234,"status":"complete",`+meta+`}`,
			`{"id":"o2","order_number":12.50,"external_ref":{"crm":7},"customer":{"name":["Ann"],"email":true},`+meta+`}`,
			`{"id":"o3","order_number":{"n":1},"status":["complete"],"payment":false,`+meta+`,
				"relationships":{"customer":{"data":[{"type":"customer","id":"c1"}]},"account":{"data":{"type":"account","id":42}}}}`,
			`{"id":"o4","order_number":true,"customer":"Jane Doe","contact":{"name":"Contact","email":"c@x"},"relationships":[],
				"meta":{"display_price":{"with_tax":{"amount":"1200","currency":978}},`+lenientCreated+`}}`,
			`{"id":"o5","order_number":"ORD-5","shipping":1e3,"customer":{"name":"Bo","email":"bo@x"},`+meta+`,
				"relationships":{"customer":{"data":{"type":"customer","id":"c5"}},"account":"a5"}}`,
		),
		want: []Order{
			{Common: common("o1"), OrderNumber: "1234", Status: "complete", Currency: "EUR", AmountWithTax: i64(1200), AmountWithoutTax: i64(1000)},
			{Common: common("o2"), OrderNumber: "12.50", Currency: "EUR", AmountWithTax: i64(1200), AmountWithoutTax: i64(1000)},
			{Common: common("o3"), AccountID: "42", Currency: "EUR", AmountWithTax: i64(1200), AmountWithoutTax: i64(1000)},
			// A customer that is not an object is null: not the contact.
			{Common: common("o4"), Currency: "978", AmountWithTax: i64(1200)},
			{Common: common("o5"), OrderNumber: "ORD-5", Shipping: "1e3", CustomerName: "Bo", CustomerEmail: "bo@x", CustomerID: "c5",
				Currency: "EUR", AmountWithTax: i64(1200), AmountWithoutTax: i64(1000)},
		},
		issues: []string{
			"customer o4 string",
			"customer.email o2 bool",
			"customer.name o2 array",
			"external_ref o2 object",
			"meta.display_price.with_tax.currency o4 number",
			"order_number o1 number",
			"order_number o2 number",
			"order_number o3 object",
			"order_number o4 bool",
			"payment o3 bool",
			"relationships o4 array",
			"relationships.account o5 string",
			"relationships.account.data.id o3 number",
			"relationships.customer.data o3 array",
			"shipping o5 number",
			"status o3 array",
		},
	}.run(t)
}

func TestLenientAccounts(t *testing.T) {
	meta := `"meta":{` + lenientCreated + `}`
	common := func(id string) Common {
		return Common{ID: id, CreatedAt: "2024-01-01T00:00:00.000Z", UpdatedAt: "2024-01-02T00:00:00.000Z"}
	}
	lenientCase[Account]{
		kind: Accounts,
		body: listBody(
			`{"id":"a1","name":1234,"legal_name":{"x":1},"registration_id":true,`+meta+`}`,
			`{"id":"a2","name":"Two","parent_id":"p2","relationships":{"parent":{"data":[{"type":"account","id":"p1"}]}},`+meta+`}`,
			`{"id":"a3","name":"Three","external_ref":5.0,"relationships":"none",`+meta+`}`,
			`{"id":"a4","name":["Four"],"parent_id":7,`+meta+`}`,
		),
		want: []Account{
			{Common: common("a1"), Name: "1234"},
			// The relationship is unusable; parent_id says the same.
			{Common: common("a2"), Name: "Two", ParentID: "p2"},
			{Common: common("a3"), Name: "Three", ExternalRef: "5.0"},
			{Common: common("a4"), ParentID: "7"},
		},
		issues: []string{
			"external_ref a3 number",
			"legal_name a1 object",
			"name a1 number",
			"name a4 array",
			"parent_id a4 number",
			"registration_id a1 bool",
			"relationships a3 string",
			"relationships.parent.data a2 array",
		},
	}.run(t)
}

func TestLenientFiles(t *testing.T) {
	stamp := `"timestamps":{"created_at":"2024-01-01T00:00:00.000Z"}`
	common := func(id string) Common { return Common{ID: id, CreatedAt: "2024-01-01T00:00:00.000Z"} }
	yes := true
	lenientCase[File]{
		kind: Files,
		body: listBody(
			`{"id":"f1","file_name":42,"mime_type":["image/png"],"file_size":10,"public":"true","link":"https://x/f1","meta":{`+stamp+`}}`,
			`{"id":"f2","file_name":"b.png","file_size":"20","public":"yes","meta":{"dimensions":[],`+stamp+`}}`,
			`{"id":"f3","file_name":"c.png","file_size":30,"public":1,"meta":{"dimensions":{"width":12.5,"height":"tall"},`+stamp+`}}`,
			`{"id":"f4","file_name":"d.png","file_size":40,"link":{"href":{"a":1}},"meta":{"dimensions":{"width":"640","height":480},`+stamp+`}}`,
		),
		want: []File{
			{Common: common("f1"), FileName: "42", FileSize: i64(10), Public: &yes},
			{Common: common("f2"), FileName: "b.png", FileSize: i64(20)},
			{Common: common("f3"), FileName: "c.png", FileSize: i64(30)},
			{Common: common("f4"), FileName: "d.png", FileSize: i64(40), Width: i64(640), Height: i64(480)},
		},
		issues: []string{
			"file_name f1 number",
			"link f1 string",
			"link.href f4 object",
			"meta.dimensions f2 array",
			"meta.dimensions.height f3 string",
			"meta.dimensions.width f3 fraction",
			"mime_type f1 array",
			"public f2 string",
			"public f3 number",
		},
	}.run(t)
}

// What correctness depends on stays strict: each of these fails the page
// with a ProtocolError, whatever the rest of the record.
func TestLenientStrictMembers(t *testing.T) {
	meta := `"meta":{` + lenientPrice + `,` + lenientCreated + `}`
	cases := []struct {
		name string
		body []byte
		want string
	}{
		{"numeric id", listBody(`{"id":12345,"order_number":1234,` + meta + `}`), "a record has an id that is not a non-empty string: 12345"},
		{"object id", listBody(`{"id":{"v":"o1"},` + meta + `}`), `a record has an id that is not a non-empty string: {"v":"o1"}`},
		{"total a string", []byte(`{"data":[],"meta":{"results":{"total":"0"}}}`), "the response's meta.results.total is a JSON string, where the contract has a whole number"},
		{"total a fraction", []byte(`{"data":[],"meta":{"results":{"total":1.5}}}`), "the response's meta.results.total is a JSON number 1.5"},
		{"paging an array", []byte(`{"data":[],"meta":{"page":[],"results":{"total":0}}}`), "the response's meta.page is a JSON array, where the contract has an object"},
		{"data an object", []byte(`{"data":{"id":"o1"},"meta":{"results":{"total":1}}}`), "the response's data is a JSON object, where the contract has an array"},
		{"with_tax an object", listBody(`{"id":"o1","meta":{"display_price":{"with_tax":{"amount":{"v":1}}},` + lenientCreated + `}}`), `{"v":1} is not a whole number`},
		{"with_tax a fraction", listBody(`{"id":"o1","meta":{"display_price":{"with_tax":{"amount":12.5}},` + lenientCreated + `}}`), `12.5 is not a whole number`},
		{"without_tax a word", listBody(`{"id":"o1","meta":{"display_price":{"without_tax":{"amount":"twelve"}},` + lenientCreated + `}}`), `"twelve" is not a whole number`},
		{"with_tax not an object", listBody(`{"id":"o1","order_number":1234,"meta":{"display_price":{"with_tax":[]},` + lenientCreated + `}}`), "record 0 of the page at offset 0"},
		{"meta not an object", listBody(`{"id":"o1","meta":"none"}`), "record 0 of the page at offset 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, keepRaw := range []bool{false, true} {
				_, err := decodeListBody(tc.body, Orders, 100, 0, keepRaw, "/v2/orders?x")
				var pErr *ProtocolError
				if !errors.As(err, &pErr) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("keepRaw %v: error %v, want a ProtocolError saying %q", keepRaw, err, tc.want)
				}
			}
		})
	}
	files := listBody(`{"id":"f1","file_size":{"bytes":10},"meta":{"timestamps":{"created_at":"2024-01-01T00:00:00.000Z"}}}`)
	if _, err := decodeListBody(files, Files, 100, 0, false, "/v2/files"); err == nil || !strings.Contains(err.Error(), `{"bytes":10} is not a whole number`) {
		t.Errorf("file_size an object: %v", err)
	}
}

// A timestamp of an unexpected type is null in state, but a listing that
// sorts or cuts by it fails on it, as on any value that is not a timestamp.
func TestLenientTimestamps(t *testing.T) {
	body := listBody(
		`{"id":"a1","meta":{"timestamps":{"created_at":{"date":"2024-01-01"},"updated_at":1704067200000}}}`,
		`{"id":"a2","created_at":"2024-01-01T00:00:00Z","updated_at":["x"]}`,
	)
	p, err := decodeListBody(body, Accounts, 100, 0, false, "/v2/accounts")
	if err != nil {
		t.Fatal(err)
	}
	a1, a2 := p.records[0], p.records[1]
	if a1.CreatedAt != "" || a1.UpdatedAt != "1704067200000" || a2.CreatedAt != "2024-01-01T00:00:00Z" || a2.UpdatedAt != "" {
		t.Errorf("timestamps %q %q, %q %q", a1.CreatedAt, a1.UpdatedAt, a2.CreatedAt, a2.UpdatedAt)
	}
	want := []string{"meta.timestamps.created_at a1 object", "meta.timestamps.updated_at a1 number", "updated_at a2 array"}
	if got := issueSet(p.issues); !slices.Equal(got, want) {
		t.Errorf("issues %q, want %q", got, want)
	}
	byCreated := keyFor(AccountsResource, "created_at")
	if _, err := keyOf(byCreated, a1); err == nil || !strings.Contains(err.Error(), `record a1 has created_at "{\"date\":\"2024-01-01\"}", which is not an ISO 8601 timestamp`) {
		t.Errorf("keyOf created_at: %v", err)
	}
	if _, err := keyOf(keyFor(AccountsResource, "updated_at"), a1); err == nil || !strings.Contains(err.Error(), `"1704067200000", which is not an ISO 8601 timestamp`) {
		t.Errorf("keyOf updated_at: %v", err)
	}
	if err := sortRecords(p.records, keyFor(AccountsResource, "-updated_at")); err == nil {
		t.Error("the provider sorted by an updated_at that is not a timestamp")
	}
	if k, err := keyOf(byCreated, a2); err != nil || k != "2024-01-01T00:00:00.000Z" {
		t.Errorf("keyOf a2 = %q, %v", k, err)
	}
}

// lenientFault rewrites, on every orders list page, the records whose id
// is in odd: order_number a number, status an object, customer an array.
func lenientFault(odd map[string]bool, mutated *atomic.Int64) emulator.FaultFunc {
	return func(r *http.Request, _ int64) *emulator.Fault {
		if !isOrdersList(r) {
			return nil
		}
		return &emulator.Fault{Mutate: editList(func(doc map[string]any) {
			for _, rec := range docRecords(doc) {
				m := rec.(map[string]any)
				if id, _ := m["id"].(string); odd[id] {
					m["order_number"] = json.Number("1234")
					m["status"] = map[string]any{"code": "complete"}
					m["customer"] = []any{}
					mutated.Add(1)
				}
			}
		})}
	}
}

func TestLenientListing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 2500, Files: -1, Accounts: -1})
	all := srv.Orders()
	odd := map[string]bool{}
	var oddIDs []string
	for i := 3; i < len(all); i += 97 {
		odd[all[i].ID] = true
		oddIDs = append(oddIDs, all[i].ID)
	}
	slices.Sort(oddIDs)
	var mutated atomic.Int64
	srv.SetFaults(lenientFault(odd, &mutated))
	logs := &recordingLogger{}
	c := newClient(t, srv, func(cfg *Config) { cfg.Logger = logs })
	got := map[string]Order{}
	stats, err := List(context.Background(), c, Orders, ListQuery{}, func(o Order) error {
		got[o.ID] = o
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if mutated.Load() == 0 || stats.Listed != len(all) || len(got) != len(all) {
		t.Fatalf("listed %d of %d orders (%d mutated)", stats.Listed, len(all), mutated.Load())
	}
	for _, o := range all {
		g := got[o.ID]
		if odd[o.ID] {
			if g.OrderNumber != "1234" || g.Status != "" || g.CustomerName != "" || g.CustomerEmail != "" {
				t.Errorf("odd order %s: order_number %q, status %q, customer %q %q", o.ID, g.OrderNumber, g.Status, g.CustomerName, g.CustomerEmail)
			}
		} else if g.OrderNumber != o.OrderNumber || g.Status != o.Status {
			t.Errorf("order %s: order_number %q status %q, want %q %q", o.ID, g.OrderNumber, g.Status, o.OrderNumber, o.Status)
		}
	}
	warns := logs.find("WARN: orders: ")
	if len(warns) != 3 {
		t.Fatalf("%d WARNs about orders, want 3 (one per field): %q", len(warns), logs.lines)
	}
	wantFields := []struct{ field, found, documented string }{
		{"customer", "array", "object"}, {"order_number", "number", "string"}, {"status", "object", "string"},
	}
	for i, w := range wantFields {
		f := warns[i]
		if f["field"] != w.field || f["found"] != w.found || f["documented"] != w.documented || f["records"] != len(odd) || f["example_id"] != oddIDs[0] {
			t.Errorf("WARN %d: %v, want field %s found %s documented %s, %d records, example %s", i, f, w.field, w.found, w.documented, len(odd), oddIDs[0])
		}
	}
	want := fmt.Sprintf("WARN: orders: %d records had a value of an unexpected type in status (an object where a string is documented); it is null in state. Example record: %s",
		len(odd), oddIDs[0])
	if !slices.Contains(logs.lines, want) {
		t.Errorf("no line %q in %q", want, logs.lines)
	}
	want = fmt.Sprintf("WARN: orders: %d records had a value of an unexpected type in order_number (a number where a string is documented); it is kept as the number's text, as the service wrote it. Example record: %s",
		len(odd), oddIDs[0])
	if !slices.Contains(logs.lines, want) {
		t.Errorf("no line %q in %q", want, logs.lines)
	}
}

// One record's created_at an object fails a listing sorted (and cut) by
// created_at; the same record in a listing by updated_at, where created_at
// is only shown, is listed with a null created_at.
func TestLenientSortKeyStrict(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 300, Orders: -1, Files: -1})
	victim := srv.Accounts()[123].ID
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != AccountsResource.Path {
			return nil
		}
		return &emulator.Fault{Mutate: editList(func(doc map[string]any) {
			for _, rec := range docRecords(doc) {
				if m := rec.(map[string]any); m["id"] == victim {
					recordTimestamps(m)["created_at"] = map[string]any{"date": "2024-01-01"}
				}
			}
		})}
	})
	c := newClient(t, srv)
	_, _, err := listWithin(t, c, Accounts, ListQuery{Sort: "created_at"})
	var pErr *ProtocolError
	if !errors.As(err, &pErr) || !strings.Contains(err.Error(), "record "+victim+` has created_at "{\"date\":\"2024-01-01\"}", which is not an ISO 8601 timestamp`) {
		t.Errorf("sorted by created_at: %v, want a ProtocolError naming the record", err)
	}
	ids, _, err := listWithin(t, c, Accounts, ListQuery{Sort: "updated_at"})
	if err != nil || len(ids) != 300 || !slices.Contains(ids, victim) {
		t.Errorf("sorted by updated_at: %d records, %v", len(ids), err)
	}
}

func TestLenientLookup(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 20, Files: -1, Accounts: 20})
	asked, other := srv.Accounts()[3].ID, srv.Accounts()[4].ID
	order := srv.Orders()[5].ID
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		switch r.URL.Path {
		case AccountsResource.Path + "/" + asked:
			return &emulator.Fault{Mutate: func(body []byte) []byte {
				return []byte(strings.ReplaceAll(string(body), asked, other))
			}}
		case OrdersResource.Path + "/" + order:
			return &emulator.Fault{Mutate: func(body []byte) []byte {
				var doc map[string]map[string]any
				if err := json.Unmarshal(body, &doc); err != nil {
					return body
				}
				doc["data"]["order_number"] = 1234
				doc["data"]["external_ref"] = []any{"a", "b"}
				out, _ := json.Marshal(doc)
				return out
			}}
		}
		return nil
	})
	logs := &recordingLogger{}
	c := newClient(t, srv, func(cfg *Config) { cfg.Logger = logs })
	_, err := Get(context.Background(), c, Accounts, asked, false)
	var pErr *ProtocolError
	want := fmt.Sprintf("GET /v2/accounts/%s: the service's response breaks the API contract: asked for account %s but the service answered with account %s", asked, asked, other)
	if !errors.As(err, &pErr) || err.Error() != want {
		t.Errorf("error %v,\nwant %s", err, want)
	}
	o, err := Get(context.Background(), c, Orders, order, true)
	if err != nil {
		t.Fatal(err)
	}
	if o.OrderNumber != "1234" || o.ExternalRef != "" || !strings.Contains(o.JSON, `"external_ref":["a","b"]`) {
		t.Errorf("order_number %q external_ref %q json %s", o.OrderNumber, o.ExternalRef, o.JSON)
	}
	warns := logs.find("WARN: order " + order + ": ")
	if len(warns) != 2 {
		t.Fatalf("%d WARNs, want 2: %q", len(warns), logs.lines)
	}
	wantLine := "WARN: order " + order + ": external_ref has a value of an unexpected type (an array where a string is documented); it is null in state."
	if !slices.Contains(logs.lines, wantLine) {
		t.Errorf("no line %q in %q", wantLine, logs.lines)
	}
}

// The service answers every account lookup with the same record: only a
// lookup of its id, in any case, gets it.
func TestLookupChecksTheID(t *testing.T) {
	const id = "0b1e6a4c-9d2f-4c8e-a1b3-5f6d7e8a9b0c"
	var lookups atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == TokenPath {
			fmt.Fprint(w, `{"access_token":"t","token_type":"Bearer","expires_in":3600}`)
			return
		}
		lookups.Add(1)
		fmt.Fprintf(w, `{"data":{"type":"account","id":%q,"name":"Acme","meta":{"timestamps":{"created_at":"2024-01-01T00:00:00.000Z"}}}}`, id)
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, ClientID: "x", ClientSecret: "y"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ask := range []string{id, strings.ToUpper(id)} {
		if a, err := Get(context.Background(), c, Accounts, ask, false); err != nil || a.ID != id || a.Name != "Acme" {
			t.Errorf("Get(%s) = %q, %v", ask, a.ID, err)
		}
	}
	const other = "7f2c1d3e-4b5a-4968-8776-5a4b3c2d1e0f"
	before := lookups.Load()
	_, err = Get(context.Background(), c, Accounts, other, false)
	var pErr *ProtocolError
	if !errors.As(err, &pErr) || pErr.Problem != "asked for account "+other+" but the service answered with account "+id {
		t.Errorf("error %v, want a ProtocolError naming both ids", err)
	}
	if n := lookups.Load() - before; n != 1 {
		t.Errorf("%d requests, want 1: a contract error is not retried", n)
	}
}

// The emulator's records, which follow the vendor's reference, have every
// modelled attribute of its documented type.
func TestLenientEmulatorRecordsAsDocumented(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 300, Files: 300, Accounts: 300})
	c := newClient(t, srv)
	check := func(t *testing.T, issues []decodeIssue, err error) {
		t.Helper()
		if err != nil || len(issues) > 0 {
			t.Errorf("%v; issues %q", err, issueSet(issues))
		}
	}
	for offset := 0; offset < 300; offset += 100 {
		for _, keepRaw := range []bool{false, true} {
			o, err := fetchPage(context.Background(), c, Orders, "", "", offset, 100, keepRaw)
			check(t, o.issues, err)
			f, err := fetchPage(context.Background(), c, Files, "", "", offset, 100, keepRaw)
			check(t, f.issues, err)
			a, err := fetchPage(context.Background(), c, Accounts, "", "", offset, 100, keepRaw)
			check(t, a.issues, err)
		}
	}
}

func TestDecodeLogSummary(t *testing.T) {
	var l decodeLog
	l.add([]decodeIssue{{"order_number", jsonNumber, jsonString, "b"}, {"order_number", jsonObject, jsonString, "c"}})
	// The same record read again (an overlapping page) counts once.
	l.add([]decodeIssue{{"order_number", jsonNumber, jsonString, "b"}, {"order_number", jsonNumber, jsonString, "a"}})
	msg, fields := l.fields["order_number"].summary("orders", "order_number")
	want := "orders: 3 records had a value of an unexpected type in order_number, where a string is documented: " +
		"a number in 2 (kept as the number's text), an object in 1 (null in state). Example record: a"
	if msg != want || fields["records"] != 3 || fields["found"] != "number,object" {
		t.Errorf("summary\n got %s %v\nwant %s", msg, fields, want)
	}
}

var regexpOrderNumber = regexp.MustCompile(`"order_number":"ORD-0*(\d+)"`)

// BenchmarkDecodeOrdersLenient decodes pages whose every order holds its
// order_number as a number (numbers: the single pass, as for any page),
// and the same with one order per page whose customer is not an object
// (object_per_page: such a page is decoded record by record).
func BenchmarkDecodeOrdersLenient(b *testing.B) {
	numbers := regexpOrderNumber.ReplaceAll(benchOrdersBody(), []byte(`"order_number":$1`))
	b.Run("numbers", func(b *testing.B) { benchDecode(b, Orders, numbers) })
	odd := bytes.Replace(numbers, []byte(`"customer":{"name":"Olivia Dubois","email":"olivia.dubois0@example.com"}`), []byte(`"customer":"Olivia Dubois"`), 1)
	if bytes.Equal(odd, numbers) {
		b.Fatal("no customer replaced")
	}
	b.Run("object_per_page", func(b *testing.B) { benchDecode(b, Orders, odd) })
}
