package provider

import (
	"context"
	"math/big"
	"slices"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func ptr[V any](v V) *V { return &v }

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

func num(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(n)) }

var (
	nullNumber = tftypes.NewValue(tftypes.Number, nil)
	nullBool   = tftypes.NewValue(tftypes.Bool, nil)
)

func TestScalarValues(t *testing.T) {
	cases := []struct {
		name string
		got  tftypes.Value
		want tftypes.Value
	}{
		{"string", tfString("complete"), str("complete")},
		{"empty string is null", tfString(""), nullString},
		{"blank string is kept", tfString(" "), str(" ")},
		{"number", tfInt64(ptr(int64(1999))), num(1999)},
		{"zero is a number", tfInt64(ptr(int64(0))), num(0)},
		{"negative number", tfInt64(ptr(int64(-5))), num(-5)},
		{"largest int64 exactly", tfInt64(ptr(int64(1<<63 - 1))), num(1<<63 - 1)},
		{"absent number is null", tfInt64(nil), nullNumber},
		{"true", tfBool(ptr(true)), tftypes.NewValue(tftypes.Bool, true)},
		{"false is not null", tfBool(ptr(false)), tftypes.NewValue(tftypes.Bool, false)},
		{"absent boolean is null", tfBool(nil), nullBool},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.got.Equal(tc.want) {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

// checkValues compares every attribute of got with want, which must name
// them all.
func checkValues(t *testing.T, got, want map[string]tftypes.Value) {
	t.Helper()
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s missing", name)
		} else if !g.Equal(w) {
			t.Errorf("%s = %s, want %s", name, g, w)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected attribute %s = %s", name, g)
		}
	}
}

var fullCommon = commerce.Common{ID: "id-1", CreatedAt: "2026-01-02T03:04:05.678Z", UpdatedAt: "2026-02-03T04:05:06.789Z", JSON: `{"id":"id-1"}`}

func TestOrderValues(t *testing.T) {
	full := commerce.Order{Common: fullCommon, Status: "complete", Payment: "paid", Shipping: "fulfilled", OrderNumber: "ORD-1",
		ExternalRef: "ext-1", CustomerName: "Ann", CustomerEmail: "ann@example.org", CustomerID: "cus-1", AccountID: "acc-1",
		Currency: "USD", AmountWithTax: ptr(int64(1999)), AmountWithoutTax: ptr(int64(1666))}
	checkValues(t, orderType.tfValues(full, false), map[string]tftypes.Value{
		"id": str("id-1"), "created_at": str("2026-01-02T03:04:05.678Z"), "updated_at": str("2026-02-03T04:05:06.789Z"),
		"status": str("complete"), "payment": str("paid"), "shipping": str("fulfilled"), "order_number": str("ORD-1"),
		"external_ref": str("ext-1"), "customer_name": str("Ann"), "customer_email": str("ann@example.org"),
		"customer_id": str("cus-1"), "account_id": str("acc-1"), "currency": str("USD"),
		"amount_with_tax": num(1999), "amount_without_tax": num(1666), "json": nullString,
	})
	// A guest order without amounts: everything the service left out is null.
	checkValues(t, orderType.tfValues(commerce.Order{Common: commerce.Common{ID: "id-2"}}, false), map[string]tftypes.Value{
		"id": str("id-2"), "created_at": nullString, "updated_at": nullString,
		"status": nullString, "payment": nullString, "shipping": nullString, "order_number": nullString,
		"external_ref": nullString, "customer_name": nullString, "customer_email": nullString,
		"customer_id": nullString, "account_id": nullString, "currency": nullString,
		"amount_with_tax": nullNumber, "amount_without_tax": nullNumber, "json": nullString,
	})
	if got := orderType.tfValues(full, true)[jsonField]; !got.Equal(str(`{"id":"id-1"}`)) {
		t.Errorf("json with include_json = %s", got)
	}
}

func TestFileValues(t *testing.T) {
	image := commerce.File{Common: fullCommon, FileName: "a.png", MimeType: "image/png", FileSize: ptr(int64(2048)),
		Width: ptr(int64(640)), Height: ptr(int64(480)), Public: ptr(false), Href: "https://cdn.example/a.png"}
	checkValues(t, fileType.tfValues(image, false), map[string]tftypes.Value{
		"id": str("id-1"), "created_at": str("2026-01-02T03:04:05.678Z"),
		"file_name": str("a.png"), "mime_type": str("image/png"), "file_size": num(2048),
		"width": num(640), "height": num(480), "public": tftypes.NewValue(tftypes.Bool, false),
		"href": str("https://cdn.example/a.png"), "json": nullString,
	})
	// Files have no updated_at, even when the client saw one.
	checkValues(t, fileType.tfValues(commerce.File{Common: commerce.Common{ID: "id-2", UpdatedAt: "x"}, FileSize: ptr(int64(0))}, true), map[string]tftypes.Value{
		"id": str("id-2"), "created_at": nullString,
		"file_name": nullString, "mime_type": nullString, "file_size": num(0),
		"width": nullNumber, "height": nullNumber, "public": nullBool, "href": nullString, "json": str(""),
	})
}

func TestAccountValues(t *testing.T) {
	child := commerce.Account{Common: fullCommon, Name: `All,the:(hard)'bits"\*`, LegalName: "Acme Ltd", RegistrationID: "RC1",
		ExternalRef: "crm-1", ParentID: "acc-0"}
	checkValues(t, accountType.tfValues(child, true), map[string]tftypes.Value{
		"id": str("id-1"), "created_at": str("2026-01-02T03:04:05.678Z"), "updated_at": str("2026-02-03T04:05:06.789Z"),
		"name": str(`All,the:(hard)'bits"\*`), "legal_name": str("Acme Ltd"), "registration_id": str("RC1"),
		"external_ref": str("crm-1"), "parent_id": str("acc-0"), "json": str(`{"id":"id-1"}`),
	})
	checkValues(t, accountType.tfValues(commerce.Account{Common: commerce.Common{ID: "id-2"}, Name: "Top"}, false), map[string]tftypes.Value{
		"id": str("id-2"), "created_at": nullString, "updated_at": nullString,
		"name": str("Top"), "legal_name": nullString, "registration_id": nullString,
		"external_ref": nullString, "parent_id": nullString, "json": nullString,
	})
}

// describedRecordType is what TestRecordTypesMatchTheirSchema needs of a
// recordType, whatever its record.
type describedRecordType struct {
	name       string
	fields     []string
	lookupKeys []string
	attrs      map[string]schema.Attribute
	values     map[string]tftypes.Value
}

func describe[T commerce.Record](name string, rt recordType[T], sample T) describedRecordType {
	d := describedRecordType{name: name, lookupKeys: rt.lookupKeys, attrs: rt.schemaAttributes(nil), values: rt.tfValues(sample, true)}
	for _, f := range rt.fields {
		d.fields = append(d.fields, f.Name)
	}
	return d
}

// TestRecordTypesMatchTheirSchema: every value a record type puts in the
// state has a schema attribute of its type, and the other way round, so
// that the framework never meets a state its schema does not describe.
func TestRecordTypesMatchTheirSchema(t *testing.T) {
	ctx := context.Background()
	for _, rt := range []describedRecordType{
		describe("orders", orderType, commerce.Order{}),
		describe("files", fileType, commerce.File{}),
		describe("accounts", accountType, commerce.Account{}),
	} {
		t.Run(rt.name, func(t *testing.T) {
			sorted := slices.Clone(rt.fields)
			slices.Sort(sorted)
			if len(slices.Compact(sorted)) != len(rt.fields) {
				t.Errorf("duplicate field names in %v", rt.fields)
			}
			if len(rt.attrs) != len(rt.values) {
				t.Errorf("%d schema attributes, %d values", len(rt.attrs), len(rt.values))
			}
			for name, a := range rt.attrs {
				v, ok := rt.values[name]
				if !ok {
					t.Errorf("schema attribute %s has no value", name)
					continue
				}
				if want := a.GetType().TerraformType(ctx); !v.Type().Equal(want) {
					t.Errorf("%s: value of type %s, schema type %s", name, v.Type(), want)
				}
				if a.GetMarkdownDescription() == "" {
					t.Errorf("%s has no description", name)
				}
			}
			// The lookup data sources offer lookup keys as string arguments.
			for _, k := range rt.lookupKeys {
				if _, ok := rt.attrs[k].(schema.StringAttribute); !ok {
					t.Errorf("lookup key %s is %T, not a string attribute", k, rt.attrs[k])
				}
			}
		})
	}
}

func TestSchemaAttributesOptional(t *testing.T) {
	attrs := accountType.schemaAttributes(map[string]bool{"name": true})
	for name, a := range attrs {
		if !a.IsComputed() {
			t.Errorf("%s is not computed", name)
		}
		if a.IsOptional() != (name == "name") {
			t.Errorf("%s optional = %v", name, a.IsOptional())
		}
	}
}

func TestStateWithLeavesConfigAlone(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"filter": tftypes.String, "total": tftypes.Number}}
	config := tftypes.NewValue(typ, map[string]tftypes.Value{"filter": str("eq(a,b)"), "total": nullNumber})
	state, err := stateWith(config, map[string]tftypes.Value{"total": num(3)})
	if err != nil {
		t.Fatal(err)
	}
	want := tftypes.NewValue(typ, map[string]tftypes.Value{"filter": str("eq(a,b)"), "total": num(3)})
	if !state.Equal(want) {
		t.Errorf("state = %s, want %s", state, want)
	}
	if !config.Equal(tftypes.NewValue(typ, map[string]tftypes.Value{"filter": str("eq(a,b)"), "total": nullNumber})) {
		t.Errorf("stateWith changed the configuration: %s", config)
	}
	if _, err := stateWith(str("not an object"), nil); err == nil {
		t.Error("stateWith of a string: no error")
	}
}
