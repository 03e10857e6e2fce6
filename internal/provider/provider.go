package provider

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// maxParallelRequestsLimit bounds max_parallel_requests: beyond it a store
// sees a burst that looks like abuse, and listing gets no faster.
const maxParallelRequestsLimit = 64

var _ provider.ProviderWithValidateConfig = (*commerceProvider)(nil)
var _ provider.ProviderWithEphemeralResources = (*commerceProvider)(nil)

type commerceProvider struct {
	version string
	// configured is the client Configure made, for the server's direct
	// reads (see NewServer); the framework hands it to data sources itself.
	configured atomic.Pointer[configuredStore]
	// announced holds the data source reads Terraform has announced by
	// validating their configuration and not yet sent (server.go), so
	// that reads of one listing wait for each other only while some are
	// on their way.
	announced coalesce.Announced
}

func (p *commerceProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = providerTypeName
	resp.Version = p.version
}

func (p *commerceProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads orders, files, accounts and any other list endpoint from the commerce service with OAuth2 client credentials. " +
			"Every setting can also come from an environment variable, so that credentials stay out of configuration.",
		Attributes: map[string]schema.Attribute{
			"client_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Client id of the application key. Falls back to `" + envClientID + "`. Required from one of the two.",
			},
			"client_secret": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "Client secret of the application key. Falls back to `" + envClientSecret + "`; prefer the variable, so that the secret stays out of configuration files. Required from one of the two.",
			},
			"base_url": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Address of the service, e.g. `https://api.example.com`; resources are read below `base_url` + `/v2`. Falls back to `" + envBaseURL + "`. Required from one of the two. " +
					"Must be `https`, except for loopback hosts (`127.0.0.1`, `::1`, `localhost`) such as the local emulator. " +
					"The vendor's deprecated `https://api.moltin.com` gets a warning naming the regional addresses (`https://euwest.api.elasticpath.com`, `https://useast.api.elasticpath.com`).",
			},
			"auth_url": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Address of the authorization service; the token is requested from `auth_url` + `/oauth/access_token`. Falls back to `" + envAuthURL + "`, then to `base_url`. " +
					"The client secret is sent here, so the same `https` rule applies, and a loopback `auth_url` with a `base_url` that is not (or the reverse) is refused before anything is sent: usually an emulator variable left set.",
			},
			"page_size": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Records per page request (`page[limit]`), 1 to %d. Defaults to %d, the service's maximum, which needs the fewest requests.", commerce.MaxPageSize, commerce.DefaultPageSize),
				Validators:          []validator.Int64{int64validator.Between(1, commerce.MaxPageSize)},
			},
			"max_parallel_requests": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Most page requests in flight at once while listing, 1 to %d. Defaults to %d. ", maxParallelRequestsLimit, client.DefaultMaxParallelRequests) +
					"A store far away needs more requests in flight for the same rate (100 requests/s at 300 ms takes 30). " +
					"Until the store first answers `429 Too Many Requests`, the provider sends in any second at most what the store has accepted in one, plus 4% of the requests its reads expect, so that a store whose limit it has not met refuses few; " +
					"after a `429` it halves its parallelism and grows it back slowly, and the learned request budget paces every request, so the default also works on stores with low rate limits. " +
					"Set it lower to keep the provider to fewer connections.",
				Validators: []validator.Int64{int64validator.Between(1, maxParallelRequestsLimit)},
			},
			"rate_limit": schema.Float64Attribute{
				Optional: true,
				MarkdownDescription: "Hard ceiling on requests per second from this provider to the store, token requests included, shared by every data source of the run. Falls back to `" + envRateLimit + "`. " +
					"Unset, the provider lists as fast as `max_parallel_requests` and its probe of the store's limit allow until the store answers `429`, then paces all its requests a little below the rate the store accepted, and climbs back while it accepts more. " +
					"Set it below the store's limit (25 requests/s on a development store, 100 on a production one) to leave room for the storefront, e.g. `10` on a development store. " +
					"Set, it is also the pace the provider starts at: unset, it sends at most 20 requests in a second until the store has shown it takes more.",
				Validators: []validator.Float64{float64validator.AtLeast(0.01)},
			},
			"max_retries": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Retries of a request that failed with 500, 502, 503, 504 or a network error, with exponential back-off that honours `Retry-After`. 0 to 20; defaults to %d. "+
					"A `429 Too Many Requests` is no failure and uses up no retry: the request goes again at the pace the store allows, until the store has accepted none of the provider's requests for %s or the read's timeout ends.", client.DefaultMaxRetries, client.DefaultThrottlePatience),
				Validators: []validator.Int64{int64validator.Between(0, 20)},
			},
			"request_timeout": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Time one request attempt may take, as a Go duration such as `30s` or `2m`. Defaults to `%s`. A whole listing is bounded by the data source's `timeouts.read` instead.", client.DefaultRequestTimeout),
				Validators:          []validator.String{durationValidator{}},
			},
			"cache_dir": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Folder for an encrypted cache of list results, so that a later plan asks the store only what changed since the last one (see the " +
					"[How listing works](guides/how-listing-works#a-cache-between-plans) guide). Falls back to `" + envCacheDir + "`; off when neither is set. " +
					"A leading `~/` is the home folder; a relative path is relative to the folder Terraform runs in (where you run `terraform plan`, or its `-chdir`). " +
					"Created owner-only (0700) if missing. A folder other users can only read (0755) is used; one they can write is refused. " +
					"Entries are encrypted with a key derived from the client secret and kept at most " + cacheMaxAgeText + ". Delete the folder to clear it. " +
					"A folder that cannot be written is a warning, once per plan, and the plan reads in full.",
			},
			"cache_max_mb": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Bound on the cache folder's entries together, in MiB (1 to %d). Falls back to `%s`, then to %d. "+
					"The entries used least recently are removed first; a single list larger than the bound is read and not cached (said at INFO).", maxCacheMaxMB, envCacheMaxMB, defaultCacheMaxMB),
				Validators: []validator.Int64{int64validator.Between(1, maxCacheMaxMB)},
			},
		},
	}
}

