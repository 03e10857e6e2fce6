package provider

// The live suite: acceptance tests that read a real store, the one
// COMMERCE_BASE_URL, COMMERCE_AUTH_URL, COMMERCE_CLIENT_ID and
// COMMERCE_CLIENT_SECRET name, so that what the emulator cannot show (the
// vendor's real answers, its gateway, its token endpoint) is tried every
// night. make testacc-live runs them (-run '^TestLive'); every other target
// empties those variables, and without them the suite skips.
//
// It only reads: it uses the provider's data sources and its ephemeral
// token (the provider has no resources), which send GET requests to the API
// and one POST to the token endpoint per Terraform command, and nothing
// else; TestAccLiveSuiteOnEmulator holds it to that against the emulator. It
// assumes nothing about the store's data: a store may hold no files or no
// accounts, so every check holds for any store, and a lookup whose list
// came back empty is skipped, saying so.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

const (
	// envLiveRateLimit overrides the suite's rate_limit, in requests per
	// second.
	envLiveRateLimit = "COMMERCE_LIVE_RATE_LIMIT"
	// defaultLiveRateLimit leaves most of a development store's 25
	// requests/s to its storefront and to whoever else uses the store.
	defaultLiveRateLimit = 5.0
	// liveMaxResults bounds every list, so that a list costs a few
	// requests on any store, however many records it holds.
	liveMaxResults = 3
	// liveUncheckedPath is a list endpoint of the service that the
	// provider has no capability row for: it checks only the grammar of a
	// filter there and sends it, so that the service judges the
	// attributes. The emulator serves it when started with
	// -alias /v2/account-members=customers.
	liveUncheckedPath = "/v2/account-members"
)

// liveStore is what the suite needs to know of the store beyond the
// provider's environment variables, from which the provider takes the
// address and the credentials: that way the secret appears in no
// configuration the test harness logs.
type liveStore struct {
	rateLimit float64
}

