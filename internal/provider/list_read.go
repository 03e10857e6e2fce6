package provider

// One read of a list data source, the same for the typed lists and
// commerce_list:
//
//	openListRead   inputs, timeouts.read, a configured client
//	target         what to list: fixed for a typed list, from the path for
//	               commerce_list (a probe of the service the first time)
//	readList       one call around the engine (reads.Read), the records
//	               written straight into the state's msgpack
//	               (internal/liststate)
//
// The provider server serves every list read this way (server.go); the
// framework's Read of a list data source is an adapter over the same
// readDirect, for whoever serves the provider through providerserver alone.
// What the read needs besides lives in a file of its own each: the inputs
// and their checks (list_inputs.go), the store it reads from
// (configured_store.go), the errors in the service's words
// (diagnostics.go) and what a read cost that its configuration does not
// show (cost_warnings.go).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// listTarget is what a read lists, and what its filter is checked against.
type listTarget[T commerce.Record] struct {
	kind commerce.Kind[T]
	// rules are the filter attributes the terms are checked against; nil
	// for an endpoint the capability table does not know (the grammar only).
	rules   *commerce.Endpoint
	example string
	// records is the state attribute that holds the records.
	records string
}

// dataSourceName is the type name of the data source that reads t, for
// messages.
func (t listTarget[T]) dataSourceName() string {
	if t.records == recordsAttribute {
		return "list"
	}
	return t.records
}

// openListRead reads a list data source's inputs and bounds ctx by its
// timeouts.read; the caller calls cancel.
func openListRead(ctx context.Context, c *configuredStore, cfg tfsdk.Config) (context.Context, context.CancelFunc, listInputs, diag.Diagnostics) {
	in, diags := getListInputs(ctx, cfg, hasAttribute(cfg, "include_json"))
	ctx, cancel, more := withReadTimeout(ctx, cfg)
	diags.Append(more...)
	if c == nil && !diags.HasError() {
		diags.AddError("Provider not configured", "The provider was not configured before the data source was read; this is a bug in Terraform or the provider, please report it.")
	}
	return ctx, cancel, in, diags
}

// readList lists what in asks of t and returns the data source's state:
// config with ids, total and the records filled in, as msgpack. The read
// enters reads.Read once, which plans it, shares a listing
// with the reads that need the same one, and reads through the cache.
func readList[T commerce.Record](ctx context.Context, c *configuredStore, config tftypes.Value, in listInputs, t listTarget[T], enc liststate.Encoder[T]) ([]byte, diag.Diagnostics) {
	expr, _, diags := in.expression(ctx, t.rules, t.example)
	if diags.HasError() {
		return nil, diags
	}
	col := liststate.NewCollector(enc, liststate.Options{
		IncludeJSON: in.IncludeJSON.ValueBool(), IncludeRecords: in.includeRecords(), MaxBytes: maxStateBytes, MaxResults: int(in.MaxResults.ValueInt64()),
	})
	defer col.Release()
	read := c.startRead(t.kind.Endpoint)
	res, err := reads.Read(ctx, read.reads, t.kind, in.query(expr), listing.Reader[T]{Emit: col.Add, Late: col.AddLate})
	err = read.finish(ctx, res, err)
	if res.Split.Parts != nil { // a long in() split over several requests
		diags.Append(splitWarning(in, res)...)
	}
	if limit := in.MaxResults.ValueInt64(); limit > 0 { // only a cut read can have failed to stop early
		diags.Append(maxResultsWarning(limit, in.Sort.ValueString(), &t.kind.Endpoint, res)...)
	}
	diags.Append(c.cache.warning()...)
	var tooLarge *liststate.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		diags.Append(stateTooLargeDiagnostic("commerce_"+t.dataSourceName(), t.kind.Name, tooLarge, res, in))
	case err != nil:
		diags.Append(errorDiagnostic(ctx, "list "+t.kind.Name, err))
	}
	if diags.HasError() {
		return nil, diags
	}
	state, err := col.State(config, t.records, res.Total, res.TotalKnown)
	if err != nil {
		diags.AddError("Internal error", err.Error())
	}
	if in.IncludeJSON.ValueBool() {
		diags.Append(includeJSONWarning(len(state), res.Listed)...)
	}
	return state, diags
}

// readThroughDirect is the framework's Read of a list data source: r's
// readDirect, its state decoded into the framework's value.
func readThroughDirect(ctx context.Context, r directReader, c *configuredStore, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	typ := req.Config.Raw.Type()
	// The server prepares its shared instance once; the framework makes a
	// new one for every read.
	if err := r.prepareDirect(typ); err != nil {
		resp.Diagnostics.AddError("Internal error", err.Error())
		return
	}
	state, diags := r.readDirect(ctx, c, req.Config)
	resp.Diagnostics.Append(diags...)
	if state == nil {
		return
	}
	v, err := (&tfprotov6.DynamicValue{MsgPack: state}).Unmarshal(typ)
	if err != nil {
		resp.Diagnostics.AddError("Internal error", "the state does not decode: "+err.Error())
		return
	}
	resp.State.Raw = v
}

// hasAttribute reports whether cfg's schema has a top-level attribute name.
func hasAttribute(cfg tfsdk.Config, name string) bool {
	_, ok := cfg.Schema.GetAttributes()[name]
	return ok
}

// directReader is a data source whose state readDirect writes as msgpack.
type directReader interface {
	datasource.DataSource
	// prepareDirect derives the encoder from the schema's Terraform type.
	prepareDirect(typ tftypes.Type) error
	// readDirect reads with c and returns the msgpack state, or nil and
	// the errors. Safe for concurrent reads: the server shares one
	// instance among all blocks of the data source.
	readDirect(ctx context.Context, c *configuredStore, cfg tfsdk.Config) ([]byte, diag.Diagnostics)
}

// recordsAttribute holds commerce_list's records.
const recordsAttribute = "records"

// defaultReadTimeout bounds a whole listing when timeouts.read is not set:
// generous, since 100,000 records at a slow store take minutes.
const defaultReadTimeout = 20 * time.Minute

// withReadTimeout bounds ctx by the data source's timeouts.read.
func withReadTimeout(ctx context.Context, cfg tfsdk.Config) (context.Context, context.CancelFunc, diag.Diagnostics) {
	var to timeouts.Value
	diags := cfg.GetAttribute(ctx, path.Root("timeouts"), &to)
	readTimeout := defaultReadTimeout
	if !to.IsNull() && !to.IsUnknown() {
		// Only a block that is there is asked: the library logs, for every
		// data source, that a missing one holds no read timeout.
		var more diag.Diagnostics
		readTimeout, more = to.Read(ctx, defaultReadTimeout)
		diags.Append(more...)
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	return ctx, cancel, diags
}

// readTimeoutBlock is the timeouts block of every data source, described
// for the generated documentation.
func readTimeoutBlock(ctx context.Context) schema.Block {
	b := timeouts.BlockWithOpts(ctx, timeouts.Opts{
		ReadDescription: fmt.Sprintf("How long the whole read may take, as a duration such as `30m`. Defaults to `%dm`. Each request attempt is bounded by the provider's `request_timeout` as well.", int(defaultReadTimeout.Minutes())),
	})
	if nested, ok := b.(schema.SingleNestedBlock); ok {
		nested.MarkdownDescription = "Time limits of the data source."
		return nested
	}
	return b
}
