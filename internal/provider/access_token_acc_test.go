package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// Ephemeral resources need Terraform 1.10 (OpenTofu 1.11); older CLIs skip
// these tests, and the rest of the suite runs there as before.
var ephemeralCLI = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)}

// withEcho adds the echo provider, which carries an ephemeral value into
// the state of a test resource so that a test can look at it.
func withEcho() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"commerce": NewServer("test"),
		"echo":     echoprovider.NewProviderServer(),
	}
}

// TestAccAccessTokenOpens: the token opens, is the provider's own (issued
// by the service for its credentials) and the service accepts it.
func TestAccAccessTokenOpens(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5})
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralCLI,
		ProtoV6ProviderFactories: withEcho(),
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
ephemeral "commerce_access_token" "this" {
  min_lifetime = "30m"
}
provider "echo" {
  data = ephemeral.commerce_access_token.this
}
resource "echo" "token" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("echo.token", tfjsonpath.New("data").AtMapKey("token_type"), knownvalue.StringExact("Bearer")),
				statecheck.ExpectKnownValue("echo.token", tfjsonpath.New("data").AtMapKey("min_lifetime"), knownvalue.StringExact("30m")),
				statecheck.ExpectKnownValue("echo.token", tfjsonpath.New("data").AtMapKey("expires_in"), knownvalue.Int64Func(func(v int64) error {
					if v < 1800 || v > 3600 {
						return fmt.Errorf("expires_in %d, want between 1800 and 3600", v)
					}
					return nil
				})),
				statecheck.ExpectKnownValue("echo.token", tfjsonpath.New("data").AtMapKey("expires_at"), knownvalue.StringFunc(func(v string) error {
					at, err := time.Parse(time.RFC3339, v)
					if err != nil || time.Until(at) < 30*time.Minute || time.Until(at) > time.Hour {
						return fmt.Errorf("expires_at %q: %v", v, err)
					}
					return nil
				})),
				// The service accepts the token.
				statecheck.ExpectKnownValue("echo.token", tfjsonpath.New("data").AtMapKey("access_token"), knownvalue.StringFunc(func(token string) error {
					req, err := http.NewRequest(http.MethodGet, srv.URL()+"/v2/accounts?page[limit]=1", nil)
					if err != nil {
						return err
					}
					req.Header.Set("Authorization", "Bearer "+token)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						return err
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						return fmt.Errorf("the service answered %s to the token", resp.Status)
					}
					return nil
				})),
			},
		}},
	})
}

// countingConfigure counts the provider configurations of a test: every
// Terraform command starts the provider and configures it once.
type countingConfigure struct {
	tfprotov6.ProviderServer
	n *int
}

func (s countingConfigure) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	*s.n++
	return s.ProviderServer.ConfigureProvider(ctx, req)
}

// leakScan fails when any of the secrets appears in text.
func leakScan(where, text string, secrets []string) error {
	for _, s := range secrets {
		if i := strings.Index(text, s); i >= 0 {
			return fmt.Errorf("%s holds a secret: …%s…", where, text[max(0, i-120):i])
		}
	}
	return nil
}

// TestAccAccessTokenLeavesNoTrace opens the token, hands it to a
// provisioner as the example does, and reads a data source beside it: one
// token request per provider configuration serves both, and neither the
// token nor the client secret appears in the plan, the state, or the
// trace log.
func TestAccAccessTokenLeavesNoTrace(t *testing.T) {
	const secret = "s3cr3t-that-must-not-leak"
	srv := emulatortest.Start(t, emulator.Options{Accounts: 30, ClientSecret: secret})
	logPath := t.TempDir() + "/trace.log"
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	clearEnv(t)
	t.Setenv(envClientSecret, secret)
	configures := 0
	secrets := func() []string { return append(srv.IssuedTokens(), secret) }
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks: ephemeralCLI,
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"commerce": func() (tfprotov6.ProviderServer, error) {
				s, err := NewServer("test")()
				return countingConfigure{s, &configures}, err
			},
		},
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`provider "commerce" {
  base_url  = %q
  client_id = %q
}
ephemeral "commerce_access_token" "this" {}
data "commerce_accounts" "all" {}
resource "terraform_data" "script" {
  input = length(data.commerce_accounts.all.ids)
  provisioner "local-exec" {
    command = "test -n \"$COMMERCE_TOKEN\""
    environment = {
      COMMERCE_TOKEN = ephemeral.commerce_access_token.this.access_token
    }
  }
}`, srv.URL(), emulator.DefaultClientID),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{scanPlan{secrets}},
			},
			ConfigStateChecks: []statecheck.StateCheck{scanState{secrets}},
		}},
	})
	t.Logf("%d token requests, %d provider configurations", srv.Stats().TokenRequests, configures)
	if srv.Stats().TokenRequests == 0 || srv.Stats().TokenRequests > configures {
		t.Errorf("%d token requests for %d provider configurations: the access token and the data source should share one", srv.Stats().TokenRequests, configures)
	}
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "OpenEphemeralResource") {
		t.Fatalf("the trace log (%d bytes) shows no ephemeral resource opened; the test would prove nothing", len(raw))
	}
	if err := leakScan("the trace log", string(raw), secrets()); err != nil {
		t.Error(err)
	}
}

