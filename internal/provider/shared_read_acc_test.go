package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// Six instances that look up the same accounts send the requests of one:
// they share one listing (checkWalks says how). Each instance's list is exact. The instances are six of one
// block (count) rather than of a module: terraform-plugin-testing refuses a
// state with modules ("Modules are not supported"), and Terraform reads a
// module instance's data source exactly as it reads one of count's, one
// ReadDataSource call each, with the same configuration.
func TestAccSixInstancesShareOneListing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Latency: storeLatency})
	want := expected(t, srv, "accounts", "", "created_at")
	config := func(teams int) (string, statecheck.StateCheck) {
		lists := make([]knownvalue.Check, teams)
		for i := range lists {
			lists[i] = idsExact(want)
		}
		return fmt.Sprintf(`
data "commerce_accounts" "team" {
  count           = %d
  include_records = false
}

output "ids" {
  value = data.commerce_accounts.team[*].ids
}
`, teams), statecheck.ExpectKnownOutputValue("ids", knownvalue.ListExact(lists))
	}
	one := readWalks(t, srv)(config(1))
	six := readWalks(t, srv)(config(6))
	checkWalks(t, "six instances", one, six)
}

// A data source that depends on a write made while a read of the same
// listing is under way sees the write. In the apply step below, "before"
// starts listing once "first" exists; "second" is created meanwhile, and
// "after", which depends on it and needs the same listing (it keeps the
// records, "before" only the ids), is read while an answer of "before"'s
// listing is held. Were "after" served by that listing, it would miss the
// second account:
//
//   - once the listing has handed out records (its first page; the second
//     is held), "after" lists on its own, and "before" misses the second
//     account, as it may: it did not depend on it;
//   - while the listing has handed out nothing (its only page is held),
//     "after" takes it over: a new listing serves both, and both see the
//     second account.
func TestAccReadAfterWriteIsNotServedByAnEarlierRead(t *testing.T) {
	for _, tc := range []struct {
		name                string
		accounts, holdAt    int
		wantBefore, wantAll string
	}{
		{"after the listing handed out records", 150, 2, "151", "152"},
		{"before the listing handed out anything", 50, 1, "52", "52"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readAfterWrite(t, tc.accounts, tc.holdAt, tc.wantBefore, tc.wantAll)
		})
	}
}

// readAfterWrite runs the apply of TestAccReadAfterWriteIsNotServedByAnEarlierRead
// on a store of accounts, holding the answer to the holdAt-th list request
// for 800 ms once the emulator has evaluated it (the second account is
// written only then), and checks the totals "before" and "after" got.
func readAfterWrite(t *testing.T, accounts, holdAt int, wantBefore, wantAfter string) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: accounts})
	var lists atomic.Int32
	evaluated := make(chan struct{})
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != "/v2/accounts" || lists.Add(1) != int32(holdAt) {
			return nil
		}
		return &emulator.Fault{Mutate: func(body []byte) []byte {
			close(evaluated)
			time.Sleep(800 * time.Millisecond)
			return body
		}}
	})
	writer := &writerProvider{srv: srv, evaluated: evaluated}
	factories := map[string]func() (tfprotov6.ProviderServer, error){
		"commerce":     NewServer("test"),
		"commercetest": providerserver.NewProtocol6WithError(writer),
	}
	cfg := providerConfig(t, srv) + `
resource "commercetest_account" "first" {}

data "commerce_accounts" "before" {
  include_records = false
  depends_on      = [commercetest_account.first]
}

resource "commercetest_account" "second" {
  depends_on = [commercetest_account.first]
}

data "commerce_accounts" "after" {
  depends_on = [commercetest_account.second]
}
`
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []tfresource.TestStep{{
			Config: cfg,
			Check: func(s *terraform.State) error {
				second := s.RootModule().Resources["commercetest_account.second"].Primary.ID
				if before := s.RootModule().Resources["data.commerce_accounts.before"].Primary.Attributes["total"]; before != wantBefore {
					return fmt.Errorf("before: total %s, want %s", before, wantBefore)
				}
				after := s.RootModule().Resources["data.commerce_accounts.after"].Primary.Attributes
				if after["total"] != wantAfter {
					return fmt.Errorf("after: total %s, want %s (the accounts and the two written)", after["total"], wantAfter)
				}
				for k, v := range after {
					if v == second && k != "id" {
						return nil
					}
				}
				return fmt.Errorf("after does not list %s, the account written before it was read", second)
			},
		}},
	})
}

