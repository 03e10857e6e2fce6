package listing

// Benchmarks of the pagination engine against the emulator with a fixed
// per-request latency, next to the sequential pagers a caller would write by
// hand (tools/bench.sh client). The politeness benchmarks against a
// rate-limited store are internal/client's (tools/bench.sh polite, far).
//
//	go test ./internal/listing -run '^$' -bench '^BenchmarkList(Files)?$' -benchtime 3x
//
// Every iteration builds a fresh Client, so that each run pays for (and
// counts) its own token request. The emulator runs in this process: the
// heap figures include its data, so baseline_heap_MB (the heap with the
// emulator loaded, before the first run) is reported too.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

const (
	benchLatency     = 20 * time.Millisecond
	benchPageSize    = 100
	benchMaxParallel = 8
)

// benchHeapSampler records the peak of HeapInuse while it runs.
type benchHeapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func startHeapSampler(every time.Duration) *benchHeapSampler {
	s := &benchHeapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		for {
			old := s.peak.Load()
			if ms.HeapInuse <= old || s.peak.CompareAndSwap(old, ms.HeapInuse) {
				return
			}
		}
	}
	sample()
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				sample()
			case <-s.stop:
				sample()
				return
			}
		}
	}()
	return s
}

// Stop ends sampling and returns the peak HeapInuse in bytes.
func (s *benchHeapSampler) Stop() uint64 {
	close(s.stop)
	<-s.done
	return s.peak.Load()
}

func heapInuseAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// benchClient is an engine on a client with the provider's defaults (what a
// user gets without setting anything), apart from the benchmark's
// parallelism.
func benchClient(b *testing.B, srv *emulator.Server, maxParallel int, tweak ...func(*client.Config)) *Engine {
	b.Helper()
	cfg := client.Config{
		BaseURL:             srv.URL(),
		ClientID:            emulator.DefaultClientID,
		ClientSecret:        emulator.DefaultClientSecret,
		MaxParallelRequests: maxParallel,
		// The provider sets max_retries to DefaultMaxRetries when unset;
		// backoff bounds stay at the client's defaults (250ms..30s).
		MaxRetries: client.DefaultMaxRetries,
	}
	for _, f := range tweak {
		f(&cfg)
	}
	c, err := client.New(cfg)
	if err != nil {
		b.Fatalf("client.New: %v", err)
	}
	e, err := New(c, Options{PageSize: benchPageSize, MaxParallelRequests: maxParallel})
	if err != nil {
		b.Fatalf("New: %v", err)
	}
	return e
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// BenchmarkList measures List on N orders, against its bandwidth lower bound
// and against two sequential pagers.
func BenchmarkList(b *testing.B) {
	for _, n := range []int{1000, 10000, 60000, 100000} {
		srv, err := emulator.Start(emulator.Options{Orders: n, Files: -1, Accounts: -1, Latency: benchLatency})
		if err != nil {
			b.Fatalf("emulator: %v", err)
		}
		want, err := srv.SortedIDs("orders", "", "created_at")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			benchEngine(b, srv, want)
		})
		if n <= commerce.OffsetLimit {
			b.Run(fmt.Sprintf("baseline_sequential/N=%d", n), func(b *testing.B) {
				benchBaseline(b, srv, want, sequentialOffsetPager)
			})
		}
		b.Run(fmt.Sprintf("baseline_keyset/N=%d", n), func(b *testing.B) {
			benchBaseline(b, srv, want, sequentialKeysetPager)
		})
		srv.Close()
	}
}

