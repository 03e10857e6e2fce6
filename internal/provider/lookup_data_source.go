package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// lookupDataSource is the one implementation behind commerce_order,
// commerce_file and commerce_account: one record by id, by a unique
// attribute, or by a filter that must match exactly one record.
type lookupDataSource[T commerce.Record] struct {
	rt    recordType[T]
	store *configuredStore
}

var (
	_ datasource.DataSourceWithConfigure        = (*lookupDataSource[commerce.Order])(nil)
	_ datasource.DataSourceWithValidateConfig   = (*lookupDataSource[commerce.Order])(nil)
	_ datasource.DataSourceWithConfigValidators = (*lookupDataSource[commerce.Order])(nil)
)

// selectors are the arguments that pick the record: id, the unique keys,
// and filter. Exactly one is set.
func (d *lookupDataSource[T]) selectors() []string {
	return append(append([]string{"id"}, d.rt.lookupKeys...), "filter")
}

func (d *lookupDataSource[T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.rt.kind.Singular
}

func (d *lookupDataSource[T]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	r := d.rt.kind.Endpoint
	optional := map[string]bool{"id": true}
	for _, k := range d.rt.lookupKeys {
		optional[k] = true
	}
	attrs := d.rt.schemaAttributes(optional)
	attrs["id"] = schema.StringAttribute{Optional: true, Computed: true,
		MarkdownDescription: fmt.Sprintf("Id of the %s to read. One of %s must be set.", r.Singular, backticks(d.selectors()))}
	for _, k := range d.rt.lookupKeys {
		// Lookup keys are strings by construction of the record types.
		if a, ok := attrs[k].(schema.StringAttribute); ok {
			a.MarkdownDescription += fmt.Sprintf(" Set it to look the %s up by it: exactly one %s may match.", r.Singular, r.Singular)
			attrs[k] = a
		}
	}
	attrs["filter"] = schema.StringAttribute{Optional: true,
		MarkdownDescription: fmt.Sprintf("Filter expression that must match exactly one %s, e.g. `%s`. Same grammar as the `filter` of `commerce_%s`.", r.Singular, d.rt.example, r.Name)}
	attrs["include_json"] = schema.BoolAttribute{Optional: true,
		MarkdownDescription: "Also keep the record's raw JSON in `json`. Defaults to false."}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("Reads one %s: by `id`, by one of its unique attributes (%s), or by a `filter` that matches exactly one. "+
			"Finding none, or more than one, is an error that says what was searched.", r.Singular, backticks(d.rt.lookupKeys)),
		Attributes: attrs,
		Blocks:     map[string]schema.Block{"timeouts": readTimeoutBlock(ctx)},
	}
}

func (d *lookupDataSource[T]) ConfigValidators(context.Context) []datasource.ConfigValidator {
	var paths []path.Expression
	for _, s := range d.selectors() {
		paths = append(paths, path.MatchRoot(s))
	}
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(paths...)}
}

func (d *lookupDataSource[T]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	resp.Diagnostics.Append(configureStore(req.ProviderData, &d.store)...)
}

// selected returns the selector that is set and its value; ok is false
// while a selector is unknown.
func (d *lookupDataSource[T]) selected(ctx context.Context, cfg attributeGetter) (name, value string, ok bool, diags diag.Diagnostics) {
	for _, s := range d.selectors() {
		var v types.String
		diags.Append(cfg.GetAttribute(ctx, path.Root(s), &v)...)
		switch {
		case v.IsUnknown():
			return "", "", false, diags
		case v.IsNull():
			continue
		case v.ValueString() == "":
			diags.AddAttributeError(path.Root(s), "Empty "+s,
				fmt.Sprintf("%s is an empty string; give the value to look the %s up by.", s, d.rt.kind.Singular))
			return "", "", false, diags
		default:
			name, value = s, v.ValueString()
		}
	}
	return name, value, name != "", diags
}

func (d *lookupDataSource[T]) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	name, value, ok, diags := d.selected(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	if ok && name == "filter" {
		parsed, diags := checkFilterText(path.Root("filter"), value, &d.rt.kind.Endpoint, d.rt.example)
		resp.Diagnostics.Append(diags...)
		if !diags.HasError() {
			resp.Diagnostics.Append(checkRequestLength(path.Root("filter"), d.rt.kind.Path, parsed, d.rt.kind.DefaultSort)...)
		}
	}
}

