package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// These tests read through the provider server in process, against the
// emulator: Read end to end, without a Terraform CLI.

func objects(t *testing.T, v tftypes.Value) []map[string]tftypes.Value {
	t.Helper()
	var list []tftypes.Value
	if err := v.As(&list); err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]tftypes.Value, len(list))
	for i, el := range list {
		if err := el.As(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s: %d ids %v, want %d %v", what, len(got), got[:min(len(got), 5)], len(want), want[:min(len(want), 5)])
	}
}

func TestReadLists(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 300, Files: 120, Accounts: 40})
	clearEnv(t)
	p := serveInProcess(t, srv)

	t.Run("first orders with their JSON", func(t *testing.T) {
		got := p.readAttributes(t, "commerce_orders", map[string]tftypes.Value{
			"max_results": num(5), "include_json": tftypes.NewValue(tftypes.Bool, true),
		})
		want := expected(t, srv, "orders", "", "created_at")[:5]
		sameIDs(t, "ids", ids(t, got["ids"]), want)
		sameIDs(t, "orders", ids(t, got["orders"]), want)
		if !got["total"].Equal(num(300)) {
			t.Errorf("total = %s, want 300", got["total"])
		}
		first := objects(t, got["orders"])[0]
		var order emulator.Order
		for _, o := range srv.Orders() {
			if o.ID == want[0] {
				order = o
			}
		}
		for name, want := range map[string]tftypes.Value{
			"order_number": str(order.OrderNumber), "status": str(order.Status), "customer_email": str(order.CustomerEmail),
			"amount_with_tax": num(order.WithTax), "currency": str(order.Currency),
		} {
			if !first[name].Equal(want) {
				t.Errorf("orders[0].%s = %s, want %s", name, first[name], want)
			}
		}
		if first[jsonField].IsNull() {
			t.Error("orders[0].json is null with include_json = true")
		}
	})

	t.Run("files by filter, ids only", func(t *testing.T) {
		const f = "ge(file_size,1048576)"
		got := p.readAttributes(t, "commerce_files", map[string]tftypes.Value{
			"filter": str(f), "include_records": tftypes.NewValue(tftypes.Bool, false), "sort": str("-file_size"),
		})
		want := sortedHere(t, srv, "files", f, "-file_size")
		if len(want) == 0 {
			t.Fatal("no file matches; the test would prove nothing")
		}
		sameIDs(t, "ids", ids(t, got["ids"]), want)
		if !got["files"].IsNull() {
			t.Errorf("files = %s, want null with include_records = false", got["files"])
		}
	})

	t.Run("accounts through where", func(t *testing.T) {
		acc := srv.Accounts()[15]
		whereType := p.dataSourceType(t, "commerce_accounts").(tftypes.Object).AttributeTypes["where"].(tftypes.List)
		cond := nullObject(whereType.ElementType, map[string]tftypes.Value{"attribute": str("name"), "op": str("eq"), "value": str(acc.Name)})
		got := p.readAttributes(t, "commerce_accounts", map[string]tftypes.Value{"where": tftypes.NewValue(whereType, []tftypes.Value{cond})})
		sameIDs(t, acc.Name, ids(t, got["ids"]), []string{acc.ID})
	})
}

func TestReadLookups(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 100, Files: 30, Accounts: 40})
	clearEnv(t)
	p := serveInProcess(t, srv)
	acc, ord, file := srv.Accounts()[15], srv.Orders()[7], srv.Files()[3]
	cases := []struct {
		name, dataSource string
		set              map[string]tftypes.Value
		id               string
	}{
		{"account by hostile name", "commerce_account", map[string]tftypes.Value{"name": str(acc.Name)}, acc.ID},
		{"account by registration id", "commerce_account", map[string]tftypes.Value{"registration_id": str(acc.RegistrationID)}, acc.ID},
		{"order by number", "commerce_order", map[string]tftypes.Value{"order_number": str(ord.OrderNumber)}, ord.ID},
		{"order by filter", "commerce_order", map[string]tftypes.Value{"filter": str("eq(order_number," + ord.OrderNumber + ")")}, ord.ID},
		{"file by id", "commerce_file", map[string]tftypes.Value{"id": str(file.ID)}, file.ID},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := p.readAttributes(t, tc.dataSource, tc.set)
			if !got["id"].Equal(str(tc.id)) {
				t.Errorf("id = %s, want %s", got["id"], tc.id)
			}
			for name, v := range tc.set {
				if !got[name].Equal(v) {
					t.Errorf("%s = %s, want the configured %s", name, got[name], v)
				}
			}
		})
	}
	got := p.readAttributes(t, "commerce_file", map[string]tftypes.Value{"id": str(file.ID)})
	for name, want := range map[string]tftypes.Value{
		"file_name": str(file.FileName), "file_size": num(file.FileSize), "public": tftypes.NewValue(tftypes.Bool, file.Public), "json": nullString,
	} {
		if !got[name].Equal(want) {
			t.Errorf("file %s = %s, want %s", name, got[name], want)
		}
	}
}

func TestReadErrors(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 100, Files: 30, Accounts: 40})
	clearEnv(t)
	p := serveInProcess(t, srv)
	cases := []struct {
		name, dataSource string
		set              map[string]tftypes.Value
		summaries        []string
	}{
		{"no match", "commerce_account", map[string]tftypes.Value{"name": str("No Such Account, Ltd.")}, []string{"No account found"}},
		{"several matches", "commerce_order", map[string]tftypes.Value{"filter": str("eq(currency,USD)")}, []string{"More than one order found"}},
		{"unknown id", "commerce_file", map[string]tftypes.Value{"id": str("00000000-0000-0000-0000-000000000000")}, []string{"File not found"}},
		// Refused before any request, as at validate.
		{"unknown attribute", "commerce_orders", map[string]tftypes.Value{"filter": str("eq(colour,red)")},
			[]string{"Unknown filter attribute"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := p.readResponse(t, tc.dataSource, tc.set)
			var got []string
			for _, d := range resp.Diagnostics {
				got = append(got, d.Summary)
			}
			if strings.Join(got, "|") != strings.Join(tc.summaries, "|") {
				t.Errorf("diagnostics %q, want %q", got, tc.summaries)
			}
			if last := resp.Diagnostics[len(resp.Diagnostics)-1]; last.Severity != tfprotov6.DiagnosticSeverityError {
				t.Errorf("%s is not an error", last.Summary)
			}
		})
	}
}
