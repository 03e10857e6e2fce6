package provider

import (
	"context"
	"fmt"

	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// NewServer is the provider's protocol-6 server, which the binary serves:
// the framework's server for everything (schemas, validation, configuration),
// except that ReadDataSource of every data source that reads records,
// lists and lookups alike (those with a readDirect), writes the state as
// msgpack directly (internal/liststate): the one way the provider writes a
// record's state. For 100,000 records that is the difference between
// gigabytes of value trees and one buffer the size of the state.
// commerce_store, one small object, is the framework's.
//
// The framework's Read of each of those data sources is an adapter over
// the same readDirect (readThroughDirect, list_read.go), for whoever serves
// the provider through providerserver alone. Tests hold the direct state to the framework's own
// encoding of the same values (list_state_test.go,
// record_state_test.go) and the wrapper's answers to the framework's
// (framework_upgrade_test.go).
func NewServer(version string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		ctx := context.Background()
		p := &commerceProvider{version: version}
		framework, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		s := &directServer{ProviderServer: framework, provider: p, direct: map[string]directList{}}
		for _, newDataSource := range p.DataSources(ctx) {
			ds, ok := newDataSource().(directReader)
			if !ok {
				continue
			}
			var meta datasource.MetadataResponse
			ds.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: providerTypeName}, &meta)
			var sch datasource.SchemaResponse
			ds.Schema(ctx, datasource.SchemaRequest{}, &sch)
			typ := sch.Schema.Type().TerraformType(ctx)
			if err := ds.prepareDirect(typ); err != nil {
				return nil, fmt.Errorf("%s: %w", meta.TypeName, err)
			}
			s.direct[meta.TypeName] = directList{ds: ds, schema: sch.Schema, typ: typ}
		}
		return s, nil
	}
}

type directList struct {
	ds     directReader
	schema schema.Schema
	typ    tftypes.Type
}

// directServer embeds the framework's server and answers ReadDataSource of
// every data source with a readDirect itself; the others' reads go to the
// framework. Protocol features the framework offers behind
// optional interfaces (list resources, actions, state stores) are not
// promoted; the provider has none of them.
type directServer struct {
	tfprotov6.ProviderServer
	provider *commerceProvider
	direct   map[string]directList
}

// ConfigureProvider is the framework's, once the announcements of an
// earlier walk are forgotten: Terraform configures the provider at the start
// of every walk that reads, and a validation before that (the validate
// walk's, in the same process when the provider is served in process) has
// no read in this walk to wait for (coalesce.Announced.Forget).
func (s *directServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	s.provider.announced.Forget()
	return s.ProviderServer.ConfigureProvider(ctx, req)
}

// StopProvider is the framework's, once the announced reads are forgotten:
// Terraform stops a run, and the reads it validated may never be sent, so
// no listing waits for them.
func (s *directServer) StopProvider(ctx context.Context, req *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	s.provider.announced.Forget()
	return s.ProviderServer.StopProvider(ctx, req)
}

// ValidateDataResourceConfig is the framework's, and announces the read
// that Terraform sends next for a configuration that passed: Terraform
// validates a data source's configuration just before it reads it, so a
// listing gathers the reads that need it while reads Terraform validated
// are on their way, and starts once none is (coalesce).
func (s *directServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if err == nil && !hasError(resp.Diagnostics) {
		s.provider.announced.Announce(readKey(req.TypeName, req.Config))
	}
	return resp, err
}

// readKey pairs a read with its validation: the same data source and the
// same configuration, byte for byte.
func readKey(typeName string, config *tfprotov6.DynamicValue) string {
	if config == nil {
		return typeName
	}
	return typeName + "\x00" + string(config.MsgPack) + string(config.JSON)
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// ReadDataSource carries the read's announcement, which the engine takes
// back once the read has joined or opened its listing, and this once the
// read is over whatever became of it.
func (s *directServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	ctx, arrival := coalesce.WithArrival(ctx, &s.provider.announced, readKey(req.TypeName, req.Config))
	defer arrival.Arrive()
	l, ok := s.direct[req.TypeName]
	if !ok || req.Config == nil {
		return s.ProviderServer.ReadDataSource(ctx, req)
	}
	config, err := req.Config.Unmarshal(l.typ)
	if err != nil {
		//nolint:nilerr // a configuration that does not decode fails the read, not the RPC
		return &tfprotov6.ReadDataSourceResponse{Diagnostics: []*tfprotov6.Diagnostic{{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  "Unable to Convert Configuration",
			Detail:   "The configuration Terraform sent does not match the data source's schema; this is a bug in the provider or Terraform, please report it:\n\n" + err.Error(),
		}}}, nil
	}
	state, diags := l.ds.readDirect(ctx, s.provider.configured.Load(), tfsdk.Config{Raw: config, Schema: l.schema})
	resp := &tfprotov6.ReadDataSourceResponse{Diagnostics: protoDiagnostics(ctx, diags)}
	if state == nil {
		// As the framework does: a read that failed answers with its
		// configuration, which Terraform ignores next to the errors.
		dv, err := tfprotov6.NewDynamicValue(l.typ, config)
		if err != nil {
			return nil, err
		}
		resp.State = &dv
		return resp, nil
	}
	tflog.Debug(ctx, "state encoded", map[string]any{"data_source": req.TypeName, "state_bytes": len(state)})
	resp.State = &tfprotov6.DynamicValue{MsgPack: state}
	return resp, nil
}

// protoDiagnostics are diags as the protocol carries them, attribute paths
// included, as the framework converts its own.
func protoDiagnostics(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityInvalid}
		switch d.Severity() {
		case diag.SeverityError:
			pd.Severity = tfprotov6.DiagnosticSeverityError
		case diag.SeverityWarning:
			pd.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = attributePath(ctx, wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

// attributePath is p as the protocol carries it.
func attributePath(ctx context.Context, p path.Path) *tftypes.AttributePath {
	steps := make([]tftypes.AttributePathStep, 0, len(p.Steps()))
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			steps = append(steps, tftypes.AttributeName(string(s)))
		case path.PathStepElementKeyInt:
			steps = append(steps, tftypes.ElementKeyInt(int64(s)))
		case path.PathStepElementKeyString:
			steps = append(steps, tftypes.ElementKeyString(string(s)))
		case path.PathStepElementKeyValue:
			v, err := s.ToTerraformValue(ctx)
			if err != nil {
				// The diagnostic keeps the attribute, if not the element.
				return tftypes.NewAttributePathWithSteps(steps)
			}
			steps = append(steps, tftypes.ElementKeyValue(v))
		}
	}
	return tftypes.NewAttributePathWithSteps(steps)
}
