package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var whereAttrTypes = map[string]attr.Type{
	"attribute": types.StringType, "op": types.StringType, "value": types.StringType, "values": types.ListType{ElemType: types.StringType},
}

// wheres is a where attribute of the given elements; a nil element is
// unknown.
func wheres(elems ...*whereModel) types.List {
	vals := make([]attr.Value, len(elems))
	for i, w := range elems {
		if w == nil {
			vals[i] = types.ObjectUnknown(whereAttrTypes)
			continue
		}
		vals[i] = types.ObjectValueMust(whereAttrTypes, map[string]attr.Value{
			"attribute": w.Attribute, "op": w.Op, "value": w.Value, "values": w.Values,
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: whereAttrTypes}, vals)
}

func whereEq(attribute, value string) *whereModel {
	w := where(attribute, "eq", types.StringValue(value), noValues)
	return &w
}

func TestExpression(t *testing.T) {
	ctx := context.Background()
	// Each part is within the limit; together they are not.
	half := strings.Repeat("x", 4100)
	long := "eq(order_number," + half + ")"
	tooLong := wheres(whereEq("external_ref", half))
	longBoth := long + ":eq(external_ref," + half + ")"
	nullWhere := types.ListNull(types.ObjectType{AttrTypes: whereAttrTypes})
	cases := []struct {
		name  string
		in    listInputs
		expr  string
		diags []wantDiag
	}{
		{"nothing", listInputs{Filter: types.StringNull(), Where: nullWhere}, "", nil},
		{"filter alone, as written", listInputs{Filter: types.StringValue("eq(status,complete)"), Where: nullWhere}, "eq(status,complete)", nil},
		{"where alone, quoted", listInputs{Filter: types.StringNull(), Where: wheres(whereEq("email", "a,b@example.org"))}, `eq(email,"a,b@example.org")`, nil},
		{"filter first, then each where", listInputs{Filter: types.StringValue("eq(status,complete)"), Where: wheres(whereEq("currency", "USD"), whereEq("payment", "paid"))},
			"eq(status,complete):eq(currency,USD):eq(payment,paid)", nil},
		{"unknown parts left out", listInputs{Filter: types.StringUnknown(), Where: wheres(nil, whereEq("currency", "USD"))}, "eq(currency,USD)", nil},
		{"invalid where left out", listInputs{Filter: types.StringNull(), Where: wheres(whereEq("file name", "a"), whereEq("currency", "USD"))}, "eq(currency,USD)",
			[]wantDiag{errorAt("where[0]", "Invalid where attribute")}},
		{"where checked against the table", listInputs{Filter: types.StringNull(), Where: wheres(whereEq("with_tax", "1"))}, "eq(with_tax,1)",
			[]wantDiag{errorAt("where[0]", "Operator not supported on this attribute", "orders with_tax with gt, ge, lt, le only")}},
		{"one diagnostic per mistake, where it is", listInputs{Filter: types.StringNull(), Where: wheres(
			whereEq("stauts", "complete"),
			&whereModel{Attribute: types.StringValue("created_at"), Op: types.StringValue("gte"), Value: types.StringValue("2026-01-01T00:00:00.000Z"), Values: noValues},
			&whereModel{Attribute: types.StringValue("updated_at"), Op: types.StringValue("lt"), Value: types.StringValue("yesterday"), Values: noValues},
			&whereModel{Attribute: types.StringValue("status"), Op: types.StringValue("like"), Value: types.StringValue("c*"), Values: noValues},
			whereEq("currency", "USD"))},
			`eq(stauts,complete):lt(updated_at,yesterday):like(status,"c*"):eq(currency,USD)`,
			[]wantDiag{
				errorAt("where[0]", "Unknown filter attribute", `orders cannot be filtered on "stauts"; did you mean "status"?`),
				errorAt("where[1]", "Invalid where operator", `where[1].op is "gte", which is not an operator; did you mean "ge"?`),
				errorAt("where[2]", "Invalid filter value", `"yesterday" is not a timestamp`),
				errorAt("where[3]", "Operator not supported on this attribute", "orders status with eq only, not with like"),
			}},
		{"filter checked", listInputs{Filter: types.StringValue("eq(colour,red)"), Where: nullWhere}, "eq(colour,red)",
			[]wantDiag{errorAt("filter", "Unknown filter attribute")}},
		{"too long", listInputs{Filter: types.StringValue(long), Where: tooLong}, longBoth,
			[]wantDiag{errorAt("filter", "Filter too long for one request", fmt.Sprintf("would be %d bytes long", commerce.ListRequestLength("/v2/orders", longBoth, "created_at", commerce.OffsetLimit, commerce.DefaultPageSize)), "at most 8192 bytes")}},
		{"too long once URL-encoded", listInputs{Filter: types.StringNull(), Where: wheres(&whereModel{Attribute: types.StringValue("external_ref"), Op: types.StringValue("eq"),
			Value: types.StringValue(strings.Repeat("(", 3000)), Values: noValues})}, `eq(external_ref,"` + strings.Repeat("(", 3000) + `")`,
			[]wantDiag{errorAt("where", "Filter too long for one request", "cannot split it: the filter has no in()", "up to 10000 values")}},
		{"ten terms", listInputs{Filter: types.StringValue(strings.Repeat("eq(status,complete):", 5) + "eq(status,complete)"), Where: wheres(
			whereEq("currency", "USD"), whereEq("currency", "USD"), whereEq("currency", "USD"), whereEq("currency", "USD"))},
			strings.Repeat("eq(status,complete):", 6) + "eq(currency,USD):eq(currency,USD):eq(currency,USD):eq(currency,USD)", nil},
		{"eleven terms in filter", listInputs{Filter: types.StringValue(strings.Repeat("eq(status,complete):", 10) + "eq(status,complete)"), Where: nullWhere}, "",
			[]wantDiag{errorAt("filter", "Too many filter terms", "filter has 11 terms", "at most 10 terms", "Remove 1")}},
		{"eleven terms in all", listInputs{Filter: types.StringValue(strings.Repeat("eq(status,complete):", 6) + "eq(status,complete)"), Where: wheres(
			whereEq("currency", "USD"), whereEq("currency", "USD"), whereEq("currency", "USD"), nil)}, "",
			[]wantDiag{errorAt("where", "Too many filter terms", "filter has 7 terms and where 4, 11 in all")}},
		{"dates as the vendor writes them", listInputs{Filter: types.StringValue("ge(created_at,2024-01-02):lt(created_at,1767312000000)"), Where: wheres(
			&whereModel{Attribute: types.StringValue("updated_at"), Op: types.StringValue("gt"), Value: types.StringValue("2024-05-31T16:43:31Z"), Values: noValues})},
			"ge(created_at,2024-01-02):lt(created_at,1767312000000):gt(updated_at,2024-05-31T16:43:31Z)", nil},
		{"eq on a date is one instant", listInputs{Filter: types.StringValue("eq(created_at,2024-01-02)"), Where: nullWhere}, "eq(created_at,2024-01-02)",
			[]wantDiag{warningAt("filter", "Date matches one instant", "exactly 2024-01-02T00:00:00.000Z", "ge(created_at,2024-01-02):lt(created_at,2024-01-03)")}},
		{"timestamps more precise than the service", listInputs{Filter: types.StringValue("ge(created_at,2024-01-02T00:00:00.123456Z)"), Where: nullWhere}, "ge(created_at,2024-01-02T00:00:00.123456Z)",
			[]wantDiag{errorAt("filter", "Invalid filter value", "6 fractional digits")}},
		{"too long, but not known yet", listInputs{Filter: types.StringUnknown(), Where: wheres(whereEq("external_ref", half), whereEq("order_number", half))},
			"eq(external_ref," + half + "):eq(order_number," + half + ")", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expr, known, diags := tc.in.expression(ctx, &commerce.OrdersEndpoint, orderType.example)
			if known && !diags.HasError() {
				diags.Append(tc.in.checkLength(expr, commerce.OrdersEndpoint.Path, commerce.OrdersEndpoint.DefaultSort)...)
			}
			if expr.Text() != tc.expr {
				t.Errorf("expression = %q, want %q", expr.Text(), tc.expr)
			}
			checkDiags(t, diags, tc.diags...)
		})
	}
}