// readLiveStore reads the store the suite is to read from getenv: missing
// names the required variables that are unset, err a value the suite
// refuses.
func readLiveStore(getenv func(string) string) (store liveStore, missing []string, err error) {
	// COMMERCE_AUTH_URL is optional, as for the provider: the token is
	// requested from the base URL without it.
	for _, name := range []string{envBaseURL, envClientID, envClientSecret} {
		if getenv(name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return liveStore{}, missing, nil
	}
	// The provider refuses these too, but only inside a Terraform run;
	// checked here, the mistake is the first and only thing a run says.
	for _, name := range []string{envBaseURL, envAuthURL} {
		if v := getenv(name); v != "" {
			if _, err := client.NormalizeServiceURL(v); err != nil {
				return liveStore{}, nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	store.rateLimit = defaultLiveRateLimit
	if v := getenv(envLiveRateLimit); v != "" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || !(r >= 0.01) || math.IsInf(r, 0) {
			return liveStore{}, nil, fmt.Errorf("%s=%q: give the requests per second the suite may send, a number of at least 0.01, e.g. %g", envLiveRateLimit, v, defaultLiveRateLimit)
		}
		store.rateLimit = r
	}
	return store, nil, nil
}

// liveStoreFromEnv is the store of this run, or skips the test when there
// is none to read.
func liveStoreFromEnv(t *testing.T) liveStore {
	t.Helper()
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skipf("%s is not set: the live suite runs through a Terraform CLI; run it with make testacc-live", resource.EnvTfAcc)
	}
	store, missing, err := readLiveStore(os.Getenv)
	if len(missing) > 0 {
		t.Skipf("no store to read: %s not set. The live suite reads the store that %s, %s, %s and %s (optional) name; "+
			"set them and run make testacc-live (CONTRIBUTING.md, \"The live suite\")",
			strings.Join(missing, ", "), envBaseURL, envClientID, envClientSecret, envAuthURL)
	}
	if err != nil {
		t.Fatalf("the live suite will not read this store: %v", err)
	}
	return store
}

// TestLiveStore reads the store the environment names; see the top of
// this file.
func TestLiveStore(t *testing.T) {
	// TestMain took the provider's variables out of the environment: the
	// suite puts back those it found, which name the store.
	for name, v := range startEnv {
		t.Setenv(name, v)
	}
	runLiveSuite(t, liveStoreFromEnv(t))
}

// runLiveSuite runs the suite's steps against store: the lists, lookups of
// records they returned, a filter the service rejects, and the access
// token.
func runLiveSuite(t *testing.T, store liveStore) {
	firsts := map[string]liveRecord{}
	listed := t.Run("lists", func(t *testing.T) { testLiveLists(t, store, firsts) })
	t.Run("lookups", func(t *testing.T) {
		if !listed {
			t.Skip("the lists failed: no ids to look up")
		}
		testLiveLookups(t, store, firsts)
	})
	t.Run("rejected_filter", func(t *testing.T) { testLiveRejectedFilter(t, store) })
	t.Run("access_token", func(t *testing.T) { testLiveAccessToken(t, store) })
	t.Run("store", func(t *testing.T) { testLiveStore(t, store) })
}

// providerBlock configures the provider at the suite's rate; the rest comes
// from the environment.
func (s liveStore) providerBlock() string {
	return fmt.Sprintf("provider \"commerce\" {\n  rate_limit = %g\n}\n", s.rateLimit)
}

// liveList is one list data source of the suite and what holds of its
// records on any store.
type liveList struct {
	source, name string
	// records is the attribute that holds the records: orders, files,
	// accounts, records.
	records string
	// args are its arguments besides max_results.
	args string
	// holds checks what the filter promises of one record (its attributes
	// with the records attribute's prefix cut off); nil for no filter.
	holds func(record map[string]string) error
	// newestFirst: the list is sorted by -created_at.
	newestFirst bool
	// lookup is the data source that reads its first record by id, with
	// its arguments besides the id; empty for none.
	lookup, lookupArgs string
}

func (l liveList) address() string { return "data." + l.source + "." + l.name }

func (l liveList) hcl() string {
	return fmt.Sprintf("data %q %q {\n  %s\n  max_results = %d\n}\n", l.source, l.name, l.args, liveMaxResults)
}

// liveLists cover every list data source, each once newest first (the
// lookups read their first records) and once with a filter whose promise
// the records can be checked against, and commerce_list on a second
// endpoint. A filter may match nothing on a store: the check then holds
// vacuously.
var liveLists = []liveList{
	{source: "commerce_orders", name: "newest", records: "orders", args: `sort = "-created_at"`, newestFirst: true, lookup: "commerce_order"},
	{source: "commerce_orders", name: "complete", records: "orders", args: `filter = "eq(status,complete)"`, holds: attributeIs("status", "complete")},
	{source: "commerce_files", name: "newest", records: "files", args: `sort = "-created_at"`, newestFirst: true, lookup: "commerce_file"},
	{source: "commerce_files", name: "not_empty", records: "files", args: `filter = "ge(file_size,1)"`, holds: fileSizeAtLeast(1)},
	{source: "commerce_accounts", name: "newest", records: "accounts", args: `sort = "-created_at"`, newestFirst: true, lookup: "commerce_account"},
	{source: "commerce_accounts", name: "since_2020", records: "accounts", args: `filter = "ge(created_at,2020-01-01T00:00:00.000Z)"`, holds: createdSince("2020-01-01T00:00:00.000Z")},
	{source: "commerce_list", name: "customers", records: "records", args: "path = \"/v2/customers\"\n  sort = \"-created_at\"", newestFirst: true,
		lookup: "commerce_record", lookupArgs: `path = "/v2/customers"`},
	{source: "commerce_list", name: "customers_with_email", records: "records", args: "path = \"/v2/customers\"\n  filter = \"like(email,*@*)\"", holds: jsonEmailContains("@")},
	{source: "commerce_list", name: "hierarchies", records: "records", args: `path = "/pcm/hierarchies"`},
}

// liveRecord is the first record of a list, which the lookups read again.
type liveRecord struct{ id, createdAt string }

func testLiveLists(t *testing.T, store liveStore, firsts map[string]liveRecord) {
	config := store.providerBlock()
	var checks []resource.TestCheckFunc
	for _, l := range liveLists {
		config += l.hcl()
		checks = append(checks, l.check(t, firsts))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps:                    []resource.TestStep{{Config: config, Check: resource.ComposeAggregateTestCheckFunc(checks...)}},
	})
}

// check holds the list to what is true of any store's answer, and keeps
// its first record for the lookups.
func (l liveList) check(t *testing.T, firsts map[string]liveRecord) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs := s.RootModule().Resources[l.address()]
		if rs == nil {
			return fmt.Errorf("%s is not in the state", l.address())
		}
		attrs := rs.Primary.Attributes
		ids, err := liveIDs(attrs)
		if err != nil {
			return fmt.Errorf("%s: %w", l.address(), err)
		}
		records, err := l.recordsOf(attrs, ids)
		if err != nil {
			return fmt.Errorf("%s: %w", l.address(), err)
		}
		t.Logf("%s: %d of %s matching", l.address(), len(ids), attrs["total"])
		if l.lookup != "" && len(records) > 0 {
			firsts[l.lookup] = liveRecord{id: ids[0], createdAt: records[0]["created_at"]}
		}
		return nil
	}
}

