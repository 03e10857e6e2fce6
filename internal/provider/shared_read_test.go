package provider

import (
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// Two identical reads at once: one listing, the same state for both, and
// the read that was served by the other says so at DEBUG. A read with
// another filter lists on its own.
func TestIdenticalReadsShareOneListing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 450})
	p := serveInProcess(t, srv)
	var logs syncBuffer
	ctx := tflogtest.RootLogger(t.Context(), &logs)
	typ := p.dataSourceType(t, "commerce_accounts")
	read := func(filter string) []byte {
		set := map[string]tftypes.Value{}
		if filter != "" {
			set["filter"] = tftypes.NewValue(tftypes.String, filter)
		}
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
	srv.ResetStats()
	states := make([][]byte, 3)
	var wg sync.WaitGroup
	for i, filter := range []string{"", "", "like(name,A*)"} {
		wg.Go(func() { states[i] = read(filter) })
	}
	wg.Wait()
	if string(states[0]) != string(states[1]) {
		t.Error("the two identical reads got different states")
	}
	// 450 accounts take 5 pages; the filtered read at least one more.
	if got := srv.Stats().ListRequests["accounts"]; got < 6 || got > 7 {
		t.Errorf("%d list requests, want the 5 of one listing and the filtered read's own", got)
	}
	if n := strings.Count(logs.String(), "served by an identical read"); n != 1 {
		t.Errorf("%d DEBUG lines say a read was served by another, want 1:\n%s", n, grepLines(logs.String(), "served"))
	}
}
