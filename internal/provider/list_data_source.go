package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
)

// listDataSource is commerce_list: every record of any list endpoint of the
// service, on the same listing engine and state paths as the typed lists.
// What the endpoint can do comes from the capability table where the path
// is in it, else from a probe of the service at the first read.
type listDataSource struct {
	store   *configuredStore
	encoder liststate.Encoder[commerce.Generic]
}

// genericType is how a record of any endpoint maps to Terraform: what
// every JSON:API record has, and its JSON (always kept).
var genericType = recordType[commerce.Generic]{
	kind: commerce.GenericKind(commerce.Endpoint{Name: recordsAttribute}),
	fields: recordFields(
		updatedAt[commerce.Generic](),
		stringField("type", "The record's JSON:API `type`, e.g. `customer`; null when it has none.", func(g commerce.Generic) string { return g.Type }),
	),
}

// genericSorts are the orders offered on an endpoint the capability table
// does not know: the attributes every generic record has, which the
// provider can sort by itself if the service cannot.
var genericSorts = []string{"created_at", "updated_at", "id"}

var _ datasource.DataSourceWithValidateConfig = (*listDataSource)(nil)

// newListDataSource is commerce_list.
func newListDataSource() datasource.DataSource { return &listDataSource{} }

func (d *listDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_list"
}

func (d *listDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := commonListArguments(recordsAttribute, "created_at")
	attrs["path"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Path of a list endpoint on the configured service, e.g. `/v2/customers` or `/pcm/hierarchies`: no scheme, host, query string or `..`. " +
			"Read with GET, on `base_url`, with the provider's credentials. " + knownPathsNote(),
		Validators: []validator.String{listPathValidator{}},
	}
	attrs["filter"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Filter expression in the service's grammar: `op(attribute,value)` terms joined by `:` (AND), e.g. `eq(email,ann@example.org)`. " +
			"The grammar is checked at plan time; the attributes and operators too where the path is one the provider knows, otherwise the service checks them (a warning says so).",
	}
	attrs["sort"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Order of the results; a leading `-` means descending. Defaults to `created_at` (oldest first). " +
			"Where the path is known, the orders its data source offers; elsewhere `created_at`, `updated_at` and `id`. " +
			"Orders the service cannot give, the provider sorts itself after listing every matching record.",
	}
	attrs["ids"] = schema.ListAttribute{
		Computed:            true,
		ElementType:         types.StringType,
		MarkdownDescription: "Ids of the matching records, in result order.",
	}
	attrs["total"] = schema.Int64Attribute{
		Computed:            true,
		MarkdownDescription: "How many records match the filter: their number when every match is listed, whatever the service's own count says. With `max_results` cutting the list, the service's count where it counts exactly when asked (`page[total_method]=exact`); `null` where it does not, since a lazy count (a lower bound or an estimate) is not the number of matches. Can exceed the length of `ids` when `max_results` is set.",
	}
	records := genericType.schemaAttributes(nil)
	records[jsonField] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "The record exactly as the service sent it, as a JSON string: decode it with `jsondecode` for its attributes, relationships and meta.",
	}
	attrs[recordsAttribute] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "The matching records, in result order: what every record has, and the whole record as JSON.",
		NestedObject:        schema.NestedAttributeObject{Attributes: records},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists every record of any list endpoint of the service, in the requested order, however many there are, "+
			"with the same paging, retries and completeness as the typed data sources: past the service's %s-record offset limit wherever the endpoint sorts and filters by `created_at`, "+
			"and a clear error naming the limit where nothing can reach further.\n\n%s", thousands(commerce.OffsetLimit), probeNote()),
		Attributes: attrs,
		Blocks:     map[string]schema.Block{"timeouts": readTimeoutBlock(ctx)},
	}
}

func (d *listDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	resp.Diagnostics.Append(configureStore(req.ProviderData, &d.store)...)
}

// ValidateConfig checks what can be checked before any request: the
// filter's grammar, and where the path is known, its attributes and the
// sort.
func (d *listDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var p types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("path"), &p)...)
	in, diags := getListInputs(ctx, req.Config, false)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() || p.IsUnknown() || commerce.ValidateListPath(p.ValueString()) != nil {
		// The path's own validator reports a bad path.
		return
	}
	r, known := commerce.EndpointForPath(p.ValueString())
	rules, example := rulesFor(r, known)
	expr, filterKnown, diags := in.expression(ctx, rules, example)
	resp.Diagnostics.Append(diags...)
	if filterKnown && !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(in.checkLength(expr, p.ValueString(), r.DefaultSort)...)
	}
	resp.Diagnostics.Append(checkSort(in.Sort, p.ValueString(), r, known)...)
	if !known && !resp.Diagnostics.HasError() && (!in.Filter.IsNull() || !in.Where.IsNull()) {
		resp.Diagnostics.AddAttributeWarning(path.Root("filter"), "Filter attributes not checked",
			fmt.Sprintf("The provider does not know which attributes %s filters on, so it checked only the filter's grammar; the service checks the attributes when the data source is read. "+
				"Paths whose attributes are checked at plan time: %s.", p.ValueString(), backticks(commerce.KnownPaths())))
	}
}

