package liststate

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// orderState is a list state's type with ids, total and orders of two
// attributes, and its encoder.
func orderState(t *testing.T) (tftypes.Object, Encoder[commerce.Order]) {
	t.Helper()
	elem := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String, "status": tftypes.String}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"ids": tftypes.List{ElementType: tftypes.String}, "total": tftypes.Number, "orders": tftypes.List{ElementType: elem},
	}}
	enc, err := EncoderFor(typ, "orders", []Field[commerce.Order]{
		{Name: "id", String: func(o commerce.Order) string { return o.ID }},
		{Name: "status", String: func(o commerce.Order) string { return o.Status }},
	})
	if err != nil {
		t.Fatal(err)
	}
	return typ, enc
}

// ids decodes a state's ids.
func stateIDs(t *testing.T, typ tftypes.Type, state []byte) []string {
	t.Helper()
	v, err := (&tfprotov6.DynamicValue{MsgPack: state}).Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	var list []tftypes.Value
	if err := attrs["ids"].As(&list); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(list))
	for i, id := range list {
		_ = id.As(&out[i])
	}
	return out
}

// A state of more chunks than one, cut at max_results with late records
// first, is what was written; the Collector takes no record afterwards.
func TestCollectorStateAcrossChunks(t *testing.T) {
	typ, enc := orderState(t)
	config := tftypes.NewValue(typ, map[string]tftypes.Value{
		"ids": tftypes.NewValue(typ.AttributeTypes["ids"], nil), "total": tftypes.NewValue(tftypes.Number, nil),
		"orders": tftypes.NewValue(typ.AttributeTypes["orders"], nil),
	})
	for _, maxResults := range []int{0, 2, 30000} {
		c := NewCollector(enc, Options{IncludeRecords: true, MaxBytes: 1 << 30, MaxResults: maxResults})
		status := strings.Repeat("s", 100) // about 40,000 records make 5 chunks
		for i := range 40000 {
			if err := c.Add(commerce.Order{Common: commerce.Common{ID: "o" + string(rune('a'+i%26)) + strings.Repeat("x", i%7)}, Status: status}); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.AddLate(commerce.Order{Common: commerce.Common{ID: "late"}}); err != nil {
			t.Fatal(err)
		}
		if n := len(c.records.chunks); n < 5 {
			t.Fatalf("%d chunks of records, want several", n)
		}
		state, err := c.State(config, "orders", 40001, true)
		if err != nil {
			t.Fatal(err)
		}
		ids := stateIDs(t, typ, state)
		want := 40001
		if maxResults > 0 {
			want = maxResults
		}
		if len(ids) != want || ids[0] != "late" || ids[1] != "oa" {
			t.Errorf("max_results %d: %d ids, first %v; want %d, late first", maxResults, len(ids), ids[:min(2, len(ids))], want)
		}
		if c.records.chunks != nil || c.ids.chunks != nil {
			t.Error("the chunks outlived the state")
		}
		if err := c.Add(commerce.Order{Common: commerce.Common{ID: "after"}}); !errors.Is(err, errReleased) {
			t.Errorf("a record after the state: %v", err)
		}
		c.Release() // after State: nothing left, no harm
	}
}

// Release while another goroutine adds records (a listing another read
// shares, going on after this reader left) never writes into memory
// given back: the records that come after it are refused.
func TestReleaseWhileAdding(t *testing.T) {
	_, enc := orderState(t)
	for range 20 {
		c := NewCollector(enc, Options{IncludeRecords: true, MaxBytes: 1 << 30})
		var wg sync.WaitGroup
		adding := make(chan struct{})
		wg.Go(func() {
			for i := 0; ; i++ {
				if i == 3000 { // a few chunks in
					close(adding)
				}
				if err := c.Add(commerce.Order{Common: commerce.Common{ID: "o"}, Status: strings.Repeat("s", 500)}); err != nil {
					if !errors.Is(err, errReleased) {
						t.Error(err)
					}
					return
				}
			}
		})
		<-adding
		c.Release()
		wg.Wait()
		c.Release()
	}
}

// The ids of 200,000 records cost the Go heap next to nothing where
// chunks are mapped from the system (linux, darwin, freebsd): the state is
// held once, outside the garbage collector's heap, which therefore
// neither scans it nor doubles it in its headroom.
func TestChunksStayOutOfTheHeap(t *testing.T) {
	if c := newChunk(); !c.mapped {
		freeChunk(c)
		t.Skip("this system's chunks are ordinary slices")
	} else {
		freeChunk(c)
	}
	_, enc := orderState(t)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	c := NewCollector(enc, Options{MaxBytes: 1 << 30})
	defer c.Release()
	before := heap()
	for i := range 200_000 {
		if err := c.Add(commerce.Order{Common: commerce.Common{ID: fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	grew := int64(heap()) - int64(before)
	t.Logf("200,000 ids: %d bytes of state, the heap grew by %d bytes", c.ids.n, grew)
	if grew > 1<<20 {
		t.Errorf("the heap grew by %d bytes for %d bytes of state: the chunks are on it", grew, c.ids.n)
	}
}
