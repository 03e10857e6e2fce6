package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// The emulator's COMMERCE_AUTH_URL left set while base_url names a store
// (or the other way round) is refused before any request: the emulator,
// standing in for the wrong host, receives nothing, not even a token
// request, and the error names both addresses and where each came from.
func TestALeftoverAuthURLSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      func(emulatorURL string) map[string]string
		provider func(emulatorURL string) map[string]tftypes.Value
		want     []string
	}{
		{"the emulator's auth_url, a store's base_url",
			func(u string) map[string]string { return map[string]string{envAuthURL: u} },
			func(string) map[string]tftypes.Value {
				return map[string]tftypes.Value{"base_url": tftypes.NewValue(tftypes.String, "https://store.example.com")}
			},
			[]string{"(from the COMMERCE_AUTH_URL environment variable)", "base_url is https://store.example.com (from the base_url attribute)", "Nothing was sent"}},
		{"a store's auth_url, the emulator's base_url",
			func(u string) map[string]string { return map[string]string{envBaseURL: u} },
			func(string) map[string]tftypes.Value {
				return map[string]tftypes.Value{"auth_url": tftypes.NewValue(tftypes.String, "https://auth.example.com")}
			},
			[]string{"auth_url is https://auth.example.com (from the auth_url attribute)", "(from the COMMERCE_BASE_URL environment variable)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Orders: 1, Files: 1, Accounts: 1})
			clearEnv(t)
			for k, v := range tc.env(srv.URL()) {
				t.Setenv(k, v)
			}
			server, err := NewServer("test")()
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}
			set := tc.provider(srv.URL())
			set["client_id"] = tftypes.NewValue(tftypes.String, emulator.DefaultClientID)
			set["client_secret"] = tftypes.NewValue(tftypes.String, emulator.DefaultClientSecret)
			cfg := dynamicValue(t, nullObject(schemas.Provider.ValueType(), set))
			resp, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "test", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError ||
				resp.Diagnostics[0].Summary != "auth_url and base_url point at different machines" {
				t.Fatalf("diagnostics: %s; want the one error that refuses the pair", summaries(resp.Diagnostics))
			}
			for _, w := range tc.want {
				if !strings.Contains(resp.Diagnostics[0].Detail, w) {
					t.Errorf("the error lacks %q:\n%s", w, resp.Diagnostics[0].Detail)
				}
			}
			// Configure fetches a token in the background when it
			// succeeds: give a wrong one the time to show.
			time.Sleep(200 * time.Millisecond)
			if st := srv.Stats(); len(st.Requests) != 0 || len(srv.IssuedTokens()) != 0 {
				t.Errorf("the emulator received %d requests and issued %d tokens; want none", len(st.Requests), len(srv.IssuedTokens()))
			}
		})
	}
}