// rulesFor are the filter rules and an example for an endpoint: its row of
// the capability table, or none (grammar only) for a path it lacks.
func rulesFor(r commerce.Endpoint, known bool) (*commerce.Endpoint, string) {
	if !known {
		return nil, "eq(name,example)"
	}
	return &r, exampleFilter(r)
}

// exampleFilter is a valid filter expression for a known endpoint.
func exampleFilter(r commerce.Endpoint) string {
	if r.FiltersWith("created_at", filter.Ge) {
		return "ge(created_at," + exampleTimestamp + ")"
	}
	for _, name := range r.FilterAttributeNames() {
		return fmt.Sprintf("%s(%s,example)", r.Filters[name].Ops[0], name)
	}
	return "(" + r.Name + " take no filter)"
}

// checkSort reports a sort the endpoint at p does not offer.
func checkSort(sort types.String, p string, r commerce.Endpoint, known bool) diag.Diagnostics {
	var diags diag.Diagnostics
	if sort.IsNull() || sort.IsUnknown() {
		return diags
	}
	offered := genericSorts
	if known {
		offered = r.SortAttributes()
	}
	if attr := strings.TrimPrefix(sort.ValueString(), "-"); !slices.Contains(offered, attr) {
		diags.AddAttributeError(path.Root("sort"), "Invalid sort",
			fmt.Sprintf("sort = %q: %s can be listed by %s, each with a leading - for descending order.%s", sort.ValueString(), p, backticks(offered), didYouMean(filter.Closest(attr, offered))))
	}
	return diags
}

// target is what a read of cfg lists: the table's row for the path, else
// what a probe of the service finds (once per provider run).
func (d *listDataSource) target(ctx context.Context, c *configuredStore, cfg tfsdk.Config, in listInputs) (listTarget[commerce.Generic], diag.Diagnostics) {
	var p types.String
	diags := cfg.GetAttribute(ctx, path.Root("path"), &p)
	if diags.HasError() {
		return listTarget[commerce.Generic]{}, diags
	}
	if err := commerce.ValidateListPath(p.ValueString()); err != nil {
		diags.AddAttributeError(path.Root("path"), "Invalid path", err.Error())
		return listTarget[commerce.Generic]{}, diags
	}
	r, known, err := c.engine.EndpointFor(ctx, p.ValueString())
	if err != nil {
		diags.Append(errorDiagnostic(ctx, "find out how to list "+p.ValueString(), err))
		return listTarget[commerce.Generic]{}, diags
	}
	diags.Append(checkSort(in.Sort, p.ValueString(), r, known)...)
	rules, example := rulesFor(r, known)
	return listTarget[commerce.Generic]{kind: commerce.GenericKind(r), rules: rules, example: example, records: recordsAttribute}, diags
}

// readDirect reads cfg into its msgpack state (see list_read.go). Every
// record keeps its JSON: getListInputs sets include_json, which the schema
// lacks.
func (d *listDataSource) readDirect(ctx context.Context, c *configuredStore, cfg tfsdk.Config) ([]byte, diag.Diagnostics) {
	ctx, cancel, in, diags := openListRead(ctx, c, cfg)
	defer cancel()
	if diags.HasError() {
		return nil, diags
	}
	t, more := d.target(ctx, c, cfg, in)
	diags.Append(more...)
	if diags.HasError() {
		return nil, diags
	}
	state, more := readList(ctx, c, cfg.Raw, in, t, d.encoder)
	return state, append(diags, more...)
}

func (d *listDataSource) prepareDirect(typ tftypes.Type) (err error) {
	d.encoder, err = liststate.EncoderFor(typ, recordsAttribute, genericType.stateFields())
	return err
}

// Read is not where the provider server reads this data source: it
// answers ReadDataSource itself with readDirect's state (server.go). This
// adapter serves whoever runs the provider through providerserver alone.
func (d *listDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readThroughDirect(ctx, d, d.store, req, resp)
}

// listPathValidator checks path at plan time, with the client's rules.
type listPathValidator struct{}

func (listPathValidator) Description(context.Context) string {
	return "a list endpoint's path on the configured service, such as \"/v2/customers\""
}

func (v listPathValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (listPathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := commerce.ValidateListPath(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid path", err.Error()+".")
	}
}

// knownPathsNote lists the paths whose capabilities the provider knows.
func knownPathsNote() string {
	return "The provider knows what these endpoints can do: " + backticks(commerce.KnownPaths()) + "; any other is asked once per run (see below)."
}

// probeNote explains how an endpoint the provider does not know is listed.
func probeNote() string {
	limit := thousands(commerce.OffsetLimit)
	return "**How it lists.** For a path in the provider's capability table (" + backticks(commerce.KnownPaths()) + ") it lists exactly as the typed data sources do. " +
		"For any other path it first asks the service, with at most two requests once per run: whether the endpoint sorts by `created_at` (a refusal, or a first page out of order, means no) " +
		"and whether it filters `created_at` by range. Where both hold, it reads keyset windows on `created_at`, past the offset limit. " +
		"Otherwise it reads offset pages in the service's own order and sorts the records itself: complete up to " + limit + " matches; " +
		"beyond that no request can reach further records, and the read fails naming the count and the limit, so that a filter can narrow it."
}
