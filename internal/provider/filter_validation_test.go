package provider

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// wantDiag is one expected diagnostic: its severity, summary, the path it
// is attached to ("" for none) and phrases of its detail.
type wantDiag struct {
	severity diag.Severity
	summary  string
	path     string
	detail   []string
}

func errorAt(p, summary string, detail ...string) wantDiag {
	return wantDiag{diag.SeverityError, summary, p, detail}
}

func warningAt(p, summary string, detail ...string) wantDiag {
	return wantDiag{diag.SeverityWarning, summary, p, detail}
}

// checkDiags compares diags with want, in order.
func checkDiags(t *testing.T, diags diag.Diagnostics, want ...wantDiag) {
	t.Helper()
	if len(diags) != len(want) {
		for _, d := range diags {
			t.Logf("got %v %q: %s", d.Severity(), d.Summary(), d.Detail())
		}
		t.Fatalf("%d diagnostics, want %d", len(diags), len(want))
	}
	for i, w := range want {
		d := diags[i]
		if d.Severity() != w.severity || d.Summary() != w.summary {
			t.Errorf("diagnostic %d: %v %q, want %v %q", i, d.Severity(), d.Summary(), w.severity, w.summary)
		}
		got := ""
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			got = wp.Path().String()
		}
		if got != w.path {
			t.Errorf("diagnostic %d (%s) at %q, want %q", i, d.Summary(), got, w.path)
		}
		for _, phrase := range w.detail {
			if !strings.Contains(d.Detail(), phrase) {
				t.Errorf("diagnostic %d (%s): detail lacks %q:\n%s", i, d.Summary(), phrase, d.Detail())
			}
		}
	}
}

func strList(vals ...attr.Value) types.List { return types.ListValueMust(types.StringType, vals) }

func where(attribute, op string, value types.String, values types.List) whereModel {
	return whereModel{Attribute: types.StringValue(attribute), Op: types.StringValue(op), Value: value, Values: values}
}

var noValues = types.ListNull(types.StringType)

