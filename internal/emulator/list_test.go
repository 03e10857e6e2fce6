package emulator

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestPagingMeta(t *testing.T) {
	c := startServer(t, Options{Orders: 250, Files: 30, Accounts: 7})
	cases := []struct {
		resource                  string
		query                     url.Values
		limit, offset, cur, pages int
		total, n                  int
	}{
		{"orders", nil, 25, 0, 1, 10, 250, 25},
		{"orders", q("page[limit]", "100"), 100, 0, 1, 3, 250, 100},
		{"orders", q("page[limit]", "100", "page[offset]", "200"), 100, 200, 3, 3, 250, 50},
		{"orders", q("page[limit]", "100", "page[offset]", "250"), 100, 250, 3, 3, 250, 0},
		{"orders", q("page[limit]", "100", "page[offset]", "9999"), 100, 9999, 100, 3, 250, 0},
		{"orders", q("page[limit]", "7", "page[offset]", "3"), 7, 3, 1, 36, 250, 7},
		{"orders", q("page[limit]", "1", "page[offset]", "249"), 1, 249, 250, 250, 250, 1},
		{"files", q("page[limit]", "010"), 10, 0, 1, 3, 30, 10},
		{"accounts", q("page[offset]", "5"), 25, 5, 1, 1, 7, 2},
		// Empty results still carry all pagination attributes.
		{"orders", q("filter", "eq(status,nonexistent)"), 25, 0, 1, 0, 0, 0},
		{"accounts", q("filter", "eq(name,nobody)", "page[offset]", "50", "page[limit]", "10"), 10, 50, 6, 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.resource+"?"+tc.query.Encode(), func(t *testing.T) {
			lb := c.list(tc.resource, tc.query)
			p, total := lb.pagination()
			got := []int{*p.Limit, *p.Offset, *p.Current, *p.Total, total, len(lb.Data)}
			want := []int{tc.limit, tc.offset, tc.cur, tc.pages, tc.total, tc.n}
			if !slices.Equal(got, want) {
				t.Errorf("limit, offset, current, pages, total, records = %v, want %v", got, want)
			}
			if lb.Data == nil {
				t.Error("data is null, want an array")
			}
			wantType := strings.TrimSuffix(tc.resource, "s")
			for _, r := range lb.Data {
				if r.Type != wantType || r.ID == "" || r.created() == "" {
					t.Fatalf("bad record %+v", r)
				}
			}
			for _, name := range []string{"first", "prev", "next", "last"} {
				if _, ok := lb.Links[name]; !ok {
					t.Errorf("links.%s missing", name)
				}
			}
		})
	}
}

func TestPagingRawShape(t *testing.T) {
	c := startServer(t, Options{Orders: 3, Files: 3, Accounts: 3})
	var raw map[string]json.RawMessage
	c.getJSON("/v2/orders", "filter=eq(status,none)", &raw)
	if string(raw["data"]) != "[]" {
		t.Errorf("data = %s, want []", raw["data"])
	}
	want := `{"page":{"limit":25,"offset":0,"current":1,"total":0},"results":{"total":0}}`
	if string(raw["meta"]) != want {
		t.Errorf("meta = %s, want %s", raw["meta"], want)
	}
}

func TestLinks(t *testing.T) {
	c := startServer(t, Options{Orders: 95, Files: 3, Accounts: 3})
	lb := c.list("orders", q("page[limit]", "20", "page[offset]", "40", "sort", "-with_tax", "filter", "like(email,*@example.com)"))
	_, total := lb.pagination()
	follow := func(name string) *listBody {
		t.Helper()
		link := lb.Links[name]
		if link == nil {
			t.Fatalf("links.%s is null", name)
		}
		u, err := url.Parse(*link)
		if err != nil || u.Host == "" {
			t.Fatalf("links.%s = %q", name, *link)
		}
		return c.list("orders", u.Query())
	}
	next := follow("next")
	if p, _ := next.pagination(); *p.Offset != 60 || *p.Limit != 20 {
		t.Errorf("next page %+v", p)
	}
	all, err := c.s.ExpectedIDs("orders", "like(email,*@example.com)", "-with_tax")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(next.ids(), all[60:min(80, len(all))]) {
		t.Error("next link does not keep sort and filter")
	}
	if p, _ := follow("prev").pagination(); *p.Offset != 20 {
		t.Errorf("prev offset %d", *p.Offset)
	}
	if p, _ := follow("last").pagination(); *p.Offset != (total-1)/20*20 {
		t.Errorf("last offset %d for total %d", *p.Offset, total)
	}
	first := c.list("orders", q("page[limit]", "100"))
	if first.Links["prev"] != nil || first.Links["next"] != nil {
		t.Errorf("single page has prev/next: %v %v", first.Links["prev"], first.Links["next"])
	}
}

