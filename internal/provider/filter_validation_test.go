package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
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

func TestWhereTerm(t *testing.T) {
	p := path.Root("where").AtListIndex(1)
	cases := []struct {
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
		{"invalid op", where("status", "contains", types.StringValue("x"), noValues), "", true, []wantDiag{
			errorAt("where[1].op", "Invalid where operator", `where[1].op is "contains"`, "eq, like, in, gt, ge, lt, le")}},
		{"operators are case-sensitive", where("status", "EQ", types.StringValue("x"), noValues), "", true, []wantDiag{
			errorAt("where[1].op", "Invalid where operator", `"EQ"`)}},
		{"null element of values", where("id", "in", types.StringNull(), strList(types.StringValue("a"), types.StringNull())), "", true, []wantDiag{
			errorAt("where[1].values[1]", "Null where value", "where[1].values[1] is null")}},
		{"in with value", where("mime_type", "in", types.StringValue("image/png"), noValues), "", true, []wantDiag{
			errorAt("where[1].value", "Use values with in", `where[1]: the in operator takes a list: write values = ["a", "b"]`)}},
		{"in with empty values", where("id", "in", types.StringNull(), strList()), "", true, []wantDiag{
			errorAt("where[1].values", "Missing where values", "needs at least one element in values")}},
		{"in with neither", where("id", "in", types.StringNull(), noValues), "", true, []wantDiag{
			errorAt("where[1].values", "Missing where values", "where[1]: the in operator")}},
		{"eq with values", where("status", "eq", types.StringNull(), strList(types.StringValue("a"))), "", true, []wantDiag{
			errorAt("where[1].values", "Use value with eq", "the eq operator takes one value", "values is only for in")}},
		{"lt with neither", where("created_at", "lt", types.StringNull(), noValues), "", true, []wantDiag{
			errorAt("where[1].value", "Missing where value", `where[1]: the lt operator needs value = "..."`)}},
		{"attribute with a space", where("file name", "eq", types.StringValue("a"), noValues), "", true, []wantDiag{
			errorAt("where[1].attribute", "Invalid where attribute", `where[1].attribute is "file name"`, "starts with a letter or _")}},
		{"attribute with a parenthesis", where("a)", "eq", types.StringValue("a"), noValues), "", true, []wantDiag{
			errorAt("where[1].attribute", "Invalid where attribute", `"a)"`)}},
	}
	for _, tc := range cases {
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
var things = client.Resource{Name: "things", Singular: "thing", Filters: map[string]client.FilterAttribute{
	"label":   {Kind: client.KindString, Ops: []filter.Op{filter.Eq, filter.Like}},
	"seen_at": {Kind: client.KindTimestamp, Ops: []filter.Op{filter.Ge, filter.Lt}},
	"weight":  {Kind: client.KindNumber, Ops: []filter.Op{filter.Gt, filter.In}},
	"active":  {Kind: client.KindBool, Ops: []filter.Op{filter.Eq}},
}}

const thingsExample = "eq(label,x)"

func TestCheckFilterText(t *testing.T) {
	p := path.Root("filter")
	cases := []struct {
		name  string
		r     client.Resource
		text  string
		diags []wantDiag
	}{
		{"every kind valid", things, "eq(label,a b):like(label,x*):ge(seen_at,2026-01-01T00:00:00.000Z):gt(weight,1.5):in(weight,1,-2,3e3):eq(active,false)", nil},
		{"syntax error", things, "eq(label,a", []wantDiag{
			errorAt("filter", "Invalid filter expression", "filter: ", "(at character", "op(attribute,value)", "eq, like, in, gt, ge, lt, le", "Example: eq(label,x)")}},
		{"unknown operator", things, "gte(weight,1)", []wantDiag{
			errorAt("filter", "Invalid filter expression", `unknown operator "gte"`, `near "gte(weight,1)"`)}},
		{"empty", things, "", []wantDiag{errorAt("filter", "Invalid filter expression")}},
		{"unknown attribute warns only", things, "eq(colour,red)", []wantDiag{
			warningAt("filter", "Unknown filter attribute", `filter: "eq(colour,red)" filters on "colour"`, "for things (it knows active, label, seen_at, weight)", "The service may still accept it")}},
		{"operator not offered", things, "like(weight,1*)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", `filter: "like(weight,1*)": the service filters things weight with gt, in only, not with like`, "Example: eq(label,x)")}},
		{"not a timestamp", things, "ge(seen_at,2026-01-01)", []wantDiag{
			errorAt("filter", "Invalid filter value", `"ge(seen_at,2026-01-01)": "2026-01-01" is not a timestamp`, "2026-01-01T00:00:00.000Z", "Example: eq(label,x)")}},
		{"timestamp without milliseconds", things, "lt(seen_at,2026-01-01T00:00:00Z)", []wantDiag{
			errorAt("filter", "Invalid filter value", `"2026-01-01T00:00:00Z" is not a timestamp`)}},
		{"each bad number", things, "in(weight,1,ten,eleven)", []wantDiag{
			errorAt("filter", "Invalid filter value", `weight is a number, and "ten" is not one.`),
			errorAt("filter", "Invalid filter value", `weight is a number, and "eleven" is not one.`)}},
		{"not a boolean", things, "eq(active,yes)", []wantDiag{
			errorAt("filter", "Invalid filter value", `active is true or false, not "yes".`)}},
		{"every term checked, quoted as written", things, `eq(colour,red):eq(active,"TRUE")`, []wantDiag{
			warningAt("filter", "Unknown filter attribute", `"eq(colour,red)"`),
			errorAt("filter", "Invalid filter value", `"eq(active,\"TRUE\")": active is true or false`)}},
		{"strings take any text", things, `eq(label,"2026-01-01"):like(label,"no*number")`, nil},
		// The real table, where the service's own documentation is the test.
		{"orders example", client.OrdersResource, orderType.example, nil},
		{"files example", client.FilesResource, fileType.example, nil},
		{"accounts example", client.AccountsResource, accountType.example, nil},
		{"files: file_size by range only", client.FilesResource, "eq(file_size,1)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", "files file_size with gt, ge, lt, le only, not with eq")}},
		{"files: id by in only", client.FilesResource, "eq(id,a)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", "files id with in only")}},
		{"orders: status by eq only", client.OrdersResource, "in(status,complete,processing)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", "orders status with eq only, not with in")}},
		{"orders: amounts are numbers", client.OrdersResource, "gt(with_tax,ten)", []wantDiag{
			errorAt("filter", "Invalid filter value", `with_tax is a number, and "ten" is not one.`)}},
		{"accounts: name is not ranged", client.AccountsResource, "gt(name,M)", []wantDiag{
			errorAt("filter", "Operator not supported on this attribute", "accounts name with eq, like only, not with gt")}},
		{"accounts: external_ref by in", client.AccountsResource, "in(external_ref,crm-1,crm-2)", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkDiags(t, checkFilterText(p, tc.text, tc.r, thingsExample), tc.diags...)
		})
	}
}

// TestCheckTermFollowsTheTable: for every attribute of every endpoint and
// every operator, a term is refused exactly when the capability table does
// not list the operator for that attribute.
func TestCheckTermFollowsTheTable(t *testing.T) {
	valid := map[client.FieldKind]string{client.KindString: "x", client.KindTimestamp: exampleTimestamp, client.KindNumber: "1", client.KindBool: "true"}
	for _, r := range []client.Resource{client.OrdersResource, client.FilesResource, client.AccountsResource} {
		for name, fa := range r.Filters {
			for _, op := range filter.Ops() {
				term := filter.NewTerm(op, name, valid[fa.Kind])
				diags := checkTerm(path.Root("where").AtListIndex(0), term, term.String(), r, "ex")
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

func TestCheckTermNamesWherePath(t *testing.T) {
	term := filter.NewTerm(filter.Lt, "seen_at", "yesterday")
	checkDiags(t, checkTerm(path.Root("where").AtListIndex(2), term, term.String(), things, thingsExample),
		errorAt("where[2]", "Invalid filter value", `where[2]: "lt(seen_at,yesterday)": "yesterday" is not a timestamp`))
}
