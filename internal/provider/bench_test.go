package provider

// Benchmarks of the provider side of a large listing, in process: the
// protocol-6 server the provider binary serves (the same code path as
// `terraform plan` minus gRPC and Terraform core), called with
// ConfigureProvider and ReadDataSource for commerce_orders.
//
//	go test ./internal/provider -run '^$' -bench BenchmarkReadOrders -benchtime 2x
//	go test ./internal/provider -run '^$' -bench 'BenchmarkReadOrders/latency=0s/N=60000' -cpuprofile cpu.out
//
// latency=20ms is the listing as users see it; latency=0s takes the service
// out, so that wall time is the provider's CPU (and the in-process
// emulator's, which the profile tells apart).
//
// The end-to-end benchmark with a real Terraform CLI is tools/bench.sh e2e.

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

type peakHeap struct {
	stop, done chan struct{}
	peak       atomic.Uint64
}

func samplePeakHeap(every time.Duration) *peakHeap {
	p := &peakHeap{stop: make(chan struct{}), done: make(chan struct{})}
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > p.peak.Load() {
			p.peak.Store(ms.HeapInuse) // one sampling goroutine: no race
		}
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			sample()
			select {
			case <-t.C:
			case <-p.stop:
				sample()
				return
			}
		}
	}()
	return p
}

func (p *peakHeap) Stop() uint64 {
	close(p.stop)
	<-p.done
	return p.peak.Load()
}

// BenchmarkReadOrders reads commerce_orders with N orders through the
// provider server the binary serves: listing, and the state written as
// msgpack for Terraform. The emulator runs in the same process, so the
// allocation figures include its share (a few MB: it serves pages it
// encoded once). allocs/attr_value divides every allocation by the state's
// attribute values (the ids and every attribute of every record).
func BenchmarkReadOrders(b *testing.B) {
	for _, latency := range []time.Duration{20 * time.Millisecond, 0} {
		for _, n := range []int{10000, 60000, 100000} {
			b.Run(fmt.Sprintf("latency=%s/N=%d", latency, n), func(b *testing.B) {
				srv := emulatortest.Start(b, emulator.Options{Orders: n, Files: -1, Accounts: -1, Latency: latency})
				clearBenchEnv(b)
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				base := ms.HeapInuse
				b.ReportAllocs()
				sampler := samplePeakHeap(2 * time.Millisecond)
				var (
					iters int
					state []byte
					wall  time.Duration
					p     *inProcess
				)
				srv.ResetStats()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					start := time.Now()
					p = serveInProcess(b, srv)
					state = p.readState(b, "commerce_orders", nil)
					wall += time.Since(start)
					iters++
				}
				runtime.ReadMemStats(&after)
				peak := sampler.Stop()
				b.StopTimer()
				stateBytes := len(state)
				checkState(b, p.dataSourceType(b, "commerce_orders"), state, n)
				st := srv.Stats()
				b.ReportMetric(float64(wall.Milliseconds())/float64(iters), "wall_ms/op")
				b.ReportMetric(float64(st.ListRequests["orders"])/float64(iters), "page_requests/op")
				// Attribute values in the state: ids, and each record's.
				values := n * (1 + len(orderType.fields) + 1)
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(iters*values), "allocs/attr_value")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(iters)/1e6, "allocated_MB/op")
				b.ReportMetric(float64(st.TokenRequests)/float64(iters), "token_requests/op")
				b.ReportMetric(float64(stateBytes)/float64(n), "msgpack_bytes/record")
				b.ReportMetric(float64(peak)/(1<<20), "peak_heap_MB")
				b.ReportMetric(float64(base)/(1<<20), "baseline_heap_MB")
			})
		}
	}
}

// BenchmarkReadIDs reads every order's id (include_records = false) from
// an emulator in a process of its own, at COMMERCE_BENCH_BASE_URL, so that
// the heap is the provider's alone; with COMMERCE_BENCH_HEAP_PROFILE it
// writes a heap profile each time the heap in use reaches a new peak,
// which leaves the profile of the peak. PERFORMANCE.md ("Where the
// provider's memory goes") runs it on 1,000,000 orders.
func BenchmarkReadIDs(b *testing.B) {
	url := os.Getenv("COMMERCE_BENCH_BASE_URL")
	if url == "" {
		b.Skip("set COMMERCE_BENCH_BASE_URL to an emulator's address (go run ./cmd/commerce-emulator -orders 1000000)")
	}
	clearBenchEnv(b)
	profile := os.Getenv("COMMERCE_BENCH_HEAP_PROFILE")
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse <= peak {
				continue
			}
			peak = ms.HeapInuse
			if f, err := os.Create(profile); profile != "" && err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				_ = f.Close()
			}
		}
	}()
	ids := map[string]tftypes.Value{"include_records": tftypes.NewValue(tftypes.Bool, false)}
	var state []byte
	for b.Loop() {
		state = serveAt(b, url, NewServer("bench"), nil).readState(b, "commerce_orders", ids)
	}
	close(stop)
	<-sampled
	b.ReportMetric(float64(len(state))/(1<<20), "state_MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak_heap_MB")
}

