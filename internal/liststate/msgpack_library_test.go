package liststate

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// The package's appenders (state.go) against github.com/vmihailenco/msgpack/v5,
// the library tftypes itself encodes with, writing the same list state:
// the attributes of a commerce_orders-like data source (config values,
// ids, total, the orders with every attribute the provider's orders have)
// in the same order, into a buffer reused across iterations. Only the
// primitives differ: both walk the same Encoder attributes and getters.

// libraryOrderFields are the provider's order attributes
// (internal/provider/typed_list_data_source.go), as liststate fields.
func libraryOrderFields() []Field[commerce.Order] {
	s := func(name string, get func(commerce.Order) string) Field[commerce.Order] {
		return Field[commerce.Order]{Name: name, String: get}
	}
	i := func(name string, get func(commerce.Order) *int64) Field[commerce.Order] {
		return Field[commerce.Order]{Name: name, Int: get}
	}
	return []Field[commerce.Order]{
		s("id", func(o commerce.Order) string { return o.ID }),
		s("created_at", func(o commerce.Order) string { return o.CreatedAt }),
		s("updated_at", func(o commerce.Order) string { return o.UpdatedAt }),
		s("status", func(o commerce.Order) string { return o.Status }),
		s("payment", func(o commerce.Order) string { return o.Payment }),
		s("shipping", func(o commerce.Order) string { return o.Shipping }),
		s("order_number", func(o commerce.Order) string { return o.OrderNumber }),
		s("external_ref", func(o commerce.Order) string { return o.ExternalRef }),
		s("customer_name", func(o commerce.Order) string { return o.CustomerName }),
		s("customer_email", func(o commerce.Order) string { return o.CustomerEmail }),
		s("customer_id", func(o commerce.Order) string { return o.CustomerID }),
		s("account_id", func(o commerce.Order) string { return o.AccountID }),
		s("currency", func(o commerce.Order) string { return o.Currency }),
		i("amount_with_tax", func(o commerce.Order) *int64 { return o.AmountWithTax }),
		i("amount_without_tax", func(o commerce.Order) *int64 { return o.AmountWithoutTax }),
	}
}

// libState is one list state to encode: the configuration's values, the
// listed orders, and whether their records (and JSON) are kept.
type libState struct {
	typ            tftypes.Object
	enc            Encoder[commerce.Order]
	names          []string // the state's attributes, sorted
	filter, sort   string   // "" is null
	maxResults     *int64
	includeJSON    *bool
	includeRecords bool
	orders         []commerce.Order
	total          int64
}

func newLibState(tb testing.TB, n int, includeRecords bool) *libState {
	tb.Helper()
	elemAttrs := map[string]tftypes.Type{JSONAttribute: tftypes.String}
	for _, f := range libraryOrderFields() {
		elemAttrs[f.Name] = f.Type()
	}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"filter": tftypes.String, "sort": tftypes.String, "max_results": tftypes.Number, "include_json": tftypes.Bool,
		"ids": tftypes.List{ElementType: tftypes.String}, "total": tftypes.Number,
		"orders": tftypes.List{ElementType: tftypes.Object{AttributeTypes: elemAttrs}},
	}}
	enc, err := EncoderFor(typ, "orders", libraryOrderFields())
	if err != nil {
		tb.Fatal(err)
	}
	s := &libState{typ: typ, enc: enc, filter: "ge(created_at,2026-01-01T00:00:00.000Z):eq(status,complete)",
		includeJSON: ptr(false), includeRecords: includeRecords, total: int64(n)}
	for name := range typ.AttributeTypes {
		s.names = append(s.names, name)
	}
	sort.Strings(s.names)
	statuses := []string{"incomplete", "processing", "complete", "cancelled"}
	payments := []string{"unpaid", "authorized", "paid", "refunded"}
	s.orders = make([]commerce.Order, n)
	for i := range s.orders {
		id := fmt.Sprintf("%08x-1b2c-4d3e-8f40-%012x", i, i*7919)
		if !includeRecords {
			s.orders[i] = commerce.Order{Common: commerce.Common{ID: id}}
			continue
		}
		o := commerce.Order{
			Common: commerce.Common{ID: id,
				CreatedAt: fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02d.000Z", 1+i%12, 1+i%28, i%24, i%60, (i*7)%60),
				UpdatedAt: fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02d.000Z", 1+i%12, 1+(i+3)%28, (i+5)%24, i%60, (i*11)%60)},
			Status:        statuses[i%len(statuses)],
			Payment:       payments[i%len(payments)],
			Shipping:      []string{"unfulfilled", "fulfilled"}[i%2],
			OrderNumber:   fmt.Sprintf("ORD-%07d", i),
			CustomerName:  fmt.Sprintf("Customer Number %d", i%5000),
			CustomerEmail: fmt.Sprintf("customer.%d@example.org", i%5000),
			Currency:      "USD",
		}
		if i%3 == 0 {
			o.ExternalRef = fmt.Sprintf("erp-%d", i)
		}
		if i%4 != 0 { // guest orders have no customer
			o.CustomerID = fmt.Sprintf("%08x-aaaa-4bbb-8ccc-%012x", i%5000, i%5000)
		}
		if i%10 == 0 {
			o.AccountID = fmt.Sprintf("%08x-dddd-4eee-8fff-%012x", i%300, i%300)
		}
		switch i % 7 {
		case 0: // no amounts
		case 1: // a refund
			o.AmountWithTax, o.AmountWithoutTax = ptr(-int64(i%40000)), ptr(-int64(i%33000))
		default: // from cents to hundreds of thousands of dollars
			o.AmountWithTax, o.AmountWithoutTax = ptr(int64(i*i%50_000_000)), ptr(int64(i*i%41_000_000))
		}
		s.orders[i] = o
	}
	return s
}