func TestFlatTimestamps(t *testing.T) {
	c := startServer(t, Options{Orders: 30, Files: 30, Accounts: 30, FlatTimestamps: true})
	for _, res := range []string{"orders", "files", "accounts"} {
		var raw map[string]json.RawMessage
		body := c.getJSON("/v2/"+res, "page[limit]=2", &raw)
		if _, ok := raw["meta"]; ok {
			t.Errorf("%s: flat list has meta", res)
		}
		if string(raw["page"]) != `{"limit":2,"offset":0,"current":1,"total":15}` || string(raw["results"]) != `{"total":30}` {
			t.Errorf("%s: page %s results %s", res, raw["page"], raw["results"])
		}
		var lb listBody
		if err := json.Unmarshal(body, &lb); err != nil || len(lb.Data) == 0 {
			t.Fatalf("%s: %v, %d records: %s", res, err, len(lb.Data), body)
		}
		for _, r := range lb.Data {
			if r.CreatedAt == "" || (r.UpdatedAt == "") != (res == "files") || r.Meta.Timestamps.CreatedAt != "" {
				t.Errorf("%s: record not flat: %+v", res, r)
			}
		}
		var one struct{ Data map[string]json.RawMessage }
		body = c.getJSON("/v2/"+res+"/"+lb.Data[0].ID, "", &one)
		if one.Data["created_at"] == nil || (one.Data["updated_at"] == nil) != (res == "files") {
			t.Errorf("%s: single record not flat: %s", res, body)
		}
	}
	// Files keep their dimensions in meta, without timestamps.
	for _, f := range c.s.Files() {
		var one struct {
			Data struct {
				Meta map[string]json.RawMessage `json:"meta"`
			} `json:"data"`
		}
		body := c.getJSON("/v2/files/"+f.ID, "", &one)
		if _, ok := one.Data.Meta["timestamps"]; ok || (f.Width != 0) != (one.Data.Meta["dimensions"] != nil) {
			t.Errorf("flat file: %s", body)
		}
	}
	// Orders keep display_price in meta.
	var page map[string]any
	body := c.getJSON("/v2/orders", "page[limit]=1", &page)
	if !strings.Contains(string(body), `"meta":{"display_price"`) {
		t.Errorf("flat order lost display_price: %s", body)
	}
}

