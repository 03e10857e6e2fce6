package provider

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// exampleTimestamp is the timestamp form the service's filters take.
const exampleTimestamp = "2026-01-01T00:00:00.000Z"

// checkFilterText parses a filter expression and checks its terms against
// what the provider knows of the resource, without asking the service; with
// r nil (an endpoint the capability table does not know), the grammar only.
// It returns the expression parsed, which the read hands on as it is: a
// read parses its filter once.
func checkFilterText(p path.Path, text string, r *commerce.Endpoint, example string) (filter.Parsed, diag.Diagnostics) {
	var diags diag.Diagnostics
	expr, err := filter.Parse(text)
	parsed := filter.Parsed{Terms: expr, Source: text}
	if err != nil {
		var se *filter.SyntaxError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s (at character %d, near %q)", se.Msg, se.Pos+1, se.Near())
		}
		diags.AddAttributeError(p, "Invalid filter expression",
			fmt.Sprintf("%s: %s.\n\nA filter is one or more op(attribute,value) terms joined by \":\" (AND), with the operators %s; quote values that contain , ( ) or quotes.\nExample: %s",
				p, msg, opNames(), example))
		return filter.Parsed{}, diags
	}
	if len(expr) > filter.MaxTerms {
		diags.Append(tooManyTerms(p, fmt.Sprintf("filter has %d terms", len(expr)), len(expr))...)
	}
	for _, t := range expr {
		diags.Append(checkTerm(filterPaths(p), t, text[t.Start:t.End], r, example)...)
	}
	return parsed, diags
}

// termPaths are the attribute paths a term's diagnostics go to, one per
// part of the term, so that each mistake is reported once, where it is.
type termPaths struct {
	attribute, op path.Path
	value         func(i int) path.Path // of the term's i-th value
}

// filterPaths puts every part of a term in a filter expression at p.
func filterPaths(p path.Path) termPaths {
	return termPaths{attribute: p, op: p, value: func(int) path.Path { return p }}
}

// wherePaths puts each part of the term of where element p at the
// attribute that sets it.
func wherePaths(p path.Path, op filter.Op) termPaths {
	value := func(int) path.Path { return p.AtName("value") }
	if op == filter.In {
		value = func(i int) path.Path { return p.AtName("values").AtListIndex(i) }
	}
	return termPaths{attribute: p.AtName("attribute"), op: p.AtName("op"), value: value}
}

// checkTerm checks one term's attribute, operator and values. src is the
// term as the user wrote it, for quoting in messages.
func checkTerm(ps termPaths, t filter.Term, src string, r *commerce.Endpoint, example string) diag.Diagnostics {
	var diags diag.Diagnostics
	if r == nil {
		return diags
	}
	fa, known := r.Filters[t.Attribute]
	if len(r.Filters) == 0 {
		diags.AddAttributeError(ps.attribute, "Endpoint takes no filter",
			fmt.Sprintf("%s: %q: the service does not filter %s at all (it refuses any filter); remove filter and where.", ps.attribute, src, r.Name))
		return diags
	}
	if !known {
		diags.AddAttributeError(ps.attribute, "Unknown filter attribute",
			fmt.Sprintf("%s: %q: %s cannot be filtered on %q%s The service filters %s on: %s.\n\nExample: %s",
				ps.attribute, src, r.Name, t.Attribute, didYouMean(filter.Closest(t.Attribute, r.FilterAttributeNames())),
				r.Name, strings.Join(r.FilterAttributeNames(), ", "), example))
		return diags
	}
	if !fa.Allows(t.Op) {
		diags.AddAttributeError(ps.op, "Operator not supported on this attribute",
			fmt.Sprintf("%s: %q: the service filters %s %s with %s only, not with %s.\n\nExample: %s",
				ps.op, src, r.Name, t.Attribute, fa.OpNames(), t.Op, example))
		return diags
	}
	for i, v := range t.Values {
		if msg := badValue(fa.Kind, t.Attribute, v); msg != "" {
			diags.AddAttributeError(ps.value(i), "Invalid filter value",
				fmt.Sprintf("%s: %q: %s\n\nExample: %s", ps.value(i), src, msg, example))
		} else if fa.Kind == commerce.TimestampValue && t.Op == filter.Eq && filter.IsDateOnly(v) {
			day, _ := filter.ParseTimestamp(v)
			diags.AddAttributeWarning(ps.value(i), "Date matches one instant",
				fmt.Sprintf("%s: %q: a date stands for midnight UTC, so eq matches only records whose %s is exactly %s. For the whole day write ge(%s,%s):lt(%s,%s).",
					ps.value(i), src, t.Attribute, filter.FormatTimestamp(day), t.Attribute, v, t.Attribute, day.AddDate(0, 0, 1).Format("2006-01-02")))
		}
	}
	return diags
}

// badValue says why v is not a value of an attribute of kind k, or is ""
// when it is one.
func badValue(k commerce.ValueType, attribute, v string) string {
	switch k {
	case commerce.TimestampValue:
		if _, err := filter.ParseTimestamp(v); err != nil {
			return fmt.Sprintf("%s is a timestamp: %v.", attribute, err)
		}
	case commerce.NumberValue:
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fmt.Sprintf("%s is a number, and %q is not one.", attribute, v)
		}
	case commerce.BoolValue:
		if v != "true" && v != "false" {
			return fmt.Sprintf("%s is true or false, not %q.", attribute, v)
		}
	}
	return ""
}

// didYouMean ends a sentence with the hint that suggests name, or just
// ends it when there is no suggestion.
func didYouMean[S ~string](name S) string {
	if name == "" {
		return "."
	}
	return fmt.Sprintf("; did you mean %q?", name)
}

func opNames() string { return filter.JoinOps(filter.Ops()) }

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
		// The schema has no OneOf validator for op, so that this is the one
		// diagnostic of a bad operator.
		diags.AddAttributeError(p.AtName("op"), "Invalid where operator",
			fmt.Sprintf("%s is %q, which is not an operator%s Use one of %s.",
				p.AtName("op"), w.Op.ValueString(), didYouMean(filter.SuggestOp(w.Op.ValueString())), opNames()))
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
	// The attribute name is the one part quoting cannot make safe; it is
	// checked alone, so that a long in() is reported as too long, not as a
	// bad name.
	if !filter.ValidAttribute(term.Attribute) {
		diags.AddAttributeError(p.AtName("attribute"), "Invalid where attribute",
			fmt.Sprintf("%s is %q; an attribute name starts with a letter or _ and holds only letters, digits, _, dots and -, e.g. \"email\".", p.AtName("attribute"), w.Attribute.ValueString()))
	}
	return term, true, diags
}

// tooManyTerms reports a filter over the service's limit of terms.
func tooManyTerms(at path.Path, counted string, n int) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddAttributeError(at, "Too many filter terms",
		fmt.Sprintf("%s: %s; the service takes at most %d terms in one request's filter and answers 400 Bad Request to more. "+
			"Remove %d, or combine them: several eq on one attribute make one in(attribute,a,b) where the attribute takes in, and one bound per side is enough on each attribute.",
			at, counted, filter.MaxTerms, n-filter.MaxTerms))
	return diags
}
