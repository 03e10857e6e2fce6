package provider

import (
	"context"
	"fmt"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// typedListDataSource is the one implementation behind commerce_orders,
// commerce_files and commerce_accounts.
type typedListDataSource[T commerce.Record] struct {
	rt    recordType[T]
	store *configuredStore
	// encoder writes the records' state for readDirect; set by
	// prepareDirect, from the schema.
	encoder liststate.Encoder[T]
}

var _ datasource.DataSourceWithValidateConfig = (*typedListDataSource[commerce.Order])(nil)

func (d *typedListDataSource[T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.rt.kind.Name
}

func (d *typedListDataSource[T]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	r := d.rt.kind.Endpoint
	attrs := d.arguments()
	attrs["ids"] = schema.ListAttribute{
		Computed:            true,
		ElementType:         types.StringType,
		MarkdownDescription: fmt.Sprintf("Ids of the matching %s, in result order.", r.Name),
	}
	attrs["total"] = schema.Int64Attribute{
		Computed:            true,
		MarkdownDescription: fmt.Sprintf("How many %s match the filter: their number when every match is listed, whatever the service's own count says. With `max_results` cutting the list, the service's count where it counts exactly when asked (`page[total_method]=exact`); `null` where it does not, since a lazy count (a lower bound or an estimate) is not the number of matches. Can exceed the length of `ids` when `max_results` is set.", r.Name),
	}
	attrs[r.Name] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: fmt.Sprintf("The matching %s, in result order.", r.Name),
		NestedObject:        schema.NestedAttributeObject{Attributes: d.rt.schemaAttributes(nil)},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists every %s that matches a filter, in the requested order, however many there are: "+
			"the provider pages through the whole result set, also past the service's %s-record offset limit.\n\n%s", r.Singular, thousands(commerce.OffsetLimit), howListed(r)),
		Attributes: attrs,
		Blocks:     map[string]schema.Block{"timeouts": readTimeoutBlock(ctx)},
	}
}

// arguments are the attributes a configuration sets.
func (d *typedListDataSource[T]) arguments() map[string]schema.Attribute {
	r := d.rt.kind.Endpoint
	sorts := make([]string, 0, 2*len(r.SortAttributes()))
	for _, s := range r.SortAttributes() {
		sorts = append(sorts, s, "-"+s)
	}
	attrs := commonListArguments(r.Name, r.FilterAttributeNames()[0])
	attrs["filter"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: fmt.Sprintf("Filter expression in the service's grammar: `op(attribute,value)` terms joined by `:` (AND), e.g. `%s`. "+
			"Checked at plan time against what the service accepts: %s. An attribute not listed is an error, which suggests the closest listed one.", d.rt.example, filterTable(r)),
	}
	attrs["sort"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Order of the results: " + backticks(sorts) + "; a leading `-` means descending. Defaults to `" + r.DefaultSort + "` (oldest first). " + sortNote(r),
		Validators:          []validator.String{stringvalidator.OneOf(sorts...)},
	}
	attrs["include_json"] = schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "Also keep each record's raw JSON in its `json` attribute. Defaults to false, which keeps the state small. " +
			"A state past 32 MiB with it gets a warning: Terraform holds it in memory several times over.",
	}
	return attrs
}

// commonListArguments are the arguments of every list data source but
// filter, sort and include_json. records names the attribute that holds the
// records; whereExample is an attribute for where's description.
func commonListArguments(records, whereExample string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"where": whereAttribute(whereExample),
		"max_results": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Stop after this many records, in the `sort` order. Defaults to all of them. The listing stops as soon as it has them where the service gives that order; " +
				"where it cannot, the provider reads every match to sort them and says so in a warning, with the requests it took.",
			Validators: []validator.Int64{int64validator.AtLeast(1)},
		},
		"include_records": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("Fill `%s` with the records. Defaults to true. Set it to false when `ids` (and `total`) are all you need: "+
				"the state then holds one string per record instead of a whole object, which for 100,000 records saves most of the provider's and Terraform's memory and time.", records),
		},
		"consistency_buffer": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Leave out records created less than this long before the read started, as a duration such as `60s` or `5m`. " +
				"The service is eventually consistent: records created in the last moments may not all be visible yet, so a list that includes them can differ between two runs. " +
				"With a buffer the list is complete up to a fixed point in time. Defaults to none: every record the service shows. " +
				"Sent to the service as `lt(created_at,...)` where it filters on `created_at`, applied by the provider otherwise; `total` counts what is left.",
			Validators: []validator.String{durationValidator{}},
		},
	}
}

