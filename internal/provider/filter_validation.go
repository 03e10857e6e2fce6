package provider

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// exampleTimestamp is the timestamp form the service's filters take.
const exampleTimestamp = "2026-01-01T00:00:00.000Z"

// checkFilterText parses a filter expression and checks its terms against
// what the provider knows of the resource, without asking the service.
func checkFilterText(p path.Path, text string, r client.Resource, example string) diag.Diagnostics {
	var diags diag.Diagnostics
	expr, err := filter.Parse(text)
	if err != nil {
		var se *filter.SyntaxError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s (at character %d, near %q)", se.Msg, se.Pos+1, se.Near())
		}
		diags.AddAttributeError(p, "Invalid filter expression",
			fmt.Sprintf("%s: %s.\n\nA filter is one or more op(attribute,value) terms joined by \":\" (AND), with the operators %s; quote values that contain , ( ) or quotes.\nExample: %s",
				p, msg, opNames(), example))
		return diags
	}
	for _, t := range expr {
		diags.Append(checkTerm(p, t, text[t.Start:t.End], r, example)...)
	}
	return diags
}

// checkTerm checks one term's attribute and values. src is the term as the
// user wrote it, for quoting in messages.
func checkTerm(p path.Path, t filter.Term, src string, r client.Resource, example string) diag.Diagnostics {
	var diags diag.Diagnostics
	fa, known := r.Filters[t.Attribute]
	if !known {
		diags.AddAttributeWarning(p, "Unknown filter attribute",
			fmt.Sprintf("%s: %q filters on %q, which the provider does not know for %s (it knows %s). The service may still accept it; if it does not, the read fails with the service's answer.",
				p, src, t.Attribute, r.Name, strings.Join(r.FilterAttributeNames(), ", ")))
		return diags
	}
	if !fa.Allows(t.Op) {
		diags.AddAttributeError(p, "Operator not supported on this attribute",
			fmt.Sprintf("%s: %q: the service filters %s %s with %s only, not with %s.\n\nExample: %s",
				p, src, r.Name, t.Attribute, fa.OpNames(), t.Op, example))
		return diags
	}
	bad := func(format string, args ...any) {
		diags.AddAttributeError(p, "Invalid filter value",
			fmt.Sprintf("%s: %q: %s\n\nExample: %s", p, src, fmt.Sprintf(format, args...), example))
	}
	switch fa.Kind {
	case client.KindTimestamp:
		for _, v := range t.Values {
			if !filter.IsTimestamp(v) {
				bad("%q is not a timestamp in the form the service takes: ISO 8601 in UTC with milliseconds and Z, e.g. %s.", v, exampleTimestamp)
			}
		}
	case client.KindNumber:
		for _, v := range t.Values {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				bad("%s is a number, and %q is not one.", t.Attribute, v)
			}
		}
	case client.KindBool:
		for _, v := range t.Values {
			if v != "true" && v != "false" {
				bad("%s is true or false, not %q.", t.Attribute, v)
			}
		}
	}
	return diags
}

func opNames() string {
	var names []string
	for _, o := range filter.Ops() {
		names = append(names, string(o))
	}
	return strings.Join(names, ", ")
}

// whereModel is one element of a list data source's where attribute.
type whereModel struct {
	Attribute types.String `tfsdk:"attribute"`
	Op        types.String `tfsdk:"op"`
	Value     types.String `tfsdk:"value"`
	Values    types.List   `tfsdk:"values"`
}

// whereTerm builds the filter term of one where element, quoting values so
// that any text (commas, parentheses, quotes, non-ASCII) reaches the service
// exactly. known is false when a part is unknown at plan time.
func whereTerm(p path.Path, w whereModel) (term filter.Term, known bool, diags diag.Diagnostics) {
	if w.Attribute.IsUnknown() || w.Op.IsUnknown() || w.Value.IsUnknown() || w.Values.IsUnknown() {
		return term, false, nil
	}
	op := filter.Op(w.Op.ValueString())
	if !op.Valid() {
		diags.AddAttributeError(p.AtName("op"), "Invalid where operator",
			fmt.Sprintf("%s is %q; use one of %s.", p.AtName("op"), w.Op.ValueString(), opNames()))
		return term, true, diags
	}
	var values []string
	if !w.Values.IsNull() {
		for i, v := range w.Values.Elements() {
			s, ok := v.(types.String)
			if !ok || s.IsUnknown() {
				return term, false, nil
			}
			if s.IsNull() {
				diags.AddAttributeError(p.AtName("values").AtListIndex(i), "Null where value",
					fmt.Sprintf("%s is null; give every element of values a string.", p.AtName("values").AtListIndex(i)))
				return term, true, diags
			}
			values = append(values, s.ValueString())
		}
	}
	switch {
	case op == filter.In && !w.Value.IsNull():
		diags.AddAttributeError(p.AtName("value"), "Use values with in",
			fmt.Sprintf("%s: the in operator takes a list: write values = [\"a\", \"b\"] instead of value.", p))
	case op == filter.In && len(values) == 0:
		diags.AddAttributeError(p.AtName("values"), "Missing where values",
			fmt.Sprintf("%s: the in operator needs at least one element in values, e.g. values = [\"complete\", \"processing\"].", p))
	case op != filter.In && !w.Values.IsNull():
		diags.AddAttributeError(p.AtName("values"), "Use value with "+string(op),
			fmt.Sprintf("%s: the %s operator takes one value: write value = \"...\"; values is only for in.", p, op))
	case op != filter.In && w.Value.IsNull():
		diags.AddAttributeError(p.AtName("value"), "Missing where value",
			fmt.Sprintf("%s: the %s operator needs value = \"...\".", p, op))
	}
	if diags.HasError() {
		return term, true, diags
	}
	if op != filter.In {
		values = []string{w.Value.ValueString()}
	}
	term = filter.NewTerm(op, w.Attribute.ValueString(), values...)
	// The attribute name is the one part quoting cannot make safe.
	if _, err := filter.Parse(term.String()); err != nil {
		diags.AddAttributeError(p.AtName("attribute"), "Invalid where attribute",
			fmt.Sprintf("%s is %q; an attribute name starts with a letter or _ and holds only letters, digits, _ and dots, e.g. \"email\".", p.AtName("attribute"), w.Attribute.ValueString()))
	}
	return term, true, diags
}
