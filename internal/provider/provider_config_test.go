package provider

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// nullModel is a provider block that sets nothing.
func nullModel() providerModel {
	return providerModel{
		ClientID: types.StringNull(), ClientSecret: types.StringNull(), BaseURL: types.StringNull(), AuthURL: types.StringNull(),
		PageSize: types.Int64Null(), MaxParallelRequests: types.Int64Null(), RateLimit: types.Float64Null(),
		MaxRetries: types.Int64Null(), RequestTimeout: types.StringNull(),
	}
}

func TestResolve(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		edit  func(*providerModel)
		want  resolvedConfig
		diags []wantDiag
	}{
		{"attributes", nil, func(m *providerModel) {
			m.ClientID, m.ClientSecret, m.BaseURL = types.StringValue("id"), types.StringValue("secret"), types.StringValue("https://api.example.com/")
		}, resolvedConfig{"id", "secret", "https://api.example.com", ""}, nil},
		{"environment", map[string]string{envClientID: "env-id", envClientSecret: "env-secret", envBaseURL: "http://127.0.0.1:8080", envAuthURL: "http://127.0.0.1:8080"},
			nil, resolvedConfig{"env-id", "env-secret", "http://127.0.0.1:8080", "http://127.0.0.1:8080"}, nil},
		{"attribute wins over environment", map[string]string{envClientID: "env-id", envClientSecret: "s", envBaseURL: "https://api.example.com"},
			func(m *providerModel) { m.ClientID = types.StringValue("id") }, resolvedConfig{"id", "s", "https://api.example.com", ""}, nil},
		{"missing", nil, nil, resolvedConfig{}, []wantDiag{
			errorAt("client_id", "Missing client_id", `Set client_id in the provider "commerce" block, or set the COMMERCE_CLIENT_ID environment variable.`),
			errorAt("client_secret", "Missing client_secret", "COMMERCE_CLIENT_SECRET"),
			errorAt("base_url", "Missing base_url", "COMMERCE_BASE_URL"),
		}},
		{"empty and unknown", map[string]string{envBaseURL: "https://api.example.com"}, func(m *providerModel) {
			m.ClientID, m.ClientSecret = types.StringValue(""), types.StringUnknown()
		}, resolvedConfig{}, []wantDiag{
			errorAt("client_id", "Empty client_id", "remove it and set the COMMERCE_CLIENT_ID environment variable"),
			errorAt("client_secret", "Unknown client_secret", "only known after apply", "COMMERCE_CLIENT_SECRET"),
		}},
		{"plain http to another host", map[string]string{envClientID: "i", envClientSecret: "s"}, func(m *providerModel) {
			m.BaseURL = types.StringValue("http://api.example.com")
		}, resolvedConfig{}, []wantDiag{errorAt("base_url", "Invalid base_url", "base_url (from the base_url attribute)")}},
		{"auth_url on another host", map[string]string{envClientID: "i", envClientSecret: "s", envBaseURL: "https://api.example.com"}, func(m *providerModel) {
			m.AuthURL = types.StringValue("https://auth.example.net")
		}, resolvedConfig{"i", "s", "https://api.example.com", "https://auth.example.net"}, []wantDiag{
			warningAt("auth_url", "auth_url is on another host", "The client secret is sent to auth.example.net (auth_url, from the auth_url attribute), while resources are read from api.example.com (base_url, from the COMMERCE_BASE_URL environment variable)."),
		}},
		{"the emulator's auth_url left over for a store", map[string]string{envClientID: "i", envClientSecret: "s", envAuthURL: "http://127.0.0.1:8080"}, func(m *providerModel) {
			m.BaseURL = types.StringValue("https://api.example.com")
		}, resolvedConfig{}, []wantDiag{errorAt("auth_url", "auth_url and base_url point at different machines",
			"auth_url is http://127.0.0.1:8080 (from the COMMERCE_AUTH_URL environment variable) and base_url is https://api.example.com (from the base_url attribute)")}},
		{"a store's auth_url for the emulator", map[string]string{envClientID: "i", envClientSecret: "s", envBaseURL: "http://localhost:8080"}, func(m *providerModel) {
			m.AuthURL = types.StringValue("https://auth.example.com")
		}, resolvedConfig{}, []wantDiag{errorAt("auth_url", "auth_url and base_url point at different machines",
			"auth_url is https://auth.example.com (from the auth_url attribute) and base_url is http://localhost:8080 (from the COMMERCE_BASE_URL environment variable)")}},
		{"the deprecated api.moltin.com", map[string]string{envClientID: "i", envClientSecret: "s", envBaseURL: "https://API.moltin.com/"}, nil,
			resolvedConfig{"i", "s", "https://API.moltin.com", ""}, []wantDiag{
				warningAt("base_url", "Deprecated service address", "base_url is https://API.moltin.com (from the COMMERCE_BASE_URL environment variable): the vendor has deprecated api.moltin.com", "https://euwest.api.elasticpath.com"),
			}},
		{"two loopback ports", map[string]string{envClientID: "i", envClientSecret: "s", envBaseURL: "http://127.0.0.1:8080", envAuthURL: "http://[::1]:9090"}, nil,
			resolvedConfig{"i", "s", "http://127.0.0.1:8080", "http://[::1]:9090"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			m := nullModel()
			if tc.edit != nil {
				tc.edit(&m)
			}
			var resp provider.ConfigureResponse
			got, ok := (&commerceProvider{}).resolve(m, &resp)
			if ok == resp.Diagnostics.HasError() {
				t.Errorf("ok = %v with diagnostics %v", ok, resp.Diagnostics)
			}
			if ok && got != tc.want {
				t.Errorf("settings %+v, want %+v", got, tc.want)
			}
			checkDiags(t, resp.Diagnostics, tc.diags...)
		})
	}
}