func TestRecordShapes(t *testing.T) {
	c := startServer(t, Options{Orders: 40, Files: 30, Accounts: 25})
	base := c.s.URL()
	var sawCustomer, sawAccount, sawGuest bool
	for _, o := range c.s.Orders() {
		var got map[string]any
		c.getJSON("/v2/orders/"+o.ID, "", &got)
		price := func(amount int64) map[string]any {
			return map[string]any{"amount": float64(amount), "currency": o.Currency, "formatted": formatPrice(amount, o.Currency)}
		}
		address := func(postcode string) map[string]any {
			first, last, _ := strings.Cut(o.CustomerName, " ")
			return map[string]any{"first_name": first, "last_name": last, "postcode": postcode}
		}
		rel := map[string]any{"items": map[string]any{"data": []any{map[string]any{"type": "item", "id": o.ItemID}}}}
		switch {
		case o.PromotionID != "":
			rel["promotions"] = map[string]any{"data": []any{map[string]any{"type": "promotion", "id": o.PromotionID}}}
		case o.CustomDiscountID != "":
			rel["custom_discounts"] = map[string]any{"data": []any{map[string]any{"type": "custom_discount", "id": o.CustomDiscountID}}}
		}
		switch {
		case o.CustomerID != "":
			rel["customer"] = map[string]any{"data": map[string]any{"type": "customer", "id": o.CustomerID}}
			sawCustomer = true
		case o.AccountID != "":
			rel["account"] = map[string]any{"data": map[string]any{"type": "account", "id": o.AccountID}}
			rel["account_member"] = map[string]any{"data": map[string]any{"type": "account_member", "id": o.AccountMemberID}}
			sawAccount = true
		default:
			sawGuest = true
		}
		want := map[string]any{"data": map[string]any{
			"type": "order", "id": o.ID, "status": o.Status, "payment": o.Payment, "shipping": o.Shipping,
			"anonymized": false, "order_number": o.OrderNumber, "external_ref": o.ExternalRef,
			"customer":         map[string]any{"name": o.CustomerName, "email": o.CustomerEmail},
			"contact":          map[string]any{"name": o.ContactName, "email": o.ContactEmail},
			"shipping_address": address(o.ShippingPostcode),
			"billing_address":  address(o.BillingPostcode),
			"meta": map[string]any{
				"display_price": map[string]any{
					"with_tax": price(o.WithTax), "without_tax": price(o.WithoutTax), "tax": price(o.WithTax - o.WithoutTax),
					"discount": price(o.Discount), "paid": price(o.Paid), "authorized": price(o.Authorized)},
				"timestamps": map[string]any{"created_at": o.CreatedAt.Format(timestampLayout), "updated_at": o.UpdatedAt.Format(timestampLayout)},
			},
			"relationships": rel,
		}}
		// The rest of the addresses is free; compare the parts above.
		data := got["data"].(map[string]any)
		for _, k := range []string{"shipping_address", "billing_address"} {
			a := data[k].(map[string]any)
			for _, f := range []string{"line_1", "city", "country"} {
				if s, _ := a[f].(string); s == "" {
					t.Errorf("order %s: %s.%s = %v", o.ID, k, f, a[f])
				}
				delete(a, f)
			}
		}
		if !jsonEqual(got, want) {
			t.Errorf("order:\n got %v\nwant %v", got, want)
		}
	}
	if !sawCustomer || !sawAccount || !sawGuest {
		t.Errorf("customer, account and guest orders: %v %v %v", sawCustomer, sawAccount, sawGuest)
	}

	var sawImage, sawOther bool
	for _, f := range c.s.Files() {
		var got map[string]any
		body := c.getJSON("/v2/files/"+f.ID, "", &got)
		meta := map[string]any{"timestamps": map[string]any{"created_at": f.CreatedAt.Format(timestampLayout)}}
		if strings.HasPrefix(f.MimeType, "image/") {
			meta["dimensions"] = map[string]any{"width": float64(f.Width), "height": float64(f.Height)}
			sawImage = true
		} else {
			sawOther = true
		}
		want := map[string]any{"data": map[string]any{
			"type": "file", "id": f.ID, "file_name": f.FileName, "mime_type": f.MimeType, "file_size": float64(f.FileSize),
			"public": f.Public, "meta": meta,
			"links": map[string]any{"self": base + "/v2/files/" + f.ID},
			"link":  map[string]any{"href": "https://files.example.test/" + f.ID + "/" + f.FileName},
		}}
		if !jsonEqual(got, want) || f.Link != "https://files.example.test/"+f.ID+"/"+f.FileName {
			t.Errorf("file:\n got %v\nwant %v", got, want)
		}
		if strings.Contains(string(body), "updated_at") {
			t.Errorf("file with updated_at: %s", body)
		}
	}
	if !sawImage || !sawOther {
		t.Error("no image or no other file")
	}

	parents := 0
	for _, a := range c.s.Accounts() {
		var got map[string]any
		c.getJSON("/v2/accounts/"+url.PathEscape(a.ID), "", &got)
		data := map[string]any{
			"type": "account", "id": a.ID, "name": a.Name, "legal_name": a.LegalName, "registration_id": a.RegistrationID,
			"external_ref": a.ExternalRef,
			"meta":         map[string]any{"timestamps": map[string]any{"created_at": a.CreatedAt.Format(timestampLayout), "updated_at": a.UpdatedAt.Format(timestampLayout)}},
			"links":        map[string]any{"self": base + "/v2/accounts/" + a.ID},
		}
		if a.ParentID != "" {
			parents++
			data["parent_id"] = a.ParentID
			data["relationships"] = map[string]any{"parent": map[string]any{"data": map[string]any{"type": "account", "id": a.ParentID}}}
		}
		if want := map[string]any{"data": data}; !jsonEqual(got, want) {
			t.Errorf("account:\n got %v\nwant %v", got, want)
		}
	}
	if parents == 0 {
		t.Error("no account with a parent")
	}

	resp, body := c.get("/v2/orders/00000000-0000-4000-8000-000000000000", "")
	c.wantError(404, resp, body)
	// An include value the service does not support is ignored.
	if resp, body = c.get("/v2/orders/"+c.s.Orders()[0].ID, "include=customer"); resp.StatusCode != 200 {
		t.Errorf("include=customer: %d %s", resp.StatusCode, body)
	}
}

