package provider

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// Reads that need one listing share it, whatever each keeps: four
// commerce_accounts with one filter (plain, with JSON, ids only, and the
// first 7 of the same order) cost about one listing, and each gets the
// state it gets alone. A read in another order, or with another filter,
// lists on its own; the reads served by another's listing say so at
// DEBUG.
func TestReadsOfOneListingShareIt(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1})
	p := serveInProcess(t, srv)
	var logs syncBuffer
	ctx := tflogtest.RootLogger(t.Context(), &logs)
	typ := p.dataSourceType(t, "commerce_accounts")
	filter := tftypes.NewValue(tftypes.String, "ge(created_at,2024-01-01T00:00:00Z)")
	same := []map[string]tftypes.Value{
		{"filter": filter},
		{"filter": filter, "include_json": tftypes.NewValue(tftypes.Bool, true)},
		{"filter": filter, "include_records": tftypes.NewValue(tftypes.Bool, false)},
		{"filter": filter, "max_results": tftypes.NewValue(tftypes.Number, 7)},
	}
	other := []map[string]tftypes.Value{
		{"filter": filter, "sort": tftypes.NewValue(tftypes.String, "-created_at"), "max_results": tftypes.NewValue(tftypes.Number, 7)},
	}
	read := func(set map[string]tftypes.Value) []byte {
		resp, err := p.server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "commerce_accounts", Config: dynamicValue(t, nullObject(typ, set))})
		if err != nil {
			t.Error(err)
			return nil
		}
		for _, d := range resp.Diagnostics {
			t.Errorf("%s: %s", d.Summary, d.Detail)
		}
		return resp.State.MsgPack
	}
	reads := append(same, other...)
	alone := make([][]byte, len(reads))
	costs := make([]int, len(reads))
	for i, set := range reads {
		p.newWalk(t) // each alone, in a walk of its own
		srv.ResetStats()
		alone[i] = read(set)
		costs[i] = srv.Stats().ListRequests["accounts"]
	}
	p.newWalk(t)
	logs.Reset()
	srv.ResetStats()
	// However busy the machine, every read announced joins: the rule
	// waits for them, not for a clock.
	together := make([][]byte, len(reads))
	for i, resp := range p.readAccountsTogether(ctx, t, reads) {
		for _, d := range resp.Diagnostics {
			t.Errorf("%s: %s", d.Summary, d.Detail)
		}
		together[i] = resp.State.MsgPack
	}
	for i := range reads {
		if !bytes.Equal(together[i], alone[i]) {
			t.Errorf("read %d (%v): its state read together differs from its state read alone", i, reads[i])
		}
	}
	one, sent := costs[0], srv.Stats().ListRequests["accounts"]
	t.Logf("list requests: %d for one read, %v alone, %d for the %d read together (%.2fx one)", one, costs, sent, len(reads), float64(sent)/float64(one))
	// The first 7 in another order take a page of their own.
	if want := one + costs[len(reads)-1]; sent != want {
		t.Errorf("%d list requests, want %d: one listing for the four, one for the other order", sent, want)
	}
	if float64(sent) > 1.2*float64(one) {
		t.Errorf("%d list requests, more than 1.2x one listing's %d", sent, one)
	}
	if n := strings.Count(logs.String(), "served by another read's listing"); n != len(same)-1 {
		t.Errorf("%d DEBUG lines say a read was served by another's listing, want %d:\n%s", n, len(same)-1, grepLines(logs.String(), "served"))
	}
	// Each read's INFO line counts the requests it sent: the listing's
	// for the read that ran it, none for the reads it served.
	counted, served := 0, 0
	for _, line := range logLines(t, logs.String(), "read finished") {
		requests, _ := line["requests"].(float64)
		counted += int(requests)
		if line["shared"] == true {
			served++
			if requests != 0 {
				t.Errorf("a read served by another's listing counts %v requests: %v", requests, line)
			}
		}
	}
	if counted != sent || served != len(same)-1 {
		t.Errorf("the reads' INFO lines count %d requests, %d reads served by another's; want %d and %d", counted, served, sent, len(same)-1)
	}
}