// liveIDs reads ids and total, and checks them against each other and
// against max_results.
func liveIDs(attrs map[string]string) ([]string, error) {
	n, err := strconv.Atoi(attrs["ids.#"])
	if err != nil {
		return nil, fmt.Errorf("ids.# is %q: %w", attrs["ids.#"], err)
	}
	total, err := strconv.Atoi(attrs["total"])
	if err != nil {
		return nil, fmt.Errorf("total is %q: %w", attrs["total"], err)
	}
	switch {
	case n > liveMaxResults:
		return nil, fmt.Errorf("%d ids, more than max_results = %d", n, liveMaxResults)
	case total < n:
		return nil, fmt.Errorf("total %d is less than the %d ids listed", total, n)
	case total > n && n < liveMaxResults:
		return nil, fmt.Errorf("%d ids, but %d records match and max_results is %d: the list stopped early", n, total, liveMaxResults)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = attrs["ids."+strconv.Itoa(i)]
		if ids[i] == "" {
			return nil, fmt.Errorf("ids[%d] is empty", i)
		}
		if slices.Contains(ids[:i], ids[i]) {
			return nil, fmt.Errorf("ids[%d] %s is listed twice", i, ids[i])
		}
	}
	return ids, nil
}

// recordsOf reads the records, one map of attributes each, and checks
// them against the ids, the filter and the order.
func (l liveList) recordsOf(attrs map[string]string, ids []string) ([]map[string]string, error) {
	if got := attrs[l.records+".#"]; got != strconv.Itoa(len(ids)) {
		return nil, fmt.Errorf("%s.# is %s for %d ids", l.records, got, len(ids))
	}
	records := make([]map[string]string, len(ids))
	for i := range records {
		prefix := l.records + "." + strconv.Itoa(i) + "."
		records[i] = map[string]string{}
		for k, v := range attrs {
			if rest, ok := strings.CutPrefix(k, prefix); ok {
				records[i][rest] = v
			}
		}
		if records[i]["id"] != ids[i] {
			return nil, fmt.Errorf("%s[%d].id is %q, ids[%d] is %q", l.records, i, records[i]["id"], i, ids[i])
		}
		if l.holds != nil {
			if err := l.holds(records[i]); err != nil {
				return nil, fmt.Errorf("%s[%d] (%s) does not match the filter: %w", l.records, i, ids[i], err)
			}
		}
		if l.newestFirst && i > 0 {
			if err := notNewer(records[i-1]["created_at"], records[i]["created_at"]); err != nil {
				return nil, fmt.Errorf("%s[%d] and [%d] are not newest first: %w", l.records, i-1, i, err)
			}
		}
	}
	return records, nil
}

// notNewer reports an error unless the time later is no later than
// earlier's.
func notNewer(earlier, later string) error {
	a, errA := time.Parse(time.RFC3339, earlier)
	b, errB := time.Parse(time.RFC3339, later)
	if err := errors.Join(errA, errB); err != nil {
		return err
	}
	if b.After(a) {
		return fmt.Errorf("created_at %s comes before %s", earlier, later)
	}
	return nil
}

func attributeIs(name, want string) func(map[string]string) error {
	return func(r map[string]string) error {
		if r[name] != want {
			return fmt.Errorf("%s is %q, want %q", name, r[name], want)
		}
		return nil
	}
}

func fileSizeAtLeast(least int64) func(map[string]string) error {
	return func(r map[string]string) error {
		size, err := strconv.ParseInt(r["file_size"], 10, 64)
		if err != nil || size < least {
			return fmt.Errorf("file_size is %q, want at least %d", r["file_size"], least)
		}
		return nil
	}
}

func createdSince(bound string) func(map[string]string) error {
	return func(r map[string]string) error {
		if err := notNewer(r["created_at"], bound); err != nil {
			return fmt.Errorf("created before %s: %w", bound, err)
		}
		return nil
	}
}