// writerProvider is a test provider with one resource, commercetest_account,
// that writes an account to the emulator, as another provider (using
// commerce_access_token) would write to the store.
type writerProvider struct {
	srv *emulator.Server
	// created counts the accounts written.
	created int
	// evaluated is closed once the service has evaluated the list request
	// whose answer is held; the second account waits for it.
	evaluated <-chan struct{}
}

func (p *writerProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "commercetest"
}

func (p *writerProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (p *writerProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *writerProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

func (p *writerProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return &writtenAccount{p: p} }}
}

type writtenAccount struct{ p *writerProvider }

type writtenAccountModel struct {
	ID types.String `tfsdk:"id"`
}

func (r *writtenAccount) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "commercetest_account"
}

func (r *writtenAccount) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{"id": schema.StringAttribute{Computed: true}}}
}

func (r *writtenAccount) Create(ctx context.Context, _ resource.CreateRequest, resp *resource.CreateResponse) {
	if r.p.created == 1 {
		// The second write waits until the service has evaluated the held
		// list request of the read that started with the first one.
		select {
		case <-r.p.evaluated:
		case <-time.After(time.Minute):
			resp.Diagnostics.AddError("test", "no list request reached the emulator within a minute")
			return
		}
	}
	id, err := r.p.srv.Insert("accounts")
	if err != nil {
		resp.Diagnostics.AddError("insert", err.Error())
		return
	}
	r.p.created++
	resp.Diagnostics.Append(resp.State.Set(ctx, writtenAccountModel{ID: types.StringValue(id)})...)
}

func (r *writtenAccount) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *writtenAccount) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}

func (r *writtenAccount) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m writtenAccountModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.p.srv.Delete("accounts", m.ID.ValueString()); err != nil {
		resp.Diagnostics.AddError("delete", err.Error())
	}
}

// Four data sources with one filter that keep different things (the
// records, the records with JSON, the ids only, the first 7) share one
// listing through Terraform, however long the machine takes to send the
// reads: the listing waits for every read Terraform validated, and a read
// Terraform validates once the others have come takes the listing over
// while it has handed nothing out; neither looks at a clock.
func TestAccSharedListingOfFourReads(t *testing.T) {
	const filter = "ge(created_at,2024-01-01T00:00:00Z)"
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1, Latency: storeLatency})
	want := expected(t, srv, "accounts", filter, "created_at")
	records := fmt.Sprintf(`
data "commerce_accounts" "records" {
  filter = %q
}
`, filter)
	four := records + fmt.Sprintf(`
data "commerce_accounts" "json" {
  filter       = %[1]q
  include_json = true
}

data "commerce_accounts" "ids" {
  filter          = %[1]q
  include_records = false
}

data "commerce_accounts" "first" {
  filter      = %[1]q
  max_results = 7
}
`, filter)
	ids := func(name string, want []string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.commerce_accounts."+name, tfjsonpath.New("ids"), idsExact(want))
	}
	one := readWalks(t, srv)(records, ids("records", want))
	shared := readWalks(t, srv)(four, ids("records", want), ids("json", want), ids("ids", want), ids("first", want[:7]),
		statecheck.ExpectKnownValue("data.commerce_accounts.json", tfjsonpath.New("accounts").AtSliceIndex(0).AtMapKey("json"), knownvalue.NotNull()))
	checkWalks(t, "the four data sources", one, shared)
}

// storeLatency is the sharing tests' store's round trip, the benchmarks'
// (a real store is farther). A read that Terraform validates once the
// others have come takes their listing over while the listing has handed
// nothing out, which is at least the first answer's round trip; after
// that it refreshes what the listing handed out (2 requests more).
const storeLatency = 20 * time.Millisecond

// readWalks returns a function that applies config with its checks on the
// provider served for srv, and returns the walks that read.
func readWalks(t *testing.T, srv *emulator.Server) func(config string, checks ...statecheck.StateCheck) []walk {
	clearEnv(t)
	t.Setenv(envBaseURL, srv.URL())
	t.Setenv(envClientID, emulator.DefaultClientID)
	t.Setenv(envClientSecret, emulator.DefaultClientSecret)
	return func(config string, checks ...statecheck.StateCheck) []walk {
		rec := &walkRecorder{srv: srv}
		tfresource.Test(t, tfresource.TestCase{
			ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
				"commerce": func() (tfprotov6.ProviderServer, error) {
					s, err := NewServer("test")()
					return &recordingServer{ProviderServer: s, rec: rec}, err
				},
			},
			Steps: []tfresource.TestStep{{Config: config, ConfigStateChecks: checks}},
		})
		return rec.finish()
	}
}