const timestampLayout = "2006-01-02T15:04:05.000Z"

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func formatPrice(amount int64, currency string) string {
	if amount < 0 { // a discount: "-$15.00", as in the vendor's examples
		return "-" + formatPrice(-amount, currency)
	}
	sym := map[string]string{"USD": "$", "EUR": "€", "GBP": "£"}[currency]
	units := strconv.FormatInt(amount/100, 10)
	var b strings.Builder
	for i := range len(units) {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(units[i])
	}
	cents := strconv.FormatInt(amount%100+100, 10)[1:]
	return sym + b.String() + "." + cents
}

func TestListParameterErrors(t *testing.T) {
	c := startServer(t, Options{Orders: 50, Files: 50, Accounts: 50})
	cases := []struct {
		rawQuery string
		param    string
		detail   []string
	}{
		{"page[limit]=0", "page[limit]", []string{"page[limit]", "1 and 100"}},
		{"page[limit]=101", "page[limit]", []string{"page[limit]", "1 and 100"}},
		{"page[limit]=-1", "page[limit]", []string{"page[limit]", "1 and 100"}},
		{"page[limit]=1.5", "page[limit]", []string{"page[limit]", "1 and 100"}},
		{"page[limit]=abc", "page[limit]", []string{"page[limit]", "1 and 100"}},
		{"page[limit]=", "page[limit]", []string{"page[limit]", "1 and 100"}},
		{"page[limit]=+5", "page[limit]", []string{"page[limit]"}},
		{"page[limit]=%205", "page[limit]", []string{"page[limit]"}},
		{"page[limit]=99999999999999999999999", "page[limit]", []string{"page[limit]"}},
		{"page[offset]=-1", "page[offset]", []string{"page[offset]", "0 or more"}},
		{"page[offset]=x", "page[offset]", []string{"page[offset]"}},
		{"page[offset]=", "page[offset]", []string{"page[offset]"}},
		{"page[offset]=1e3", "page[offset]", []string{"page[offset]"}},
		{"page[size]=10", "page[size]", []string{"page[size]", "page[limit], page[offset], page[total_method], sort and filter"}},
		{"limit=10", "limit", []string{"limit"}},
		{"page%5Blimit%5D=10&page[limit]=20", "page[limit]", []string{"at most once", "2 times"}},
		{"sort=created_at&sort=id", "sort", []string{"sort"}},
		{"sort=", "sort", []string{"allowed values are created_at, -created_at, payment, -payment, shipping, -shipping, status, -status, with_tax, -with_tax"}},
		{"sort=name", "sort", []string{`"name"`, "created_at"}},
		{"sort=%2Bstatus", "sort", []string{`"+status"`}},
		{"sort=+status", "sort", []string{`" status"`}},
		{"sort=--status", "sort", []string{`"--status"`}},
		{"sort=created_at,status", "sort", []string{"created_at,status"}},
		{"sort=amount", "sort", []string{"amount"}},
		{"sort=id", "sort", []string{`"id"`}},
		{"sort=updated_at", "sort", []string{`"updated_at"`}},
		{"sort=-without_tax", "sort", []string{`"-without_tax"`}},
		{"sort=Status", "sort", []string{`"Status"`}},
		{"a=%zz", "", []string{"malformed"}},
	}
	for _, tc := range cases {
		t.Run(tc.rawQuery, func(t *testing.T) {
			resp, body := c.get("/v2/orders", tc.rawQuery)
			e := c.wantError(400, resp, body)
			for _, d := range tc.detail {
				if !strings.Contains(e.Detail, d) {
					t.Errorf("detail %q does not contain %q", e.Detail, d)
				}
			}
			if tc.param != "" && (e.Source == nil || e.Source.Parameter != tc.param) {
				t.Errorf("source %+v, want parameter %q", e.Source, tc.param)
			}
		})
	}
	// Percent-encoded parameter names are the same parameters.
	lb := c.list("orders", url.Values{"page[limit]": {"3"}})
	if len(lb.Data) != 3 {
		t.Errorf("encoded page[limit]: %d records", len(lb.Data))
	}
	resp, body := c.get("/v2/orders", "page[limit]=3")
	if resp.StatusCode != 200 {
		t.Errorf("literal brackets: %d %s", resp.StatusCode, body)
	}
}

