package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

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
	values func(T) map[string]attr.Value
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
	{"updated_at", "When the record was last updated (ISO 8601).", types.StringType},
}

func (rt recordType[T]) allFields() []field {
	return append(append([]field{}, commonFields...), rt.fields...)
}

// attrTypes is the object type of one record.
func (rt recordType[T]) attrTypes() map[string]attr.Type {
	out := map[string]attr.Type{jsonField: types.StringType}
	for _, f := range rt.allFields() {
		out[f.name] = f.typ
	}
	return out
}

// schemaAttributes returns the record's attributes, all computed except
// those in optional, which a lookup can also be given.
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

// objectValue is rec as a Terraform object. includeJSON keeps the raw JSON.
func (rt recordType[T]) objectValue(rec T, objType map[string]attr.Type, includeJSON bool) (types.Object, error) {
	vals := rt.values(rec)
	c := rec.Base()
	vals["id"] = types.StringValue(c.ID)
	vals["created_at"] = optString(c.CreatedAt)
	vals["updated_at"] = optString(c.UpdatedAt)
	vals[jsonField] = types.StringNull()
	if includeJSON {
		vals[jsonField] = types.StringValue(c.JSON)
	}
	obj, diags := types.ObjectValue(objType, vals)
	if diags.HasError() {
		return obj, diagError(diags)
	}
	return obj, nil
}

// optString maps the service's "no value" (an empty or absent string) to null.
func optString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func optInt64(v *int64) types.Int64 {
	if v == nil {
		return types.Int64Null()
	}
	return types.Int64Value(*v)
}

func optBool(v *bool) types.Bool {
	if v == nil {
		return types.BoolNull()
	}
	return types.BoolValue(*v)
}