func benchEngine(b *testing.B, srv *emulator.Server, want []string) {
	n := len(want)
	base := heapInuseAfterGC()
	srv.ResetStats()
	b.ReportAllocs()
	sampler := startHeapSampler(2 * time.Millisecond)
	var (
		iters, enginePages, windows, listed int
		listReqs, tokenReqs, tooMany        int
		retained                            uint64
		maxConc                             int
		wall, busy, served                  time.Duration
		got                                 []string
	)
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		srv.ResetStats()
		b.StartTimer()
		start := time.Now()
		c := benchClient(b, srv, benchMaxParallel)
		// Keep every record, as the provider does, so that the heap figure
		// includes what a listing hands over.
		records := make([]commerce.Order, 0, 1024)
		stats, err := List(context.Background(), c, commerce.Orders, Query{}, func(o commerce.Order) error {
			records = append(records, o)
			return nil
		})
		d := time.Since(start)
		wall += d
		if err != nil {
			b.Fatalf("List: %v", err)
		}
		st := srv.Stats()
		listReqs += st.ListRequests["orders"]
		tokenReqs += st.TokenRequests
		tooMany += st.StatusCounts[http.StatusTooManyRequests]
		maxConc = max(maxConc, st.MaxConcurrent)
		for _, r := range st.Requests {
			if r.Path == commerce.Orders.Path {
				busy += r.Duration
				served++
			}
		}
		if dir := os.Getenv("COMMERCE_BENCH_TRACE"); dir != "" {
			emulatortest.WriteTrace(b, filepath.Join(dir, fmt.Sprintf("trace-N%d.csv", n)), start, st.Requests)
		}
		if tf := st.TokenRequests; tf != 1 {
			b.Fatalf("token fetches = %d, want 1", tf)
		}
		iters++
		enginePages += stats.Pages
		windows += stats.Windows
		listed += len(records)
		got = got[:0]
		for _, r := range records {
			got = append(got, r.ID)
		}
		if iters == 1 {
			// What stays live after the listing: the records the caller
			// kept (and the ids above), nothing of the engine's.
			b.StopTimer()
			retained = heapInuseAfterGC() - base
			runtime.KeepAlive(records)
			b.StartTimer()
		}
	}
	b.StopTimer()
	peak := sampler.Stop()
	if !slices.Equal(got, want) {
		b.Fatalf("listed %d ids, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	pages := float64(listReqs) / float64(iters)
	lower := float64(benchLatency.Milliseconds()) * float64(ceilDiv(int(pages+0.5), benchMaxParallel))
	wallMS := float64(wall.Milliseconds()) / float64(iters)
	b.ReportMetric(pages, "page_requests/op")
	b.ReportMetric(float64(enginePages)/float64(iters), "engine_pages/op")
	b.ReportMetric(float64(pageBudget(n, windows/iters)), "page_budget")
	b.ReportMetric(float64(windows)/float64(iters), "windows/op")
	b.ReportMetric(float64(tokenReqs)/float64(iters), "token_requests/op")
	b.ReportMetric(float64(tooMany)/float64(iters), "429s/op")
	b.ReportMetric(float64(maxConc), "max_concurrent")
	// How full the pipe was: page-request time the server saw (latency
	// included), divided by the wall time, and the mean per request.
	b.ReportMetric(float64(busy)/float64(wall), "avg_in_flight")
	b.ReportMetric(float64(busy.Microseconds())/1000/float64(served), "server_ms/page")
	b.ReportMetric(wallMS, "wall_ms/op")
	b.ReportMetric(lower, "lower_bound_ms")
	b.ReportMetric(wallMS/lower, "ratio_to_bound")
	b.ReportMetric(float64(peak)/(1<<20), "peak_heap_MB")
	b.ReportMetric(float64(base)/(1<<20), "baseline_heap_MB")
	b.ReportMetric(float64(retained)/(1<<20), "retained_MB")
	if listed != n*iters {
		b.Fatalf("listed %d records in %d runs, want %d each", listed, iters, n)
	}
}

// A pager lists all orders by created_at one page after another and returns
// the ids in order and the page requests it made.
type benchPager func(ctx context.Context, c *Engine) ([]string, int, error)

func benchBaseline(b *testing.B, srv *emulator.Server, want []string, pager benchPager) {
	srv.ResetStats()
	b.ReportAllocs()
	var (
		iters, pages int
		wall         time.Duration
		got          []string
	)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		c := benchClient(b, srv, 1)
		ids, p, err := pager(context.Background(), c)
		wall += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		iters++
		pages += p
		got = ids
	}
	b.StopTimer()
	// A hand-written pager takes ties in the service's order, the engine
	// by id: each id once is what a baseline must list.
	if got, want := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want)); !slices.Equal(got, want) {
		b.Fatalf("listed %d ids, want each of %d once (first difference, by id, at %d)", len(got), len(want), firstDiff(got, want))
	}
	st := srv.Stats()
	b.ReportMetric(float64(st.ListRequests["orders"])/float64(iters), "page_requests/op")
	b.ReportMetric(float64(st.TokenRequests)/float64(iters), "token_requests/op")
	b.ReportMetric(float64(wall.Milliseconds())/float64(iters), "wall_ms/op")
	b.ReportMetric(float64(benchLatency.Milliseconds())*float64(pages)/float64(iters), "sequential_bound_ms")
}