type scanPlan struct{ secrets func() []string }

func (s scanPlan) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	b, err := json.Marshal(req.Plan)
	if err == nil {
		err = leakScan("the plan", string(b), s.secrets())
	}
	resp.Error = err
}

type scanState struct{ secrets func() []string }

func (s scanState) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	b, err := json.Marshal(req.State)
	if err == nil {
		err = leakScan("the state", string(b), s.secrets())
	}
	resp.Error = err
}

// TestAccAccessTokenFailsAsDataSourcesDo: refused credentials and an
// unreachable auth_url, through the CLI: both end the provider's
// configuration, before the token is opened, as they do before any data
// source is read.
func TestAccAccessTokenFailsAsDataSourcesDo(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5})
	closed := "http://" + emulatortest.ClosedAddr(t)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralCLI,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: providerConfig(t, srv) + `
provider "commerce" {
  alias         = "wrong"
  base_url      = "` + srv.URL() + `"
  client_id     = "nobody"
  client_secret = "wrong"
}
ephemeral "commerce_access_token" "this" { provider = commerce.wrong }`,
				ExpectError: regexp.MustCompile(`(?s)Authentication failed.*Check\s+client_id\s+and\s+client_secret`),
			},
			{
				Config: providerConfig(t, srv) + `
provider "commerce" {
  alias         = "unreachable"
  base_url      = "` + srv.URL() + `"
  auth_url      = "` + closed + `"
  client_id     = "id"
  client_secret = "secret"
  max_retries   = 0
}
ephemeral "commerce_access_token" "this" { provider = commerce.unreachable }`,
				ExpectError: regexp.MustCompile(`(?s)Could not reach the service.*Could\s+not\s+authenticate\s+with\s+the\s+store.*Check\s+auth_url`),
			},
		},
	})
}

// Credentials the store refuses, or a token endpoint that never answers,
// end Configure with one error: Terraform then reads no data source and
// opens no token, each of which would have said the same again.
func TestAuthenticationFailsOncePerPlan(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5})
	clearEnv(t)
	for _, tc := range []struct {
		name, summary string
		provider      map[string]tftypes.Value
	}{
		{"refused credentials", "Authentication failed",
			map[string]tftypes.Value{"base_url": str(srv.URL()), "client_id": str("nobody"), "client_secret": str("wrong")}},
		{"unreachable auth_url", "Could not reach the service",
			map[string]tftypes.Value{"base_url": str(srv.URL()), "auth_url": str("http://" + emulatortest.ClosedAddr(t)),
				"client_id": str("id"), "client_secret": str("secret"), "max_retries": num(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server, err := NewServer("test")()
			if err != nil {
				t.Fatal(err)
			}
			schemas, err := server.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := dynamicValue(t, nullObject(schemas.Provider.ValueType(), tc.provider))
			resp, err := server.ConfigureProvider(t.Context(), &tfprotov6.ConfigureProviderRequest{TerraformVersion: "test", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError || resp.Diagnostics[0].Summary != tc.summary {
				t.Errorf("configure: %s; want one error %q", summaries(resp.Diagnostics), tc.summary)
			}
		})
	}
}
