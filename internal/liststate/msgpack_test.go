package liststate

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// tftypesMsgpack is v encoded the framework's way.
func tftypesMsgpack(t *testing.T, v tftypes.Value) []byte {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(v.Type(), v)
	if err != nil {
		t.Fatal(err)
	}
	return dv.MsgPack
}

func num(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(n)) }

var nullNumber = tftypes.NewValue(tftypes.Number, nil)

func ptr[V any](v V) *V { return &v }

func tfBool(v *bool) tftypes.Value {
	if v == nil {
		return tftypes.NewValue(tftypes.Bool, nil)
	}
	return tftypes.NewValue(tftypes.Bool, *v)
}

func tfString(v string) tftypes.Value {
	if v == "" {
		return tftypes.NewValue(tftypes.String, nil)
	}
	return tftypes.NewValue(tftypes.String, v)
}

// The msgpack primitives write what tftypes writes, at every boundary of
// every form.
func TestMsgpackPrimitives(t *testing.T) {
	for _, n := range []int64{0, 1, 127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64} {
		if got, want := appendInt(nil, &n), tftypesMsgpack(t, num(n)); !bytes.Equal(got, want) {
			t.Errorf("int %d: % x, want % x", n, got, want)
		}
	}
	if got, want := appendInt(nil, nil), tftypesMsgpack(t, nullNumber); !bytes.Equal(got, want) {
		t.Errorf("null number: % x, want % x", got, want)
	}
	for _, b := range []*bool{ptr(true), ptr(false), nil} {
		if got, want := appendBool(nil, b), tftypesMsgpack(t, tfBool(b)); !bytes.Equal(got, want) {
			t.Errorf("bool %v: % x, want % x", b, got, want)
		}
	}
	for _, n := range []int{0, 1, 31, 32, 255, 256, 65535, 65536} {
		s := strings.Repeat("é", n/2) + strings.Repeat("x", n%2)
		if got, want := appendStringOrNil(nil, s), tftypesMsgpack(t, tfString(s)); !bytes.Equal(got, want) {
			t.Errorf("string of %d bytes: % x..., want % x...", len(s), got[:min(6, len(got))], want[:min(6, len(want))])
		}
	}
	for _, n := range []int{0, 1, 15, 16, 65535, 65536} {
		elems := make([]tftypes.Value, n)
		attrs := make(map[string]tftypes.Type, n)
		vals := make(map[string]tftypes.Value, n)
		for i := range elems {
			elems[i] = tftypes.NewValue(tftypes.Bool, nil)
			if n <= 65536 && i < 20 { // objects of up to 20 attributes suffice
				k := fmt.Sprintf("a%02d", i)
				attrs[k], vals[k] = tftypes.Bool, tftypes.NewValue(tftypes.Bool, nil)
			}
		}
		list := tftypesMsgpack(t, tftypes.NewValue(tftypes.List{ElementType: tftypes.Bool}, elems))
		if got := appendArrayLen(nil, n); !bytes.HasPrefix(list, got) || len(list) != len(got)+n {
			t.Errorf("array of %d: header % x, want the first bytes of % x", n, got, list[:min(6, len(list))])
		}
		obj := tftypesMsgpack(t, tftypes.NewValue(tftypes.Object{AttributeTypes: attrs}, vals))
		if got := appendMapLen(nil, len(attrs)); !bytes.HasPrefix(obj, got) {
			t.Errorf("map of %d: header % x, want the first bytes of % x", len(attrs), got, obj[:min(6, len(obj))])
		}
	}
}
