package provider

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

// field is one typed attribute of a record as Terraform sees it.
type field struct {
	name        string
	description string
	typ         attr.Type // types.StringType, types.Int64Type or types.BoolType
}

// recordType describes how one kind of record maps to Terraform: its
// attributes, their values, and what identifies a record uniquely.
type recordType[T client.Record] struct {
	kind   client.Kind[T]
	fields []field // without "json", which every record type has
	// row returns a record's values in the order of fields: a string (empty
	// for none), *int64 or *bool.
	row func(T) []any
	// lookupKeys are unique attributes a single-record data source can look
	// a record up by, besides id and filter.
	lookupKeys []string
	// example is a valid filter expression for messages and docs.
	example string
}

const jsonField = "json"

var commonFields = []field{
	{"id", "Identifier of the record.", types.StringType},
	{"created_at", "When the record was created (ISO 8601, as the service reports it).", types.StringType},
}

// updatedAtField is the last-update time of the record types that have one
// (files do not).
var updatedAtField = field{"updated_at", "When the record was last updated (ISO 8601).", types.StringType}

func (rt recordType[T]) allFields() []field {
	return append(append([]field{}, commonFields...), rt.fields...)
}

func (rt recordType[T]) schemaAttributes(optional map[string]bool) map[string]schema.Attribute {
	out := map[string]schema.Attribute{
		jsonField: schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The record exactly as the service sent it, as a JSON string, for fields the provider does not model (decode it with `jsondecode`). Null unless `include_json = true`, to keep the state small.",
		},
	}
	for _, f := range rt.allFields() {
		opt := optional[f.name]
		switch f.typ {
		case types.Int64Type:
			out[f.name] = schema.Int64Attribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		case types.BoolType:
			out[f.name] = schema.BoolAttribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		default:
			out[f.name] = schema.StringAttribute{Computed: true, Optional: opt, MarkdownDescription: f.description}
		}
	}
	return out
}

// tfValues are rec's attributes as Terraform values. The state is built
// from these directly: going through the framework's attr.Value types costs
// about a thousand allocations per record, which at 100,000 records is most
// of a plan's memory.
func (rt recordType[T]) tfValues(rec T, includeJSON bool) map[string]tftypes.Value {
	c := rec.Base()
	vals := make(map[string]tftypes.Value, len(rt.fields)+len(commonFields)+1)
	vals["id"] = tftypes.NewValue(tftypes.String, c.ID)
	vals["created_at"] = tfValue(c.CreatedAt)
	vals[jsonField] = nullString
	if includeJSON {
		vals[jsonField] = tftypes.NewValue(tftypes.String, c.JSON)
	}
	for i, v := range rt.row(rec) {
		vals[rt.fields[i].name] = tfValue(v)
	}
	return vals
}

var nullString = tftypes.NewValue(tftypes.String, nil)

// tfValue converts a record field: the service's "no value" (an empty
// string, an absent number or boolean) becomes null.
func tfValue(v any) tftypes.Value {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nullString
		}
		return tftypes.NewValue(tftypes.String, v)
	case *int64:
		if v == nil {
			return tftypes.NewValue(tftypes.Number, nil)
		}
		return tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(*v))
	case *bool:
		if v == nil {
			return tftypes.NewValue(tftypes.Bool, nil)
		}
		return tftypes.NewValue(tftypes.Bool, *v)
	}
	panic(fmt.Sprintf("provider: record field of unexpected type %T", v))
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
