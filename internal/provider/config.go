package provider

import "github.com/hashicorp/terraform-plugin-framework/types"

// The provider block as Terraform hands it over, the environment variables
// each attribute falls back to, and what Configure resolves from both.

// Environment variables the provider reads when an attribute is not set.
const (
	envClientID     = "COMMERCE_CLIENT_ID"
	envClientSecret = "COMMERCE_CLIENT_SECRET"
	envBaseURL      = "COMMERCE_BASE_URL"
	envAuthURL      = "COMMERCE_AUTH_URL"
	envRateLimit    = "COMMERCE_RATE_LIMIT"
	envCacheDir     = "COMMERCE_CACHE_DIR"
	envCacheMaxMB   = "COMMERCE_CACHE_MAX_MB"
)

// providerTypeName prefixes the names of the data sources.
const providerTypeName = "commerce"

type providerModel struct {
	ClientID            types.String  `tfsdk:"client_id"`
	ClientSecret        types.String  `tfsdk:"client_secret"`
	BaseURL             types.String  `tfsdk:"base_url"`
	AuthURL             types.String  `tfsdk:"auth_url"`
	PageSize            types.Int64   `tfsdk:"page_size"`
	MaxParallelRequests types.Int64   `tfsdk:"max_parallel_requests"`
	RateLimit           types.Float64 `tfsdk:"rate_limit"`
	MaxRetries          types.Int64   `tfsdk:"max_retries"`
	RequestTimeout      types.String  `tfsdk:"request_timeout"`
	CacheDir            types.String  `tfsdk:"cache_dir"`
	CacheMaxMB          types.Int64   `tfsdk:"cache_max_mb"`
}

// resolvedConfig is the provider's values after environment fallbacks.
type resolvedConfig struct {
	clientID, clientSecret, baseURL, authURL string
}
