package provider

import (
	"context"
	"maps"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// inProcess is the provider served in the test process, as the binary
// serves it to Terraform, configured for an emulator: tests and benchmarks
// call the protocol directly, with no Terraform CLI.
type inProcess struct {
	server  tfprotov6.ProviderServer
	schemas *tfprotov6.GetProviderSchemaResponse
	config  *tfprotov6.DynamicValue // the provider block's
}

func serveInProcess(t testing.TB, srv *emulator.Server) *inProcess {
	t.Helper()
	return serveWith(t, srv, NewServer("test"))
}

// serveWith is serveInProcess with the server newServer makes.
func serveWith(t testing.TB, srv *emulator.Server, newServer func() (tfprotov6.ProviderServer, error)) *inProcess {
	t.Helper()
	return serveConfigured(t, srv, newServer, nil)
}

// serveConfigured is serveWith with more provider attributes set.
func serveConfigured(t testing.TB, srv *emulator.Server, newServer func() (tfprotov6.ProviderServer, error), extra map[string]tftypes.Value) *inProcess {
	t.Helper()
	return serveAt(t, srv.URL(), newServer, extra)
}

// serveAt is serveConfigured for an emulator at url, in a process of its
// own.
func serveAt(t testing.TB, url string, newServer func() (tfprotov6.ProviderServer, error), extra map[string]tftypes.Value) *inProcess {
	t.Helper()
	ctx := context.Background()
	server, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range schemas.Diagnostics {
		t.Fatalf("schema: %s: %s", d.Summary, d.Detail)
	}
	set := map[string]tftypes.Value{
		"base_url":      tftypes.NewValue(tftypes.String, url),
		"client_id":     tftypes.NewValue(tftypes.String, emulator.DefaultClientID),
		"client_secret": tftypes.NewValue(tftypes.String, emulator.DefaultClientSecret),
	}
	maps.Copy(set, extra)
	p := &inProcess{server: server, schemas: schemas, config: dynamicValue(t, nullObject(schemas.Provider.ValueType(), set))}
	p.newWalk(t)
	return p
}

// newWalk configures the provider again, as Terraform does at the start of
// each walk: nothing a read of the last walk kept serves the next.
func (p *inProcess) newWalk(t testing.TB) {
	t.Helper()
	resp, err := p.server.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{TerraformVersion: "test", Config: p.config})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("configure: %s: %s", d.Summary, d.Detail)
	}
}

func (p *inProcess) dataSourceType(t testing.TB, dataSource string) tftypes.Type {
	t.Helper()
	ds, ok := p.schemas.DataSourceSchemas[dataSource]
	if !ok {
		t.Fatalf("no data source %s", dataSource)
	}
	return ds.ValueType()
}

// readResponse runs ReadDataSource with a configuration that sets the
// given attributes and leaves every other null.
func (p *inProcess) readResponse(t testing.TB, dataSource string, set map[string]tftypes.Value) *tfprotov6.ReadDataSourceResponse {
	t.Helper()
	cfg := dynamicValue(t, nullObject(p.dataSourceType(t, dataSource), set))
	resp, err := p.server.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: dataSource, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readState is readResponse's state as Terraform gets it (msgpack), failing
// the test on an error diagnostic.
func (p *inProcess) readState(t testing.TB, dataSource string, set map[string]tftypes.Value) []byte {
	t.Helper()
	resp := p.readResponse(t, dataSource, set)
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("read: %s: %s", d.Summary, d.Detail)
		}
	}
	return resp.State.MsgPack
}

// readAttributes is readState decoded into its top-level attributes.
func (p *inProcess) readAttributes(t testing.TB, dataSource string, set map[string]tftypes.Value) map[string]tftypes.Value {
	t.Helper()
	state := p.readState(t, dataSource, set)
	v, err := (&tfprotov6.DynamicValue{MsgPack: state}).Unmarshal(p.dataSourceType(t, dataSource))
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs
}

// nullObject is an object of typ with every attribute null except set.
func nullObject(typ tftypes.Type, set map[string]tftypes.Value) tftypes.Value {
	obj := typ.(tftypes.Object)
	vals := make(map[string]tftypes.Value, len(obj.AttributeTypes))
	for name, t := range obj.AttributeTypes {
		if v, ok := set[name]; ok {
			vals[name] = v
			continue
		}
		vals[name] = tftypes.NewValue(t, nil)
	}
	return tftypes.NewValue(typ, vals)
}

func dynamicValue(t testing.TB, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(v.Type(), v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// whereIn is a where list of one in() on attribute, as a configuration
// gives it.
func whereIn(attribute string, values []tftypes.Value) tftypes.Value {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	elem := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"attribute": tftypes.String, "op": tftypes.String, "value": tftypes.String, "values": tftypes.List{ElementType: tftypes.String},
	}}
	return tftypes.NewValue(tftypes.List{ElementType: elem}, []tftypes.Value{tftypes.NewValue(elem, map[string]tftypes.Value{
		"attribute": str(attribute), "op": str("in"), "value": tftypes.NewValue(tftypes.String, nil),
		"values": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, values),
	})})
}

// readAccountsTogether reads every configuration in sets of
// commerce_accounts at once, as Terraform reads the data sources it starts
// together: it validates each configuration first, which announces its
// read (server.go), then sends the reads in parallel.
func (p *inProcess) readAccountsTogether(ctx context.Context, t testing.TB, sets []map[string]tftypes.Value) []*tfprotov6.ReadDataSourceResponse {
	t.Helper()
	const dataSource = "commerce_accounts"
	configs := make([]*tfprotov6.DynamicValue, len(sets))
	for i, set := range sets {
		configs[i] = dynamicValue(t, nullObject(p.dataSourceType(t, dataSource), set))
		resp, err := p.server.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: dataSource, Config: configs[i]})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range resp.Diagnostics {
			t.Fatalf("validate: %s: %s", d.Summary, d.Detail)
		}
	}
	out := make([]*tfprotov6.ReadDataSourceResponse, len(sets))
	var wg sync.WaitGroup
	for i := range sets {
		wg.Go(func() {
			resp, err := p.server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: dataSource, Config: configs[i]})
			if err != nil {
				t.Error(err)
			}
			out[i] = resp
		})
	}
	wg.Wait()
	return out
}