// appendersState writes s with the package's appenders.
func appendersState(dst []byte, s *libState) []byte {
	dst = appendMapLen(dst, len(s.names))
	for _, name := range s.names {
		dst = appendString(dst, name)
		switch name {
		case "filter":
			dst = appendStringOrNil(dst, s.filter)
		case "sort":
			dst = appendStringOrNil(dst, s.sort)
		case "max_results":
			dst = appendInt(dst, s.maxResults)
		case "include_json":
			dst = appendBool(dst, s.includeJSON)
		case "total":
			dst = appendInt(dst, &s.total)
		case "ids":
			dst = appendArrayLen(dst, len(s.orders))
			for i := range s.orders {
				dst = appendString(dst, s.orders[i].ID)
			}
		case "orders":
			if !s.includeRecords {
				dst = append(dst, msgpackNil)
				continue
			}
			json := s.includeJSON != nil && *s.includeJSON
			dst = appendArrayLen(dst, len(s.orders))
			for i := range s.orders {
				dst = s.enc.appendRecord(dst, s.orders[i], json)
			}
		}
	}
	return dst
}

// libraryState writes s with a msgpack/v5 Encoder.
func libraryState(e *msgpack.Encoder, s *libState) error {
	if err := e.EncodeMapLen(len(s.names)); err != nil {
		return err
	}
	for _, name := range s.names {
		if err := e.EncodeString(name); err != nil {
			return err
		}
		var err error
		switch name {
		case "filter":
			err = libraryStringOrNil(e, s.filter)
		case "sort":
			err = libraryStringOrNil(e, s.sort)
		case "max_results":
			err = libraryInt(e, s.maxResults)
		case "include_json":
			err = libraryBool(e, s.includeJSON)
		case "total":
			err = e.EncodeInt(s.total)
		case "ids":
			if err = e.EncodeArrayLen(len(s.orders)); err != nil {
				return err
			}
			for i := range s.orders {
				if err = e.EncodeString(s.orders[i].ID); err != nil {
					return err
				}
			}
		case "orders":
			if !s.includeRecords {
				err = e.EncodeNil()
				break
			}
			json := s.includeJSON != nil && *s.includeJSON
			if err = e.EncodeArrayLen(len(s.orders)); err != nil {
				return err
			}
			for i := range s.orders {
				if err = libraryRecord(e, s.enc, s.orders[i], json); err != nil {
					return err
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// libraryRecord is Encoder.appendRecord with the library's primitives.
func libraryRecord(e *msgpack.Encoder, enc Encoder[commerce.Order], rec commerce.Order, includeJSON bool) error {
	if err := e.EncodeMapLen(len(enc.attrs)); err != nil {
		return err
	}
	for _, a := range enc.attrs {
		if err := e.EncodeString(a.name); err != nil {
			return err
		}
		var err error
		switch f := a.field; {
		case f == nil:
			if includeJSON {
				err = e.EncodeString(rec.Base().JSON)
			} else {
				err = e.EncodeNil()
			}
		case f.Int != nil:
			err = libraryInt(e, f.Int(rec))
		case f.Bool != nil:
			err = libraryBool(e, f.Bool(rec))
		default:
			err = libraryStringOrNil(e, f.String(rec))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func libraryStringOrNil(e *msgpack.Encoder, s string) error {
	if s == "" {
		return e.EncodeNil()
	}
	return e.EncodeString(s)
}

func libraryInt(e *msgpack.Encoder, v *int64) error {
	if v == nil {
		return e.EncodeNil()
	}
	return e.EncodeInt(*v)
}

func libraryBool(e *msgpack.Encoder, v *bool) error {
	if v == nil {
		return e.EncodeNil()
	}
	return e.EncodeBool(*v)
}

// collectorState is s written the production way: a Collector, then State.
func collectorState(t *testing.T, s *libState) []byte {
	t.Helper()
	c := NewCollector(s.enc, Options{IncludeRecords: s.includeRecords, IncludeJSON: *s.includeJSON, MaxBytes: 1 << 30})
	defer c.Release()
	for _, o := range s.orders {
		if err := c.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	str := func(v string) tftypes.Value {
		if v == "" {
			return tftypes.NewValue(tftypes.String, nil)
		}
		return tftypes.NewValue(tftypes.String, v)
	}
	maxResults := nullNumber
	if s.maxResults != nil {
		maxResults = num(*s.maxResults)
	}
	config := tftypes.NewValue(s.typ, map[string]tftypes.Value{
		"filter": str(s.filter), "sort": str(s.sort), "max_results": maxResults, "include_json": tfBool(s.includeJSON),
		"ids": tftypes.NewValue(s.typ.AttributeTypes["ids"], nil), "total": nullNumber,
		"orders": tftypes.NewValue(s.typ.AttributeTypes["orders"], nil),
	})
	state, err := c.State(config, "orders", int(s.total), true)
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// tftypesState is s as a tftypes value, encoded the framework's way.
func tftypesState(t *testing.T, s *libState) []byte {
	t.Helper()
	elemType := s.typ.AttributeTypes["orders"].(tftypes.List).ElementType.(tftypes.Object)
	ids := make([]tftypes.Value, len(s.orders))
	orders := make([]tftypes.Value, len(s.orders))
	for i, o := range s.orders {
		ids[i] = tftypes.NewValue(tftypes.String, o.ID)
		vals := map[string]tftypes.Value{JSONAttribute: tftypes.NewValue(tftypes.String, nil)}
		for _, f := range libraryOrderFields() {
			switch {
			case f.Int != nil:
				if v := f.Int(o); v != nil {
					vals[f.Name] = num(*v)
				} else {
					vals[f.Name] = nullNumber
				}
			default:
				vals[f.Name] = tfString(f.String(o))
			}
		}
		orders[i] = tftypes.NewValue(elemType, vals)
	}
	ordersValue := tftypes.NewValue(s.typ.AttributeTypes["orders"], orders)
	if !s.includeRecords {
		ordersValue = tftypes.NewValue(s.typ.AttributeTypes["orders"], nil)
	}
	maxResults := nullNumber
	if s.maxResults != nil {
		maxResults = num(*s.maxResults)
	}
	return tftypesMsgpack(t, tftypes.NewValue(s.typ, map[string]tftypes.Value{
		"filter": tfString(s.filter), "sort": tfString(s.sort), "max_results": maxResults, "include_json": tfBool(s.includeJSON),
		"ids": tftypes.NewValue(s.typ.AttributeTypes["ids"], ids), "total": tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(s.total)),
		"orders": ordersValue,
	}))
}

// The appenders and the library write the same bytes for the same state,
// and those are the bytes the Collector writes and tftypes writes: the
// benchmark compares equal work. The sizes cross the fixarray/array16/
// array32 boundaries.
func TestAppendersMatchLibrary(t *testing.T) {
	for _, n := range []int{0, 3, 15, 16, 500, 70000} {
		for _, includeRecords := range []bool{true, false} {
			s := newLibState(t, n, includeRecords)
			if n == 3 {
				s.sort, s.maxResults = "-updated_at", ptr(int64(70000))
			}
			app := appendersState(nil, s)
			var buf bytes.Buffer
			if err := libraryState(msgpack.NewEncoder(&buf), s); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%d orders, records %v", n, includeRecords)
			if !bytes.Equal(app, buf.Bytes()) {
				i := 0
				for i < min(len(app), buf.Len()) && app[i] == buf.Bytes()[i] {
					i++
				}
				t.Errorf("%s: appenders %d bytes, library %d; first difference at byte %d", name, len(app), buf.Len(), i)
			}
			if got := collectorState(t, s); !bytes.Equal(app, got) {
				t.Errorf("%s: appenders %d bytes, Collector.State %d: not the state the provider writes", name, len(app), len(got))
			}
			if n <= 500 {
				if want := tftypesState(t, s); !bytes.Equal(app, want) {
					t.Errorf("%s: appenders %d bytes, tftypes %d", name, len(app), len(want))
				}
			}
		}
	}
}

// BenchmarkAppendersAgainstLibrary writes the same state with the
// package's appenders and with a msgpack/v5 Encoder, each into a buffer
// reused across iterations (grown once, before the timer), the two
// variants one after the other for each state.
func BenchmarkAppendersAgainstLibrary(b *testing.B) {
	for _, tc := range []struct {
		name           string
		n              int
		includeRecords bool
	}{
		{"orders=60000", 60_000, true},
		{"ids=1000000", 1_000_000, false},
	} {
		s := newLibState(b, tc.n, tc.includeRecords)
		b.Run(tc.name, func(b *testing.B) {
			b.Run("appenders", func(b *testing.B) {
				out := appendersState(nil, s)
				b.SetBytes(int64(len(out)))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					out = appendersState(out[:0], s)
				}
				b.StopTimer()
				b.ReportMetric(float64(len(out)), "state-bytes")
			})
			b.Run("library", func(b *testing.B) {
				var buf bytes.Buffer
				e := msgpack.NewEncoder(&buf)
				if err := libraryState(e, s); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(buf.Len()))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					buf.Reset()
					if err := libraryState(e, s); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(buf.Len()), "state-bytes")
			})
		})
	}
}