func TestQuery(t *testing.T) {
	in := listInputs{Sort: types.StringValue("-updated_at"), MaxResults: types.Int64Value(7), IncludeJSON: types.BoolValue(true),
		ConsistencyBuffer: types.StringValue("5m")}
	q := in.query(filter.Parsed{Terms: filter.Expr{filter.NewTerm(filter.Eq, "status", "complete")}})
	if q.Filter.Text() != "eq(status,complete)" || q.Sort != "-updated_at" || q.MaxResults != 7 || !q.IncludeJSON {
		t.Errorf("query = %+v", q)
	}
	if q.ConsistencyBuffer != 5*time.Minute {
		t.Errorf("ConsistencyBuffer = %v, want 5m", q.ConsistencyBuffer)
	}
	q = listInputs{Sort: types.StringNull(), MaxResults: types.Int64Null(), IncludeJSON: types.BoolNull(), ConsistencyBuffer: types.StringNull()}.query(filter.Parsed{})
	if q.Sort != "" || q.MaxResults != 0 || q.IncludeJSON || q.ConsistencyBuffer != 0 {
		t.Errorf("query of nothing = %+v, want defaults", q)
	}
}

func TestIncludeRecordsDefaultsToTrue(t *testing.T) {
	for v, want := range map[types.Bool]bool{types.BoolNull(): true, types.BoolValue(true): true, types.BoolValue(false): false} {
		if got := (listInputs{IncludeRecords: v}).includeRecords(); got != want {
			t.Errorf("include_records = %s: includeRecords() = %v", v, got)
		}
	}
}