// sequentialOffsetPager is the common hand-written loop: offsets 0, 100,
// ... with sort=created_at until a short page. It cannot go past the
// service's offset limit.
func sequentialOffsetPager(ctx context.Context, c *Engine) ([]string, int, error) {
	var ids []string
	pages := 0
	for offset := 0; ; offset += benchPageSize {
		if offset >= commerce.OffsetLimit {
			return ids, pages, fmt.Errorf("offset pager cannot go past offset %d", commerce.OffsetLimit)
		}
		pages++
		p, err := fetchPage(ctx, c, commerce.Orders, pageRequest{filter: "", sort: "created_at", offset: offset, limit: benchPageSize, includeJSON: false}, nil)
		if err != nil {
			return ids, pages, err
		}
		for _, r := range p.Records {
			ids = append(ids, r.ID)
		}
		// A hand-written pager trusts the count, as one written against
		// an exact store does.
		if len(p.Records) < benchPageSize || offset+len(p.Records) >= p.Count.N {
			return ids, pages, nil
		}
	}
}

// sequentialKeysetPager follows the service documentation's section 4.3:
// each page starts at ge(created_at, last value seen); records sharing that
// value that were already listed are skipped with a small offset (the
// documentation's "page forward with offset" for tie groups). One request
// per page, one after another, at any N.
func sequentialKeysetPager(ctx context.Context, c *Engine) ([]string, int, error) {
	var ids []string
	pages := 0
	lastKey := ""
	tieSeen := 0 // records listed with created_at == lastKey
	for {
		expr := ""
		if lastKey != "" {
			expr = "ge(created_at," + lastKey + ")"
		}
		pages++
		p, err := fetchPage(ctx, c, commerce.Orders, pageRequest{filter: expr, sort: "created_at", offset: tieSeen, limit: benchPageSize, includeJSON: false}, nil)
		if err != nil {
			return ids, pages, err
		}
		for _, r := range p.Records {
			ids = append(ids, r.ID)
			t, err := time.Parse(time.RFC3339Nano, r.CreatedAt)
			if err != nil {
				return ids, pages, err
			}
			k := t.UTC().Truncate(time.Millisecond).Format(filter.TimestampLayout)
			if k == lastKey {
				tieSeen++
			} else {
				lastKey, tieSeen = k, 1
			}
		}
		if len(p.Records) == 0 || p.Offset+len(p.Records) >= p.Count.N {
			return ids, pages, nil
		}
	}
}

// BenchmarkListFiles measures a listing the service cannot sort: offset
// pages in its own order, in file_size ranges above the offset limit, sorted
// by the provider. The request bound is ceil(N/100) + windows.
func BenchmarkListFiles(b *testing.B) {
	for _, n := range []int{10000, 25000, 60000} {
		srv, err := emulator.Start(emulator.Options{Files: n, Orders: -1, Accounts: -1, Latency: benchLatency})
		if err != nil {
			b.Fatalf("emulator: %v", err)
		}
		want, err := srv.SortedIDs("files", "", "created_at")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var iters, requests, windows int
			var wall time.Duration
			for b.Loop() {
				srv.ResetStats()
				start := time.Now()
				c := benchClient(b, srv, benchMaxParallel)
				var got []string
				stats, err := List(context.Background(), c, commerce.Files, Query{}, func(f commerce.File) error {
					got = append(got, f.ID)
					return nil
				})
				wall += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if !slices.Equal(got, want) {
					b.Fatalf("listed %d ids, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
				}
				iters++
				requests += srv.Stats().ListRequests["files"]
				windows += stats.Windows
			}
			pages := float64(requests) / float64(iters)
			lower := float64(benchLatency.Milliseconds()) * float64(ceilDiv(int(pages+0.5), benchMaxParallel))
			wallMS := float64(wall.Milliseconds()) / float64(iters)
			b.ReportMetric(pages, "page_requests/op")
			b.ReportMetric(float64(rangeBudget(n, benchPageSize, windows/iters)), "page_budget")
			b.ReportMetric(float64(windows)/float64(iters), "windows/op")
			b.ReportMetric(wallMS, "wall_ms/op")
			b.ReportMetric(lower, "lower_bound_ms")
			b.ReportMetric(wallMS/lower, "ratio_to_bound")
		})
		srv.Close()
	}
}