// ValidateConfig checks what can be checked without the service, for
// `terraform validate` in pipelines. Unknown values are left to Configure.
func (p *commerceProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, u := range []struct {
		attr string
		env  string
		val  types.String
	}{{"base_url", envBaseURL, cfg.BaseURL}, {"auth_url", envAuthURL, cfg.AuthURL}} {
		if u.val.IsNull() || u.val.IsUnknown() {
			continue
		}
		if _, err := client.NormalizeServiceURL(u.val.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root(u.attr), "Invalid "+u.attr,
				fmt.Sprintf("%s %v. (The same rule applies to the %s environment variable.)", u.attr, err, u.env))
		}
	}
}

func (p *commerceProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s, ok := p.resolve(cfg, resp)
	resp.Diagnostics.Append(unknownTuning(cfg)...)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	ccfg, lopts, diags := p.serviceConfig(cfg, s, req.TerraformVersion)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	disk, diags := openCache(ctx, cfg, s)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	ropts := reads.Options{Announced: &p.announced}
	if disk != nil {
		ropts.Snapshots = disk
	}
	c, err := newConfiguredStore(ccfg, lopts, ropts)
	if err != nil {
		resp.Diagnostics.AddError("Invalid provider configuration", err.Error())
		return
	}
	c.cache = disk
	// Fetch the token before any read: every read waits for it anyway, and
	// credentials the store refuses (or an auth_url that never answers,
	// after the transport's retries) are one error of the plan, not the
	// same error once per data source. Only a fetch that outlasts
	// request_timeout is left to the reads, which ask again.
	if diags := authenticate(ctx, c, ccfg.RequestTimeout); diags.HasError() {
		resp.Diagnostics.Append(diags...)
		return
	}
	p.configured.Store(c)
	resp.DataSourceData = c
	resp.ResourceData = c
	resp.EphemeralResourceData = c
}

// authenticate fetches the access token for c within timeout: the error
// that ends Configure, if the store refused the credentials or could not
// be reached; nothing if the time ran out first.
func authenticate(ctx context.Context, c *configuredStore, timeout time.Duration) diag.Diagnostics {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := c.transport.Authenticate(actx)
	switch {
	case err == nil:
		return nil
	case actx.Err() != nil && ctx.Err() == nil:
		tflog.Debug(ctx, "no access token within request_timeout; the reads ask again", map[string]any{"error": err.Error()})
		return nil
	}
	return diag.Diagnostics{errorDiagnostic(ctx, "authenticate with the store", err)}
}