// checkState decodes the msgpack state and checks that it holds n orders.
func checkState(b *testing.B, typ tftypes.Type, state []byte, n int) {
	b.Helper()
	dv := tfprotov6.DynamicValue{MsgPack: state}
	v, err := dv.Unmarshal(typ)
	if err != nil {
		b.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		b.Fatal(err)
	}
	var ids []tftypes.Value
	if err := attrs["ids"].As(&ids); err != nil {
		b.Fatal(err)
	}
	var orders []tftypes.Value
	if err := attrs["orders"].As(&orders); err != nil {
		b.Fatal(err)
	}
	if len(ids) != n || len(orders) != n {
		b.Fatalf("state holds %d ids and %d orders, want %d", len(ids), len(orders), n)
	}
}

// clearBenchEnv keeps a developer's COMMERCE_* variables out of the run.
func clearBenchEnv(b *testing.B) {
	for _, env := range []string{envClientID, envClientSecret, envBaseURL, envAuthURL, envRateLimit} {
		b.Setenv(env, "")
	}
}

// benchOrders lists n orders from an emulator without latency, outside any
// timer, for the state-building benchmarks. The emulator is closed on return
// rather than at cleanup, so that its records do not count in the
// benchmarks' heap.
func benchOrders(b *testing.B, n int) []commerce.Order {
	b.Helper()
	srv, err := emulator.Start(emulator.Options{Orders: n, Files: -1, Accounts: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	s, err := newConfiguredStore(client.Config{BaseURL: srv.URL(), ClientID: emulator.DefaultClientID, ClientSecret: emulator.DefaultClientSecret}, listing.Options{}, reads.Options{})
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]commerce.Order, 0, n)
	if _, err := reads.Read(context.Background(), s.reads, commerce.Orders, listing.Query{}, listing.Reader[commerce.Order]{Emit: func(o commerce.Order) error {
		recs = append(recs, o)
		return nil
	}}); err != nil {
		b.Fatal(err)
	}
	return recs
}

// emptyOrdersState is the state a read starts from: the configuration, here
// with every argument null.
func emptyOrdersState(b *testing.B) tfsdk.State {
	b.Helper()
	ctx := context.Background()
	d := &typedListDataSource[commerce.Order]{rt: orderType}
	var resp datasource.SchemaResponse
	d.Schema(ctx, datasource.SchemaRequest{}, &resp)
	return tfsdk.State{Schema: resp.Schema, Raw: nullObject(resp.Schema.Type().TerraformType(ctx), nil)}
}

// buildState builds the state of a commerce_orders read from records with
// the framework values the reference Read builds (list_state_test.go).
func buildState(b *testing.B, recs []commerce.Order) tfsdk.State {
	state := emptyOrdersState(b)
	typ, ok := state.Raw.Type().(tftypes.Object)
	if !ok {
		b.Fatal("state type is not an object")
	}
	listType := typ.AttributeTypes["orders"].(tftypes.List)
	elemType := listType.ElementType.(tftypes.Object)
	ids := make([]tftypes.Value, len(recs))
	objs := make([]tftypes.Value, len(recs))
	for i, o := range recs {
		ids[i] = tftypes.NewValue(tftypes.String, o.ID)
		objs[i] = tftypes.NewValue(elemType, orderType.tfValues(o, false))
	}
	raw, err := stateWith(state.Raw, map[string]tftypes.Value{
		"ids":    tftypes.NewValue(typ.AttributeTypes["ids"], ids),
		"total":  tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(int64(len(recs)))),
		"orders": tftypes.NewValue(listType, objs),
	})
	if err != nil {
		b.Fatal(err)
	}
	state.Raw = raw
	return state
}

