package provider

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// numericOrderNumber is a fault that sends the order_number of the order
// id as the JSON number 1234, as the vendor's own example does, in every
// list page and lookup that holds it.
func numericOrderNumber(id string) emulator.FaultFunc {
	return func(r *http.Request, _ int64) *emulator.Fault {
		if !strings.HasPrefix(r.URL.Path, "/v2/orders") {
			return nil
		}
		return &emulator.Fault{Mutate: func(body []byte) []byte {
			var doc map[string]any
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			if dec.Decode(&doc) != nil {
				return body
			}
			records, _ := doc["data"].([]any)
			if one, ok := doc["data"].(map[string]any); ok {
				records = []any{one}
			}
			for _, rec := range records {
				if m, ok := rec.(map[string]any); ok && m["id"] == id {
					m["order_number"] = json.Number("1234")
				}
			}
			out, err := json.Marshal(doc)
			if err != nil {
				return body
			}
			return out
		}}
	}
}

// A listing with an order whose order_number is a number lists every order
// and shows it as "1234", with one WARN that names the field and the order.
func TestReadNumericOrderNumber(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 300, Files: -1, Accounts: -1})
	clearEnv(t)
	odd := srv.Orders()[42].ID
	srv.SetFaults(numericOrderNumber(odd))
	p := serveInProcess(t, srv)
	var logs syncBuffer
	ctx := tflogtest.RootLogger(t.Context(), &logs)
	cfg := dynamicValue(t, nullObject(p.dataSourceType(t, "commerce_orders"), nil))
	resp, err := p.server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "commerce_orders", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("diagnostic %s: %s", d.Summary, d.Detail)
	}
	v, err := resp.State.Unmarshal(p.dataSourceType(t, "commerce_orders"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]tftypes.Value
	if err := v.As(&got); err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "ids", ids(t, got["ids"]), expected(t, srv, "orders", "", "created_at"))
	found := false
	for _, o := range objects(t, got["orders"]) {
		if o["id"].Equal(str(odd)) {
			found = true
			if !o["order_number"].Equal(str("1234")) {
				t.Errorf("order_number = %s, want \"1234\"", o["order_number"])
			}
		}
	}
	if !found {
		t.Fatalf("order %s not listed", odd)
	}
	want := `"@message":"orders: 1 record had a value of an unexpected type in order_number (a number where a string is documented); ` +
		`it is kept as the number's text, as the service wrote it. Example record: ` + odd + `"`
	if strings.Count(logs.String(), `"@level":"warn"`) != 1 || !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks the one WARN %s:\n%s", want, logs.String())
	}
}

// A lookup the service answers with another record fails with an error
// diagnostic that names both ids.
func TestReadLookupAnsweredWithAnotherRecord(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: -1, Files: -1, Accounts: 20})
	clearEnv(t)
	asked, other := srv.Accounts()[3].ID, srv.Accounts()[4].ID
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != "/v2/accounts/"+asked {
			return nil
		}
		return &emulator.Fault{Mutate: func(body []byte) []byte { return bytes.ReplaceAll(body, []byte(asked), []byte(other)) }}
	})
	p := serveInProcess(t, srv)
	resp := p.readResponse(t, "commerce_account", map[string]tftypes.Value{"id": str(asked)})
	if len(resp.Diagnostics) != 1 {
		t.Fatalf("%d diagnostics, want 1: %v", len(resp.Diagnostics), resp.Diagnostics)
	}
	d := resp.Diagnostics[0]
	if d.Severity != tfprotov6.DiagnosticSeverityError || d.Summary != "Unexpected response from the service" ||
		!strings.Contains(d.Detail, "asked for account "+asked+" but the service answered with account "+other) {
		t.Errorf("diagnostic %v %q: %q", d.Severity, d.Summary, d.Detail)
	}
}
