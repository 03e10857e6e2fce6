package provider

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// A read that is no listing (a record by id, the store) says at INFO what
// it cost and warns of a 429, as a list read does: each read here meets
// one 429 on its first request.
func TestLookupsSayWhatTheyCost(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3, Orders: 3, Files: 3})
	clearEnv(t)
	p := serveInProcess(t, srv)
	order := srv.Orders()[0].ID
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	for _, c := range []struct {
		dataSource, resource string
		set                  map[string]tftypes.Value
		requests             float64
	}{
		{"commerce_order", "orders", map[string]tftypes.Value{"id": str(order)}, 2},
		{"commerce_record", "orders", map[string]tftypes.Value{"path": str("/v2/orders"), "id": str(order)}, 2},
		// The settings (refused once, then answered) and the store's name.
		{"commerce_store", "store", nil, 3},
	} {
		t.Run(c.dataSource, func(t *testing.T) {
			var refused atomic.Bool
			srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
				if r.URL.Path == "/oauth/access_token" || refused.Swap(true) {
					return nil
				}
				return &emulator.Fault{Status: http.StatusTooManyRequests}
			})
			var logs syncBuffer
			ctx := tflogtest.RootLogger(t.Context(), &logs)
			cfg := dynamicValue(t, nullObject(p.dataSourceType(t, c.dataSource), c.set))
			resp, err := p.server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: c.dataSource, Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				t.Fatalf("diagnostic %s: %s", d.Summary, d.Detail)
			}
			finished, warned := logLine(t, logs.String(), "read finished"), logLine(t, logs.String(), "the service throttled the read of "+c.resource+":")
			if finished == nil || finished["resource"] != c.resource || finished["requests"] != c.requests || finished["throttled_429"] != 1.0 {
				t.Errorf("INFO read finished: %v; want resource %s, %v requests, 1 answer 429\n%s", finished, c.resource, c.requests, logs.String())
			}
			if warned == nil || warned["@level"] != "warn" {
				t.Errorf("no WARN of the 429:\n%s", logs.String())
			}
		})
	}
}

// logLine is the first JSON log line whose message starts with msg, or nil.
func logLine(t *testing.T, logs, msg string) map[string]any {
	t.Helper()
	if lines := logLines(t, logs, msg); len(lines) > 0 {
		return lines[0]
	}
	return nil
}

// logLines are the JSON log lines whose message starts with msg.
func logLines(t *testing.T, logs, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(logs, "\n") {
		var entry map[string]any
		if json.Unmarshal([]byte(line), &entry) != nil {
			continue
		}
		if m, _ := entry["@message"].(string); strings.HasPrefix(m, msg) {
			out = append(out, entry)
		}
	}
	return out
}
