package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

// defaultMinLifetime is how long a token handed out by commerce_access_token
// stays valid at least, unless min_lifetime says otherwise: enough for the
// scripts and provider calls of a typical apply.
const defaultMinLifetime = 10 * time.Minute

// accessTokenResource is the ephemeral commerce_access_token: the
// provider's own access token, for the tools beside it in the same run,
// never written to plan or state.
type accessTokenResource struct {
	store *configuredStore
}

var _ ephemeral.EphemeralResourceWithConfigure = (*accessTokenResource)(nil)

// newAccessTokenEphemeralResource is commerce_access_token.
func newAccessTokenEphemeralResource() ephemeral.EphemeralResource { return &accessTokenResource{} }

type accessTokenModel struct {
	MinLifetime types.String `tfsdk:"min_lifetime"`
	AccessToken types.String `tfsdk:"access_token"`
	TokenType   types.String `tfsdk:"token_type"`
	ExpiresAt   types.String `tfsdk:"expires_at"`
	ExpiresIn   types.Int64  `tfsdk:"expires_in"`
}

func (r *accessTokenResource) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_access_token"
}

func (r *accessTokenResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The provider's access token for the service, for the tools beside the provider in the same run: a provisioner or script that calls an endpoint " +
			"this provider does not model, or another provider configured with a bearer token. It is the token the provider's data sources use " +
			"(the same credentials, `auth_url` and cache: opening it costs no request while the cached token is fresh), and as an ephemeral value " +
			"it is never written to the plan or the state. Needs Terraform 1.10 or later, or OpenTofu 1.11 or later.\n\n" +
			"The service documents no way to revoke a token: it stays valid until `expires_at`, also after the run. Hand it only to what needs it, " +
			"and keep it out of command lines and logs (pass it in an environment variable).",
		Attributes: map[string]schema.Attribute{
			"min_lifetime": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("How long the token must stay valid at least, as a duration such as `10m`; a cached token with less left is replaced by a new one. "+
					"Defaults to `%s`. Terraform cannot renew a client-credentials token during a run, so set it to the longest the run's tools need the token. "+
					"It cannot exceed the lifetime the service gives its tokens (an hour by default).", defaultMinLifetime),
				Validators: []validator.String{durationValidator{}},
			},
			"access_token": schema.StringAttribute{
				Computed:            true,
				Sensitive:           true,
				MarkdownDescription: "The access token, to send as `Authorization: Bearer <access_token>`.",
			},
			"token_type": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The token's type as the service names it: `Bearer`.",
			},
			"expires_at": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "When the token expires, in RFC 3339 (UTC); null when the service gave no lifetime.",
			},
			"expires_in": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Seconds the token had left when it was opened; null when the service gave no lifetime.",
			},
		},
	}
}

func (r *accessTokenResource) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	resp.Diagnostics.Append(configureStore(req.ProviderData, &r.store)...)
}

func (r *accessTokenResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m accessTokenModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.store == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider was not configured before commerce_access_token was opened; this is a bug in Terraform or the provider, please report it.")
		return
	}
	minLifetime := defaultMinLifetime
	if !m.MinLifetime.IsNull() {
		// The validator checked it.
		minLifetime, _ = time.ParseDuration(m.MinLifetime.ValueString())
	}
	tok, err := r.store.transport.AccessToken(ctx, minLifetime)
	var short *client.TokenLifetimeError
	switch {
	case errors.As(err, &short):
		resp.Diagnostics.AddAttributeError(path.Root("min_lifetime"), "Access token lives shorter than min_lifetime",
			fmt.Sprintf("min_lifetime is %s, but %v. Lower min_lifetime, or open the token closer to where it is used.", minLifetime, err))
		return
	case err != nil:
		resp.Diagnostics.Append(errorDiagnostic(ctx, "open commerce_access_token", err))
		return
	}
	m.AccessToken = types.StringValue(tok.Value)
	m.TokenType = types.StringValue(tok.Type)
	m.ExpiresAt, m.ExpiresIn = types.StringNull(), types.Int64Null()
	if !tok.Expiry.IsZero() {
		m.ExpiresAt = types.StringValue(tok.Expiry.UTC().Format(time.RFC3339))
		m.ExpiresIn = types.Int64Value(int64(time.Until(tok.Expiry).Seconds()))
	}
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}
