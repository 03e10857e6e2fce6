package provider

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// The server the binary serves answers every read of a list data source as
// the framework would: the same state, byte for byte, and the same
// diagnostics, against the same emulator.
func TestServerReadsAsTheFrameworkDoes(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 2500, Files: 300, Accounts: 150})
	clearEnv(t)
	direct := serveInProcess(t, srv)
	framework := serveWith(t, srv, frameworkServer)
	yes := tftypes.NewValue(tftypes.Bool, true)
	no := tftypes.NewValue(tftypes.Bool, false)
	timeouts := func(ds string) tftypes.Value {
		typ := direct.dataSourceType(t, ds).(tftypes.Object).AttributeTypes["timeouts"]
		return tftypes.NewValue(typ, map[string]tftypes.Value{"read": str("10m")})
	}
	cases := []struct {
		dataSource string
		set        map[string]tftypes.Value
	}{
		{"commerce_orders", nil},
		{"commerce_orders", map[string]tftypes.Value{"include_json": yes, "sort": str("-created_at")}},
		{"commerce_orders", map[string]tftypes.Value{"include_records": no}},
		{"commerce_orders", map[string]tftypes.Value{"max_results": num(17), "sort": str("updated_at"), "timeouts": timeouts("commerce_orders")}},
		{"commerce_orders", map[string]tftypes.Value{"filter": str("eq(status,complete)"), "consistency_buffer": str("1s"), "include_json": no}},
		{"commerce_files", map[string]tftypes.Value{"include_json": yes, "sort": str("-file_size")}},
		{"commerce_files", map[string]tftypes.Value{"filter": str("ge(file_size,1048576)"), "max_results": num(3)}},
		{"commerce_accounts", map[string]tftypes.Value{"sort": str("name"), "include_json": yes}},
		{"commerce_accounts", map[string]tftypes.Value{"filter": str("like(name,*a*)"), "include_records": no}},
		// Errors: a filter the service cannot evaluate, found at read.
		{"commerce_orders", map[string]tftypes.Value{"filter": str("gt(status,complete)")}},
		{"commerce_files", map[string]tftypes.Value{"filter": str("eq(colour,red)")}},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%d/%s", i, tc.dataSource), func(t *testing.T) {
			want := framework.readResponse(t, tc.dataSource, tc.set)
			got := direct.readResponse(t, tc.dataSource, tc.set)
			failed := slices.ContainsFunc(want.Diagnostics, func(d *tfprotov6.Diagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError })
			if fails := i >= len(cases)-2; fails != failed {
				t.Fatalf("the framework's read has %d diagnostics, failed %v", len(want.Diagnostics), failed)
			}
			sameResponse(t, direct.dataSourceType(t, tc.dataSource), got, want)
		})
	}
}

// Diagnostics of reads that fail at the service, not in the
// configuration, are the framework's too.
func TestServerFailsAsTheFrameworkDoes(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 10, Files: 10, Accounts: 10})
	clearEnv(t)
	for _, tc := range []struct {
		name     string
		provider map[string]tftypes.Value
	}{
		{"refused credentials", map[string]tftypes.Value{"base_url": str(srv.URL()), "client_id": str("nobody"), "client_secret": str("wrong")}},
		{"unreachable service", map[string]tftypes.Value{"base_url": str("http://" + emulatortest.ClosedAddr(t)), "client_id": str("id"), "client_secret": str("secret"),
			"max_retries": num(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := func(newServer func() (tfprotov6.ProviderServer, error)) *tfprotov6.ReadDataSourceResponse {
				p := configuredWith(t, newServer, tc.provider)
				return p.readResponse(t, "commerce_accounts", nil)
			}
			want, got := read(frameworkServer), read(NewServer("test"))
			if len(want.Diagnostics) == 0 {
				t.Fatal("the framework's read did not fail")
			}
			sameResponse(t, nil, got, want)
		})
	}
}

// configuredWith is a server from newServer, configured with the given
// provider attributes, whatever the diagnostics.
func configuredWith(t *testing.T, newServer func() (tfprotov6.ProviderServer, error), provider map[string]tftypes.Value) *inProcess {
	t.Helper()
	server, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := dynamicValue(t, nullObject(schemas.Provider.ValueType(), provider))
	if _, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "test", Config: cfg}); err != nil {
		t.Fatal(err)
	}
	return &inProcess{server: server, schemas: schemas}
}

// sameResponse compares two read responses: diagnostics, then the state
// (typ nil: only that both have one).
func sameResponse(t *testing.T, typ tftypes.Type, got, want *tfprotov6.ReadDataSourceResponse) {
	t.Helper()
	if !reflect.DeepEqual(withoutRunDetails(got.Diagnostics), withoutRunDetails(want.Diagnostics)) {
		for _, d := range want.Diagnostics {
			t.Logf("framework: %s %s: %s: %s", d.Severity, d.Attribute, d.Summary, d.Detail)
		}
		for _, d := range got.Diagnostics {
			t.Logf("direct:    %s %s: %s: %s", d.Severity, d.Attribute, d.Summary, d.Detail)
		}
		t.Fatal("diagnostics differ")
	}
	if (got.State == nil) != (want.State == nil) {
		t.Fatalf("state %v, framework's %v", got.State, want.State)
	}
	if got.State != nil && typ != nil {
		sameState(t, typ, got.State.MsgPack, want.State.MsgPack)
	}
}

// variesByRun are the parts of a detail that differ between two reads of
// the same failure: the service's request id, the time retries took.
var variesByRun = regexp.MustCompile(`Request id: \S+|over [0-9.]+ m?s`)

// withoutRunDetails are diags with what varies by run blanked out.
func withoutRunDetails(diags []*tfprotov6.Diagnostic) []tfprotov6.Diagnostic {
	out := make([]tfprotov6.Diagnostic, len(diags))
	for i, d := range diags {
		out[i] = *d
		out[i].Detail = variesByRun.ReplaceAllString(d.Detail, "…")
	}
	return out
}
