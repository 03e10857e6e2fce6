package provider

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// BenchmarkPlanThroughCache times one plan's read of a list, with 20 ms of
// latency, after the writes of each case, in full and through the cache,
// side by side: the cache's plan follows an earlier one of the same list.
// tools/bench.sh cache runs it; PERFORMANCE.md has the figures.
func BenchmarkPlanThroughCache(b *testing.B) {
	for _, tc := range []struct {
		name       string
		opts       emulator.Options
		resource   string
		dataSource string
		// earlier are the writes of a plan before the measured one's
		// (write): that plan takes them in, through the cache if any.
		earlier, write func(b *testing.B, srv *emulator.Server)
	}{
		{"orders=60000/unchanged", emulator.Options{Orders: 60000, Files: -1, Accounts: -1}, "orders", "commerce_orders", nil, nil},
		{"accounts=20000/25_creates_30_updates", emulator.Options{Accounts: 20000, Files: -1, Orders: -1}, "accounts", "commerce_accounts", nil, createsAndUpdates},
		{"accounts=20000/1_delete", emulator.Options{Accounts: 20000, Files: -1, Orders: -1}, "accounts", "commerce_accounts", nil, deletes(1)},
		{"accounts=20000/2_deletes", emulator.Options{Accounts: 20000, Files: -1, Orders: -1}, "accounts", "commerce_accounts", nil, deletes(2)},
		{"accounts=20000/2_deletes_after_creates_and_updates", emulator.Options{Accounts: 20000, Files: -1, Orders: -1}, "accounts", "commerce_accounts", createsAndUpdates, deletes(2)},
		{"accounts=20000/20_deletes", emulator.Options{Accounts: 20000, Files: -1, Orders: -1}, "accounts", "commerce_accounts", nil, deletes(20)},
	} {
		for _, mode := range []string{"full", "cache"} {
			b.Run(tc.name+"/"+mode, func(b *testing.B) {
				srv := emulatortest.Start(b, tc.opts)
				clearBenchEnv(b)
				dir := ""
				if mode == "cache" {
					dir = filepath.Join(b.TempDir(), "cache")
					benchPlan(b, srv, dir, tc.dataSource) // the earlier plan
				}
				srv.SetLatency(20 * time.Millisecond)
				var wall time.Duration
				requests, iters := 0, 0
				for b.Loop() {
					b.StopTimer()
					if tc.earlier != nil {
						tc.earlier(b, srv)
						benchPlan(b, srv, dir, tc.dataSource)
					}
					if tc.write != nil {
						tc.write(b, srv)
					}
					before := srv.Stats().ListRequests[tc.resource]
					b.StartTimer()
					start := time.Now()
					benchPlan(b, srv, dir, tc.dataSource)
					wall += time.Since(start)
					requests += srv.Stats().ListRequests[tc.resource] - before
					iters++
				}
				b.ReportMetric(float64(wall.Milliseconds())/float64(iters), "wall_ms/op")
				b.ReportMetric(float64(requests)/float64(iters), "list_requests/op")
			})
		}
	}
}

// benchPlan is one plan's read of dataSource: a new provider process.
func benchPlan(b *testing.B, srv *emulator.Server, dir, dataSource string) {
	b.Helper()
	extra := map[string]tftypes.Value{}
	if dir != "" {
		extra["cache_dir"] = tftypes.NewValue(tftypes.String, dir)
	}
	p := serveConfigured(b, srv, NewServer("test"), extra)
	p.readState(b, dataSource, nil)
}

func createsAndUpdates(b *testing.B, srv *emulator.Server) {
	accounts := srv.Accounts()
	for i := range 30 {
		if err := srv.Update("accounts", accounts[(i*661)%len(accounts)].ID); err != nil {
			b.Fatal(err)
		}
	}
	for range 25 {
		if _, err := srv.Insert("accounts"); err != nil {
			b.Fatal(err)
		}
	}
}

