package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// storeDataSource is commerce_store: the store behind the provider's
// credentials, so that a pipeline can check which store it plans against
// before it trusts a plan (a wrong store, or an emulator, plans like the
// right one).
type storeDataSource struct {
	store *configuredStore
}

var _ datasource.DataSourceWithConfigure = (*storeDataSource)(nil)

// newStoreDataSource is commerce_store.
func newStoreDataSource() datasource.DataSource { return &storeDataSource{} }

// storeModel is commerce_store's configuration and state.
type storeModel struct {
	ID              types.String   `tfsdk:"id"`
	Name            types.String   `tfsdk:"name"`
	PageLength      types.Int64    `tfsdk:"page_length"`
	PageOffsetLimit types.Int64    `tfsdk:"page_offset_limit"`
	FilterLimit     types.Int64    `tfsdk:"filter_limit"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}

func (d *storeDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_store"
}

func (d *storeDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	limit := func(what string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true,
			MarkdownDescription: what + " Null if the settings do not say."}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("The store behind the provider's credentials: its id from the settings (`GET %s`), its name from the store "+
			"(`GET /v2/stores/{id}`), and the limits its settings put on lists. Two requests per read. Check `id` in a pipeline before trusting "+
			"a plan: a plan against the wrong store, or against an emulator, otherwise looks exactly like one against the right store.", commerce.SettingsPath),
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The store's id, as the settings give it. It is the same for every key of the store."},
			"name": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The store's name. Null, with a warning, when the credentials have no access to the store endpoint (the service answers 403 or 404): `id` is then the store's only name."},
			"page_length":       limit("Records per page of a list request without `page[limit]` (the store's `page_length` setting; the provider always sends `page[limit]`)."),
			"page_offset_limit": limit("The largest `page[offset]` the store serves (`page_offset_limit`, 10,000 by default); the provider lists past it."),
			"filter_limit":      limit("The most terms a filter may have (`filter_limit`, 10 by default)."),
		},
		Blocks: map[string]schema.Block{"timeouts": readTimeoutBlock(ctx)},
	}
}

func (d *storeDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	resp.Diagnostics.Append(configureStore(req.ProviderData, &d.store)...)
}

// Read asks the settings for the store's id and limits, then the store
// endpoint for its name.
func (d *storeDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	coalesce.Arrive(ctx) // shares no listing: nobody need wait for it
	var m storeModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	ctx, cancel, diags := withReadTimeout(ctx, req.Config)
	defer cancel()
	resp.Diagnostics.Append(diags...)
	if d.store == nil && !resp.Diagnostics.HasError() {
		resp.Diagnostics.AddError("Provider not configured", "The provider was not configured before commerce_store was read; this is a bug in Terraform or the provider, please report it.")
	}
	if resp.Diagnostics.HasError() {
		return
	}
	read := d.store.startRead(storeEndpoint)
	warnings, failed, err := readStore(ctx, read.engine, &m)
	if err = read.finishLookup(ctx, err); err != nil {
		resp.Diagnostics.Append(errorDiagnostic(ctx, failed, err))
		return
	}
	resp.Diagnostics.Append(warnings...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// readStore fills m from the settings (the store's id and limits) and the
// store endpoint (its name). A key that may not read the store endpoint
// (403, 404) leaves the name null, with a warning: the id says which
// store it is. failed names the request that failed, for err's
// diagnostic.
func readStore(ctx context.Context, e *listing.Engine, m *storeModel) (warnings diag.Diagnostics, failed string, err error) {
	settings, err := listing.LookupSettings(ctx, e)
	if err != nil {
		return nil, "read the store's settings (" + commerce.SettingsPath + ")", err
	}
	m.ID = types.StringValue(settings.ID)
	m.PageLength, m.PageOffsetLimit, m.FilterLimit = knownLimit(settings.PageLength), knownLimit(settings.PageOffsetLimit), knownLimit(settings.FilterLimit)
	name, err := listing.LookupStoreName(ctx, e, settings.ID)
	switch {
	case client.Forbidden(err) || client.NotFound(err):
		m.Name = types.StringNull()
		warnings.AddAttributeWarning(path.Root("name"), "Store name not known",
			fmt.Sprintf("The store's id is %s, but the service did not give its name: %v\n\nThe credentials have no access to the store endpoint. Compare id instead of name, or use a key of the store that may read it.", settings.ID, err))
	case err != nil:
		return nil, "read the store's name (" + commerce.StorePath(settings.ID) + ")", err
	default:
		m.Name = types.StringValue(name)
	}
	return warnings, "", nil
}

// storeEndpoint names the store's read in its log lines.
var storeEndpoint = commerce.Endpoint{Name: "store", Singular: "store", Path: commerce.SettingsPath}

// knownLimit is a limit from the settings, null when they do not carry it.
func knownLimit(n int) types.Int64 {
	if n <= 0 {
		return types.Int64Null()
	}
	return types.Int64Value(int64(n))
}
