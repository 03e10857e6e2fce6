package provider

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// defaultReadTimeout bounds a whole listing when timeouts.read is not set:
// generous, since 100,000 records at a slow store take minutes.
const defaultReadTimeout = 20 * time.Minute

// listDataSource is the one implementation behind commerce_orders,
// commerce_files and commerce_accounts.
type listDataSource[T client.Record] struct {
	rt     recordType[T]
	client *client.Client
}

var _ datasource.DataSourceWithValidateConfig = (*listDataSource[client.Order])(nil)

func (d *listDataSource[T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.rt.kind.Name
}

func (d *listDataSource[T]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	r := d.rt.kind.Resource
	sorts := make([]string, 0, 2*len(r.SortAttributes()))
	for _, s := range r.SortAttributes() {
		sorts = append(sorts, s, "-"+s)
	}
	ops := make([]string, 0, 7)
	for _, o := range filter.Ops() {
		ops = append(ops, string(o))
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists every %s that matches a filter, in the requested order, however many there are: "+
			"the provider pages through the whole result set, also past the service's %s-record offset limit.\n\n%s", r.Singular, thousands(client.OffsetLimit), howListed(r)),
		Attributes: map[string]schema.Attribute{
			"filter": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Filter expression in the service's grammar: `op(attribute,value)` terms joined by `:` (AND), e.g. `%s`. "+
					"Checked at plan time against what the service accepts: %s. An attribute not listed gets a warning, since the service may know more.", d.rt.example, filterTable(r)),
			},
			"where": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "Conditions the provider turns into filter terms for you, quoting values so that any text (commas, parentheses, quotes, `*`, non-ASCII) matches exactly. " +
					"AND-ed with each other and with `filter`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"attribute": schema.StringAttribute{Required: true, MarkdownDescription: "Attribute to compare, e.g. `" + r.FilterAttributeNames()[0] + "`."},
					"op": schema.StringAttribute{Required: true,
						MarkdownDescription: "Operator: " + backticks(ops) + ". `like` matches `*` as any run of characters; `in` takes `values`.",
						Validators:          []validator.String{stringvalidator.OneOf(ops...)}},
					"value":  schema.StringAttribute{Optional: true, MarkdownDescription: "The value, for every operator except `in`."},
					"values": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "The values, for `in`."},
				}},
			},
			"sort": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Order of the results: " + backticks(sorts) + "; a leading `-` means descending. Defaults to `" + r.DefaultSort + "` (oldest first). " + sortNote(r),
				Validators:          []validator.String{stringvalidator.OneOf(sorts...)},
			},
			"max_results": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Stop after this many records. Defaults to all of them.",
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"include_records": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Fill `%s` with the records. Defaults to true. Set it to false when `ids` (and `total`) are all you need: "+
					"the state then holds one string per record instead of a whole object, which for 100,000 records saves most of the provider's and Terraform's memory and time.", r.Name),
			},
			"consistency_buffer": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Leave out records created less than this long before the read started, as a duration such as `60s` or `5m`. " +
					"The service is eventually consistent: records created in the last moments may not all be visible yet, so a list that includes them can differ between two runs. " +
					"With a buffer the list is complete up to a fixed point in time. Defaults to none: every record the service shows. " +
					"Sent to the service as `lt(created_at,...)` where it filters on `created_at`, applied by the provider otherwise; `total` counts what is left.",
				Validators: []validator.String{durationValidator{}},
			},
			"include_json": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "Also keep each record's raw JSON in its `json` attribute. Defaults to false, which keeps the state small.",
			},
			"ids": schema.ListAttribute{
				Computed:            true,
				ElementType:         types.StringType,
				MarkdownDescription: fmt.Sprintf("Ids of the matching %s, in result order.", r.Name),
			},
			"total": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: fmt.Sprintf("How many %s match the filter, as the service counts them (`results.total`). Can exceed the length of `ids` when `max_results` is set.", r.Name),
			},
			r.Name: schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: fmt.Sprintf("The matching %s, in result order.", r.Name),
				NestedObject:        schema.NestedAttributeObject{Attributes: d.rt.schemaAttributes(nil)},
			},
		},
		Blocks: map[string]schema.Block{"timeouts": readTimeoutBlock(ctx)},
	}
}