func deletes(n int) func(*testing.B, *emulator.Server) {
	return func(b *testing.B, srv *emulator.Server) {
		accounts := srv.Accounts()
		for i := range n {
			if err := srv.Delete("accounts", accounts[(i*len(accounts))/n+len(accounts)/(2*n)].ID); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReadsOfOneListing reads the same accounts from one data source,
// from six identical ones at once (as Terraform reads six module
// instances), and from four at once that keep different things (records,
// records with JSON, ids only, the first 7): the list requests of each
// group are those of one listing.
func BenchmarkReadsOfOneListing(b *testing.B) {
	filter := tftypes.NewValue(tftypes.String, "ge(created_at,2024-01-01T00:00:00Z)")
	plain := map[string]tftypes.Value{"filter": filter}
	for _, tc := range []struct {
		name  string
		reads []map[string]tftypes.Value
	}{
		{"one", []map[string]tftypes.Value{plain}},
		{"six_identical", []map[string]tftypes.Value{plain, plain, plain, plain, plain, plain}},
		{"four_keeping_different_things", []map[string]tftypes.Value{plain,
			{"filter": filter, "include_json": tftypes.NewValue(tftypes.Bool, true)},
			{"filter": filter, "include_records": tftypes.NewValue(tftypes.Bool, false)},
			{"filter": filter, "max_results": tftypes.NewValue(tftypes.Number, 7)},
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := emulatortest.Start(b, emulator.Options{Accounts: 1000, Files: -1, Orders: -1, Latency: 20 * time.Millisecond})
			clearBenchEnv(b)
			requests, iters := 0, 0
			for b.Loop() {
				p := serveInProcess(b, srv)
				before := srv.Stats().ListRequests["accounts"]
				for _, resp := range p.readAccountsTogether(b.Context(), b, tc.reads) {
					for _, d := range resp.Diagnostics {
						b.Fatalf("%s: %s", d.Summary, d.Detail)
					}
				}
				requests += srv.Stats().ListRequests["accounts"] - before
				iters++
			}
			b.ReportMetric(float64(requests)/float64(iters), "list_requests/op")
		})
	}
}

// BenchmarkOneReadAlone reads 1,000 accounts from one data source that
// no other read shares, on a provider that holds its token already (a read
// of a plan's later step): the read starts at once, with no time spent
// waiting for reads that nobody announced.
func BenchmarkOneReadAlone(b *testing.B) {
	srv := emulatortest.Start(b, emulator.Options{Accounts: 1000, Files: -1, Orders: -1, Latency: 20 * time.Millisecond})
	clearBenchEnv(b)
	p := serveInProcess(b, srv)
	read := []map[string]tftypes.Value{{"include_records": tftypes.NewValue(tftypes.Bool, false)}}
	p.readAccountsTogether(b.Context(), b, read)
	for b.Loop() {
		for _, resp := range p.readAccountsTogether(b.Context(), b, read) {
			for _, d := range resp.Diagnostics {
				b.Fatalf("%s: %s", d.Summary, d.Detail)
			}
		}
	}
}

// BenchmarkLongIn reads 4,000 accounts by id, in one where in(), with 20 ms
// of latency: the provider splits the in() into parts of whole pages and
// reads them several at once.
func BenchmarkLongIn(b *testing.B) {
	srv := emulatortest.Start(b, emulator.Options{Accounts: 5000, Files: -1, Orders: -1, Latency: 20 * time.Millisecond})
	clearBenchEnv(b)
	ids := make([]tftypes.Value, 4000)
	for i, a := range srv.Accounts()[:len(ids)] {
		ids[i] = tftypes.NewValue(tftypes.String, a.ID)
	}
	where := whereIn("id", ids)
	requests, iters := 0, 0
	p := serveInProcess(b, srv)
	for b.Loop() {
		before := srv.Stats().ListRequests["accounts"]
		p.readState(b, "commerce_accounts", map[string]tftypes.Value{"where": where, "include_records": tftypes.NewValue(tftypes.Bool, false)})
		requests += srv.Stats().ListRequests["accounts"] - before
		iters++
	}
	b.ReportMetric(float64(requests)/float64(iters), "list_requests/op")
}
