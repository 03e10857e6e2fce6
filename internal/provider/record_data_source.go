package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
)

// recordDataSource is commerce_record: one record of any list endpoint, by id or
// by a filter that must match exactly one, the singular of commerce_list.
type recordDataSource struct {
	store *configuredStore
}

var (
	_ datasource.DataSourceWithConfigure        = (*recordDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig   = (*recordDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*recordDataSource)(nil)
)

// newRecordDataSource is commerce_record.
func newRecordDataSource() datasource.DataSource { return &recordDataSource{} }

func (d *recordDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_record"
}

func (d *recordDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := genericType.schemaAttributes(map[string]bool{"id": true})
	attrs["path"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Path of the list endpoint the record belongs to, e.g. `/v2/customers`, as in `commerce_list`: " +
			"by id the record is read from `path/{id}`, by filter from the list.",
		Validators: []validator.String{listPathValidator{}},
	}
	attrs["id"] = schema.StringAttribute{Optional: true, Computed: true,
		MarkdownDescription: "Id of the record to read. Set `id` or `filter`, not both."}
	attrs["filter"] = schema.StringAttribute{Optional: true,
		MarkdownDescription: "Filter expression that must match exactly one record, e.g. `eq(email,ann@example.org)`. Same grammar and checks as the `filter` of `commerce_list`."}
	attrs[jsonField] = schema.StringAttribute{Computed: true,
		MarkdownDescription: "The record exactly as the service sent it, as a JSON string: decode it with `jsondecode`."}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one record of any list endpoint: by `id`, or by a `filter` that matches exactly one. " +
			"Finding none, or more than one, is an error that says what was searched.",
		Attributes: attrs,
		Blocks:     map[string]schema.Block{"timeouts": readTimeoutBlock(ctx)},
	}
}

func (d *recordDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("filter"))}
}

func (d *recordDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	resp.Diagnostics.Append(configureStore(req.ProviderData, &d.store)...)
}

// recordArgs are commerce_record's arguments.
type recordArgs struct {
	path, id, filter types.String
}

func getRecordArgs(ctx context.Context, cfg attributeGetter) (recordArgs, diag.Diagnostics) {
	var a recordArgs
	diags := cfg.GetAttribute(ctx, path.Root("path"), &a.path)
	diags.Append(cfg.GetAttribute(ctx, path.Root("id"), &a.id)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("filter"), &a.filter)...)
	for name, v := range map[string]types.String{"id": a.id, "filter": a.filter} {
		if !v.IsNull() && !v.IsUnknown() && strings.TrimSpace(v.ValueString()) == "" {
			diags.AddAttributeError(path.Root(name), "Empty "+name, name+" is an empty string; give the value to look the record up by.")
		}
	}
	return a, diags
}

func (d *recordDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	a, diags := getRecordArgs(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() || a.path.IsUnknown() || a.filter.IsNull() || a.filter.IsUnknown() ||
		commerce.ValidateListPath(a.path.ValueString()) != nil {
		return
	}
	r, known := commerce.EndpointForPath(a.path.ValueString())
	rules, example := rulesFor(r, known)
	parsed, diags := checkFilterText(path.Root("filter"), a.filter.ValueString(), rules, example)
	resp.Diagnostics.Append(diags...)
	if !diags.HasError() {
		resp.Diagnostics.Append(checkRequestLength(path.Root("filter"), a.path.ValueString(), parsed, r.DefaultSort)...)
	}
}

// Read is the framework's Read: the server reads commerce_record directly
// (readDirect), as it reads a list.
func (d *recordDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readThroughDirect(ctx, d, d.store, req, resp)
}

// prepareDirect checks at the server's start that the schema holds every
// field of a record of any endpoint.
func (d *recordDataSource) prepareDirect(typ tftypes.Type) error {
	return liststate.CheckRecordFields(typ, genericType.stateFields())
}

// readDirect looks the one record up and writes the state: the
// configuration with the record's attributes and its JSON.
func (d *recordDataSource) readDirect(ctx context.Context, c *configuredStore, cfg tfsdk.Config) ([]byte, diag.Diagnostics) {
	a, diags := getRecordArgs(ctx, cfg)
	ctx, cancel, more := withReadTimeout(ctx, cfg)
	diags.Append(more...)
	defer cancel()
	if diags.HasError() {
		return nil, diags
	}
	p := a.path.ValueString()
	if err := commerce.ValidateListPath(p); err != nil {
		diags.AddAttributeError(path.Root("path"), "Invalid path", err.Error()+".")
		return nil, diags
	}
	var rec commerce.Generic
	if !a.id.IsNull() {
		rec, more = recordByID(ctx, c, p, a.id.ValueString())
	} else {
		rec, more = recordByFilter(ctx, c, p, a.filter.ValueString())
	}
	diags.Append(more...)
	if diags.HasError() {
		return nil, diags
	}
	state, err := liststate.RecordState(cfg.Raw, genericType.stateFields(), rec, true)
	if err != nil {
		diags.AddError("Internal error", err.Error())
	}
	return state, diags
}

// recordByID reads p/{id}; a GET by id needs nothing of what the endpoint can
// list by, so it asks no probe.
func recordByID(ctx context.Context, c *configuredStore, p, id string) (commerce.Generic, diag.Diagnostics) {
	var diags diag.Diagnostics
	r, known := commerce.EndpointForPath(p)
	if !known {
		r = commerce.Endpoint{Name: p, Singular: "record", Path: p}
	}
	coalesce.Arrive(ctx) // shares nothing: nobody need wait for it
	read := c.startRead(r)
	rec, err := listing.Lookup(ctx, read.engine, commerce.GenericKind(r), id, true)
	err = read.finishLookup(ctx, err)
	switch {
	case client.NotFound(err):
		diags.AddAttributeError(path.Root("id"), "Record not found", fmt.Sprintf("%s has no record with id %q: %v", p, id, err))
	case err != nil:
		diags.Append(errorDiagnostic(ctx, fmt.Sprintf("read %s/%s", p, id), err))
	}
	return rec, diags
}

// recordByFilter finds the one record of p that matches expr.
func recordByFilter(ctx context.Context, c *configuredStore, p, expr string) (commerce.Generic, diag.Diagnostics) {
	r, known, err := c.engine.EndpointFor(ctx, p)
	if err != nil {
		return commerce.Generic{}, diag.Diagnostics{errorDiagnostic(ctx, "find out how to list "+p, err)}
	}
	rules, example := rulesFor(r, known)
	parsed, diags := checkFilterText(path.Root("filter"), expr, rules, example)
	if diags.HasError() {
		return commerce.Generic{}, diags
	}
	r.Singular = "record"
	return findOne(ctx, c, commerce.GenericKind(r), search{
		endpoint: r, attr: "filter", expr: parsed, searched: "the filter " + expr, lister: fmt.Sprintf("commerce_list with path = %q", p),
	}, true)
}
