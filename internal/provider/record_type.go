package provider

import (
	"math/big"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// field is one typed attribute of a record as Terraform sees it: its
// name and getter, from which the state is written (liststate.Field), and
// its description. Declaring them together keeps the schema and the state
// from drifting apart.
type field[T commerce.Record] struct {
	liststate.Field[T]
	description string
}

// stringField is a string attribute; the service's empty string is null.
func stringField[T commerce.Record](name, description string, get func(T) string) field[T] {
	return field[T]{Field: liststate.Field[T]{Name: name, String: get}, description: description}
}

// int64Field is a whole-number attribute; a nil value is null.
func int64Field[T commerce.Record](name, description string, get func(T) *int64) field[T] {
	return field[T]{Field: liststate.Field[T]{Name: name, Int: get}, description: description}
}

// boolField is a boolean attribute; a nil value is null.
func boolField[T commerce.Record](name, description string, get func(T) *bool) field[T] {
	return field[T]{Field: liststate.Field[T]{Name: name, Bool: get}, description: description}
}

// value is the attribute of rec as a Terraform value, for the
// single-record data sources, which the framework reads.
func (f field[T]) value(rec T) tftypes.Value {
	switch {
	case f.Int != nil:
		return tfInt64(f.Int(rec))
	case f.Bool != nil:
		return tfBool(f.Bool(rec))
	}
	return tfString(f.String(rec))
}

// recordFields are the attributes every record has, then the given ones.
// The id is never null: the client refuses a record without one.
func recordFields[T commerce.Record](own ...field[T]) []field[T] {
	return append([]field[T]{
		stringField("id", "Identifier of the record.", func(rec T) string { return rec.Base().ID }),
		stringField("created_at", "When the record was created (ISO 8601, as the service reports it).", func(rec T) string { return rec.Base().CreatedAt }),
	}, own...)
}

// updatedAt is the last-update time of the record types that have one
// (files do not).
func updatedAt[T commerce.Record]() field[T] {
	return stringField("updated_at", "When the record was last updated (ISO 8601).", func(rec T) string { return rec.Base().UpdatedAt })
}

// recordType describes how one kind of record maps to Terraform: its
// attributes, and what identifies a record uniquely.
type recordType[T commerce.Record] struct {
	kind   commerce.Kind[T]
	fields []field[T] // from recordFields; without "json", which depends on include_json
	// lookupKeys are unique attributes a single-record data source can look
	// a record up by, besides id and filter.
	lookupKeys []string
	// example is a valid filter expression for messages and docs.
	example string
}

const jsonField = liststate.JSONAttribute

// stateFields are the fields as the list data sources' state writer takes
// them.
func (rt recordType[T]) stateFields() []liststate.Field[T] {
	out := make([]liststate.Field[T], len(rt.fields))
	for i, f := range rt.fields {
		out[i] = f.Field
	}
	return out
}

func (rt recordType[T]) schemaAttributes(optional map[string]bool) map[string]schema.Attribute {
	out := map[string]schema.Attribute{
		jsonField: schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The record exactly as the service sent it, as a JSON string, for fields the provider does not model (decode it with `jsondecode`). Null unless `include_json = true`, to keep the state small.",
		},
	}
	for _, f := range rt.fields {
		opt := optional[f.Name]
		switch {
		case f.Int != nil:
			out[f.Name] = schema.Int64Attribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		case f.Bool != nil:
			out[f.Name] = schema.BoolAttribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		default:
			out[f.Name] = schema.StringAttribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		}
	}
	return out
}

// tfValues are rec's attributes as Terraform values. The state is built
// from these directly: going through the framework's attr.Value types costs
// about a thousand allocations per record, which at 100,000 records is most
// of a plan's memory.
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
