package emulator

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// orderWithIncluded is a single-order body with what the tests read of its
// included member.
type orderWithIncluded struct {
	Data struct {
		ID            string `json:"id"`
		Relationships map[string]struct {
			Data json.RawMessage `json:"data"`
		} `json:"relationships"`
	} `json:"data"`
	Included map[string][]map[string]any `json:"included"`
}

func (c *testClient) getOrderIncluding(id, include string) (orderWithIncluded, []byte) {
	c.t.Helper()
	resp, body := c.get("/v2/orders/"+id, url.Values{"include": {include}}.Encode())
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("include=%s: status %d: %s", include, resp.StatusCode, body)
	}
	var got orderWithIncluded
	if err := json.Unmarshal(body, &got); err != nil {
		c.t.Fatalf("include=%s: %v: %s", include, err, body)
	}
	return got, body
}

// field reads a dotted path of a decoded JSON object.
func field(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// TestOrderIncludes asks each order for every documented include value at
// once, and checks that included holds exactly the order's related
// records, in the shapes of the vendor's example bodies.
func TestOrderIncludes(t *testing.T) {
	c := startServer(t, Options{Orders: 300, Files: 1, Accounts: 1})
	var sawPromotion, sawCustom, sawAccount, sawPlain bool
	for _, o := range c.s.Orders() {
		got, body := c.getOrderIncluding(o.ID, strings.Join(orderIncludes, ","))
		if got.Data.ID != o.ID {
			t.Fatalf("data.id %q, want %q", got.Data.ID, o.ID)
		}
		want := map[string]int{"items": 1}
		if o.AccountID != "" {
			want["accounts"], want["account_members"] = 1, 1
			sawAccount = true
		}
		switch {
		case o.PromotionID != "":
			want["promotions"] = 1
			sawPromotion = true
		case o.CustomDiscountID != "":
			want["custom_discounts"] = 1
			sawCustom = true
		default:
			sawPlain = true
		}
		if len(got.Included) != len(want) {
			t.Errorf("order %s: included members %v, want %v: %s", o.ID, keys(got.Included), want, body)
		}
		for name, recs := range got.Included {
			if len(recs) != want[name] {
				t.Errorf("order %s: %d %s, want %d", o.ID, len(recs), name, want[name])
			}
		}
		item := got.Included["items"][0]
		checkFields(t, "item", item, map[string]any{
			"type": "order_item", "id": o.ItemID, "quantity": 1.0, "product_id": o.ProductID, "sku": o.ProductSKU,
			"meta.display_price.with_tax.value.amount":         float64(o.WithTax),
			"meta.display_price.without_tax.unit.amount":       float64(o.WithoutTax),
			"meta.display_price.discount.value.formatted":      formatPrice(o.Discount, o.Currency),
			"meta.display_price.without_discount.value.amount": float64(o.WithTax - o.Discount),
			"unit_price.currency":                              o.Currency,
			"meta.timestamps.created_at":                       o.CreatedAt.Format(timestampLayout),
		})
		if o.AccountID != "" {
			checkFields(t, "account", got.Included["accounts"][0], map[string]any{"type": "account", "id": o.AccountID})
			checkFields(t, "account member", got.Included["account_members"][0], map[string]any{
				"type": "account_member", "id": o.AccountMemberID, "name": o.CustomerName, "email": o.CustomerEmail})
		}
		for name, recs := range got.Included {
			checkMembers(t, name, recs[0])
		}
		if o.CustomDiscountID != "" {
			checkFields(t, "custom discount", got.Included["custom_discounts"][0], map[string]any{
				"type": "custom_discount", "id": o.CustomDiscountID,
				"amount.amount": float64(o.Discount), "amount.currency": o.Currency})
			checkRelationship(t, got, "custom_discounts", "custom_discount", o.CustomDiscountID)
		}
		if o.PromotionID != "" {
			p := got.Included["promotions"][0]
			checkFields(t, "promotion", p, map[string]any{"type": "promotion", "id": o.PromotionID})
			start, _ := p["start"].(string)
			if !strings.HasSuffix(start, ":00Z") || len(start) != len("2024-05-31T16:43:31Z") {
				t.Errorf("promotion start %q", start)
			}
			checkRelationship(t, got, "promotions", "promotion", o.PromotionID)
		}
	}
	if !sawPromotion || !sawCustom || !sawAccount || !sawPlain {
		t.Errorf("promotion, custom discount, account and plain orders: %v %v %v %v", sawPromotion, sawCustom, sawAccount, sawPlain)
	}
}

// includedMembers are the members of the included records in the vendor's
// example bodies (docs/carts-orders: get-an-order.md at 74b406fd,
// Includes.mdx and custom-discounts-include.mdx at 33ab00fe) and, for
// items, the cartsorders spec's OrderItemResponse. A promotion has either
// promotion_type or promotion_source.
var includedMembers = map[string]string{
	"accounts":         "id legal_name name registration_id type",
	"account_members":  "email id name type",
	"custom_discounts": "amount description discount_code discount_engine external_id id type",
	"promotions":       "automatic description end id name promotion_source promotion_type start type",
	"items":            "id links meta name product_id quantity sku type unit_price value",
}

func checkMembers(t *testing.T, name string, rec map[string]any) {
	t.Helper()
	known := strings.Fields(includedMembers[name])
	for k := range rec {
		if !slices.Contains(known, k) {
			t.Errorf("included %s has member %q, which the vendor's examples do not", name, k)
		}
	}
	if name == "promotions" {
		known = slices.DeleteFunc(known, func(k string) bool { return strings.HasPrefix(k, "promotion_") })
		if (rec["promotion_type"] == nil) == (rec["promotion_source"] == nil) {
			t.Errorf("promotion with both or neither of promotion_type and promotion_source: %v", rec)
		}
	}
	for _, k := range known {
		if _, ok := rec[k]; !ok {
			t.Errorf("included %s lacks %q", name, k)
		}
	}
}

func keys(m map[string][]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func checkFields(t *testing.T, what string, rec map[string]any, want map[string]any) {
	t.Helper()
	for path, w := range want {
		if got := field(rec, path); got != w {
			t.Errorf("%s %s = %v, want %v", what, path, got, w)
		}
	}
}

func checkRelationship(t *testing.T, got orderWithIncluded, name, typ, id string) {
	t.Helper()
	want := `[{"type":"` + typ + `","id":"` + id + `"}]`
	if rel := got.Data.Relationships[name].Data; string(rel) != want {
		t.Errorf("relationships.%s.data = %s, want %s", name, rel, want)
	}
}

// TestOrderIncludeWithoutRecords: an include value with no related record
// leaves included out, as the service does; each value includes only its
// own member.
func TestOrderIncludeWithoutRecords(t *testing.T) {
	c := startServer(t, Options{Orders: 300, Files: 1, Accounts: 1})
	for _, o := range c.s.Orders() {
		none := []string{"tax_items"}
		if o.PromotionID == "" {
			none = append(none, "promotions")
		}
		if o.CustomDiscountID == "" {
			none = append(none, "custom_discounts")
		}
		if o.AccountID == "" {
			none = append(none, "account", "account_member")
		}
		_, body := c.getOrderIncluding(o.ID, strings.Join(none, ","))
		if strings.Contains(string(body), `"included"`) {
			t.Fatalf("include=%s: %s", strings.Join(none, ","), body)
		}
		got, _ := c.getOrderIncluding(o.ID, "promotions,items")
		want := 1 // items
		if o.PromotionID != "" {
			want++
		}
		if _, ok := got.Included["items"]; !ok || len(got.Included) != want {
			t.Fatalf("include=promotions,items: included %v", keys(got.Included))
		}
	}
}

// TestOrderIncludeRefused: include values the vendor does not document
// are ignored, as its includes guide says the service does; parameters it
// does not document for reading one record get 400 naming the parameter.
func TestOrderIncludeRefused(t *testing.T) {
	c := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5, Customers: 5, Hierarchies: 5})
	order := "/v2/orders/" + c.s.Orders()[0].ID
	for _, rawQuery := range []string{"include=customer", "include=product", "include=", "include=items,%20promotions", "include=bogus,items"} {
		resp, body := c.get(order, rawQuery)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s?%s: %d %s", order, rawQuery, resp.StatusCode, body)
			continue
		}
		var got struct {
			Included map[string]json.RawMessage `json:"included"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		for name := range got.Included {
			if name != "items" {
				t.Errorf("%s?%s: included %q", order, rawQuery, name)
			}
		}
		if _, ok := got.Included["items"]; ok != strings.Contains(rawQuery, "items") {
			t.Errorf("%s?%s: items included = %v", order, rawQuery, ok)
		}
	}
	cases := []struct {
		path, rawQuery, param string
		detail                []string
	}{
		{order, "include=items&include=promotions", "include", []string{"2 times"}},
		{order, "page[limit]=5", "page[limit]", []string{"only include"}},
		{"/v2/files/" + c.s.Files()[0].ID, "include=items", "include", []string{"takes no query parameters"}},
		{"/v2/accounts/" + c.s.Accounts()[0].ID, "include=account_members", "include", []string{"takes no query parameters"}},
		{"/v2/orders", "include=items", "include", []string{"Unknown query parameter"}},
	}
	for _, tc := range cases {
		resp, body := c.get(tc.path, tc.rawQuery)
		e := c.wantError(http.StatusBadRequest, resp, body)
		if e.Source == nil || e.Source.Parameter != tc.param {
			t.Errorf("%s?%s: source %+v, want parameter %s", tc.path, tc.rawQuery, e.Source, tc.param)
		}
		for _, d := range tc.detail {
			if !strings.Contains(e.Detail, d) {
				t.Errorf("%s?%s: detail %q lacks %q", tc.path, tc.rawQuery, e.Detail, d)
			}
		}
	}
}

// TestOrderDisplayPrices checks discount, paid and authorized against the
// order's payment and prices.
func TestOrderDisplayPrices(t *testing.T) {
	c := startServer(t, Options{Orders: 2000, Files: 1, Accounts: 1})
	counts := map[string]int{}
	for _, o := range c.s.Orders() {
		switch {
		case o.PromotionID != "":
			counts["promotion"]++
			// A whole percentage of the price before the discount.
			ok := false
			for _, pct := range []int64{5, 10, 15, 20} {
				ok = ok || -o.Discount == o.WithTax*pct/(100-pct)
			}
			if !ok || o.Discount >= 0 {
				t.Errorf("order %s: discount %d with with_tax %d", o.ID, o.Discount, o.WithTax)
			}
		case o.CustomDiscountID != "":
			counts["custom"]++
			if o.Discount >= 0 || -o.Discount > 1000 {
				t.Errorf("order %s: custom discount %d", o.ID, o.Discount)
			}
		case o.Discount != 0:
			t.Errorf("order %s: discount %d from nowhere", o.ID, o.Discount)
		}
		paid, authorized := int64(0), int64(0)
		switch o.Payment {
		case "paid":
			paid = o.WithTax
		case "authorized":
			authorized = o.WithTax
		}
		if o.Paid != paid || o.Authorized != authorized {
			t.Errorf("order %s (%s): paid %d, authorized %d", o.ID, o.Payment, o.Paid, o.Authorized)
		}
		counts[o.Payment]++
	}
	// About one order in eight has a promotion, one in sixteen a custom
	// discount.
	if n := counts["promotion"]; n < 150 || n > 350 {
		t.Errorf("%d of 2000 orders with a promotion", n)
	}
	if n := counts["custom"]; n < 60 || n > 200 {
		t.Errorf("%d of 2000 orders with a custom discount", n)
	}
	if counts["paid"] == 0 || counts["authorized"] == 0 || counts["unpaid"] == 0 {
		t.Errorf("payments: %v", counts)
	}
}

// TestOrderIncludedItemFlat: with flat timestamps, the included item has
// them at its top level like the order.
func TestOrderIncludedItemFlat(t *testing.T) {
	c := startServer(t, Options{Orders: 5, Files: 1, Accounts: 1, FlatTimestamps: true})
	o := c.s.Orders()[0]
	got, body := c.getOrderIncluding(o.ID, "items")
	item := got.Included["items"][0]
	if item["created_at"] != o.CreatedAt.Format(timestampLayout) || field(item, "meta.timestamps") != nil {
		t.Errorf("flat item: %s", body)
	}
}
