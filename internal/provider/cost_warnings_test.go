package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// warnings are the summaries and details of a response's warnings.
func warnings(resp *tfprotov6.ReadDataSourceResponse) map[string]string {
	out := map[string]string{}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityWarning {
			out[d.Summary] = d.Detail
		}
	}
	return out
}

// TestMaxResultsThatCannotEndTheReadSaysSo: max_results = 10 on accounts
// sorted by name (which the service cannot sort) reads every account; the
// read says what it cost and what reads less. Sorted by created_at, it
// reads one page and says nothing.
func TestMaxResultsThatCannotEndTheReadSaysSo(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 2500, Orders: 1, Files: 150})
	clearEnv(t)
	p := serveInProcess(t, srv)
	resp := p.readResponse(t, "commerce_accounts", map[string]tftypes.Value{"max_results": num(10), "sort": str("name")})
	got := warnings(resp)["max_results did not end the read early"]
	for _, want := range []string{`max_results = 10 with sort = "name": the service does not sort accounts by name`,
		"listed every match (2,500 records, 27 list requests) and kept the first 10", "sort by one the service sorts (`created_at`, `updated_at`, `id`)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the warning lacks %q:\n%s", want, got)
		}
	}
	resp = p.readResponse(t, "commerce_accounts", map[string]tftypes.Value{"max_results": num(10), "sort": str("-created_at")})
	if len(resp.Diagnostics) != 0 {
		t.Errorf("sorted by created_at: %v", resp.Diagnostics)
	}
	// Files: the service sorts them by nothing, the default order included.
	resp = p.readResponse(t, "commerce_files", map[string]tftypes.Value{"max_results": num(3)})
	if got := warnings(resp)["max_results did not end the read early"]; !strings.Contains(got, "the service sorts files by nothing") {
		t.Errorf("files: %q", got)
	}
}

// TestIncludeJSONPastTheWarningSize: include_json on enough orders to pass
// 32 MiB of state says so; the same read without it does not.
func TestIncludeJSONPastTheWarningSize(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 20,000 orders")
	}
	srv := emulatortest.Start(t, emulator.Options{Orders: 20000, Files: 1, Accounts: 1})
	clearEnv(t)
	p := serveInProcess(t, srv)
	resp := p.readResponse(t, "commerce_orders", map[string]tftypes.Value{"include_json": tftypes.NewValue(tftypes.Bool, true)})
	got := warnings(resp)["include_json makes a large state"]
	if !strings.Contains(got, "include_json kept the JSON of 20,000 records:") || !strings.Contains(got, "MiB of state") {
		t.Errorf("the warning: %q (all: %v)", got, resp.Diagnostics)
	}
	resp = p.readResponse(t, "commerce_orders", map[string]tftypes.Value{})
	if len(resp.Diagnostics) != 0 {
		t.Errorf("without include_json: %v", resp.Diagnostics)
	}
}