// BenchmarkOrdersState measures what the framework's Read of
// commerce_orders does with the records once they are listed (build), the
// msgpack encoding the framework does with that state after Read (msgpack),
// and what the provider server does instead: the same state written as
// msgpack directly (direct).
func BenchmarkOrdersState(b *testing.B) {
	for _, n := range []int{10000, 60000, 100000} {
		recs := benchOrders(b, n)
		b.Run(fmt.Sprintf("build/N=%d", n), func(b *testing.B) {
			runtime.GC()
			b.ReportAllocs()
			sampler := samplePeakHeap(2 * time.Millisecond)
			for b.Loop() {
				buildState(b, recs)
			}
			b.ReportMetric(float64(sampler.Stop())/(1<<20), "peak_heap_MB")
		})
		// direct is what the server does instead of build and msgpack.
		b.Run(fmt.Sprintf("direct/N=%d", n), func(b *testing.B) {
			d := &typedListDataSource[commerce.Order]{rt: orderType}
			config := emptyOrdersState(b).Raw
			if err := d.prepareDirect(config.Type()); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ReportAllocs()
			sampler := samplePeakHeap(2 * time.Millisecond)
			for b.Loop() {
				c := liststate.NewCollector(d.encoder, liststate.Options{IncludeRecords: true, MaxBytes: maxStateBytes})
				for _, o := range recs {
					_ = c.Add(o)
				}
				if _, err := c.State(config, "orders", len(recs), true); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(sampler.Stop())/(1<<20), "peak_heap_MB")
		})
		b.Run(fmt.Sprintf("msgpack/N=%d", n), func(b *testing.B) {
			st := buildState(b, recs)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tfprotov6.NewDynamicValue(st.Raw.Type(), st.Raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fixedOrders is commerce_orders with a Read that returns a prepared state,
// to measure what the framework does around Read (copies, semantic
// equality, null-block reification, msgpack) apart from the provider.
type fixedOrders struct {
	typedListDataSource[commerce.Order]
	state tftypes.Value
}

func (d *fixedOrders) Read(_ context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	resp.State.Raw = d.state
}

type fixedProvider struct{ ds *fixedOrders }

func (p *fixedProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "commerce"
}
func (p *fixedProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (p *fixedProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (p *fixedProvider) Resources(context.Context) []func() resource.Resource { return nil }
func (p *fixedProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return p.ds }}
}

// BenchmarkFrameworkOverhead serves a prepared state of N orders through
// the framework's ReadDataSource: the time is the framework's alone.
// json=null is today's state (json is null unless include_json); json=empty
// sets it to "" instead, to show the cost of null values (the framework
// looks up the schema path of every null value after Read). ids_only leaves
// the orders list null: the cost of a state that holds only the ids.
func BenchmarkFrameworkOverhead(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10000, 60000} {
		recs := benchOrders(b, n)
		for _, variant := range []string{"json=null", "json=empty", "ids_only"} {
			b.Run(fmt.Sprintf("%s/N=%d", variant, n), func(b *testing.B) {
				st := buildState(b, recs)
				switch variant {
				case "json=empty":
					st.Raw = withEmptyJSON(b, st.Raw)
				case "ids_only":
					st.Raw = withNullRecords(b, st.Raw)
				}
				ds := &fixedOrders{typedListDataSource: typedListDataSource[commerce.Order]{rt: orderType}, state: st.Raw}
				server, err := providerserver.NewProtocol6WithError(&fixedProvider{ds: ds})()
				if err != nil {
					b.Fatal(err)
				}
				schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
					Config: dynamicValue(b, nullObject(schemas.Provider.ValueType(), nil))}); err != nil {
					b.Fatal(err)
				}
				cfg := dynamicValue(b, nullObject(schemas.DataSourceSchemas["commerce_orders"].ValueType(), nil))
				b.ReportAllocs()
				var size int
				for b.Loop() {
					resp, err := server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "commerce_orders", Config: cfg})
					if err != nil {
						b.Fatal(err)
					}
					for _, d := range resp.Diagnostics {
						b.Fatalf("read: %s: %s", d.Summary, d.Detail)
					}
					size = len(resp.State.MsgPack)
				}
				b.ReportMetric(float64(size)/float64(n), "msgpack_bytes/record")
			})
		}
	}
}

// withEmptyJSON sets every order's json attribute to "".
func withEmptyJSON(b *testing.B, v tftypes.Value) tftypes.Value {
	out, err := tftypes.Transform(v, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		steps := p.Steps()
		if len(steps) == 3 && steps[2] == tftypes.AttributeName(jsonField) {
			return tftypes.NewValue(tftypes.String, ""), nil
		}
		return v, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// withNullRecords sets the orders list to null, keeping ids and total.
func withNullRecords(b *testing.B, v tftypes.Value) tftypes.Value {
	var vals map[string]tftypes.Value
	if err := v.As(&vals); err != nil {
		b.Fatal(err)
	}
	vals["orders"] = tftypes.NewValue(vals["orders"].Type(), nil)
	return tftypes.NewValue(v.Type(), vals)
}