func whereAttribute(exampleAttribute string) schema.Attribute {
	ops := make([]string, 0, 7)
	for _, o := range filter.Ops() {
		ops = append(ops, string(o))
	}
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Conditions the provider turns into filter terms for you, quoting values so that any text (commas, parentheses, quotes, `*`, non-ASCII) matches exactly. " +
			"AND-ed with each other and with `filter`.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"attribute": schema.StringAttribute{Required: true, MarkdownDescription: "Attribute to compare, e.g. `" + exampleAttribute + "`."},
			// Checked by whereTerm, which suggests the operator meant; a
			// OneOf validator would report the same mistake a second time.
			"op": schema.StringAttribute{Required: true,
				MarkdownDescription: "Operator: " + backticks(ops) + ". `like` matches `*` as any run of characters; `in` takes `values`."},
			"value":  schema.StringAttribute{Optional: true, MarkdownDescription: "The value, for every operator except `in`."},
			"values": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "The values, for `in`."},
		}},
	}
}

func (d *typedListDataSource[T]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	resp.Diagnostics.Append(configureStore(req.ProviderData, &d.store)...)
}

func (d *typedListDataSource[T]) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	in, diags := getListInputs(ctx, req.Config, true)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	expr, known, diags := in.expression(ctx, &d.rt.kind.Endpoint, d.rt.example)
	resp.Diagnostics.Append(diags...)
	if known && !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(in.checkLength(expr, d.rt.kind.Path, d.rt.kind.DefaultSort)...)
	}
}

// target is what every read of the data source lists.
func (d *typedListDataSource[T]) target() listTarget[T] {
	return listTarget[T]{kind: d.rt.kind, rules: &d.rt.kind.Endpoint, example: d.rt.example, records: d.rt.kind.Name}
}

// readDirect reads cfg into its msgpack state (see list_read.go).
func (d *typedListDataSource[T]) readDirect(ctx context.Context, c *configuredStore, cfg tfsdk.Config) ([]byte, diag.Diagnostics) {
	ctx, cancel, in, diags := openListRead(ctx, c, cfg)
	defer cancel()
	if diags.HasError() {
		return nil, diags
	}
	state, more := readList(ctx, c, cfg.Raw, in, d.target(), d.encoder)
	return state, append(diags, more...)
}

func (d *typedListDataSource[T]) prepareDirect(typ tftypes.Type) (err error) {
	d.encoder, err = liststate.EncoderFor(typ, d.rt.kind.Name, d.rt.stateFields())
	return err
}

// Read is not where the provider server reads this data source: it
// answers ReadDataSource itself with readDirect's state (server.go). This
// adapter serves whoever runs the provider through providerserver alone.
func (d *typedListDataSource[T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readThroughDirect(ctx, d, d.store, req, resp)
}

// field is one typed attribute of a record as Terraform sees it: its
// name and getter, from which the state is written (liststate.Field), and
// its description. Declaring them together keeps the schema and the state
// from drifting apart.
type field[T commerce.Record] struct {
	liststate.Field[T]
	description string
}

// stringField is a string attribute; the service's empty string is null.
func stringField[T commerce.Record](name, description string, get func(T) string) field[T] {
	return field[T]{Field: liststate.Field[T]{Name: name, String: get}, description: description}
}

// int64Field is a whole-number attribute; a nil value is null.
func int64Field[T commerce.Record](name, description string, get func(T) *int64) field[T] {
	return field[T]{Field: liststate.Field[T]{Name: name, Int: get}, description: description}
}

// boolField is a boolean attribute; a nil value is null.
func boolField[T commerce.Record](name, description string, get func(T) *bool) field[T] {
	return field[T]{Field: liststate.Field[T]{Name: name, Bool: get}, description: description}
}

// recordFields are the attributes every record has, then the given ones.
// The id is never null: the client refuses a record without one.
func recordFields[T commerce.Record](own ...field[T]) []field[T] {
	return append([]field[T]{
		stringField("id", "Identifier of the record.", func(rec T) string { return rec.Base().ID }),
		stringField("created_at", "When the record was created (ISO 8601, as the service reports it).", func(rec T) string { return rec.Base().CreatedAt }),
	}, own...)
}

// updatedAt is the last-update time of the record types that have one
// (files do not).
func updatedAt[T commerce.Record]() field[T] {
	return stringField("updated_at", "When the record was last updated (ISO 8601).", func(rec T) string { return rec.Base().UpdatedAt })
}

// recordType describes how one kind of record maps to Terraform: its
// attributes, and what identifies a record uniquely.
type recordType[T commerce.Record] struct {
	kind   commerce.Kind[T]
	fields []field[T] // from recordFields; without "json", which depends on include_json
	// lookupKeys are unique attributes a single-record data source can look
	// a record up by, besides id and filter.
	lookupKeys []string
	// example is a valid filter expression for messages and docs.
	example string
}

const jsonField = liststate.JSONAttribute

// stateFields are the fields as the list data sources' state writer takes
// them.
func (rt recordType[T]) stateFields() []liststate.Field[T] {
	out := make([]liststate.Field[T], len(rt.fields))
	for i, f := range rt.fields {
		out[i] = f.Field
	}
	return out
}

func (rt recordType[T]) schemaAttributes(optional map[string]bool) map[string]schema.Attribute {
	out := map[string]schema.Attribute{
		jsonField: schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The record exactly as the service sent it, as a JSON string, for fields the provider does not model (decode it with `jsondecode`). Null unless `include_json = true`, to keep the state small.",
		},
	}
	for _, f := range rt.fields {
		opt := optional[f.Name]
		switch {
		case f.Int != nil:
			out[f.Name] = schema.Int64Attribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		case f.Bool != nil:
			out[f.Name] = schema.BoolAttribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		default:
			out[f.Name] = schema.StringAttribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		}
	}
	return out
}