// ordersShape is the state type of commerce_orders.
func ordersShape(t *testing.T) liststate.Shape {
	t.Helper()
	var resp datasource.SchemaResponse
	newOrdersDataSource().Schema(context.Background(), datasource.SchemaRequest{}, &resp)
	shape, ok := liststate.ShapeOf(resp.Schema.Type().TerraformType(context.Background()), "orders")
	if !ok {
		t.Fatal("commerce_orders has no list of order objects")
	}
	return shape
}

func ids(t *testing.T, v tftypes.Value) []string {
	t.Helper()
	var vals []tftypes.Value
	if err := v.As(&vals); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(vals))
	for i, el := range vals {
		var s string
		var obj map[string]tftypes.Value
		if el.Type().Is(tftypes.String) {
			_ = el.As(&s)
		} else if err := el.As(&obj); err == nil {
			_ = obj["id"].As(&s)
		}
		out[i] = s
	}
	return out
}

func order(id string) commerce.Order {
	return commerce.Order{Common: commerce.Common{ID: id, JSON: `{"id":"` + id + `"}`}, Status: "complete"}
}

func TestCollector(t *testing.T) {
	shape := ordersShape(t)
	collect := func(includeRecords bool, listed, late []string) *valueCollector[commerce.Order] {
		c := &valueCollector[commerce.Order]{rt: orderType, elem: shape.Element, includeJSON: true, includeRecords: includeRecords}
		for _, id := range listed {
			if err := c.add(order(id)); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range late {
			if err := c.addLate(order(id)); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	cases := []struct {
		name           string
		includeRecords bool
		listed, late   []string
		maxResults     int
		want           []string
	}{
		{"in listing order", true, []string{"a", "b", "c"}, nil, 0, []string{"a", "b", "c"}},
		{"late records first", true, []string{"a", "b"}, []string{"z", "y"}, 0, []string{"z", "y", "a", "b"}},
		{"late records within max_results", true, []string{"a", "b", "c"}, []string{"z"}, 3, []string{"z", "a", "b"}},
		{"ids only", false, []string{"a", "b"}, []string{"z"}, 2, []string{"z", "a"}},
		{"none", true, nil, nil, 0, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vals := collect(tc.includeRecords, tc.listed, tc.late).computed(shape, "orders", 42, tc.maxResults)
			if len(vals) != 3 {
				t.Errorf("computed %d attributes, want ids, total and orders", len(vals))
			}
			if got := ids(t, vals["ids"]); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("ids = %v, want %v", got, tc.want)
			}
			if !vals["total"].Equal(num(42)) {
				t.Errorf("total = %s", vals["total"])
			}
			records := vals["orders"]
			if !tc.includeRecords {
				if !records.IsNull() {
					t.Errorf("orders = %s, want null", records)
				}
				return
			}
			if records.IsNull() {
				t.Fatal("orders is null, want a list (empty when nothing matched)")
			}
			if got := ids(t, records); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("orders ids = %v, want %v", got, tc.want)
			}
			if len(tc.want) > 0 {
				var list []tftypes.Value
				_ = records.As(&list)
				var first map[string]tftypes.Value
				_ = list[0].As(&first)
				checkValues(t, first, orderType.tfValues(order(tc.want[0]), true))
			}
		})
	}
}

// A long in() is split at read time, so validation lets it pass; what no
// split fixes is an error. The read's warning says what the split cost
// (TestLongInWarnsWithTheRequestsItTook).
func TestCheckRequestLengthSplitsLongIn(t *testing.T) {
	ids := make([]string, 450)
	for i := range ids {
		ids[i] = fmt.Sprintf("10000000-0000-4000-8000-%012d", i)
	}
	expr := filter.Parsed{Terms: filter.Expr{filter.NewTerm(filter.In, "id", ids...)}}
	if diags := checkRequestLength(path.Root("where"), "/v2/accounts", expr, "created_at"); len(diags) != 0 {
		t.Fatalf("diagnostics %v, want none", diags)
	}
	many := make([]string, filter.MaxInValues+1)
	for i := range many {
		many[i] = "x"
	}
	if diags := checkRequestLength(path.Root("where"), "/v2/accounts", filter.Parsed{Terms: filter.Expr{filter.NewTerm(filter.In, "id", many...)}}, "created_at"); !diags.HasError() {
		t.Errorf("an in() of %d values: %v, want an error", len(many), diags)
	}
}