func (d *listDataSource[T]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	resp.Diagnostics.Append(configureClient(req, &d.client)...)
}

// listInputs are the list data source's arguments.
type listInputs struct {
	Filter      types.String `tfsdk:"filter"`
	Where       types.List   `tfsdk:"where"`
	Sort        types.String `tfsdk:"sort"`
	MaxResults  types.Int64  `tfsdk:"max_results"`
	IncludeJSON types.Bool   `tfsdk:"include_json"`
	// IncludeRecords defaults to true, so null means true.
	IncludeRecords    types.Bool   `tfsdk:"include_records"`
	ConsistencyBuffer types.String `tfsdk:"consistency_buffer"`
}

func getListInputs(ctx context.Context, cfg interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}) (listInputs, diag.Diagnostics) {
	var in listInputs
	var diags diag.Diagnostics
	diags.Append(cfg.GetAttribute(ctx, path.Root("filter"), &in.Filter)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("where"), &in.Where)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("sort"), &in.Sort)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("max_results"), &in.MaxResults)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("include_json"), &in.IncludeJSON)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("include_records"), &in.IncludeRecords)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("consistency_buffer"), &in.ConsistencyBuffer)...)
	return in, diags
}

// expression combines filter and where into the filter the service gets.
// Parts unknown at plan time are skipped (validation runs again at read).
func (in listInputs) expression(ctx context.Context, r client.Resource, example string) (expr string, diags diag.Diagnostics) {
	known := true
	var parts []string
	if in.Filter.IsUnknown() {
		known = false
	} else if !in.Filter.IsNull() {
		diags.Append(checkFilterText(path.Root("filter"), in.Filter.ValueString(), r, example)...)
		parts = append(parts, in.Filter.ValueString())
	}
	switch {
	case in.Where.IsUnknown():
		known = false
	case !in.Where.IsNull():
		var wheres []types.Object
		diags.Append(in.Where.ElementsAs(ctx, &wheres, false)...)
		for i, obj := range wheres {
			p := path.Root("where").AtListIndex(i)
			if obj.IsUnknown() {
				known = false
				continue
			}
			var w whereModel
			diags.Append(obj.As(ctx, &w, objectAsOptions)...)
			term, termKnown, tdiags := whereTerm(p, w)
			diags.Append(tdiags...)
			if !termKnown {
				known = false
				continue
			}
			if tdiags.HasError() {
				continue
			}
			text := term.String()
			diags.Append(checkTerm(p, term, text, r, example)...)
			parts = append(parts, text)
		}
	}
	expr = strings.Join(parts, ":")
	if known && len(expr) > filter.MaxLength {
		diags.AddAttributeError(path.Root("filter"), "Filter too long",
			fmt.Sprintf("filter and where together make a %d-byte filter; the service takes at most %d bytes. Split the data source, or use fewer values in an in() list.", len(expr), filter.MaxLength))
	}
	return expr, diags
}

func (d *listDataSource[T]) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	in, diags := getListInputs(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, diags = in.expression(ctx, d.rt.kind.Resource, d.rt.example)
	resp.Diagnostics.Append(diags...)
}

