package provider

// The state as the framework would write it, built from tftypes values:
// the reference the provider's msgpack state (internal/liststate) is held
// to, byte for byte (list_state_test.go, state_encoder_test.go). The
// provider itself writes every state through liststate.

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// value is the attribute of rec as a Terraform value, for the
// single-record data sources, which the framework reads.
// value is f's value of rec as a Terraform value.
func (f field[T]) value(rec T) tftypes.Value {
	switch {
	case f.Int != nil:
		return tfInt64(f.Int(rec))
	case f.Bool != nil:
		return tfBool(f.Bool(rec))
	}
	return tfString(f.String(rec))
}

// tfValues are rec's attributes as Terraform values.
func (rt recordType[T]) tfValues(rec T, includeJSON bool) map[string]tftypes.Value {
	vals := make(map[string]tftypes.Value, len(rt.fields)+1)
	for _, f := range rt.fields {
		vals[f.Name] = f.value(rec)
	}
	vals[jsonField] = nullString
	if includeJSON {
		vals[jsonField] = tftypes.NewValue(tftypes.String, rec.Base().JSON)
	}
	return vals
}

var nullString = tftypes.NewValue(tftypes.String, nil)

// tfString, tfInt64 and tfBool turn the service's "no value" (an empty
// string, an absent number or boolean) into null, so that a configuration
// can test for it with == null.
func tfString(v string) tftypes.Value {
	if v == "" {
		return nullString
	}
	return tftypes.NewValue(tftypes.String, v)
}

func tfInt64(v *int64) tftypes.Value {
	if v == nil {
		return tftypes.NewValue(tftypes.Number, nil)
	}
	return tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(*v))
}

func tfBool(v *bool) tftypes.Value {
	if v == nil {
		return tftypes.NewValue(tftypes.Bool, nil)
	}
	return tftypes.NewValue(tftypes.Bool, *v)
}

// stateWith is the data source's state: its configuration with computed
// attributes filled in.
func stateWith(config tftypes.Value, computed map[string]tftypes.Value) (tftypes.Value, error) {
	var configured map[string]tftypes.Value
	if err := config.As(&configured); err != nil {
		return tftypes.Value{}, err
	}
	// As hands out the configuration's own map: writing into it would
	// change the configuration too, and the framework compares the two.
	vals := make(map[string]tftypes.Value, len(configured))
	for k, v := range configured {
		vals[k] = v
	}
	for k, v := range computed {
		vals[k] = v
	}
	return tftypes.NewValue(config.Type(), vals), nil
}