func TestOffsetLimits(t *testing.T) {
	c := startServer(t, Options{Orders: 20, Files: 20, Accounts: 20, Customers: 20, Hierarchies: 20})
	// What the refusal suggests: keyset paging where the resource sorts,
	// range filters where it does not, the store's setting where neither.
	hints := map[string][]string{
		"orders": {"filter", "sort"}, "files": {"filter", "file_size"}, "accounts": {"filter", "sort"},
		"customers": {"filter", "sort"}, "hierarchies": {"store's offset limit", "neither sorted nor cut into ranges"},
	}
	for _, res := range resourceNames() {
		lb := c.list(res, q("page[offset]", "10000"))
		if p, _ := lb.pagination(); *p.Offset != 10000 || len(lb.Data) != 0 || *p.Current != 401 {
			t.Errorf("%s: offset 10000: %+v", res, p)
		}
		for _, off := range []string{"10001", "50000", "99999999999999999999"} {
			resp, body := c.get(listPath(res), "page[offset]="+off)
			e := c.wantError(400, resp, body)
			for _, want := range append([]string{"10,000"}, hints[res]...) {
				if !strings.Contains(e.Detail, want) {
					t.Errorf("%s: detail %q does not mention %q", res, e.Detail, want)
				}
			}
		}
	}
	// The soft limits can be lifted; the hard limits cannot.
	soft := []string{"accounts", "customers", "hierarchies"}
	c.s.SetSoftOffsetLimitEnforced(false)
	for _, res := range soft {
		if lb := c.list(res, q("page[offset]", "20000")); len(lb.Data) != 0 {
			t.Errorf("%s: records past the end", res)
		}
	}
	for _, res := range []string{"orders", "files"} {
		resp, body := c.get("/v2/"+res, "page[offset]=10001")
		c.wantError(400, resp, body)
	}
	c.s.SetSoftOffsetLimitEnforced(true)
	for _, res := range soft {
		resp, body := c.get(listPath(res), "page[offset]=10001")
		c.wantError(400, resp, body)
	}

	lenient := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5, LenientSoftOffsetLimit: true, OffsetLimit: 100})
	for _, res := range soft {
		if resp, body := lenient.get(listPath(res), "page[offset]=101"); resp.StatusCode != 200 {
			t.Errorf("lenient %s: %d %s", res, resp.StatusCode, body)
		}
	}
	resp, body := lenient.get("/v2/orders", "page[offset]=101")
	if e := lenient.wantError(400, resp, body); !strings.Contains(e.Detail, " 100.") {
		t.Errorf("detail %q", e.Detail)
	}
}

func TestPageLimitOptions(t *testing.T) {
	c := startServer(t, Options{Orders: 300, Files: 5, Accounts: 5, DefaultPageLimit: 100})
	if lb := c.list("orders", nil); len(lb.Data) != 100 {
		t.Errorf("default page limit: %d records", len(lb.Data))
	}
}

func TestStringStatus(t *testing.T) {
	c := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5, StringStatus: true})
	resp, body := c.get("/v2/orders", "page[limit]=0")
	e := c.wantError(400, resp, body)
	if string(e.Status) != `"400"` {
		t.Errorf("status %s, want \"400\"", e.Status)
	}
	resp, body = c.do(http.MethodGet, "/v2/orders", "", nil, nil)
	if e := c.wantError(401, resp, body); string(e.Status) != `"401"` {
		t.Errorf("status %s", e.Status)
	}
	plain := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5})
	resp, body = plain.get("/v2/orders", "page[limit]=0")
	if e := plain.wantError(400, resp, body); string(e.Status) != `400` {
		t.Errorf("status %s, want 400", e.Status)
	}
}

// ShuffleTies: the records that share the sort value come in another order
// on every request, while a page holds the same set of values and the
// unsorted order stays as it is.
func TestShuffleTies(t *testing.T) {
	c := startServer(t, Options{Orders: 400, OrderTieGroups: []int{200}, Files: -1, Accounts: -1, ShuffleTies: true})
	sorted := q("page[limit]", "100", "page[offset]", "100", "sort", "created_at")
	first := c.list("orders", sorted).ids()
	differs := false
	for range 5 {
		again := c.list("orders", sorted).ids()
		if !slices.Equal(again, first) {
			differs = true
		}
		if len(again) != len(first) {
			t.Fatalf("%d records, then %d", len(first), len(again))
		}
	}
	if !differs {
		t.Error("six requests gave the tie group in one order")
	}
	all := c.list("orders", q("page[limit]", "100", "page[offset]", "100", "sort", "created_at"))
	for i, r := range all.Data[1:] {
		if r.created() < all.Data[i].created() {
			t.Fatalf("record %d (%s) after %s: out of created_at order", i+1, r.created(), all.Data[i].created())
		}
	}
	unsorted := q("page[limit]", "100", "page[offset]", "100")
	if a, b := c.list("orders", unsorted).ids(), c.list("orders", unsorted).ids(); !slices.Equal(a, b) {
		t.Error("the service's own order changed between two requests")
	}
}