// Read is the framework's Read: the server reads a lookup directly
// (readDirect), as it reads a list.
func (d *lookupDataSource[T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readThroughDirect(ctx, d, d.store, req, resp)
}

// prepareDirect checks at the server's start that the schema holds every
// field of the record type, as the state writes them.
func (d *lookupDataSource[T]) prepareDirect(typ tftypes.Type) error {
	return liststate.CheckRecordFields(typ, d.rt.stateFields())
}

// readDirect looks the one record up and writes the state: the
// configuration with the record's attributes, as liststate writes each
// record of a list.
func (d *lookupDataSource[T]) readDirect(ctx context.Context, c *configuredStore, cfg tfsdk.Config) ([]byte, diag.Diagnostics) {
	name, value, ok, diags := d.selected(ctx, cfg)
	var includeJSON types.Bool
	diags.Append(cfg.GetAttribute(ctx, path.Root("include_json"), &includeJSON)...)
	if diags.HasError() || !ok {
		return nil, diags
	}
	ctx, cancel, more := withReadTimeout(ctx, cfg)
	diags.Append(more...)
	defer cancel()
	if diags.HasError() {
		return nil, diags
	}
	var rec T
	if name == "id" {
		rec, more = d.byID(ctx, c, value, includeJSON.ValueBool())
	} else {
		rec, more = d.bySearch(ctx, c, name, value, includeJSON.ValueBool())
	}
	diags.Append(more...)
	if diags.HasError() {
		return nil, diags
	}
	state, err := liststate.RecordState(cfg.Raw, d.rt.stateFields(), rec, includeJSON.ValueBool())
	if err != nil {
		diags.AddError("Internal error", err.Error())
	}
	return state, diags
}

func (d *lookupDataSource[T]) byID(ctx context.Context, c *configuredStore, id string, includeJSON bool) (T, diag.Diagnostics) {
	var diags diag.Diagnostics
	r := d.rt.kind.Endpoint
	// A lookup by id shares nothing: the listings announced with it need
	// not wait for it.
	coalesce.Arrive(ctx)
	read := c.startRead(r)
	rec, err := listing.Lookup(ctx, read.engine, d.rt.kind, id, includeJSON)
	err = read.finishLookup(ctx, err)
	switch {
	case client.NotFound(err):
		diags.AddAttributeError(path.Root("id"), strings.ToUpper(r.Singular[:1])+r.Singular[1:]+" not found",
			fmt.Sprintf("No %s has id %q: %v", r.Singular, id, err))
	case err != nil:
		diags.Append(errorDiagnostic(ctx, "read "+r.Singular+" "+id, err))
	}
	return rec, diags
}

// bySearch finds the one record whose attribute name (a lookup key, or
// "filter" for a filter expression) matches value.
func (d *lookupDataSource[T]) bySearch(ctx context.Context, c *configuredStore, name, value string, includeJSON bool) (T, diag.Diagnostics) {
	expr, searched, diags := lookupFilter(name, value, &d.rt.kind.Endpoint, d.rt.example)
	if diags.HasError() {
		var zero T
		return zero, diags
	}
	return findOne(ctx, c, d.rt.kind, search{
		endpoint: d.rt.kind.Endpoint, attr: name, expr: expr, searched: searched, lister: "commerce_" + d.rt.kind.Name,
	}, includeJSON)
}

// search is a lookup of one record by a filter, and how messages name it.
type search struct {
	endpoint commerce.Endpoint
	attr     string        // the attribute the lookup is configured by: a lookup key, or "filter"
	expr     filter.Parsed // the filter sent
	searched string        // what was searched, for messages
	lister   string        // the data source that lists every match
}

// findOne is the one record of kind that matches s.expr, or the error
// that says the service has none or several.
func findOne[T commerce.Record](ctx context.Context, c *configuredStore, kind commerce.Kind[T], s search, includeJSON bool) (T, diag.Diagnostics) {
	var found []T
	// Two are enough to tell one match from several; total counts the rest.
	read := c.startRead(kind.Endpoint)
	res, err := reads.Read(ctx, read.reads, kind, listing.Query{Filter: s.expr, MaxResults: 2, IncludeJSON: includeJSON},
		listing.Reader[T]{Emit: func(t T) error { found = append(found, t); return nil }})
	err = read.finish(ctx, res, err)
	if err != nil {
		var zero T
		return zero, diag.Diagnostics{errorDiagnostic(ctx, fmt.Sprintf("look up the %s with %s", s.endpoint.RecordNoun(), s.searched), err)}
	}
	return onlyMatch(s, found, matchCount(res, len(found)))
}

// lookupFilter is the filter that searches for value: the expression itself
// for "filter" (checked and parsed, once), else an exact match on the
// attribute, quoted so that any text matches as written. searched says
// what was searched, for messages.
func lookupFilter(name, value string, r *commerce.Endpoint, example string) (filter.Parsed, string, diag.Diagnostics) {
	if name == "filter" {
		parsed, diags := checkFilterText(path.Root("filter"), value, r, example)
		return parsed, "the filter " + value, diags
	}
	return filter.Parsed{Terms: filter.Expr{filter.NewTerm(filter.Eq, name, value)}}, fmt.Sprintf("%s = %q", name, value), nil
}

// onlyMatch is the one record a search found, or the error that says it
// found none or several; matches says how many match, for the message.
func onlyMatch[T commerce.Record](s search, found []T, matches string) (T, diag.Diagnostics) {
	var zero T
	var diags diag.Diagnostics
	noun := s.endpoint.RecordNoun()
	switch {
	case len(found) == 0:
		diags.AddAttributeError(path.Root(s.attr), "No "+noun+" found",
			fmt.Sprintf("No %s matches %s (the service was asked for filter=%s). Check the value, including spaces and case.", noun, s.searched, s.expr.Text()))
		return zero, diags
	case len(found) > 1:
		diags.AddAttributeError(path.Root(s.attr), "More than one "+noun+" found",
			fmt.Sprintf("%s %s match %s, but this data source reads exactly one. Look it up by id or by a more specific key, or use %s to list them all.",
				matches, s.endpoint.Name, s.searched, s.lister))
		return zero, diags
	}
	return found[0], diags
}

// newOrderDataSource is commerce_order: one order by id, by a unique attribute, or by a filter.
func newOrderDataSource() datasource.DataSource {
	return &lookupDataSource[commerce.Order]{rt: orderType}
}

// newFileDataSource is commerce_file: one file by id, by a unique attribute, or by a filter.
func newFileDataSource() datasource.DataSource {
	return &lookupDataSource[commerce.File]{rt: fileType}
}

// newAccountDataSource is commerce_account: one account by id, by a unique attribute, or by a filter.
func newAccountDataSource() datasource.DataSource {
	return &lookupDataSource[commerce.Account]{rt: accountType}
}
