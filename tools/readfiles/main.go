// Command readfiles answers how many of the provider's files one read runs
// code in. Built with coverage, it configures the provider for an emulator
// in its own process, clears the counters, reads one filtered, sorted
// commerce_orders (its first list request refused with a 429, its second
// failing with a 503, so that the retries run too), and writes the counters
// of that read alone to -out. main_test.go builds it, reads the counters
// and holds the count to its limit; by hand:
//
//	go build -cover -covermode=atomic -coverpkg=./... -o /tmp/readfiles ./tools/readfiles
//	/tmp/readfiles -out /tmp/counters
//	go tool covdata textfmt -i=/tmp/counters -o=/tmp/profile.txt
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"runtime/coverage"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/provider"
)

func main() {
	out := flag.String("out", "", "the folder the read's coverage counters go to")
	flag.Parse()
	if *out == "" {
		log.Fatal("readfiles needs -out")
	}
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

func run(out string) error {
	var lists atomic.Int32
	srv, err := emulator.Start(emulator.Options{Orders: 1500, Files: 1, Accounts: 1, Faults: func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != "/v2/orders" {
			return nil
		}
		switch lists.Add(1) {
		case 1:
			return &emulator.Fault{Status: http.StatusTooManyRequests}
		case 2:
			return &emulator.Fault{Status: http.StatusServiceUnavailable}
		}
		return nil
	}})
	if err != nil {
		return err
	}
	defer srv.Close()
	ctx := context.Background()
	s, err := provider.NewServer("readfiles")()
	if err != nil {
		return err
	}
	schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return err
	}
	pcfg, err := object(schemas.Provider.ValueType(), map[string]tftypes.Value{
		"base_url":      tftypes.NewValue(tftypes.String, srv.URL()),
		"client_id":     tftypes.NewValue(tftypes.String, emulator.DefaultClientID),
		"client_secret": tftypes.NewValue(tftypes.String, emulator.DefaultClientSecret),
	})
	if err != nil {
		return err
	}
	configured, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "readfiles", Config: pcfg})
	if err != nil {
		return err
	}
	if err := failed(configured.Diagnostics); err != nil {
		return err
	}
	dcfg, err := object(schemas.DataSourceSchemas["commerce_orders"].ValueType(), map[string]tftypes.Value{
		"filter": tftypes.NewValue(tftypes.String, "eq(status,complete)"),
		"where": tftypes.NewValue(tftypes.List{ElementType: whereItem}, []tftypes.Value{
			tftypes.NewValue(whereItem, map[string]tftypes.Value{
				"attribute": tftypes.NewValue(tftypes.String, "created_at"),
				"op":        tftypes.NewValue(tftypes.String, "ge"),
				"value":     tftypes.NewValue(tftypes.String, "2024-01-01T00:00:00Z"),
				"values":    tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, nil),
			}),
		}),
		"sort": tftypes.NewValue(tftypes.String, "-created_at"),
	})
	if err != nil {
		return err
	}
	// Configure fetches the token in the background: that is
	// configuration's code, not the read's.
	for len(srv.IssuedTokens()) == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := coverage.ClearCounters(); err != nil {
		return fmt.Errorf("build readfiles with -cover -covermode=atomic: %w", err)
	}
	read, err := s.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "commerce_orders", Config: dcfg})
	if err != nil {
		return err
	}
	if err := failed(read.Diagnostics); err != nil {
		return err
	}
	if lists.Load() < 3 {
		return fmt.Errorf("the read sent %d list requests; the faults need at least 3", lists.Load())
	}
	if err := coverage.WriteMetaDir(out); err != nil {
		return err
	}
	return coverage.WriteCountersDir(out)
}

// whereItem is one item of a list data source's where.
var whereItem = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"attribute": tftypes.String, "op": tftypes.String, "value": tftypes.String,
	"values": tftypes.List{ElementType: tftypes.String},
}}

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

func failed(diags []*tfprotov6.Diagnostic) error {
	var errs []error
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			errs = append(errs, fmt.Errorf("%s: %s", d.Summary, d.Detail))
		}
	}
	return errors.Join(errs...)
}
