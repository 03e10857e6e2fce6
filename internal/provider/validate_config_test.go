package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// validateConfig runs ValidateDataResourceConfig, as terraform validate
// does: the schema's validators, then the data source's own checks.
func validateConfig(t *testing.T, server tfprotov6.ProviderServer, schemas *tfprotov6.GetProviderSchemaResponse,
	dataSource string, set map[string]tftypes.Value) []*tfprotov6.Diagnostic {
	t.Helper()
	cfg := dynamicValue(t, nullObject(schemas.DataSourceSchemas[dataSource].ValueType(), set))
	resp, err := server.ValidateDataResourceConfig(context.Background(),
		&tfprotov6.ValidateDataResourceConfigRequest{TypeName: dataSource, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

// protoPath writes an attribute path as Terraform users read it: where[1].op.
func protoPath(p *tftypes.AttributePath) string {
	var b strings.Builder
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		}
	}
	return b.String()
}

// whereList is a where attribute of commerce_<name>s, one element per map
// of the attributes it sets.
func whereList(schemas *tfprotov6.GetProviderSchemaResponse, dataSource string, elems ...map[string]tftypes.Value) tftypes.Value {
	list := schemas.DataSourceSchemas[dataSource].ValueType().(tftypes.Object).AttributeTypes["where"].(tftypes.List)
	vals := make([]tftypes.Value, len(elems))
	for i, e := range elems {
		vals[i] = nullObject(list.ElementType, e)
	}
	return tftypes.NewValue(list, vals)
}

func whereElem(attribute, op, value string) map[string]tftypes.Value {
	return map[string]tftypes.Value{"attribute": str(attribute), "op": str(op), "value": str(value)}
}

// TestValidateOneDiagnosticPerMistake: through the whole of validation, as
// Terraform runs it, one mistake is one error, on the attribute that holds
// it, and says what was probably meant.
func TestValidateOneDiagnosticPerMistake(t *testing.T) {
	server, err := NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ok := whereElem("currency", "eq", "USD")
	cases := []struct {
		name, dataSource string
		set              map[string]tftypes.Value
		path, detail     string // of the one error
	}{
		{"filter attribute misspelt", "commerce_orders", map[string]tftypes.Value{"filter": str("eq(stauts,complete)")},
			"filter", `filter: "eq(stauts,complete)": orders cannot be filtered on "stauts"; did you mean "status"? The service filters orders on: account_id, `},
		{"filter attribute unknown", "commerce_accounts", map[string]tftypes.Value{"filter": str("eq(colour,red)")},
			"filter", `accounts cannot be filtered on "colour". The service filters accounts on: created_at, `},
		{"lookup filter attribute misspelt", "commerce_file", map[string]tftypes.Value{"filter": str("eq(file_nmae,a.png)")}, //nolint:misspell // a typo on purpose
			"filter", `files cannot be filtered on "file_nmae"; did you mean "file_name"?`}, //nolint:misspell // a typo on purpose
		{"filter operator misspelt", "commerce_orders", map[string]tftypes.Value{"filter": str("gte(created_at,2026-01-01T00:00:00.000Z)")},
			"filter", `unknown operator "gte" (did you mean "ge"?); use one of eq, like, in, gt, ge, lt, le`},
		{"a comma in a name, unquoted", "commerce_accounts", map[string]tftypes.Value{"filter": str("eq(name,Acme, Inc.)")},
			"filter", `one value only, and accounts name takes no in(): quote a value that contains ',', e.g. eq(name,"Acme, Inc.") (at character`},
		{"several values where in() is taken", "commerce_accounts", map[string]tftypes.Value{"filter": str("eq(id,a,b)")},
			"filter", "eq takes exactly one value; to match any of several values use in(id,value1,value2)"},
		{"where attribute misspelt", "commerce_orders", map[string]tftypes.Value{"where": whereList(schemas, "commerce_orders", ok, whereElem("stauts", "eq", "complete"))},
			"where[1]", "where[1].attribute: { attribute = \"stauts\", op = \"eq\", value = \"complete\" }: orders cannot be filtered on \"stauts\"; did you mean \"status\"?"},
		{"where operator misspelt", "commerce_files", map[string]tftypes.Value{"where": whereList(schemas, "commerce_files", whereElem("file_name", "eq", "a"), whereElem("file_size", "gte", "1"))},
			"where[1]", `where[1].op is "gte", which is not an operator; did you mean "ge"? Use one of eq, like, in, gt, ge, lt, le.`},
		{"where operator unknown", "commerce_files", map[string]tftypes.Value{"where": whereList(schemas, "commerce_files", whereElem("file_name", "contains", "a"))},
			"where[0]", `where[0].op is "contains", which is not an operator. Use one of`},
		{"where operator not offered", "commerce_orders", map[string]tftypes.Value{"where": whereList(schemas, "commerce_orders", ok, whereElem("status", "like", "c*"))},
			"where[1]", "orders status with eq only, not with like"},
		{"where attribute misspelt, value from a variable", "commerce_orders", map[string]tftypes.Value{"where": whereList(schemas, "commerce_orders",
			map[string]tftypes.Value{"attribute": str("stauts"), "op": str("eq"), "value": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)})},
			"where[0]", `where[0].attribute: { attribute = "stauts", op = "eq", value = (known after apply) }: orders cannot be filtered on "stauts"; did you mean "status"?`},
		{"where operator not offered, values from a variable", "commerce_accounts", map[string]tftypes.Value{"where": whereList(schemas, "commerce_accounts",
			map[string]tftypes.Value{"attribute": str("name"), "op": str("in"), "values": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, tftypes.UnknownValue)})},
			"where[0]", "where[0].op: { attribute = \"name\", op = \"in\", values = (known after apply) }: the service filters accounts name with eq, like only, not with in."},
		{"where operator not offered, 200 values shown as 3", "commerce_accounts", map[string]tftypes.Value{"where": whereList(schemas, "commerce_accounts",
			map[string]tftypes.Value{"attribute": str("name"), "op": str("in"), "values": manyNames(200)})},
			"where[0]", `values = ["name 0", "name 1", "name 2", … 197 more] }: the service filters accounts name with eq, like only, not with in. For several values of name, read one data source per value (for_each over the values, eq), or list once and pick them in HCL`},
		{"where value bad", "commerce_orders", map[string]tftypes.Value{"where": whereList(schemas, "commerce_orders", ok, whereElem("created_at", "ge", "2026-01-01 00:00"))},
			"where[1]", `where[1].value: { attribute = "created_at", op = "ge", value = "2026-01-01 00:00" }: created_at is a timestamp: "2026-01-01 00:00" is not a timestamp`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			diags := validateConfig(t, server, schemas, tc.dataSource, tc.set)
			if len(diags) != 1 {
				for _, d := range diags {
					t.Logf("%v %s at %s: %s", d.Severity, d.Summary, protoPath(d.Attribute), d.Detail)
				}
				t.Fatalf("%d diagnostics, want exactly 1", len(diags))
			}
			d := diags[0]
			if d.Severity != tfprotov6.DiagnosticSeverityError {
				t.Errorf("%s is not an error", d.Summary)
			}
			if got := protoPath(d.Attribute); got != tc.path {
				t.Errorf("at %q, want %q", got, tc.path)
			}
			if !strings.Contains(d.Detail, tc.detail) {
				t.Errorf("detail lacks %q:\n%s", tc.detail, d.Detail)
			}
		})
	}
}

// manyNames is a list of n strings, "name 0" to "name n-1".
func manyNames(n int) tftypes.Value {
	vals := make([]tftypes.Value, n)
	for i := range vals {
		vals[i] = str(fmt.Sprintf("name %d", i))
	}
	return tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, vals)
}