// whereTermCases are TestWhereTerm's: a where element, the term it makes
// (its text, "" when none is built), whether it is known, and its errors.
var whereTermCases = []struct {
	name  string
	w     whereModel
	term  string // the term's text when it is built
	known bool
	diags []wantDiag
}{
	{"eq", where("status", "eq", types.StringValue("complete"), noValues), "eq(status,complete)", true, nil},
	{"like keeps the star a wildcard", where("email", "like", types.StringValue("*@example.org"), noValues), `like(email,"*@example.org")`, true, nil},
	{"timestamps stay unquoted", where("created_at", "ge", types.StringValue("2026-01-01T00:00:00.000Z"), noValues), "ge(created_at,2026-01-01T00:00:00.000Z)", true, nil},
	{"in", where("external_ref", "in", types.StringNull(), strList(types.StringValue("a"), types.StringValue("b c"))), `in(external_ref,a,"b c")`, true, nil},
	{"hostile value quoted", where("name", "eq", types.StringValue(`All,the:(hard)'bits"\*`), noValues), `eq(name,"All,the:(hard)'bits\"\\*")`, true, nil},
	{"empty value quoted", where("name", "eq", types.StringValue(""), noValues), `eq(name,"")`, true, nil},
	{"unknown attribute", whereModel{Attribute: types.StringUnknown(), Op: types.StringValue("eq"), Value: types.StringValue("x"), Values: noValues}, "", false, nil},
	{"unknown op", whereModel{Attribute: types.StringValue("a"), Op: types.StringUnknown(), Value: types.StringValue("x"), Values: noValues}, "", false, nil},
	{"unknown value", where("status", "eq", types.StringUnknown(), noValues), "", false, nil},
	{"unknown values", where("id", "in", types.StringNull(), types.ListUnknown(types.StringType)), "", false, nil},
	{"unknown element of values", where("id", "in", types.StringNull(), strList(types.StringValue("a"), types.StringUnknown())), "", false, nil},
	{"invalid op, nothing close", where("status", "contains", types.StringValue("x"), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Invalid where operator", `where[1].op is "contains", which is not an operator. Use one of eq, like, in, gt, ge, lt, le.`)}},
	{"invalid op, did you mean", where("created_at", "gte", types.StringValue(exampleTimestamp), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Invalid where operator", `where[1].op is "gte", which is not an operator; did you mean "ge"? Use one of eq, like, in, gt, ge, lt, le.`)}},
	{"lte means le", where("created_at", "lte", types.StringValue(exampleTimestamp), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Invalid where operator", `; did you mean "le"?`)}},
	{"neq is not eq", where("status", "neq", types.StringValue("x"), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Invalid where operator", `where[1].op is "neq", which is not an operator. Use one of`)}},
	{"operators are case-sensitive", where("status", "EQ", types.StringValue("x"), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Invalid where operator", `"EQ", which is not an operator; did you mean "eq"?`)}},
	{"null element of values", where("id", "in", types.StringNull(), strList(types.StringValue("a"), types.StringNull())), "", true, []wantDiag{
		errorAt("where[1]", "Null where value", "where[1].values[1] is null")}},
	{"in with value", where("mime_type", "in", types.StringValue("image/png"), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Use values with in", `where[1]: the in operator takes a list: write values = ["a", "b"]`)}},
	{"in with empty values", where("id", "in", types.StringNull(), strList()), "", true, []wantDiag{
		errorAt("where[1]", "Missing where values", "needs at least one element in values")}},
	{"in with neither", where("id", "in", types.StringNull(), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Missing where values", "where[1]: the in operator")}},
	{"eq with values", where("status", "eq", types.StringNull(), strList(types.StringValue("a"))), "", true, []wantDiag{
		errorAt("where[1]", "Use value with eq", "the eq operator takes one value", "values is only for in")}},
	{"lt with neither", where("created_at", "lt", types.StringNull(), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Missing where value", `where[1]: the lt operator needs value = "..."`)}},
	{"attribute with a space", where("file name", "eq", types.StringValue("a"), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Invalid where attribute", `where[1].attribute is "file name"`, "starts with a letter or _")}},
	{"attribute with a parenthesis", where("a)", "eq", types.StringValue("a"), noValues), "", true, []wantDiag{
		errorAt("where[1]", "Invalid where attribute", `"a)"`)}},
}

func TestWhereTerm(t *testing.T) {
	p := path.Root("where").AtListIndex(1)
	for _, tc := range whereTermCases {
		t.Run(tc.name, func(t *testing.T) {
			term, known, diags := whereTerm(p, tc.w)
			if known != tc.known {
				t.Errorf("known = %v, want %v", known, tc.known)
			}
			checkDiags(t, diags, tc.diags...)
			if tc.term == "" {
				return
			}
			if got := term.String(); got != tc.term {
				t.Errorf("term %s, want %s", got, tc.term)
			}
			// What the service gets back from the text is what was written.
			parsed, err := filter.Parse(term.String())
			if err != nil {
				t.Fatalf("the term does not parse: %v", err)
			}
			want := []string{tc.w.Value.ValueString()}
			if !tc.w.Values.IsNull() {
				want = nil
				for _, v := range tc.w.Values.Elements() {
					want = append(want, v.(types.String).ValueString())
				}
			}
			if got := parsed[0].Values; strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
				t.Errorf("parsed values %q, want %q", got, want)
			}
		})
	}
}

// things is a resource of every kind of filter attribute, so that the
// checks do not depend on what the real endpoints happen to offer.
var things = commerce.Endpoint{Name: "things", Singular: "thing", Filters: map[string]commerce.FilterAttribute{
	"label":   {Kind: commerce.StringValue, Ops: []filter.Op{filter.Eq, filter.Like}},
	"seen_at": {Kind: commerce.TimestampValue, Ops: []filter.Op{filter.Ge, filter.Lt}},
	"weight":  {Kind: commerce.NumberValue, Ops: []filter.Op{filter.Gt, filter.In}},
	"active":  {Kind: commerce.BoolValue, Ops: []filter.Op{filter.Eq}},
}}

const thingsExample = "eq(label,x)"

func TestCheckFilterText(t *testing.T) {
	p := path.Root("filter")
	cases := []struct {
		name  string
		r     commerce.Endpoint
		text  string
		diags []wantDiag
	}{
		{"every kind valid", things, "eq(label,a b):like(label,x*):ge(seen_at,2026-01-01T00:00:00.000Z):gt(weight,1.5):in(weight,1,-2,3e3):eq(active,false)", nil},
		{"syntax error", things, "eq(label,a", []wantDiag{
			errorAt("filter", "Invalid filter expression", "filter: ", "(at character", "op(attribute,value)", "eq, like, in, gt, ge, lt, le", "Example: eq(label,x)")}},
		{"unknown operator", things, "gte(weight,1)", []wantDiag{
			errorAt("filter", "Invalid filter expression", `unknown operator "gte" (did you mean "ge"?); use one of`, `near "gte(weight,1)"`)}},
		{"unknown operator, nothing close", things, "contains(label,x)", []wantDiag{
			errorAt("filter", "Invalid filter expression", `unknown operator "contains"; use one of eq, like, in, gt, ge, lt, le`)}},
		{"empty", things, "", []wantDiag{errorAt("filter", "Invalid filter expression")}},
		{"operator not offered", things, "like(weight,1*)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", `filter: "like(weight,1*)": the service filters things weight with gt, in only, not with like`, "Example: eq(label,x)")}},
		{"not a timestamp", things, "ge(seen_at,2026-01-1)", []wantDiag{
			errorAt("filter", "Invalid filter value", `"ge(seen_at,2026-01-1)": seen_at is a timestamp: "2026-01-1" is not a timestamp; use a date (2026-01-02, midnight UTC), milliseconds since 1970-01-01`, "Example: eq(label,x)")}},
		{"date, as the vendor documents", things, "ge(seen_at,2026-01-01)", nil},
		{"epoch milliseconds, as the vendor documents", things, "ge(seen_at,1767225600000)", nil},
		{"timestamp without milliseconds", things, "lt(seen_at,2026-01-01T00:00:00Z)", nil},
		{"timestamp without a zone", things, "lt(seen_at,2026-01-01T00:00:00)", []wantDiag{
			errorAt("filter", "Invalid filter value", `no time zone`, "Z (UTC) or an offset")}},
		{"each bad number", things, "in(weight,1,ten,eleven)", []wantDiag{
			errorAt("filter", "Invalid filter value", `weight is a number, and "ten" is not one.`),
			errorAt("filter", "Invalid filter value", `weight is a number, and "eleven" is not one.`)}},
		{"not a boolean", things, "eq(active,yes)", []wantDiag{
			errorAt("filter", "Invalid filter value", `active is true or false, not "yes".`)}},
		{"every term checked, quoted as written", things, `eq(colour,red):eq(active,"TRUE")`, []wantDiag{
			errorAt("filter", "Unknown filter attribute", `"eq(colour,red)"`),
			errorAt("filter", "Invalid filter value", `"eq(active,\"TRUE\")": active is true or false`)}},
		{"strings take any text", things, `eq(label,"2026-01-01"):like(label,"no*number")`, nil},
		// The real table, where the service's own documentation is the test.
		{"orders example", commerce.OrdersEndpoint, orderType.example, nil},
		{"files example", commerce.FilesEndpoint, fileType.example, nil},
		{"accounts example", commerce.AccountsEndpoint, accountType.example, nil},
		{"files: file_size by range only", commerce.FilesEndpoint, "eq(file_size,1)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", "files file_size with gt, ge, lt, le only, not with eq")}},
		{"files: no filter on id", commerce.FilesEndpoint, "in(id,a)", []wantDiag{
			errorAt("filter", "Unknown filter attribute", `files cannot be filtered on "id"`)}},
		{"orders: status by eq only", commerce.OrdersEndpoint, "in(status,complete,processing)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", "orders status with eq only, not with in")}},
		{"orders: amounts are numbers", commerce.OrdersEndpoint, "gt(with_tax,ten)", []wantDiag{
			errorAt("filter", "Invalid filter value", `with_tax is a number, and "ten" is not one.`)}},
		{"accounts: name is not ranged", commerce.AccountsEndpoint, "gt(name,M)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", "accounts name with eq, like only, not with gt")}},
		{"accounts: external_ref not by in", commerce.AccountsEndpoint, "in(external_ref,crm-1,crm-2)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", "accounts external_ref with eq, like only, not with in")}},
		{"accounts: id by in", commerce.AccountsEndpoint, "in(id,a,b)", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := checkFilterText(p, tc.text, &tc.r, thingsExample)
			checkDiags(t, diags, tc.diags...)
		})
	}
}

// TestCheckUnknownAttribute: an attribute the table does not know is an
// error that names the ones it knows and suggests the closest, if any is.
func TestCheckUnknownAttribute(t *testing.T) {
	cases := []struct {
		name  string
		r     commerce.Endpoint
		text  string
		diags []wantDiag
	}{
		{"unknown attribute, nothing close", things, "eq(colour,red)", []wantDiag{
			errorAt("filter", "Unknown filter attribute", `filter: "eq(colour,red)": things cannot be filtered on "colour". The service filters things on: active, label, seen_at, weight.`, "Example: eq(label,x)")}},
		{"unknown attribute, did you mean", things, "eq(lable,x)", []wantDiag{
			errorAt("filter", "Unknown filter attribute", `filter: "eq(lable,x)": things cannot be filtered on "lable"; did you mean "label"? The service filters things on: active, label, seen_at, weight.`)}},
		{"orders: did you mean status", commerce.OrdersEndpoint, "eq(stauts,complete)", []wantDiag{
			errorAt("filter", "Unknown filter attribute", `filter: "eq(stauts,complete)": orders cannot be filtered on "stauts"; did you mean "status"? The service filters orders on: account_id, `)}},
		{"orders: case only", commerce.OrdersEndpoint, "eq(Status,complete)", []wantDiag{
			errorAt("filter", "Unknown filter attribute", `cannot be filtered on "Status"; did you mean "status"?`)}},
		{"files: nothing close to size", commerce.FilesEndpoint, "gt(size,1)", []wantDiag{
			errorAt("filter", "Unknown filter attribute", `files cannot be filtered on "size". The service filters files on: file_name, file_size, height, width.`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := checkFilterText(path.Root("filter"), tc.text, &tc.r, thingsExample)
			checkDiags(t, diags, tc.diags...)
		})
	}
}

// TestCheckTermFollowsTheTable: for every attribute of every endpoint and
// every operator, a term is refused exactly when the capability table does
// not list the operator for that attribute.
func TestCheckTermFollowsTheTable(t *testing.T) {
	valid := map[commerce.ValueType]string{commerce.StringValue: "x", commerce.TimestampValue: exampleTimestamp, commerce.NumberValue: "1", commerce.BoolValue: "true"}
	for _, r := range []commerce.Endpoint{commerce.OrdersEndpoint, commerce.FilesEndpoint, commerce.AccountsEndpoint} {
		for name, fa := range r.Filters {
			for _, op := range filter.Ops() {
				term := filter.NewTerm(op, name, valid[fa.Kind])
				diags := checkTerm(wherePaths(path.Root("where").AtListIndex(0), op), term, term.String(), &r, func() string { return "ex" })
				if refused := diags.HasError(); refused == fa.Allows(op) {
					t.Errorf("%s %s: refused = %v, table allows = %v %v", r.Name, term, refused, fa.Allows(op), diags)
				}
				if !diags.HasError() && len(diags) > 0 {
					t.Errorf("%s %s: unexpected %v", r.Name, term, diags)
				}
			}
		}
	}
}

// TestCheckTermPaths: each mistake in a where element is one diagnostic,
// on the attribute of the element that holds it; in a filter expression,
// on filter.
func TestCheckTermPaths(t *testing.T) {
	w := path.Root("where").AtListIndex(2)
	cases := []struct {
		name  string
		ps    termPaths
		term  filter.Term
		diags []wantDiag
	}{
		{"unknown attribute", wherePaths(w, filter.Eq), filter.NewTerm(filter.Eq, "lable", "x"), []wantDiag{
			errorAt("where[2]", "Unknown filter attribute", `where[2].attribute: "eq(lable,x)": things cannot be filtered on "lable"; did you mean "label"?`)}},
		{"operator not offered", wherePaths(w, filter.Like), filter.NewTerm(filter.Like, "weight", "1*"), []wantDiag{
			errorAt("where[2]", "Operator not supported on this attribute", `where[2].op: "like(weight,\"1*\")": the service filters things weight with gt, in only`)}},
		{"bad value", wherePaths(w, filter.Lt), filter.NewTerm(filter.Lt, "seen_at", "yesterday"), []wantDiag{
			errorAt("where[2]", "Invalid filter value", `where[2].value: "lt(seen_at,yesterday)": seen_at is a timestamp: "yesterday" is not a timestamp`)}},
		{"bad values of in, each named", wherePaths(w, filter.In), filter.NewTerm(filter.In, "weight", "1", "ten", "3", "x"), []wantDiag{
			errorAt("where[2]", "Invalid filter value", `where[2].values[1]: "in(weight,1,ten,3,x)": weight is a number, and "ten" is not one.`),
			errorAt("where[2]", "Invalid filter value", `where[2].values[3]: "in(weight,1,ten,3,x)": weight is a number, and "x" is not one.`)}},
		{"in a filter, all at filter", filterPaths(path.Root("filter")), filter.NewTerm(filter.In, "weight", "ten"), []wantDiag{
			errorAt("filter", "Invalid filter value", `filter: "in(weight,ten)": weight is a number`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkDiags(t, checkTerm(tc.ps, tc.term, strconv.Quote(tc.term.String()), &things, func() string { return thingsExample }), tc.diags...)
		})
	}
}
