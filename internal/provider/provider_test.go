package provider

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// protoV6Factories runs the provider in the test process, so that tests
// see the emulator's counters and the provider's logs directly.
var protoV6Factories = map[string]func() (tfprotov6.ProviderServer, error){
	"commerce": NewServer("test"),
}

// providerConfig is a provider block for srv. Environment fallbacks are
// cleared so that a developer's own COMMERCE_* variables cannot leak in.
func providerConfig(t *testing.T, srv *emulator.Server, extra ...string) string {
	t.Helper()
	clearEnv(t)
	return providerBlock(srv, extra...)
}

// largeStore runs a test of a large store in parallel: such tests run side
// by side once the others are done. One keeps about 1.3 of a 2-core
// machine's cores busy (the CLI, the provider, the emulator), so two at a
// time fill it. It cannot clear the environment (TestMain has): its
// configuration takes providerBlock.
func largeStore(t *testing.T) {
	t.Helper()
	t.Parallel()
}

// providerBlock is providerConfig for a test that runs in parallel, which
// cannot clear the environment: TestMain has.
func providerBlock(srv *emulator.Server, extra ...string) string {
	return fmt.Sprintf(`
provider "commerce" {
  base_url      = %q
  client_id     = %q
  client_secret = %q
  %s
}
`, srv.URL(), emulator.DefaultClientID, emulator.DefaultClientSecret, strings.Join(extra, "\n  "))
}

func clearEnv(t *testing.T) {
	for _, env := range providerEnv {
		t.Setenv(env, "")
	}
}

// providerEnv are the variables the provider falls back to.
var providerEnv = []string{envClientID, envClientSecret, envBaseURL, envAuthURL, envRateLimit, envCacheDir, envCacheMaxMB}

// startEnv holds the provider's variables as the tests found them, for the
// live suite, which reads the store they name (TestLiveStore puts them back).
var startEnv = map[string]string{}

// TestMain takes the provider's variables out of the environment before
// any test runs: a developer's own COMMERCE_* variables then reach no test,
// also none that runs in parallel and so cannot clear them itself
// (t.Setenv panics there).
func TestMain(m *testing.M) {
	for _, name := range providerEnv {
		if v, ok := os.LookupEnv(name); ok {
			startEnv[name] = v
			if err := os.Unsetenv(name); err != nil {
				panic(err)
			}
		}
	}
	os.Exit(m.Run())
}

// idsExact is the knownvalue check for an exact, ordered list of ids.
func idsExact(ids []string) knownvalue.Check {
	vals := make([]knownvalue.Check, len(ids))
	for i, id := range ids {
		vals[i] = knownvalue.StringExact(id)
	}
	return knownvalue.ListExact(vals)
}

// expected is the list a read of resource returns: in the order sort
// promises (empty: created_at, every resource's default), ties by id.
func expected(t *testing.T, srv *emulator.Server, resource, filter, sort string) []string {
	t.Helper()
	if sort == "" {
		sort = "created_at"
	}
	ids, err := srv.SortedIDs(resource, filter, sort)
	if err != nil {
		t.Fatalf("SortedIDs(%s, %q, %q): %v", resource, filter, sort, err)
	}
	return ids
}

// sortedHere is the list a provider-sorted read returns: every match,
// sorted by the provider (ties by id).
func sortedHere(t *testing.T, srv *emulator.Server, resource, filter, sort string) []string {
	t.Helper()
	ids, err := srv.SortedIDs(resource, filter, sort)
	if err != nil {
		t.Fatalf("SortedIDs(%s, %q, %q): %v", resource, filter, sort, err)
	}
	return ids
}

// hcl quotes s as an HCL string literal (JSON escaping is valid HCL, but
// "${" and "%{" must not start a template).
func hcl(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, "${", "$${")
	return strings.ReplaceAll(q, "%{", "%%{")
}

func TestProviderSchemaValid(t *testing.T) {
	// Building the schema of every data source through the real server
	// catches invalid schemas without Terraform.
	srv, err := protoV6Factories["commerce"]()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	for _, name := range []string{"commerce_orders", "commerce_files", "commerce_accounts", "commerce_order", "commerce_file", "commerce_account"} {
		if _, ok := resp.DataSourceSchemas[name]; !ok {
			t.Errorf("data source %s missing", name)
		}
	}
}