func TestUnknownTuning(t *testing.T) {
	m := nullModel()
	checkDiags(t, unknownTuning(m))
	m.PageSize, m.RequestTimeout = types.Int64Unknown(), types.StringUnknown()
	checkDiags(t, unknownTuning(m),
		errorAt("page_size", "Unknown page_size", "page_size depends on a value that is only known after apply"),
		errorAt("request_timeout", "Unknown request_timeout"))
}

func TestServiceConfig(t *testing.T) {
	clearEnv(t)
	s := resolvedConfig{"id", "secret", "https://api.example.com", "https://auth.example.com"}
	got, lopts, diags := (&commerceProvider{version: "1.2.3"}).serviceConfig(nullModel(), s, "1.9.0")
	checkDiags(t, diags)
	if got.BaseURL != s.baseURL || got.AuthURL != s.authURL || got.ClientID != s.clientID || got.ClientSecret != s.clientSecret {
		t.Errorf("settings not passed on: %+v", got)
	}
	if lopts.PageSize != commerce.DefaultPageSize || lopts.MaxParallelRequests != client.DefaultMaxParallelRequests || got.MaxParallelRequests != client.DefaultMaxParallelRequests ||
		got.MaxRetries != client.DefaultMaxRetries || got.RequestTimeout != client.DefaultRequestTimeout || got.RateLimit != 0 {
		t.Errorf("defaults not applied: %+v", got)
	}
	if want := "terraform-provider-commerce/1.2.3 (+terraform 1.9.0)"; got.UserAgent != want {
		t.Errorf("UserAgent %q, want %q", got.UserAgent, want)
	}
	m := nullModel()
	m.PageSize, m.MaxParallelRequests, m.MaxRetries = types.Int64Value(50), types.Int64Value(3), types.Int64Value(0)
	m.RequestTimeout, m.RateLimit = types.StringValue("90s"), types.Float64Value(2.5)
	got, lopts, diags = (&commerceProvider{}).serviceConfig(m, s, "")
	checkDiags(t, diags)
	if lopts.PageSize != 50 || lopts.MaxParallelRequests != 3 || got.MaxParallelRequests != 3 || got.MaxRetries != 0 || got.RequestTimeout != 90*time.Second || got.RateLimit != 2.5 {
		t.Errorf("settings not applied: %+v", got)
	}
}

func TestRateLimit(t *testing.T) {
	cases := []struct {
		name  string
		attr  types.Float64
		env   string
		want  float64
		diags []wantDiag
	}{
		{"unset", types.Float64Null(), "", 0, nil},
		{"attribute", types.Float64Value(10), "", 10, nil},
		{"attribute wins", types.Float64Value(10), "oops", 10, nil},
		{"environment", types.Float64Null(), "25.5", 25.5, nil},
		{"environment not a number", types.Float64Null(), "fast", 0, []wantDiag{
			errorAt("rate_limit", "Invalid rate_limit", `COMMERCE_RATE_LIMIT="fast" is not a positive number of requests per second`)}},
		{"environment zero", types.Float64Null(), "0", 0, []wantDiag{errorAt("rate_limit", "Invalid rate_limit", `COMMERCE_RATE_LIMIT="0"`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envRateLimit, tc.env)
			got, diags := rateLimit(tc.attr)
			checkDiags(t, diags, tc.diags...)
			if !diags.HasError() && got != tc.want {
				t.Errorf("rateLimit = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHostOf(t *testing.T) {
	for u, want := range map[string]string{
		"https://API.example.com/v2": "api.example.com", "http://127.0.0.1:8080": "127.0.0.1:8080", "https://a.example": "a.example", "": "",
	} {
		if got := hostOf(u); got != want {
			t.Errorf("hostOf(%q) = %q, want %q", u, got, want)
		}
	}
}
