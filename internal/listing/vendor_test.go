package listing

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// TestVendorTokenAndGet serves the vendor's token response and order body
// and checks that the client authenticates with the token and reads the
// order through Get.
func TestVendorTokenAndGet(t *testing.T) {
	tokenBody := vendorFixture(t, "token.json")
	orderBody := vendorFixture(t, "order_get.json")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(tokenBody, &tok); err != nil {
		t.Fatal(err)
	}
	const orderID = "369ad4a4-ee67-48b0-x347-t50a6e61d83d"
	var tokenRequests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case client.TokenPath:
			tokenRequests.Add(1)
			if r.Method != http.MethodPost {
				http.Error(w, "method", http.StatusMethodNotAllowed)
				return
			}
			if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "client_credentials" ||
				r.PostForm.Get("client_id") != "id" || r.PostForm.Get("client_secret") != "secret" {
				http.Error(w, `{"errors":[{"status":401,"title":"Unauthorized"}]}`, http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(tokenBody)
		case commerce.OrdersEndpoint.Path + "/" + orderID:
			if r.Header.Get("Authorization") != "Bearer "+tok.AccessToken {
				http.Error(w, `{"errors":[{"status":401,"title":"Unauthorized"}]}`, http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(orderBody)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("test server is not on loopback: %s", srv.URL)
	}

	c, err := client.New(client.Config{BaseURL: srv.URL, ClientID: "id", ClientSecret: "secret", MaxRetries: 0, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Authenticate(ctx); err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	// The example's "expires" is an epoch second in 2018: only expires_in
	// (3600s) sets the lifetime, so the token is reused, not fetched again.
	if err := c.Authenticate(ctx); err != nil {
		t.Fatalf("second Authenticate: %v", err)
	}
	if n := tokenRequests.Load(); n != 1 {
		t.Errorf("fetched %d tokens, want 1", n)
	}

	order, err := Lookup(ctx, e, commerce.Orders, orderID, true)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	var doc struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(orderBody, &doc); err != nil {
		t.Fatal(err)
	}
	if order.JSON != string(doc.Data) {
		t.Errorf("include_json: raw JSON is not the record's bytes")
	}
	if order.ID != orderID || order.AccountID != "b6e47478-7e7f-4127-b7e9-4a255564ae68" ||
		order.AmountWithTax == nil || *order.AmountWithTax != 237500 || order.Currency != "USD" {
		t.Errorf("Get decoded %s", dump(order))
	}
}

// vendorFixture reads one of the vendor's example bodies, which the
// model's tests keep (internal/commerce/testdata/vendor).
func vendorFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "commerce", "testdata", "vendor", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVendorTimestampsAsSortKeys: the engine takes the vendor's timestamps
// without fractional seconds (its recent examples) as sort keys, to the
// millisecond like any other.
func TestVendorTimestampsAsSortKeys(t *testing.T) {
	order, _, err := commerce.DecodeRecordBody(vendorFixture(t, "order_get_promotions.json"), commerce.Orders, "522dd525-38cb-4d25-9903-9d417b568096", false, "/v2/orders/x")
	if err != nil {
		t.Fatal(err)
	}
	for _, attr := range []string{"created_at", "updated_at"} {
		k := sortKey{attr: attr, timestamp: true}
		key, err := keyOf(k, order)
		if err != nil {
			t.Errorf("%s: %v", attr, err)
		} else if key != "2024-05-31T16:43:31.000Z" {
			t.Errorf("%s key = %q, want 2024-05-31T16:43:31.000Z", attr, key)
		}
	}
	body := vendorFixture(t, "customers_list.json")
	kind := commerce.GenericKind(commerce.CustomersEndpoint)
	p, err := commerce.DecodeListBody(body, kind, 100, 0, true, "/v2/customers")
	if err != nil || len(p.Records) == 0 {
		t.Fatalf("%d records, %v", len(p.Records), err)
	}
	if k, err := keyOf(keyFor(commerce.CustomersEndpoint, "created_at"), p.Records[0]); err != nil || k != "2017-01-11T18:44:45.000Z" {
		t.Errorf("created_at key %q, %v", k, err)
	}
}