func TestAccProviderConfigErrors(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5})
	ds := `data "commerce_accounts" "any" { max_results = 1 }`
	cases := []struct {
		name   string
		config string
		want   string
	}{
		{"missing client_id", `provider "commerce" {
  base_url      = "` + srv.URL() + `"
  client_secret = "x"
}`, `(?s)Missing client_id.*COMMERCE_CLIENT_ID`},
		{"missing base_url", `provider "commerce" {
  client_id     = "x"
  client_secret = "x"
}`, `(?s)Missing base_url.*COMMERCE_BASE_URL`},
		{"plain http to a remote host", `provider "commerce" {
  base_url      = "http://api.example.com"
  client_id     = "x"
  client_secret = "x"
}`, `(?s)Invalid base_url.*use https`},
		{"base_url with /v2", `provider "commerce" {
  base_url      = "https://api.example.com/v2"
  client_id     = "x"
  client_secret = "x"
}`, `(?s)Invalid base_url.*ends in /v2`},
		{"page_size out of range", `provider "commerce" {
  base_url      = "` + srv.URL() + `"
  client_id     = "x"
  client_secret = "x"
  page_size     = 500
}`, `(?s)page_size.*between 1 and 100`},
		{"bad request_timeout", `provider "commerce" {
  base_url        = "` + srv.URL() + `"
  client_id       = "x"
  client_secret   = "x"
  request_timeout = "30"
}`, `(?s)request_timeout.*positive duration`},
		{"value known only after apply", `resource "terraform_data" "size" { input = 50 }
provider "commerce" {
  base_url      = "` + srv.URL() + `"
  client_id     = "x"
  client_secret = "x"
  page_size     = terraform_data.size.output
}`, `(?s)Unknown page_size.*known at plan time`},
		{"wrong secret", `provider "commerce" {
  base_url      = "` + srv.URL() + `"
  client_id     = "` + emulator.DefaultClientID + `"
  client_secret = "not-the-secret"
}`, `(?s)Authentication failed.*401.*client_secret`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config:      tc.config + "\n" + ds,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

func TestAccProviderEnvFallback(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5})
	clearEnv(t)
	t.Setenv(envBaseURL, srv.URL())
	t.Setenv(envClientID, emulator.DefaultClientID)
	t.Setenv(envClientSecret, emulator.DefaultClientSecret)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: `provider "commerce" {}
data "commerce_accounts" "all" {}
output "n" { value = data.commerce_accounts.all.total }`,
			Check: resource.TestCheckOutput("n", "5"),
		}},
	})
}

// TestAccNoSecretsInLogs runs a listing with TF_LOG=TRACE and checks that
// neither the client secret nor any bearer token reaches the log.
func TestAccNoSecretsInLogs(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 30, ClientSecret: "s3cr3t-value-that-must-not-leak"})
	logPath := t.TempDir() + "/trace.log"
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	clearEnv(t)
	// The secret comes from the environment, as users are told to do: the
	// test harness itself logs the configuration text.
	t.Setenv(envClientSecret, "s3cr3t-value-that-must-not-leak")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`provider "commerce" {
  base_url  = %q
  client_id = %q
}
data "commerce_accounts" "all" { include_json = true }`, srv.URL(), emulator.DefaultClientID),
		}},
	})
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(raw)
	if !strings.Contains(log, "obtained access token") || !strings.Contains(log, "/v2/accounts") {
		t.Fatalf("the trace log holds no provider request lines (%d bytes); the test would prove nothing", len(log))
	}
	for _, secret := range []string{"s3cr3t-value-that-must-not-leak", "Bearer "} {
		if i := strings.Index(log, secret); i >= 0 {
			t.Errorf("trace log contains %q: ...%s...", secret, log[max(0, i-200):min(len(log), i+100)])
		}
	}
	for _, tok := range srv.IssuedTokens() {
		if strings.Contains(log, tok) {
			t.Errorf("trace log contains an access token")
		}
	}
}

// A wrong secret is one error per plan, however many data sources the
// configuration has: Configure fetches the token and stops there.
func TestAccWrongSecretIsOneError(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5, Orders: 5, Files: 5})
	clearEnv(t)
	failed := false
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: `provider "commerce" {
  base_url      = "` + srv.URL() + `"
  client_id     = "` + emulator.DefaultClientID + `"
  client_secret = "not-the-secret"
}
data "commerce_accounts" "a" {}
data "commerce_orders" "o" {}
data "commerce_files" "f" {}
data "commerce_account" "one" { name = "Acme, Inc." }`,
		}},
		// Not ExpectError, which cannot count.
		ErrorCheck: func(err error) error {
			failed = true
			if n := len(regexp.MustCompile(`Error:\s+Authentication\s+failed`).FindAllString(err.Error(), -1)); n != 1 {
				return fmt.Errorf("%d Authentication failed errors, want 1 for the plan: %w", n, err)
			}
			return nil
		},
	})
	if !failed {
		t.Error("the configuration did not fail")
	}
	if st := srv.Stats(); st.TotalRequests != 1 {
		t.Errorf("%d requests reached the service, want the one token request", st.TotalRequests)
	}
}