// unknownTuning reports the tuning settings that are unknown at plan time:
// the client is built once, before any of them could be known.
func unknownTuning(cfg providerModel) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, setting := range []struct {
		name  string
		value attr.Value
	}{
		{"page_size", cfg.PageSize}, {"max_parallel_requests", cfg.MaxParallelRequests}, {"rate_limit", cfg.RateLimit},
		{"max_retries", cfg.MaxRetries}, {"request_timeout", cfg.RequestTimeout}, {"cache_dir", cfg.CacheDir}, {"cache_max_mb", cfg.CacheMaxMB},
	} {
		if setting.value.IsUnknown() {
			diags.AddAttributeError(path.Root(setting.name), "Unknown "+setting.name,
				fmt.Sprintf("The provider cannot be configured because %s depends on a value that is only known after apply. Set it to a value known at plan time.", setting.name))
		}
	}
	return diags
}

// serviceConfig is the transport's and the listing engine's configuration:
// the resolved settings, and the tuning attributes or their defaults.
func (p *commerceProvider) serviceConfig(cfg providerModel, s resolvedConfig, terraformVersion string) (client.Config, listing.Options, diag.Diagnostics) {
	ccfg := client.Config{
		BaseURL:             s.baseURL,
		AuthURL:             s.authURL,
		ClientID:            s.clientID,
		ClientSecret:        s.clientSecret,
		MaxParallelRequests: int(valueOr(cfg.MaxParallelRequests, client.DefaultMaxParallelRequests)),
		MaxRetries:          int(valueOr(cfg.MaxRetries, client.DefaultMaxRetries)),
		RequestTimeout:      client.DefaultRequestTimeout,
		UserAgent:           fmt.Sprintf("terraform-provider-commerce/%s (+terraform %s)", p.version, terraformVersion),
		Logger:              tfLogger{},
	}
	if !cfg.RequestTimeout.IsNull() {
		ccfg.RequestTimeout, _ = time.ParseDuration(cfg.RequestTimeout.ValueString()) // validated by the schema
	}
	var diags diag.Diagnostics
	ccfg.RateLimit, diags = rateLimit(cfg.RateLimit)
	lopts := listing.Options{
		PageSize:            int(valueOr(cfg.PageSize, commerce.DefaultPageSize)),
		MaxParallelRequests: ccfg.MaxParallelRequests,
		Logger:              ccfg.Logger,
	}
	return ccfg, lopts, diags
}

// rateLimit is rate_limit, else its environment variable, which no schema
// validator sees; 0 means no ceiling.
func rateLimit(v types.Float64) (float64, diag.Diagnostics) {
	var diags diag.Diagnostics
	env := os.Getenv(envRateLimit)
	switch {
	case !v.IsNull():
		return v.ValueFloat64(), diags
	case env == "":
		return 0, diags
	}
	limit, err := strconv.ParseFloat(env, 64)
	if err != nil || limit <= 0 {
		diags.AddAttributeError(path.Root("rate_limit"), "Invalid rate_limit",
			fmt.Sprintf("%s=%q is not a positive number of requests per second, e.g. 25. Fix or unset the variable, or set rate_limit in the provider block.", envRateLimit, env))
	}
	return limit, diags
}

// resolve applies the environment fallbacks and reports what is missing or
// malformed against the attribute and its variable.
func (p *commerceProvider) resolve(cfg providerModel, resp *provider.ConfigureResponse) (resolvedConfig, bool) {
	var s resolvedConfig
	// from says where each value came from, for messages.
	from := map[string]string{}
	pick := func(attr, env string, v types.String, required bool) string {
		if v.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Unknown "+attr,
				fmt.Sprintf("The provider cannot be configured because %s depends on a value that is only known after apply. Set it to a value known at plan time, or use the %s environment variable.", attr, env))
			return ""
		}
		if !v.IsNull() {
			if v.ValueString() == "" && required {
				resp.Diagnostics.AddAttributeError(path.Root(attr), "Empty "+attr,
					fmt.Sprintf("%s is set to an empty string. Give it a value, or remove it and set the %s environment variable.", attr, env))
			}
			from[attr] = "the " + attr + " attribute"
			return v.ValueString()
		}
		val := os.Getenv(env)
		if val == "" && required {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Missing "+attr,
				fmt.Sprintf("The provider needs %s. Set %s in the provider \"commerce\" block, or set the %s environment variable.", attr, attr, env))
		}
		from[attr] = "the " + env + " environment variable"
		return val
	}
	s.clientID = pick("client_id", envClientID, cfg.ClientID, true)
	s.clientSecret = pick("client_secret", envClientSecret, cfg.ClientSecret, true)
	s.baseURL = pick("base_url", envBaseURL, cfg.BaseURL, true)
	s.authURL = pick("auth_url", envAuthURL, cfg.AuthURL, false)
	if resp.Diagnostics.HasError() {
		return s, false
	}
	checkURL := func(attr, raw string) string {
		norm, err := client.NormalizeServiceURL(raw)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Invalid "+attr,
				fmt.Sprintf("%s (from %s) %v.", attr, from[attr], err))
		}
		return norm
	}
	s.baseURL = checkURL("base_url", s.baseURL)
	if s.authURL != "" {
		s.authURL = checkURL("auth_url", s.authURL)
	}
	if !resp.Diagnostics.HasError() && s.authURL != "" {
		resp.Diagnostics.Append(authURLElsewhere(s, from)...)
	}
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(deprecatedHost(s, from)...)
	}
	return s, !resp.Diagnostics.HasError()
}

