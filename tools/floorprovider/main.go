// Command floorprovider is the floor of the end-to-end benchmark: a
// protocol-6 provider that costs nothing. It serves the real provider's
// schemas and validation, configures nothing, and answers ReadDataSource of
// commerce_orders with a state recorded beforehand from the real provider:
// the same schema, the same records, the same bytes. `terraform plan` on it
// is what Terraform itself needs for that state; tools/bench.sh floor runs
// it side by side with the real provider and reports the ratio.
//
//	floorprovider record -base-url URL -out FILE [-include-records=false]
//	    reads commerce_orders once through the real provider, in process,
//	    and writes the state's msgpack to FILE;
//	floorprovider
//	    (started by Terraform) serves that state, read from the file
//	    $COMMERCE_FLOOR_STATE.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/provider"
)

const dataSource = "commerce_orders"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "record" {
		if err := record(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	state, err := os.ReadFile(os.Getenv("COMMERCE_FLOOR_STATE"))
	if err != nil {
		log.Fatalf("floorprovider: COMMERCE_FLOOR_STATE: %v", err)
	}
	full, err := provider.NewServer("floor")()
	if err != nil {
		log.Fatal(err)
	}
	s := &floor{ProviderServer: full, state: state}
	if err := tf6server.Serve("registry.terraform.io/commerce-tf/commerce", func() tfprotov6.ProviderServer { return s }); err != nil {
		log.Fatal(err)
	}
}

// floor is the real provider's server with configuration and reads taken
// out.
type floor struct {
	tfprotov6.ProviderServer
	state []byte
}

func (f *floor) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}

func (f *floor) ReadDataSource(_ context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	if req.TypeName != dataSource {
		return nil, fmt.Errorf("the floor provider reads only %s", dataSource)
	}
	return &tfprotov6.ReadDataSourceResponse{State: &tfprotov6.DynamicValue{MsgPack: f.state}}, nil
}

// record reads the data source through the real provider and writes its
// state.
func record(args []string) error {
	fs := flag.NewFlagSet("record", flag.ExitOnError)
	baseURL := fs.String("base-url", "", "the emulator's address")
	clientID := fs.String("client-id", "emulator-client-id", "client id")
	clientSecret := fs.String("client-secret", "emulator-client-secret", "client secret")
	includeRecords := fs.Bool("include-records", true, "the data source's include_records, as in the benchmark's main.tf")
	out := fs.String("out", "", "where to write the state")
	_ = fs.Parse(args)
	if *baseURL == "" || *out == "" {
		return errors.New("record needs -base-url and -out")
	}
	ctx := context.Background()
	s, err := provider.NewServer("floor")()
	if err != nil {
		return err
	}
	schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return err
	}
	pcfg, err := object(schemas.Provider.ValueType(), map[string]tftypes.Value{
		"base_url":      tftypes.NewValue(tftypes.String, *baseURL),
		"client_id":     tftypes.NewValue(tftypes.String, *clientID),
		"client_secret": tftypes.NewValue(tftypes.String, *clientSecret),
	})
	if err != nil {
		return err
	}
	configured, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "floor", Config: pcfg})
	if err != nil {
		return err
	}
	if err := failed(configured.Diagnostics); err != nil {
		return err
	}
	dcfg, err := object(schemas.DataSourceSchemas[dataSource].ValueType(), map[string]tftypes.Value{
		"include_records": tftypes.NewValue(tftypes.Bool, *includeRecords),
	})
	if err != nil {
		return err
	}
	read, err := s.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: dataSource, Config: dcfg})
	if err != nil {
		return err
	}
	if err := failed(read.Diagnostics); err != nil {
		return err
	}
	return os.WriteFile(*out, read.State.MsgPack, 0o600)
}

// object is a value of typ with the given attributes and every other null.
func object(typ tftypes.Type, set map[string]tftypes.Value) (*tfprotov6.DynamicValue, error) {
	obj, ok := typ.(tftypes.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object type", typ)
	}
	vals := make(map[string]tftypes.Value, len(obj.AttributeTypes))
	for name, t := range obj.AttributeTypes {
		vals[name] = tftypes.NewValue(t, nil)
		if v, ok := set[name]; ok {
			vals[name] = v
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	return &dv, err
}

// failed is the first error among diags.
func failed(diags []*tfprotov6.Diagnostic) error {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return fmt.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}
	return nil
}