// checkWalks holds the reads of one listing to 1.1 times the requests of
// one read (one: its walks), and to one listing in every walk where
// Terraform validated them together. In a walk where Terraform validated a
// read only once every other had come, the listing may have started
// without it: the read takes it over if the listing has handed nothing out
// yet, else it refreshes what the listing handed out (the provider cannot
// tell such a walk from an apply, where the late read may depend on a
// write), a count and a page of changes for each read that came late. The
// test says how many walks went so, and what each cost.
func checkWalks(t *testing.T, what string, one, shared []walk) {
	t.Helper()
	listing := one[0].requests
	oneTotal, sharedTotal, apart := 0, 0, 0
	for _, w := range one {
		oneTotal += w.requests
	}
	for i, w := range shared {
		sharedTotal += w.requests
		if !w.together {
			apart++
			t.Logf("walk %d: Terraform validated a read once every other had come (%s): %d list requests", i, w.order, w.requests)
			if late := strings.Count(w.order, "V") - 1; w.requests > listing+2*late {
				t.Errorf("walk %d: %s (%s) sent %d list requests; one listing sends %d, and a read that comes late 2 more", i, what, w.order, w.requests, listing)
			}
			continue
		}
		if float64(w.requests) > 1.1*float64(listing) {
			t.Errorf("walk %d: %s, validated together (%s), sent %d list requests; one listing sends %d", i, what, w.order, w.requests, listing)
		}
	}
	t.Logf("list requests: %d for one read, %d for %s (%.2fx) over %d walks that read, %d of them with a read validated once the others had come",
		oneTotal, sharedTotal, what, float64(sharedTotal)/float64(oneTotal), len(shared), apart)
	if float64(sharedTotal) > 1.1*float64(oneTotal) {
		t.Errorf("%s sent %d list requests, one read %d: want at most 1.1x", what, sharedTotal, oneTotal)
	}
}

// walk is what a walk that reads (from one ConfigureProvider to the next)
// cost and how Terraform ordered it.
type walk struct {
	requests int
	// together: Terraform validated every read of the walk while another
	// validated read had yet to come, so that the listing, which starts
	// once none is on its way, waited for all of them.
	together bool
	order    string // V for a validation, R for a read, in their order
	pending  int    // validated reads not come yet
}

// walkRecorder cuts the provider's calls into walks at each
// ConfigureProvider and counts the list requests each walk sent.
type walkRecorder struct {
	srv   *emulator.Server
	mu    sync.Mutex
	walks []walk
	at    int // list requests when the current walk began
}

func (r *walkRecorder) configured() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeWalk()
	r.walks = append(r.walks, walk{together: true})
}

// closeWalk gives the current walk its requests. Caller holds the lock.
func (r *walkRecorder) closeWalk() {
	now := r.srv.Stats().ListRequests["accounts"]
	if n := len(r.walks); n > 0 {
		r.walks[n-1].requests = now - r.at
	}
	r.at = now
}

func (r *walkRecorder) event(e byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.walks)
	if n == 0 {
		return // the validate walk, before any configuration
	}
	w := &r.walks[n-1]
	switch e {
	case 'V':
		if w.pending == 0 && strings.Contains(w.order, "R") {
			// Every read validated so far had come: the listing may
			// have started without this one.
			w.together = false
		}
		w.pending++
	case 'R':
		w.pending = max(0, w.pending-1)
	}
	w.order += string(e)
}

// finish returns the walks that read.
func (r *walkRecorder) finish() []walk {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeWalk()
	var out []walk
	for _, w := range r.walks {
		if strings.Contains(w.order, "R") {
			out = append(out, w)
		}
	}
	return out
}

// recordingServer tells rec of each configuration, validation and read,
// as the provider's server sees them: a validation once it is answered
// (announced), a read as it comes. Each Terraform command starts a server
// of its own; the validations before its first configuration are its
// validate walk's, which no read follows.
type recordingServer struct {
	tfprotov6.ProviderServer
	rec        *walkRecorder
	configured atomic.Bool
}

func (s *recordingServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	s.rec.configured()
	s.configured.Store(true)
	return s.ProviderServer.ConfigureProvider(ctx, req)
}

func (s *recordingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if s.configured.Load() {
		s.rec.event('V')
	}
	return resp, err
}

func (s *recordingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	s.rec.event('R')
	return s.ProviderServer.ReadDataSource(ctx, req)
}
