package provider

// One read of a list data source, the same for the typed lists and
// commerce_list:
//
//	openListRead   inputs, timeouts.read, a configured client
//	target         what to list: fixed for a typed list, from the path for
//	               commerce_list (a probe of the service the first time)
//	readList       the listing, its records written straight into the
//	               state's msgpack (list_state.go, state_encoder.go)
//
// The provider server serves every list read this way (server.go); the
// framework's Read of a list data source is an adapter over the same
// readDirect, for whoever serves the provider through providerserver alone.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
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
func openListRead(ctx context.Context, c *service, cfg tfsdk.Config) (context.Context, context.CancelFunc, listInputs, diag.Diagnostics) {
	in, diags := getListInputs(ctx, cfg, hasAttribute(cfg, "include_json"))
	ctx, cancel, more := withReadTimeout(ctx, cfg)
	diags.Append(more...)
	if c == nil && !diags.HasError() {
		diags.AddError("Provider not configured", "The provider was not configured before the data source was read; this is a bug in Terraform or the provider, please report it.")
	}
	return ctx, cancel, in, diags
}

// readList lists what in asks of t and returns the data source's state:
// config with ids, total and the records filled in, as msgpack. Identical
// reads that Terraform runs together share one listing (shared_read.go).
func readList[T commerce.Record](ctx context.Context, c *service, config tftypes.Value, in listInputs, t listTarget[T], enc recordEncoder[T]) ([]byte, diag.Diagnostics) {
	expr, diags := in.expression(ctx, t.rules, t.example, t.kind.Path)
	if diags.HasError() {
		return nil, diags
	}
	key := readKey(t.dataSourceName(), t.kind.Path, expr, in)
	out, shared, err := c.reads.Do(ctx, key, func(ctx context.Context) listOutcome {
		col := &msgpackCollector[T]{enc: enc, includeJSON: in.IncludeJSON.ValueBool(), includeRecords: in.includeRecords()}
		stats, diags := listRecords(ctx, c, in, expr, key, t, col.add, col.addLate)
		return listOutcome{collector: col, total: stats.Total, diags: diags}
	})
	if err != nil {
		diags.Append(errorDiagnostic(ctx, "list "+t.kind.Name, err))
		return nil, diags
	}
	if shared {
		tflog.Debug(ctx, "served by an identical read that was starting when this one arrived", map[string]any{
			"data_source": "commerce_" + t.dataSourceName(), "resource": t.kind.Name, "filter": expr, "sort": in.Sort.ValueString(),
		})
	}
	diags.Append(out.diags...)
	if diags.HasError() {
		return nil, diags
	}
	state, err := out.collector.state(config, t.records, out.total, int(in.MaxResults.ValueInt64()))
	if err != nil {
		diags.AddError("Internal error", err.Error())
	}
	return state, diags
}

// listRecords runs the listing in asks of t, with expr (in.expression) as
// its filter, handing the records to add in result order and those that
// moved ahead of them while it ran to addLate (see listing.Query.Late).
// With the cache on, key (readKey) names its entry.
func listRecords[T commerce.Record](ctx context.Context, c *service, in listInputs, expr, key string, t listTarget[T], add func(T) error, addLate func(commerce.Record) error) (listing.Stats, diag.Diagnostics) {
	var diags diag.Diagnostics
	q := in.query(expr)
	q.Progress = func(listed, total int) {
		tflog.Info(ctx, fmt.Sprintf("listed %s of %s %s", thousands(listed), thousands(total), t.kind.Name))
	}
	q.Late = addLate
	start := time.Now()
	stats, requests, err := listThroughCache(ctx, c, key, t.kind, q, add)
	fields := map[string]any{
		"resource": t.kind.Name, "total": stats.Total, "listed": stats.Listed, "page_requests": stats.Pages,
		"requests": requests.Requests, "retries": requests.Retries, "throttled_429": requests.Throttled, "budget_per_s": requests.Budget,
		"windows": stats.Windows, "strategy": stats.Strategy, "duration_ms": time.Since(start).Milliseconds(),
	}
	maps.Copy(fields, cacheFields(stats))
	tflog.Info(ctx, "listing finished", fields)
	var tooLarge *stateTooLargeError
	switch {
	case errors.As(err, &tooLarge):
		diags.Append(stateTooLargeDiagnostic("commerce_"+t.dataSourceName(), t.kind.Name, tooLarge, stats.Total, in))
	case err != nil:
		diags.Append(errorDiagnostic(ctx, "list "+t.kind.Name, err))
	}
	return stats, diags
}

// readThroughDirect is the framework's Read of a list data source: r's
// readDirect, its state decoded into the framework's value.
func readThroughDirect(ctx context.Context, r directReader, c *service, req datasource.ReadRequest, resp *datasource.ReadResponse) {
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
