package provider

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// These tests guard the server wrapper (server.go), which answers
// ReadDataSource of the list data sources itself instead of the
// framework's server. They fail when an upgrade of terraform-plugin-go or
// terraform-plugin-framework brings something the wrapper would drop; see
// the framework-upgrade checklist in CONTRIBUTING.md.

// The fields of the ReadDataSource messages the wrapper handles, and how.
var wrapperHandles = map[string]map[string]string{
	"ReadDataSourceRequest": {
		"TypeName":           "selects the list data source, or passes the request on",
		"Config":             "decoded and read; nil passes the request on",
		"ProviderMeta":       "ignored: the provider has no provider_meta schema",
		"ClientCapabilities": "ignored: the provider never defers a read (see TestWrapperAnswersAsTheFramework)",
	},
	"ReadDataSourceResponse": {
		"State":       "the msgpack state, or the configuration when the read failed",
		"Diagnostics": "converted as the framework converts them",
		"Deferred":    "never set, as the framework leaves it for this provider",
	},
}

func TestWrapperKnowsEveryProtocolField(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[tfprotov6.ReadDataSourceRequest](), reflect.TypeFor[tfprotov6.ReadDataSourceResponse]()} {
		handled := wrapperHandles[typ.Name()]
		var fields []string
		for f := range typ.Fields() {
			fields = append(fields, f.Name)
			if _, ok := handled[f.Name]; !ok {
				t.Errorf("tfprotov6.%s has a field %s that the server wrapper (server.go) does not know: decide how ReadDataSource handles it, then add it here (CONTRIBUTING.md, framework upgrades)", typ.Name(), f.Name)
			}
		}
		for name := range handled {
			if !slices.Contains(fields, name) {
				t.Errorf("tfprotov6.%s no longer has %s: update server.go and this list", typ.Name(), name)
			}
		}
	}
}

// TestWrapperAnswersAsTheFramework sends the same requests to the server
// the binary serves and to the framework's own server of the same
// provider, whose Read of a list data source is the adapter over the same
// read (readThroughDirect): every difference is the wrapper's. Cases cover
// a state, a warning and an error with nested attribute paths, and a read
// Terraform allows to defer, with the provider configured from unknown
// values.
func TestWrapperAnswersAsTheFramework(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 300, Files: 10, Accounts: 10})
	clearEnv(t)
	plain := providerserver.NewProtocol6WithError(&commerceProvider{version: "test"})
	wrapped := NewServer("test")
	whereType := func(p *inProcess) tftypes.Type {
		return p.dataSourceType(t, "commerce_orders").(tftypes.Object).AttributeTypes["where"]
	}
	where := func(p *inProcess, attribute, op, value string) tftypes.Value {
		lt := whereType(p).(tftypes.List)
		return tftypes.NewValue(lt, []tftypes.Value{nullObject(lt.ElementType, map[string]tftypes.Value{
			"attribute": str(attribute), "op": str(op), "value": str(value),
		})})
	}
	type request struct {
		name    string
		set     func(p *inProcess) map[string]tftypes.Value
		defer_  bool
		unknown bool // the provider configured from unknown values
	}
	for _, tc := range []request{
		{name: "state", set: func(*inProcess) map[string]tftypes.Value { return map[string]tftypes.Value{"max_results": num(7)} }},
		{name: "warning on a where value", set: func(p *inProcess) map[string]tftypes.Value {
			return map[string]tftypes.Value{"where": where(p, "created_at", "eq", "2024-01-02"), "max_results": num(1)}
		}},
		{name: "error on a where attribute", set: func(p *inProcess) map[string]tftypes.Value {
			return map[string]tftypes.Value{"where": where(p, "stauts", "eq", "complete")}
		}},
		{name: "deferral allowed", defer_: true, set: func(*inProcess) map[string]tftypes.Value { return nil }},
		{name: "deferral allowed, provider unknown", defer_: true, unknown: true, set: func(*inProcess) map[string]tftypes.Value { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := func(newServer func() (tfprotov6.ProviderServer, error)) *tfprotov6.ReadDataSourceResponse {
				provider := map[string]tftypes.Value{"base_url": str(srv.URL()), "client_id": str(emulator.DefaultClientID), "client_secret": str(emulator.DefaultClientSecret)}
				if tc.unknown {
					provider["base_url"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
				}
				p := configuredWith(t, newServer, provider)
				req := &tfprotov6.ReadDataSourceRequest{TypeName: "commerce_orders",
					Config: dynamicValue(t, nullObject(p.dataSourceType(t, "commerce_orders"), tc.set(p)))}
				if tc.defer_ {
					req.ClientCapabilities = &tfprotov6.ReadDataSourceClientCapabilities{DeferralAllowed: true}
				}
				resp, err := p.server.ReadDataSource(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				return resp
			}
			want, got := read(plain), read(wrapped)
			if !reflect.DeepEqual(got.Deferred, want.Deferred) {
				t.Fatalf("deferred %+v, the framework's %+v", got.Deferred, want.Deferred)
			}
			var typ tftypes.Type
			if want.State != nil && len(want.Diagnostics) == 0 {
				p := configuredWith(t, wrapped, nil)
				typ = p.dataSourceType(t, "commerce_orders")
			}
			sameResponse(t, typ, got, want)
		})
	}
}
