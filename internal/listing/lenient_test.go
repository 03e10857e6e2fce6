package listing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

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
	logs := &emulatortest.Logs{}
	c := newClient(t, srv, func(cfg *testConfig) { cfg.Logger = logs })
	got := map[string]commerce.Order{}
	stats, err := List(context.Background(), c, commerce.Orders, Query{}, func(o commerce.Order) error {
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
	warns := logs.Find("WARN: orders: ")
	if len(warns) != 3 {
		t.Fatalf("%d WARNs about orders, want 3 (one per field): %q", len(warns), logs.Lines())
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
	if !slices.Contains(logs.Lines(), want) {
		t.Errorf("no line %q in %q", want, logs.Lines())
	}
	want = fmt.Sprintf("WARN: orders: %d records had a value of an unexpected type in order_number (a number where a string is documented); it is kept as the number's text, as the service wrote it. Example record: %s",
		len(odd), oddIDs[0])
	if !slices.Contains(logs.Lines(), want) {
		t.Errorf("no line %q in %q", want, logs.Lines())
	}
}

// One record's created_at an object fails a listing sorted (and cut) by
// created_at; the same record in a listing by updated_at, where created_at
// is only shown, is listed with a null created_at.
func TestLenientSortKeyStrict(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 300, Orders: -1, Files: -1})
	victim := srv.Accounts()[123].ID
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != commerce.AccountsEndpoint.Path {
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
	_, _, err := listWithin(t, c, commerce.Accounts, Query{Sort: "created_at"})
	var pErr *commerce.ProtocolError
	if !errors.As(err, &pErr) || !strings.Contains(err.Error(), "record "+victim+` has created_at "{\"date\":\"2024-01-01\"}", which is not an ISO 8601 timestamp`) {
		t.Errorf("sorted by created_at: %v, want a ProtocolError naming the record", err)
	}
	ids, _, err := listWithin(t, c, commerce.Accounts, Query{Sort: "updated_at"})
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
		case commerce.AccountsEndpoint.Path + "/" + asked:
			return &emulator.Fault{Mutate: func(body []byte) []byte {
				return []byte(strings.ReplaceAll(string(body), asked, other))
			}}
		case commerce.OrdersEndpoint.Path + "/" + order:
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
	logs := &emulatortest.Logs{}
	c := newClient(t, srv, func(cfg *testConfig) { cfg.Logger = logs })
	_, err := Lookup(context.Background(), c, commerce.Accounts, asked, false)
	var pErr *commerce.ProtocolError
	want := fmt.Sprintf("GET /v2/accounts/%s: the service's response breaks the API contract: asked for account %s but the service answered with account %s", asked, asked, other)
	if !errors.As(err, &pErr) || err.Error() != want {
		t.Errorf("error %v,\nwant %s", err, want)
	}
	o, err := Lookup(context.Background(), c, commerce.Orders, order, true)
	if err != nil {
		t.Fatal(err)
	}
	if o.OrderNumber != "1234" || o.ExternalRef != "" || !strings.Contains(o.JSON, `"external_ref":["a","b"]`) {
		t.Errorf("order_number %q external_ref %q json %s", o.OrderNumber, o.ExternalRef, o.JSON)
	}
	warns := logs.Find("WARN: order " + order + ": ")
	if len(warns) != 2 {
		t.Fatalf("%d WARNs, want 2: %q", len(warns), logs.Lines())
	}
	wantLine := "WARN: order " + order + ": external_ref has a value of an unexpected type (an array where a string is documented); it is null in state."
	if !slices.Contains(logs.Lines(), wantLine) {
		t.Errorf("no line %q in %q", wantLine, logs.Lines())
	}
}

// The service answers every account lookup with the same record: only a
// lookup of its id, in any case, gets it.
func TestLookupChecksTheID(t *testing.T) {
	const id = "0b1e6a4c-9d2f-4c8e-a1b3-5f6d7e8a9b0c"
	var lookups atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == client.TokenPath {
			fmt.Fprint(w, `{"access_token":"t","token_type":"Bearer","expires_in":3600}`)
			return
		}
		lookups.Add(1)
		fmt.Fprintf(w, `{"data":{"type":"account","id":%q,"name":"Acme","meta":{"timestamps":{"created_at":"2024-01-01T00:00:00.000Z"}}}}`, id)
	}))
	defer srv.Close()
	transport, err := client.New(client.Config{BaseURL: srv.URL, ClientID: "x", ClientSecret: "y"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(transport, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ask := range []string{id, strings.ToUpper(id)} {
		if a, err := Lookup(context.Background(), c, commerce.Accounts, ask, false); err != nil || a.ID != id || a.Name != "Acme" {
			t.Errorf("Lookup(%s) = %q, %v", ask, a.ID, err)
		}
	}
	const other = "7f2c1d3e-4b5a-4968-8776-5a4b3c2d1e0f"
	before := lookups.Load()
	_, err = Lookup(context.Background(), c, commerce.Accounts, other, false)
	var pErr *commerce.ProtocolError
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
	check := func(t *testing.T, issues commerce.Issues, err error) {
		t.Helper()
		if err != nil || len(issues) > 0 {
			t.Errorf("%v; issues %v", err, issues.LookupWarnings("record", "in a page"))
		}
	}
	for offset := 0; offset < 300; offset += 100 {
		for _, keepRaw := range []bool{false, true} {
			o, err := fetchPage(context.Background(), c, commerce.Orders, pageRequest{filter: "", sort: "", offset: offset, limit: 100, includeJSON: keepRaw}, nil)
			check(t, o.Issues, err)
			f, err := fetchPage(context.Background(), c, commerce.Files, pageRequest{filter: "", sort: "", offset: offset, limit: 100, includeJSON: keepRaw}, nil)
			check(t, f.Issues, err)
			a, err := fetchPage(context.Background(), c, commerce.Accounts, pageRequest{filter: "", sort: "", offset: offset, limit: 100, includeJSON: keepRaw}, nil)
			check(t, a.Issues, err)
		}
	}
}

// TestLenientTimestampsAsSortKeys: a timestamp of another type than the
// vendor documents is null in state (see the model's TestLenientTimestamps),
// but a listing sorted or cut by it fails on it, naming the record, rather
// than taking it for absent.
func TestLenientTimestampsAsSortKeys(t *testing.T) {
	body := []byte(`{"data":[` +
		`{"id":"a1","meta":{"timestamps":{"created_at":{"date":"2024-01-01"},"updated_at":1704067200000}}},` +
		`{"id":"a2","created_at":"2024-01-01T00:00:00Z","updated_at":["x"]}` +
		`],"meta":{"page":{"limit":100,"offset":0,"current":1,"total":1},"results":{"total":2}}}`)
	p, err := commerce.DecodeListBody(body, commerce.Accounts, 100, 0, false, "/v2/accounts")
	if err != nil {
		t.Fatal(err)
	}
	a1, a2 := p.Records[0], p.Records[1]
	byCreated := keyFor(commerce.AccountsEndpoint, "created_at")
	if _, err := keyOf(byCreated, a1); err == nil || !strings.Contains(err.Error(), `record a1 has created_at "{\"date\":\"2024-01-01\"}", which is not an ISO 8601 timestamp`) {
		t.Errorf("keyOf created_at: %v", err)
	}
	if _, err := keyOf(keyFor(commerce.AccountsEndpoint, "updated_at"), a1); err == nil || !strings.Contains(err.Error(), `"1704067200000", which is not an ISO 8601 timestamp`) {
		t.Errorf("keyOf updated_at: %v", err)
	}
	if err := sortRecords(p.Records, keyFor(commerce.AccountsEndpoint, "-updated_at")); err == nil {
		t.Error("the provider sorted by an updated_at that is not a timestamp")
	}
	if k, err := keyOf(byCreated, a2); err != nil || k != "2024-01-01T00:00:00.000Z" {
		t.Errorf("keyOf a2 = %q, %v", k, err)
	}
}

func mustParse(t *testing.T, s string) filter.Expr {
	t.Helper()
	if s == "" {
		return nil
	}
	e, err := filter.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