// deprecatedHost warns of the service's old address, api.moltin.com: the
// vendor deprecated it for its regional addresses and its own CLI warns
// the same way. It still answers, so this is a warning, not an error.
func deprecatedHost(s resolvedConfig, from map[string]string) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, attr := range []string{"base_url", "auth_url"} {
		u := s.baseURL
		if attr == "auth_url" {
			u = s.authURL
		}
		if hostOf(u) == "api.moltin.com" {
			diags.AddAttributeWarning(path.Root(attr), "Deprecated service address",
				fmt.Sprintf("%s is %s (from %s): the vendor has deprecated api.moltin.com. Use your store's regional address instead, "+
					"https://euwest.api.elasticpath.com (the region api.moltin.com served) or https://useast.api.elasticpath.com, as Commerce Manager shows it.",
					attr, u, from[attr]))
		}
	}
	return diags
}

// authURLElsewhere checks where the client secret goes (auth_url) against
// where the records are read (base_url). One on this machine's loopback
// address and the other not is refused before anything is sent: it is
// almost always a variable left over from the emulator, which would send
// a real store's secret to a local port, or the emulator's to a real
// store. Two other hosts are only warned of; two loopback ports are one
// machine.
func authURLElsewhere(s resolvedConfig, from map[string]string) diag.Diagnostics {
	var diags diag.Diagnostics
	base, auth := hostOf(s.baseURL), hostOf(s.authURL)
	switch {
	case client.IsLoopback(s.baseURL) != client.IsLoopback(s.authURL):
		diags.AddAttributeError(path.Root("auth_url"), "auth_url and base_url point at different machines",
			fmt.Sprintf("auth_url is %s (from %s) and base_url is %s (from %s): one is this machine's loopback address and the other is not, "+
				"so the client secret would go to %s while records are read from %s. Nothing was sent. This is usually a variable left over from the emulator "+
				"(it prints COMMERCE_AUTH_URL with the others): unset the one that names the emulator, or set both to the same service.",
				s.authURL, from["auth_url"], s.baseURL, from["base_url"], auth, base))
	case base != auth && !client.IsLoopback(s.baseURL): // two local ports are one machine
		diags.AddAttributeWarning(path.Root("auth_url"), "auth_url is on another host",
			fmt.Sprintf("The client secret is sent to %s (auth_url, from %s), while resources are read from %s (base_url, from %s). Make sure both belong to your service.",
				auth, from["auth_url"], base, from["base_url"]))
	}
	return diags
}

func hostOf(u string) string {
	rest, ok := strings.CutPrefix(u, "https://")
	if !ok {
		rest, _ = strings.CutPrefix(u, "http://")
	}
	host, _, _ := strings.Cut(rest, "/")
	return strings.ToLower(host)
}

func valueOr(v types.Int64, def int64) int64 {
	if v.IsNull() {
		return def
	}
	return v.ValueInt64()
}

func (p *commerceProvider) Resources(context.Context) []func() resource.Resource { return nil }

// EphemeralResources are read by Terraform 1.10 and later (OpenTofu 1.11);
// older CLIs never ask for them.
func (p *commerceProvider) EphemeralResources(context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{newAccessTokenEphemeralResource}
}

func (p *commerceProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newOrdersDataSource, newFilesDataSource, newAccountsDataSource, newListDataSource,
		newOrderDataSource, newFileDataSource, newAccountDataSource, newRecordDataSource, newStoreDataSource,
	}
}