var orderType = recordType[commerce.Order]{
	kind: commerce.Orders,
	fields: recordFields(
		updatedAt[commerce.Order](),
		stringField("status", "Order status, e.g. `incomplete`, `processing`, `complete`, `cancelled`.", func(o commerce.Order) string { return o.Status }),
		stringField("payment", "Payment status, e.g. `unpaid`, `authorized`, `paid`, `refunded`.", func(o commerce.Order) string { return o.Payment }),
		stringField("shipping", "Shipping status, e.g. `unfulfilled`, `fulfilled`.", func(o commerce.Order) string { return o.Shipping }),
		stringField("order_number", "Human-facing order number.", func(o commerce.Order) string { return o.OrderNumber }),
		stringField("external_ref", "Reference of the order in another system.", func(o commerce.Order) string { return o.ExternalRef }),
		stringField("customer_name", "Name of the customer.", func(o commerce.Order) string { return o.CustomerName }),
		stringField("customer_email", "Email address of the customer.", func(o commerce.Order) string { return o.CustomerEmail }),
		stringField("customer_id", "Id of the customer who placed the order (`relationships.customer`); null for a guest order.", func(o commerce.Order) string { return o.CustomerID }),
		stringField("account_id", "Id of the account the order was placed for (`relationships.account`); null when it has none.", func(o commerce.Order) string { return o.AccountID }),
		stringField("currency", "Currency of the amounts, e.g. `USD`.", func(o commerce.Order) string { return o.Currency }),
		int64Field("amount_with_tax", "Order total including tax, in minor units of `currency` (cents); the service's `meta.display_price.with_tax.amount`, else `meta.with_tax.amount`.", func(o commerce.Order) *int64 { return o.AmountWithTax }),
		int64Field("amount_without_tax", "Order total before tax, in minor units of `currency`; the service's `meta.display_price.without_tax.amount`, else `meta.without_tax.amount`.", func(o commerce.Order) *int64 { return o.AmountWithoutTax }),
	),
	lookupKeys: []string{"order_number", "external_ref"},
	example:    "ge(created_at,2026-01-01T00:00:00.000Z):eq(status,complete)",
}

// newOrdersDataSource is commerce_orders.
func newOrdersDataSource() datasource.DataSource {
	return &typedListDataSource[commerce.Order]{rt: orderType}
}

var fileType = recordType[commerce.File]{
	kind: commerce.Files,
	fields: recordFields(
		stringField("file_name", "Name of the file.", func(f commerce.File) string { return f.FileName }),
		stringField("mime_type", "Media type, e.g. `image/png`.", func(f commerce.File) string { return f.MimeType }),
		int64Field("file_size", "Size in bytes.", func(f commerce.File) *int64 { return f.FileSize }),
		int64Field("width", "Width in pixels, for images; null otherwise (`meta.dimensions.width`).", func(f commerce.File) *int64 { return f.Width }),
		int64Field("height", "Height in pixels, for images; null otherwise (`meta.dimensions.height`).", func(f commerce.File) *int64 { return f.Height }),
		boolField("public", "Whether the file can be fetched without credentials (deprecated by the service).", func(f commerce.File) *bool { return f.Public }),
		stringField("href", "Address the file is served from (`link.href`).", func(f commerce.File) string { return f.Href }),
	),
	lookupKeys: []string{"file_name"},
	example:    "like(file_name,invoice-*):ge(file_size,1048576)",
}

// newFilesDataSource is commerce_files.
func newFilesDataSource() datasource.DataSource {
	return &typedListDataSource[commerce.File]{rt: fileType}
}

var accountType = recordType[commerce.Account]{
	kind: commerce.Accounts,
	fields: recordFields(
		updatedAt[commerce.Account](),
		stringField("name", "Name of the account.", func(a commerce.Account) string { return a.Name }),
		stringField("legal_name", "Legal name of the organisation behind the account.", func(a commerce.Account) string { return a.LegalName }),
		stringField("registration_id", "Company registration identifier.", func(a commerce.Account) string { return a.RegistrationID }),
		stringField("external_ref", "Reference of the account in another system.", func(a commerce.Account) string { return a.ExternalRef }),
		stringField("parent_id", "Id of the parent account; null for a top-level account.", func(a commerce.Account) string { return a.ParentID }),
	),
	lookupKeys: []string{"name", "legal_name", "registration_id"},
	example:    `eq(name,"Acme, Inc."):ge(created_at,2026-01-01T00:00:00.000Z)`,
}

// newAccountsDataSource is commerce_accounts.
func newAccountsDataSource() datasource.DataSource {
	return &typedListDataSource[commerce.Account]{rt: accountType}
}
