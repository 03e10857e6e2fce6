package client

// The start of a listing, side by side: how few requests a store whose
// limit the client has not learned yet refuses (the probe, budget.go), and
// how much that costs where the store has no limit.
//
//	go test ./internal/client -run '^$' -bench '^BenchmarkListingStart$' -benchtime 10x

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// BenchmarkListingStart lists 10,000 accounts with a new Client each run,
// as one terraform plan does:
//
//   - store=20rps: a store that accepts 20 requests per sliding second,
//     20 ms latency; every run's share of requests answered 429 is logged
//     (-v) and the worst is reported (max_throttled_pct), with the wall
//     time against the ideal, accepted requests / 20.
//   - store=unlimited: 25 ms latency, no limit; the engine against a
//     sequential offset pager on the same store (speedup).
//
// With COMMERCE_BENCH_TRACE set, the engine's requests of each store's last
// run are written there as a timeline.
func BenchmarkListingStart(b *testing.B) {
	b.Run("store=20rps", func(b *testing.B) {
		srv, err := emulator.Start(emulator.Options{Accounts: 10000, Orders: -1, Files: -1, Customers: -1, Hierarchies: -1,
			Latency: 20 * time.Millisecond, RateLimit: 20})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		var worst, sumRatio float64
		runs := 0
		for b.Loop() {
			b.StopTimer()
			time.Sleep(1100 * time.Millisecond) // an idle store, as between two plans
			srv.ResetStats()
			b.StartTimer()
			start := time.Now()
			listConcurrently(b, newBenchClient(b, srv), 1)
			d := time.Since(start)
			st := srv.Stats()
			if dir := os.Getenv("COMMERCE_BENCH_TRACE"); dir != "" {
				emulatortest.WriteTrace(b, filepath.Join(dir, "trace-start-20rps.csv"), start, st.Requests)
			}
			refused := st.StatusCounts[http.StatusTooManyRequests]
			share := 100 * float64(refused) / float64(st.TotalRequests)
			ratio := d.Seconds() / (float64(st.TotalRequests-refused) / 20)
			worst, sumRatio = max(worst, share), sumRatio+ratio
			runs++
			b.Logf("run %d: %d requests, %d answered 429 (%.1f%%), %v, %.2f× the ideal", runs, st.TotalRequests, refused, share, d.Round(time.Millisecond), ratio)
		}
		b.ReportMetric(worst, "max_throttled_pct")
		b.ReportMetric(sumRatio/float64(runs), "ratio_to_ideal")
	})
	b.Run("store=unlimited", func(b *testing.B) {
		srv, err := emulator.Start(emulator.Options{Accounts: 10000, Orders: -1, Files: -1, Customers: -1, Hierarchies: -1,
			Latency: 25 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		var engine, sequential time.Duration
		for b.Loop() {
			srv.ResetStats()
			start := time.Now()
			listConcurrently(b, newBenchClient(b, srv), 1)
			engine += time.Since(start)
			if dir := os.Getenv("COMMERCE_BENCH_TRACE"); dir != "" {
				emulatortest.WriteTrace(b, filepath.Join(dir, "trace-start-unlimited.csv"), start, srv.Stats().Requests)
			}
			start = time.Now()
			if n := sequentialAccounts(b, newBenchClient(b, srv)); n != 10000 {
				b.Fatalf("the sequential pager listed %d accounts", n)
			}
			sequential += time.Since(start)
		}
		b.ReportMetric(float64(engine.Milliseconds())/float64(b.N), "engine_ms/op")
		b.ReportMetric(float64(sequential.Milliseconds())/float64(b.N), "sequential_ms/op")
		b.ReportMetric(sequential.Seconds()/engine.Seconds(), "speedup")
	})
}

func newBenchClient(b *testing.B, srv *emulator.Server) *Client {
	c, err := New(Config{BaseURL: srv.URL(), ClientID: emulator.DefaultClientID, ClientSecret: emulator.DefaultClientSecret,
		MaxRetries: DefaultMaxRetries})
	if err != nil {
		b.Fatal(err)
	}
	// The provider's Configure fetches the token in the background, while
	// Terraform walks to the first data source: so does every client here.
	go func() { _ = c.Authenticate(context.Background()) }()
	return c
}

// sequentialAccounts is the loop a caller would write: offsets 0, 100, …
// with sort=created_at, one page after another, until a short page, each
// decoded as the engine decodes it.
func sequentialAccounts(b *testing.B, c *Client) int {
	n := 0
	for offset := 0; ; offset += commerce.MaxPageSize {
		q := url.Values{"page[limit]": {strconv.Itoa(commerce.MaxPageSize)}, "page[offset]": {strconv.Itoa(offset)}, "sort": {"created_at"}}
		var page commerce.Page[commerce.Account]
		err := c.Get(context.Background(), commerce.Accounts.Path, q, func(body []byte) (err error) {
			page, err = commerce.DecodeListBody(body, commerce.Accounts, commerce.MaxPageSize, offset, false, commerce.Accounts.Path)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		n += len(page.Records)
		if len(page.Records) < commerce.MaxPageSize || n >= commerce.OffsetLimit {
			return n
		}
	}
}