// Terraform's walk sometimes validates and reads two data sources before
// its goroutines validate the other two (VVRRVVRR, seen on a busy 2-core
// machine). The two that come once the listing has handed out its
// records cannot join it, and need not list again: they refresh what it
// handed out (a count and the changes since), and each state is the one
// it gets alone. No clock decides: the walk is played in that order.
func TestReadsThatComeLateRefreshTheListing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1})
	p := serveInProcess(t, srv)
	var logs syncBuffer
	ctx := tflogtest.RootLogger(t.Context(), &logs)
	filter := tftypes.NewValue(tftypes.String, "ge(created_at,2024-01-01T00:00:00Z)")
	reads := []map[string]tftypes.Value{
		{"filter": filter},
		{"filter": filter, "include_json": tftypes.NewValue(tftypes.Bool, true)},
		{"filter": filter, "include_records": tftypes.NewValue(tftypes.Bool, false)},
		{"filter": filter, "max_results": tftypes.NewValue(tftypes.Number, 7)},
	}
	alone := make([][]byte, len(reads))
	one := 0
	for i, set := range reads {
		p.newWalk(t)
		srv.ResetStats()
		alone[i] = p.readState(t, "commerce_accounts", set)
		if i == 0 {
			one = srv.Stats().ListRequests["accounts"]
		}
	}
	p.newWalk(t)
	srv.ResetStats()
	logs.Reset()
	got := append(p.readAccountsTogether(ctx, t, reads[:2]), p.readAccountsTogether(ctx, t, reads[2:])...)
	for i, resp := range got {
		for _, d := range resp.Diagnostics {
			t.Errorf("read %d: %s: %s", i, d.Summary, d.Detail)
		}
		if !bytes.Equal(resp.State.MsgPack, alone[i]) {
			t.Errorf("read %d (%v): its state differs from its state read alone", i, reads[i])
		}
	}
	sent := srv.Stats().ListRequests["accounts"]
	t.Logf("list requests: %d for one read, %d for the four read as VVRRVVRR (%.2fx)", one, sent, float64(sent)/float64(one))
	if sent != one+2 {
		t.Errorf("%d list requests, want %d: one listing, and a count and the changes for the two that came late", sent, one+2)
	}
	if n := strings.Count(logs.String(), `"cache":"refreshed from this run"`); n != 1 {
		t.Errorf("%d INFO lines say a listing was refreshed from an earlier one in this run, want 1:\n%s", n, grepLines(logs.String(), "listing finished"))
	}
}

// 4,000 account ids in one where in(): parts of whole pages, so the read
// costs the 40 pages its records fill, exact and in order, and its warning
// says how many parts and requests it took.
func TestLongInWarnsWithTheRequestsItTook(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5000, Orders: -1, Files: -1})
	p := serveInProcess(t, srv)
	values := make([]tftypes.Value, 4000)
	chosen := map[string]bool{}
	for i, a := range srv.Accounts()[:len(values)] {
		values[i] = tftypes.NewValue(tftypes.String, a.ID)
		chosen[a.ID] = true
	}
	srv.ResetStats()
	resp := p.readResponse(t, "commerce_accounts", map[string]tftypes.Value{"where": whereIn("id", values), "include_records": tftypes.NewValue(tftypes.Bool, false)})
	sent := srv.Stats().ListRequests["accounts"]
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityWarning {
		t.Fatalf("diagnostics %v, want one warning", resp.Diagnostics)
	}
	d := resp.Diagnostics[0]
	for _, want := range []string{"in(id,…) has 4000 values", "in 20 parts", "a whole number of pages", fmt.Sprintf("%d list requests", sent)} {
		if !strings.Contains(d.Detail, want) {
			t.Errorf("the warning lacks %q: %s", want, d.Detail)
		}
	}
	var want []string
	for _, id := range expected(t, srv, "accounts", "", "created_at") {
		if chosen[id] {
			want = append(want, id)
		}
	}
	v, err := resp.State.Unmarshal(p.dataSourceType(t, "commerce_accounts"))
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, attrs["ids"]); !slices.Equal(got, want) {
		t.Errorf("%d ids, want the 4000 in order", len(got))
	}
	if sent > 2*20+4 {
		t.Errorf("%d list requests for 20 parts, want at most 44", sent)
	}
}
