package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

// listTarget is what a read lists, and what its filter is checked
// against: the same for every read of a typed data source, resolved from
// the path per read for commerce_list.
type listTarget[T client.Record] struct {
	kind client.Kind[T]
	// rules are the filter attributes the terms are checked against; nil
	// for an endpoint the capability table does not know (the grammar only).
	rules   *client.Resource
	example string
}

// resolveTarget finds a read's target; it may ask the service (a probe).
type resolveTarget[T client.Record] func(ctx context.Context, c *client.Client, in listInputs) (listTarget[T], diag.Diagnostics)

// recordSink receives a listing's records: add in result order, addLate
// those that moved ahead of them while it ran (see client.ListQuery.Late).
type recordSink[T client.Record] interface {
	add(T) error
	addLate(client.Record) error
}

// listInto runs the listing cfg asks for with c, handing the records to the
// sink newSink makes for its inputs, and returns the sink, the listing's
// statistics and its max_results (0: no limit). Every list data source and
// both ways of building the state share it: Read (the framework's values)
// and readDirect (msgpack).
func listInto[T client.Record, S recordSink[T]](ctx context.Context, c *client.Client, cfg tfsdk.Config, resolve resolveTarget[T], newSink func(listInputs) S) (S, client.ListStats, int, diag.Diagnostics) {
	var sink S
	in, diags := getListInputs(ctx, cfg, hasAttribute(cfg, "include_json"))
	ctx, cancel, more := withReadTimeout(ctx, cfg)
	diags.Append(more...)
	defer cancel()
	if diags.HasError() {
		return sink, client.ListStats{}, 0, diags
	}
	if c == nil {
		diags.AddError("Provider not configured", "The provider was not configured before the data source was read; this is a bug in Terraform or the provider, please report it.")
		return sink, client.ListStats{}, 0, diags
	}
	d, more := resolve(ctx, c, in)
	diags.Append(more...)
	if diags.HasError() {
		return sink, client.ListStats{}, 0, diags
	}
	expr, more := in.expression(ctx, d.rules, d.example, d.kind.Path)
	diags.Append(more...)
	if diags.HasError() {
		return sink, client.ListStats{}, 0, diags
	}
	sink = newSink(in)
	q := in.query(expr)
	q.Progress = func(listed, total int) {
		tflog.Info(ctx, fmt.Sprintf("listed %s of %s %s", thousands(listed), thousands(total), d.kind.Name))
	}
	// Records updated during a -updated_at listing belong in front.
	q.Late = sink.addLate
	stats, err := runListing(ctx, c, d.kind, q, sink.add)
	if err != nil {
		diags.Append(errorDiagnostic(ctx, "list "+d.kind.Name, err))
	}
	return sink, stats, q.MaxResults, diags
}

// runListing runs the listing and logs how it went, whether it failed or
// not.
func runListing[T client.Record](ctx context.Context, c *client.Client, kind client.Kind[T], q client.ListQuery, emit func(T) error) (client.ListStats, error) {
	start := time.Now()
	stats, err := client.List(ctx, c, kind, q, emit)
	tflog.Info(ctx, "listing finished", map[string]any{
		"resource": kind.Name, "total": stats.Total, "listed": stats.Listed, "page_requests": stats.Pages,
		"requests": stats.Requests, "retries": stats.Retries, "throttled_429": stats.Throttled, "budget_per_s": stats.Budget,
		"windows": stats.Windows, "strategy": stats.Strategy, "duration_ms": time.Since(start).Milliseconds(),
	})
	return stats, err
}

// hasAttribute reports whether cfg's schema has a top-level attribute name.
func hasAttribute(cfg tfsdk.Config, name string) bool {
	_, ok := cfg.Schema.GetAttributes()[name]
	return ok
}
