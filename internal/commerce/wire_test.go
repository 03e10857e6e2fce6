package commerce

import (
	"reflect"
	"strconv"
	"testing"
)

// These bodies are not the vendor's: its reference has no example of an
// order with a customer relationship or only a contact, of an order with
// only a price without tax, or of an account with a parent. They check the
// decoding rules for those members.
func TestDecodeOrderRelationsAndFallbacks(t *testing.T) {
	cases := []struct {
		name string
		body string
		want Order
	}{{
		name: "customer and account relationships",
		body: `{"id":"o1","customer":{"name":"N","email":"e@x"},"contact":{"name":"C","email":"c@x"},
			"relationships":{"customer":{"data":{"type":"customer","id":"cu1"}},"account":{"data":{"type":"account","id":"ac1"}},
			"items":{"data":[{"type":"item","id":"i1"}]}},
			"meta":{"display_price":{"with_tax":{"amount":120,"currency":"EUR"},"without_tax":{"amount":100,"currency":"EUR"}}}}`,
		want: Order{Common: Common{ID: "o1"}, CustomerName: "N", CustomerEmail: "e@x", CustomerID: "cu1", AccountID: "ac1",
			Currency: "EUR", AmountWithTax: i64(120), AmountWithoutTax: i64(100)},
	}, {
		name: "contact when there is no customer",
		body: `{"id":"o2","customer":null,"contact":{"name":"C","email":"c@x"},"relationships":{"customer":{"data":null}}}`,
		want: Order{Common: Common{ID: "o2"}, CustomerName: "C", CustomerEmail: "c@x"},
	}, {
		name: "currency from the price without tax",
		body: `{"id":"o3","meta":{"display_price":{"without_tax":{"amount":"100","currency":"GBP"}}}}`,
		want: Order{Common: Common{ID: "o3"}, Currency: "GBP", AmountWithoutTax: i64(100)},
	}, {
		// The OrderMeta schema of the vendor's carts-orders spec: the
		// amounts directly under meta.
		name: "amounts directly under meta",
		body: `{"id":"o5","meta":{"with_tax":{"amount":120,"currency":"EUR","formatted":"€1.20"},"without_tax":{"amount":100,"currency":"EUR"},
			"timestamps":{"created_at":"2024-01-01T00:00:00Z"}}}`,
		want: Order{Common: Common{ID: "o5", CreatedAt: "2024-01-01T00:00:00Z"}, Currency: "EUR", AmountWithTax: i64(120), AmountWithoutTax: i64(100)},
	}, {
		name: "display_price wins over amounts directly under meta",
		body: `{"id":"o6","meta":{"display_price":{"with_tax":{"amount":120,"currency":"EUR"}},"with_tax":{"amount":999,"currency":"USD"},"without_tax":{"amount":100,"currency":"EUR"}}}`,
		want: Order{Common: Common{ID: "o6"}, Currency: "EUR", AmountWithTax: i64(120), AmountWithoutTax: i64(100)},
	}, {
		name: "no prices",
		body: `{"id":"o4","meta":{"display_price":{}}}`,
		want: Order{Common: Common{ID: "o4"}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := Orders.DecodeRecord([]byte(tc.body), false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("\n got %s\nwant %s", dump(got), dump(tc.want))
			}
			want := map[string]string{}
			var absent []string
			for attr, v := range map[string]*int64{"with_tax": tc.want.AmountWithTax, "without_tax": tc.want.AmountWithoutTax} {
				if v == nil {
					absent = append(absent, attr)
				} else {
					want[attr] = strconv.FormatInt(*v, 10)
				}
			}
			checkSortValues(t, got, want, absent...)
		})
	}
}

func TestDecodeAccountParent(t *testing.T) {
	cases := map[string]string{
		`{"id":"a","relationships":{"parent":{"data":{"type":"account","id":"p1"}}}}`: "p1",
		`{"id":"a","parent_id":"p2"}`: "p2",
		`{"id":"a","parent_id":"p2","relationships":{"parent":{"data":{"type":"account","id":"p1"}}}}`: "p1",
		`{"id":"a","parent_id":"p2","relationships":{"parent":{"data":null}}}`:                         "p2",
		`{"id":"a","relationships":{}}`: "",
	}
	for body, want := range cases {
		got, _, err := Accounts.DecodeRecord([]byte(body), false)
		if err != nil {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if got.ParentID != want {
			t.Errorf("%s: ParentID = %q, want %q", body, got.ParentID, want)
		}
	}
}

// An order decodes the same, and a generic record of the orders endpoint
// gives the same range attribute, in either shape the vendor documents.
func TestOrderAmountsInEitherShape(t *testing.T) {
	nested := `{"id":"o","meta":{"display_price":{"with_tax":{"amount":1200,"currency":"EUR"},"without_tax":{"amount":1000,"currency":"EUR"}}}}`
	direct := `{"id":"o","meta":{"with_tax":{"amount":1200,"currency":"EUR"},"without_tax":{"amount":1000,"currency":"EUR"}}}`
	a, _, errA := Orders.DecodeRecord([]byte(nested), false)
	b, _, errB := Orders.DecodeRecord([]byte(direct), false)
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("display_price %s (%v), directly under meta %s (%v)", dump(a), errA, dump(b), errB)
	}
	for _, body := range []string{nested, direct} {
		g, _, err := GenericKind(OrdersEndpoint).DecodeRecord([]byte(body), true)
		if err != nil {
			t.Fatal(err)
		}
		checkSortValues(t, g, map[string]string{"with_tax": "1200", "without_tax": "1000"})
	}
}