// jsonEmailContains checks the email of a generic record, which only its
// JSON holds.
func jsonEmailContains(part string) func(map[string]string) error {
	return func(r map[string]string) error {
		var customer struct {
			Email string `json:"email"`
		}
		if err := json.Unmarshal([]byte(r["json"]), &customer); err != nil {
			return fmt.Errorf("json: %w", err)
		}
		if !strings.Contains(customer.Email, part) {
			return fmt.Errorf("email %q does not contain %q", customer.Email, part)
		}
		return nil
	}
}

// testLiveLookups reads the first record of each newest-first list again,
// by its id, through its single-record data source.
func testLiveLookups(t *testing.T, store liveStore, firsts map[string]liveRecord) {
	config := store.providerBlock()
	var checks []resource.TestCheckFunc
	for _, l := range liveLists {
		if l.lookup == "" {
			continue
		}
		first, ok := firsts[l.lookup]
		if !ok {
			t.Logf("%s: the store has none, so %s has no id to read", l.address(), l.lookup)
			continue
		}
		address := "data." + l.lookup + ".first"
		config += fmt.Sprintf("data %q \"first\" {\n  %s\n  id = %s\n}\n", l.lookup, l.lookupArgs, hcl(first.id))
		checks = append(checks,
			resource.TestCheckResourceAttr(address, "id", first.id),
			resource.TestCheckResourceAttr(address, "created_at", first.createdAt))
	}
	if len(checks) == 0 {
		t.Skip("every list the lookups take an id from is empty on this store: nothing to look up")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps:                    []resource.TestStep{{Config: config, Check: resource.ComposeAggregateTestCheckFunc(checks...)}},
	})
}

// testLiveRejectedFilter sends a filter on an attribute no record has to
// an endpoint the provider does not check filters for: the service
// answers 400, and the diagnostic carries its words.
func testLiveRejectedFilter(t *testing.T, store liveStore) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: store.providerBlock() + fmt.Sprintf(`
data "commerce_list" "rejected" {
  path        = %q
  filter      = "eq(no_such_attribute,x)"
  max_results = 1
}
`, liveUncheckedPath),
			// The service's words are the status line and the title or
			// detail of its error document, whatever they say.
			ExpectError: regexp.MustCompile(`(?s)Could not list\s.*400 Bad Request.*Status:\s+400.*(Title|Detail):\s+\S`),
		}},
	})
}

// testLiveAccessToken opens the ephemeral token on the store; the echo
// provider carries it into the test's state, which stays in a temporary
// folder. The checks never print the token.
func testLiveAccessToken(t *testing.T, store liveStore) {
	token := tfjsonpath.New("data")
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralCLI,
		ProtoV6ProviderFactories: withEcho(),
		Steps: []resource.TestStep{{
			Config: store.providerBlock() + `
ephemeral "commerce_access_token" "live" {}
provider "echo" {
  data = ephemeral.commerce_access_token.live
}
resource "echo" "token" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("echo.token", token.AtMapKey("token_type"), knownvalue.StringRegexp(regexp.MustCompile(`(?i)^bearer$`))),
				statecheck.ExpectKnownValue("echo.token", token.AtMapKey("access_token"), knownvalue.StringFunc(func(v string) error {
					if v == "" {
						return errors.New("the access token is empty")
					}
					return nil
				})),
				statecheck.ExpectKnownValue("echo.token", token.AtMapKey("expires_at"), knownvalue.StringFunc(func(v string) error {
					at, err := time.Parse(time.RFC3339, v)
					if err != nil || !at.After(time.Now()) {
						return fmt.Errorf("expires_at %q is not a time to come (%v)", v, err)
					}
					return nil
				})),
			},
		}},
	})
}

// testLiveStore reads commerce_store: the store has an id; its name may be
// refused to the key (null, with a warning); a limit its settings give is
// at least 1.
func testLiveStore(t *testing.T, store liveStore) {
	limit := func(name string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.commerce_store.live", tfjsonpath.New(name), positiveOrNull{})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: store.providerBlock() + `data "commerce_store" "live" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_store.live", tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`\S`))),
				limit("page_length"), limit("page_offset_limit"), limit("filter_limit"),
			},
		}},
	})
}

// positiveOrNull holds a number to at least 1, or to null: a limit the
// settings may not give.
type positiveOrNull struct{}

func (positiveOrNull) CheckValue(v any) error {
	if v == nil {
		return nil
	}
	n, ok := v.(json.Number)
	if i, err := n.Int64(); !ok || err != nil || i < 1 {
		return fmt.Errorf("%v is neither null nor a whole number of at least 1", v)
	}
	return nil
}

func (positiveOrNull) String() string { return "null or at least 1" }
