package commerce

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
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
		p, err := DecodeListBody(lc.body, lc.kind, 100, 0, keepRaw, "/v2/x")
		if err != nil {
			t.Fatalf("keepRaw %v: %v", keepRaw, err)
		}
		if len(p.Records) != len(lc.want) {
			t.Fatalf("keepRaw %v: %d records, want %d", keepRaw, len(p.Records), len(lc.want))
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(lc.body, &struct {
			Data *[]json.RawMessage `json:"data"`
		}{&raws}); err != nil {
			t.Fatal(err)
		}
		for i, got := range p.Records {
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
		if got := issueSet(p.Issues); !slices.Equal(got, lc.issues) {
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
				_, err := DecodeListBody(tc.body, Orders, 100, 0, keepRaw, "/v2/orders?x")
				var pErr *ProtocolError
				if !errors.As(err, &pErr) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("keepRaw %v: error %v, want a ProtocolError saying %q", keepRaw, err, tc.want)
				}
			}
		})
	}
	files := listBody(`{"id":"f1","file_size":{"bytes":10},"meta":{"timestamps":{"created_at":"2024-01-01T00:00:00.000Z"}}}`)
	if _, err := DecodeListBody(files, Files, 100, 0, false, "/v2/files"); err == nil || !strings.Contains(err.Error(), `{"bytes":10} is not a whole number`) {
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
	p, err := DecodeListBody(body, Accounts, 100, 0, false, "/v2/accounts")
	if err != nil {
		t.Fatal(err)
	}
	a1, a2 := p.Records[0], p.Records[1]
	if a1.CreatedAt != "" || a1.UpdatedAt != "1704067200000" || a2.CreatedAt != "2024-01-01T00:00:00Z" || a2.UpdatedAt != "" {
		t.Errorf("timestamps %q %q, %q %q", a1.CreatedAt, a1.UpdatedAt, a2.CreatedAt, a2.UpdatedAt)
	}
	want := []string{"meta.timestamps.created_at a1 object", "meta.timestamps.updated_at a1 number", "updated_at a2 array"}
	if got := issueSet(p.Issues); !slices.Equal(got, want) {
		t.Errorf("issues %q, want %q", got, want)
	}
}

func TestDecodeLogSummary(t *testing.T) {
	var l DecodeLog
	l.Add(Issues{{"order_number", jsonNumber, jsonString, "b"}, {"order_number", jsonObject, jsonString, "c"}})
	// The same record read again (an overlapping page) counts once.
	l.Add(Issues{{"order_number", jsonNumber, jsonString, "b"}, {"order_number", jsonNumber, jsonString, "a"}})
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
