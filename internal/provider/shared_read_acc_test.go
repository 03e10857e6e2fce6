package provider

import (
	"context"
	"fmt"
	"net/http"
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

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// Six instances that look up the same accounts send about the requests
// of one: Terraform reads them together, and they share one listing. Each
// instance's list is exact. The instances are six of one block (count)
// rather than of a module: terraform-plugin-testing refuses a state with
// modules ("Modules are not supported"), and Terraform reads a module
// instance's data source exactly as it reads one of count's, one
// ReadDataSource call each, with the same configuration.
func TestAccSixInstancesShareOneListing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000})
	want := expected(t, srv, "accounts", "", "created_at")
	clearEnv(t)
	t.Setenv(envBaseURL, srv.URL())
	t.Setenv(envClientID, emulator.DefaultClientID)
	t.Setenv(envClientSecret, emulator.DefaultClientSecret)

	requests := func(teams int) int {
		srv.ResetStats()
		lists := make([]knownvalue.Check, teams)
		for i := range lists {
			lists[i] = idsExact(want)
		}
		tfresource.Test(t, tfresource.TestCase{
			ProtoV6ProviderFactories: protoV6Factories,
			Steps: []tfresource.TestStep{{
				Config: fmt.Sprintf(`
data "commerce_accounts" "team" {
  count           = %d
  include_records = false
}

output "ids" {
  value = data.commerce_accounts.team[*].ids
}
`, teams),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("ids", knownvalue.ListExact(lists)),
				},
			}},
		})
		return srv.Stats().ListRequests["accounts"]
	}
	one := requests(1)
	six := requests(6)
	t.Logf("list requests: %d for one instance, %d for six (%.2fx)", one, six, float64(six)/float64(one))
	if float64(six) > 1.1*float64(one) {
		t.Errorf("six module instances sent %d list requests, one sent %d: want at most 1.1x", six, one)
	}
}

// A data source that depends on a write made while a read of the same
// listing is under way sees the write: it arrives after that listing
// started, so it gets a listing of its own. In the apply step below,
// "before" starts listing once "first" exists; "second" is created
// meanwhile, and "after", which depends on it and needs the same listing
// (it keeps the records, "before" only the ids), is read while "before"
// still waits for its answer. Were "after" served by "before", it would
// miss the second account.
func TestAccReadAfterWriteIsNotServedByAnEarlierRead(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 50})
	// The first listing's answer (one page) is held for 800 ms once the
	// emulator has evaluated it: the second account, written only then,
	// is not in it, and "after" arrives while it is still in flight.
	var held atomic.Bool
	evaluated := make(chan struct{})
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		if r.URL.Path != "/v2/accounts" || held.Swap(true) {
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
				if before := s.RootModule().Resources["data.commerce_accounts.before"].Primary.Attributes["total"]; before != "51" {
					return fmt.Errorf("before: total %s, want 51: the second account was not written while before listed, so the test did not exercise the hazard; make the listing slower", before)
				}
				after := s.RootModule().Resources["data.commerce_accounts.after"].Primary.Attributes
				if after["total"] != "52" {
					return fmt.Errorf("after: total %s, want 52 (50 accounts and the two written)", after["total"])
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
	// evaluated is closed once the service has answered the first list
	// request; the second account waits for it.
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
		// The second write waits until the read that started with the
		// first one has been answered (the answer is still held).
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