func (d *listDataSource[T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	in, diags := getListInputs(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	expr, diags := in.expression(ctx, d.rt.kind.Resource, d.rt.example)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, diags := withReadTimeout(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	r := d.rt.kind.Resource
	stateType, ok := req.Config.Raw.Type().(tftypes.Object)
	listType, ok2 := stateType.AttributeTypes[r.Name].(tftypes.List)
	elemType, ok3 := listType.ElementType.(tftypes.Object)
	if !ok || !ok2 || !ok3 {
		resp.Diagnostics.AddError("Internal error", fmt.Sprintf("unexpected schema type %s; this is a bug in the provider, please report it", req.Config.Raw.Type()))
		return
	}
	includeJSON := in.IncludeJSON.ValueBool()
	includeRecords := in.IncludeRecords.IsNull() || in.IncludeRecords.ValueBool()
	var ids, records, lateIDs, lateRecords []tftypes.Value
	add := func(rec T, ids, records *[]tftypes.Value) {
		*ids = append(*ids, tftypes.NewValue(tftypes.String, rec.RecordID()))
		if includeRecords {
			*records = append(*records, tftypes.NewValue(elemType, d.rt.tfValues(rec, includeJSON)))
		}
	}
	q := client.ListQuery{
		Filter:      expr,
		Sort:        in.Sort.ValueString(),
		MaxResults:  int(in.MaxResults.ValueInt64()),
		IncludeJSON: includeJSON,
		// The validator checked the duration; an unset buffer parses as 0.
		CreatedBefore: createdBefore(in.ConsistencyBuffer.ValueString()),
		Progress: func(listed, total int) {
			tflog.Info(ctx, fmt.Sprintf("listed %s of %s %s", thousands(listed), thousands(total), r.Name))
		},
		// Records updated during a -updated_at listing belong in front.
		Late: func(late client.Record) error {
			rec, ok := late.(T)
			if !ok {
				return fmt.Errorf("internal error: late record of type %T", late)
			}
			add(rec, &lateIDs, &lateRecords)
			return nil
		},
	}
	start := time.Now()
	stats, err := client.List(ctx, d.client, d.rt.kind, q, func(rec T) error {
		add(rec, &ids, &records)
		return nil
	})
	if len(lateIDs) > 0 {
		ids, records = append(lateIDs, ids...), append(lateRecords, records...)
		if q.MaxResults > 0 && len(ids) > q.MaxResults {
			ids = ids[:q.MaxResults]
			records = records[:min(len(records), q.MaxResults)]
		}
	}
	tflog.Info(ctx, "listing finished", map[string]any{
		"resource": r.Name, "total": stats.Total, "listed": stats.Listed, "page_requests": stats.Pages,
		"windows": stats.Windows, "strategy": stats.Strategy, "duration_ms": time.Since(start).Milliseconds(),
	})
	if err != nil {
		resp.Diagnostics.Append(errorDiagnostic(ctx, "list "+r.Name, err))
		return
	}
	recordsValue := tftypes.NewValue(listType, records)
	if !includeRecords {
		recordsValue = tftypes.NewValue(listType, nil)
	}
	state, err := stateWith(req.Config.Raw, map[string]tftypes.Value{
		"ids":   tftypes.NewValue(stateType.AttributeTypes["ids"], ids),
		"total": tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(int64(stats.Total))),
		r.Name:  recordsValue,
	})
	if err != nil {
		resp.Diagnostics.AddError("Internal error", err.Error())
		return
	}
	resp.State.Raw = state
}

var objectAsOptions = basetypes.ObjectAsOptions{}

// withReadTimeout bounds ctx by the data source's timeouts.read.
func withReadTimeout(ctx context.Context, cfg tfsdk.Config) (context.Context, context.CancelFunc, diag.Diagnostics) {
	var to timeouts.Value
	diags := cfg.GetAttribute(ctx, path.Root("timeouts"), &to)
	readTimeout, more := to.Read(ctx, defaultReadTimeout)
	diags.Append(more...)
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

// thousands renders n with comma separators, for progress lines.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func backticks(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

// configureClient takes the provider's client from ConfigureRequest. It is
// nil before the provider is configured (e.g. during validation).
func configureClient(req datasource.ConfigureRequest, dst **client.Client) diag.Diagnostics {
	var diags diag.Diagnostics
	if req.ProviderData == nil {
		return diags
	}
	c, ok := req.ProviderData.(*client.Client)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *client.Client, got %T; this is a bug in the provider, please report it", req.ProviderData))
		return diags
	}
	*dst = c
	return diags
}
