package provider

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
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

// listSchemaType is the Terraform type of a list data source's schema.
func listSchemaType(t *testing.T, ds datasource.DataSource) tftypes.Object {
	t.Helper()
	var resp datasource.SchemaResponse
	ds.Schema(context.Background(), datasource.SchemaRequest{}, &resp)
	typ, ok := resp.Schema.Type().TerraformType(context.Background()).(tftypes.Object)
	if !ok {
		t.Fatal("schema type is not an object")
	}
	return typ
}

// directAndFramework feeds the same records, late ones too, to both
// collectors of a list data source and returns both states as msgpack: the
// direct one, and the framework's encoding of the values Read builds.
func directAndFramework[T commerce.Record](t *testing.T, d *typedListDataSource[T], config tftypes.Value, includeJSON, includeRecords bool,
	listed, late []T, total, maxResults int,
) (direct, framework []byte) {
	t.Helper()
	if err := d.prepareDirect(config.Type()); err != nil {
		t.Fatal(err)
	}
	shape, ok := liststate.ShapeOf(config.Type(), d.rt.kind.Name)
	if !ok {
		t.Fatal("no state shape")
	}
	values := &valueCollector[T]{rt: d.rt, elem: shape.Element, includeJSON: includeJSON, includeRecords: includeRecords}
	msgpack := liststate.NewCollector(d.encoder, liststate.Options{IncludeJSON: includeJSON, IncludeRecords: includeRecords, MaxBytes: maxStateBytes, MaxResults: maxResults})
	defer msgpack.Release()
	for _, sink := range []listing.Reader[T]{{Emit: values.add, Late: values.addLate}, {Emit: msgpack.Add, Late: msgpack.AddLate}} {
		for _, rec := range listed {
			if err := sink.Emit(rec); err != nil {
				t.Fatal(err)
			}
		}
		for _, rec := range late {
			if err := sink.Late(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	direct, err := msgpack.State(config, d.rt.kind.Name, total, true)
	if err != nil {
		t.Fatal(err)
	}
	state, err := stateWith(config, values.computed(shape, d.rt.kind.Name, total, maxResults))
	if err != nil {
		t.Fatal(err)
	}
	return direct, tftypesMsgpack(t, state)
}

// sameState fails with the first attribute where the two states differ.
func sameState(t *testing.T, typ tftypes.Type, direct, framework []byte) {
	t.Helper()
	if bytes.Equal(direct, framework) {
		return
	}
	dv, err := (&tfprotov6.DynamicValue{MsgPack: direct}).Unmarshal(typ)
	if err != nil {
		t.Fatalf("direct state does not decode: %v", err)
	}
	fv, err := (&tfprotov6.DynamicValue{MsgPack: framework}).Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := dv.Diff(fv)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range diffs {
		if i == 5 {
			t.Fatalf("... %d differences in all", len(diffs))
		}
		t.Errorf("%s: direct %v, framework %v", d.Path, d.Value1, d.Value2)
	}
	t.Fatalf("states differ (%d vs %d bytes)", len(direct), len(framework))
}

// configWith is a configuration of typ with the given attributes set.
func configWith(typ tftypes.Object, set map[string]tftypes.Value) tftypes.Value {
	return nullObject(typ, set)
}

// Every option of a list data source, every attribute kind (strings,
// numbers, booleans, each null and set), json, late records and
// max_results: the direct state is the framework's, byte for byte.
func TestDirectStateEqualsFramework(t *testing.T) {
	orders := &typedListDataSource[commerce.Order]{rt: orderType}
	ordersType := listSchemaType(t, orders)
	files := &typedListDataSource[commerce.File]{rt: fileType}
	filesType := listSchemaType(t, files)
	accounts := &typedListDataSource[commerce.Account]{rt: accountType}
	accountsType := listSchemaType(t, accounts)

	fullOrder := commerce.Order{Common: fullCommon, Status: "complete", Payment: "paid", Shipping: "fulfilled", OrderNumber: "ORD-1",
		ExternalRef: "ext-1", CustomerName: "Ann " + strings.Repeat("long name ", 40), CustomerEmail: "ann@example.org",
		CustomerID: "cus-1", AccountID: "acc-1", Currency: "USD", AmountWithTax: ptr(int64(1 << 40)), AmountWithoutTax: ptr(int64(-300))}
	sparseOrder := commerce.Order{Common: commerce.Common{ID: "id-2"}}
	zeroOrder := commerce.Order{Common: commerce.Common{ID: "id-3", JSON: ""}, AmountWithTax: ptr(int64(0))}
	manyOrders := make([]commerce.Order, 70000) // array16 and array32 headers
	for i := range manyOrders {
		manyOrders[i] = commerce.Order{Common: commerce.Common{ID: fmt.Sprintf("o-%06d", i), CreatedAt: "2026-01-01T00:00:00.000Z"},
			Status: "complete", AmountWithTax: ptr(int64(i))}
	}
	lateOrders := []commerce.Order{{Common: commerce.Common{ID: "late-1", UpdatedAt: "2026-03-01T00:00:00.000Z"}}, {Common: commerce.Common{ID: "late-2"}}}

	where := tftypes.List{ElementType: ordersType.AttributeTypes["where"].(tftypes.List).ElementType}
	whereValue := tftypes.NewValue(where, []tftypes.Value{tftypes.NewValue(where.ElementType, map[string]tftypes.Value{
		"attribute": str("status"), "op": str("in"), "value": nullString,
		"values": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{str("paid"), str("complete")}),
	})})
	timeoutsType := ordersType.AttributeTypes["timeouts"].(tftypes.Object)
	everyArgument := map[string]tftypes.Value{
		"filter": str("eq(status,complete)"), "where": whereValue, "sort": str("-created_at"), "max_results": num(5),
		"include_json": tftypes.NewValue(tftypes.Bool, true), "include_records": tftypes.NewValue(tftypes.Bool, true),
		"consistency_buffer": str("60s"), "timeouts": tftypes.NewValue(timeoutsType, map[string]tftypes.Value{"read": str("30m")}),
	}
	unknownFilter := map[string]tftypes.Value{"filter": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}

	type orderCase struct {
		name                        string
		set                         map[string]tftypes.Value
		includeJSON, includeRecords bool
		listed, late                []commerce.Order
		total, maxResults           int
	}
	for _, tc := range []orderCase{
		{"defaults", nil, false, true, []commerce.Order{fullOrder, sparseOrder, zeroOrder}, nil, 3, 0},
		{"include_json", map[string]tftypes.Value{"include_json": tftypes.NewValue(tftypes.Bool, true)}, true, true, []commerce.Order{fullOrder, sparseOrder, zeroOrder}, nil, 3, 0},
		{"include_records = false", map[string]tftypes.Value{"include_records": tftypes.NewValue(tftypes.Bool, false)}, false, false, []commerce.Order{fullOrder, sparseOrder}, nil, 2, 0},
		{"every argument set", everyArgument, true, true, []commerce.Order{fullOrder, sparseOrder}, nil, 9, 5},
		{"an unknown argument", unknownFilter, false, true, []commerce.Order{fullOrder}, nil, 1, 0},
		{"nothing matched", nil, false, true, nil, nil, 0, 0},
		{"nothing matched, ids only", nil, false, false, nil, nil, 0, 0},
		{"late records first", nil, false, true, []commerce.Order{fullOrder, sparseOrder}, lateOrders, 4, 0},
		{"late records cut by max_results", nil, true, true, []commerce.Order{fullOrder, sparseOrder, zeroOrder}, lateOrders, 5, 3},
		{"more late records than max_results", nil, false, false, []commerce.Order{fullOrder}, lateOrders, 3, 1},
		{"70,000 orders", nil, false, true, manyOrders, nil, 70000, 0},
		{"70,000 orders, ids only", nil, false, false, manyOrders, nil, 70000, 0},
	} {
		t.Run("orders/"+tc.name, func(t *testing.T) {
			config := configWith(ordersType, tc.set)
			direct, framework := directAndFramework(t, orders, config, tc.includeJSON, tc.includeRecords, tc.listed, tc.late, tc.total, tc.maxResults)
			sameState(t, ordersType, direct, framework)
		})
	}
	t.Run("files", func(t *testing.T) {
		full := commerce.File{Common: fullCommon, FileName: "a.png", MimeType: "image/png", FileSize: ptr(int64(70000)),
			Public: ptr(false), Href: "https://files.example/a.png", Width: ptr(int64(640)), Height: ptr(int64(480))}
		public := commerce.File{Common: commerce.Common{ID: "f-2"}, Public: ptr(true), FileSize: ptr(int64(0))}
		direct, framework := directAndFramework(t, files, configWith(filesType, nil), true, true, []commerce.File{full, public, {Common: commerce.Common{ID: "f-3"}}}, nil, 3, 0)
		sameState(t, filesType, direct, framework)
	})
	t.Run("accounts", func(t *testing.T) {
		full := commerce.Account{Common: fullCommon, Name: "Acme", LegalName: "Acme Ltd", RegistrationID: "R-1", ExternalRef: "x", ParentID: "p-1"}
		direct, framework := directAndFramework(t, accounts, configWith(accountsType, nil), false, true, []commerce.Account{full, {Common: commerce.Common{ID: "a-2"}}}, nil, 2, 0)
		sameState(t, accountsType, direct, framework)
	})
}

// The encoder comes from the schema: a schema attribute without a field,
// a field outside the schema, or a type that differs is refused when the
// server starts.
func TestRecordEncoderChecksTheSchema(t *testing.T) {
	typ := listSchemaType(t, &typedListDataSource[commerce.Order]{rt: orderType})
	elem := typ.AttributeTypes["orders"].(tftypes.List).ElementType.(tftypes.Object)
	with := func(change func(map[string]tftypes.Type)) tftypes.Object {
		attrs := make(map[string]tftypes.Type, len(elem.AttributeTypes))
		for k, v := range elem.AttributeTypes {
			attrs[k] = v
		}
		change(attrs)
		return tftypes.Object{AttributeTypes: attrs}
	}
	encoderOf := func(elem tftypes.Object) error {
		_, err := liststate.EncoderFor(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"orders": tftypes.List{ElementType: elem}}}, "orders", orderType.stateFields())
		return err
	}
	if err := encoderOf(elem); err != nil {
		t.Fatalf("the orders schema: %v", err)
	}
	for _, tc := range []struct {
		name string
		elem tftypes.Object
		want string
	}{
		{"attribute without a field", with(func(a map[string]tftypes.Type) { a["colour"] = tftypes.String }), `attribute "colour" of the schema has no field`},
		{"field not in the schema", with(func(a map[string]tftypes.Type) { delete(a, "status") }), `field "status" is not in the schema`},
		{"type mismatch", with(func(a map[string]tftypes.Type) { a["amount_with_tax"] = tftypes.String }), `attribute "amount_with_tax" is tftypes.String in the schema, tftypes.Number in its field`},
		{"json not a string", with(func(a map[string]tftypes.Type) { a["json"] = tftypes.Bool }), `attribute "json" is tftypes.Bool, not a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := encoderOf(tc.elem)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to say %s", err, tc.want)
			}
		})
	}
}
