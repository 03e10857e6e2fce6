package provider

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// withStateLimit lowers the state ceiling for the rest of the test.
func withStateLimit(t *testing.T, n int) {
	t.Helper()
	was := maxStateBytes
	maxStateBytes = n
	t.Cleanup(func() { maxStateBytes = was })
}

// A read whose state passes the ceiling stops listing as soon as it does,
// and says how large it got and what to change, largest effect first.
func TestStateCeilingStopsEarly(t *testing.T) {
	withStateLimit(t, 1<<20)
	srv := emulatortest.Start(t, emulator.Options{Orders: 30000, Files: -1, Accounts: -1})
	p := serveInProcess(t, srv)
	srv.ResetStats()
	resp := p.readResponse(t, "commerce_orders", map[string]tftypes.Value{"include_json": tftypes.NewValue(tftypes.Bool, true)})
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError {
		t.Fatalf("diagnostics %v; want one error", resp.Diagnostics)
	}
	d := resp.Diagnostics[0]
	detail := d.Detail
	for _, want := range []string{
		"commerce_orders would hold more state than Terraform can take", "at most 256 MiB",
		"30000 orders match", "over the limit of 1,048,576)", "sent no further request",
		"1. `include_json = false`", "2. `include_records = false`", "3. `max_results = ", "4. a narrower `filter`",
	} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, detail)
		}
	}
	if d.Summary != "Too large for Terraform" {
		t.Errorf("summary %q", d.Summary)
	}
	// About 1 MiB of orders with their JSON is a few hundred orders, in the
	// first of three windows: at most the pages of that window the workers
	// had fetched ahead, and nothing goes on after. Requests already on the
	// wire when the read ended may reach the emulator a moment later, so
	// the count is read once it has settled.
	sent, settled := settledListRequests(srv, "orders")
	if !settled {
		t.Errorf("list requests still going on 5 s after the read ended (%d so far)", sent)
	}
	if sent > 100 {
		t.Errorf("%d list requests, more than the first window's 100: the listing went on past the ceiling", sent)
	}

	// Without the JSON the same orders fit, and the read says nothing.
	resp = p.readResponse(t, "commerce_orders", map[string]tftypes.Value{"max_results": tftypes.NewValue(tftypes.Number, 2000)})
	if len(resp.Diagnostics) != 0 || resp.State == nil {
		t.Errorf("2,000 orders without JSON: %v", resp.Diagnostics)
	}
}

// TestAccStateCeiling reads, through a real CLI, more orders with their
// JSON than 256 MiB of state holds: the read fails with the provider's
// diagnostic, not with the plugin protocol's "message larger than max".
func TestAccStateCeiling(t *testing.T) {
	if testing.Short() {
		t.Skip("long: lists 160,000 orders; runs in make test, not in make unit (-short)")
	}
	srv := emulatortest.Start(t, emulator.Options{Orders: 160000, Files: -1, Accounts: -1})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config:      providerConfig(t, srv) + `data "commerce_orders" "all" { include_json = true }`,
			ExpectError: regexp.MustCompile(`(?s)Too large for Terraform.*160000 orders match;\s+after\s+\d+\s+of\s+them\s+the\s+state\s+had\s+reached\s+25\d\.\d\s+MiB.*over\s+the\s+limit\s+of\s+268,369,920\).*include_json = false`),
		}},
	})
}

// settledListRequests returns the emulator's count of list requests to
// endpoint once it has not moved for 300 ms, and false when it still moves
// after 5 s: a listing that goes on after its read ended never settles.
func settledListRequests(srv *emulator.Server, endpoint string) (int, bool) {
	last, since := srv.Stats().ListRequests[endpoint], time.Now()
	for give := time.Now().Add(5 * time.Second); time.Now().Before(give); {
		time.Sleep(25 * time.Millisecond)
		if n := srv.Stats().ListRequests[endpoint]; n != last {
			last, since = n, time.Now()
		} else if time.Since(since) >= 300*time.Millisecond {
			return last, true
		}
	}
	return last, false
}
