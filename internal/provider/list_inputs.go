package provider

// A list data source's inputs as the read and plan-time validation take
// them: the model read from the configuration, the filter and where items
// checked against what the endpoint takes (each mistake one diagnostic on
// its attribute, with the fix), and the query they make.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// listInputs are the list data source's arguments.
type listInputs struct {
	Filter      types.String `tfsdk:"filter"`
	Where       types.List   `tfsdk:"where"`
	Sort        types.String `tfsdk:"sort"`
	MaxResults  types.Int64  `tfsdk:"max_results"`
	IncludeJSON types.Bool   `tfsdk:"include_json"`
	// IncludeRecords defaults to true, so null means true.
	IncludeRecords    types.Bool   `tfsdk:"include_records"`
	ConsistencyBuffer types.String `tfsdk:"consistency_buffer"`
}

// getListInputs reads the arguments; include_json only where the schema has
// it (commerce_list keeps every record's JSON).
func getListInputs(ctx context.Context, cfg attributeGetter, withJSON bool) (listInputs, diag.Diagnostics) {
	var in listInputs
	var diags diag.Diagnostics
	diags.Append(cfg.GetAttribute(ctx, path.Root("filter"), &in.Filter)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("where"), &in.Where)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("sort"), &in.Sort)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("max_results"), &in.MaxResults)...)
	in.IncludeJSON = types.BoolValue(true)
	if withJSON {
		diags.Append(cfg.GetAttribute(ctx, path.Root("include_json"), &in.IncludeJSON)...)
	}
	diags.Append(cfg.GetAttribute(ctx, path.Root("include_records"), &in.IncludeRecords)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("consistency_buffer"), &in.ConsistencyBuffer)...)
	return in, diags
}

func (in listInputs) includeRecords() bool {
	return in.IncludeRecords.IsNull() || in.IncludeRecords.ValueBool()
}

// query is the read the inputs ask for, with expr (from expression) as
// its filter.
func (in listInputs) query(expr filter.Parsed) listing.Query {
	return listing.Query{
		Filter:      expr,
		Sort:        in.Sort.ValueString(),
		MaxResults:  int(in.MaxResults.ValueInt64()),
		IncludeJSON: in.IncludeJSON.ValueBool(),
		// total reports the matches past max_results too.
		CountMatches: true,
		// The validator checked the duration; an unset buffer is none.
		ConsistencyBuffer: consistencyBuffer(in.ConsistencyBuffer.ValueString()),
	}
}

// expression combines filter and where into the filter the service gets,
// and checks its terms against the endpoint's rules and the service's
// limit of filter.MaxTerms. Parts unknown at plan time are skipped
// (validation runs again at read); known says whether any was. The
// request's length is the engine's to check when it plans the read;
// checkLength checks it at validation.
func (in listInputs) expression(ctx context.Context, r *commerce.Endpoint, example string) (expr filter.Parsed, known bool, diags diag.Diagnostics) {
	known = true
	var parsed filter.Parsed
	var whereExpr filter.Expr
	filterTerms, whereTerms := 0, 0
	if in.Filter.IsUnknown() {
		known = false
	} else if !in.Filter.IsNull() {
		// A filter that does not parse has its diagnostic; the read stops.
		var fdiags diag.Diagnostics
		parsed, fdiags = checkFilterText(path.Root("filter"), in.Filter.ValueString(), r, example)
		diags.Append(fdiags...)
		filterTerms = len(parsed.Terms)
	}
	switch {
	case in.Where.IsUnknown():
		known = false
	case !in.Where.IsNull():
		terms, termsKnown, tdiags := whereFilterTerms(ctx, in.Where, r, example)
		diags.Append(tdiags...)
		known = known && termsKnown
		whereExpr = terms
		whereTerms = len(in.Where.Elements())
	}
	if n := filterTerms + whereTerms; n > filter.MaxTerms {
		if filterTerms <= filter.MaxTerms { // else checkFilterText said so
			diags.Append(tooManyTerms(path.Root("where"),
				fmt.Sprintf("filter has %d terms and where %d, %d in all", filterTerms, whereTerms, n), n)...)
		}
		return filter.Parsed{}, known, diags
	}
	// The filter's terms as the user wrote them, then where's.
	return parsed.With(filter.And(parsed.Terms, whereExpr)), known, diags
}

// filterPath is the attribute a message about the whole filter points
// at: filter when it is set, else where.
func (in listInputs) filterPath() path.Path {
	if in.Filter.IsNull() {
		return path.Root("where")
	}
	return path.Root("filter")
}

// checkLength reports, at validation, a filter (expr, from expression,
// known) whose list requests to listPath would be longer than the service
// takes and that the engine cannot split over several. A read reports a
// split and what it cost (splitWarning).
func (in listInputs) checkLength(expr filter.Parsed, listPath, defaultSort string) diag.Diagnostics {
	sort := in.Sort.ValueString()
	if sort == "" {
		sort = defaultSort
	}
	return checkRequestLength(in.filterPath(), listPath, expr, sort)
}

// checkRequestLength reports a filter whose list request to listPath would
// be longer than the service takes, and which the engine cannot split.
func checkRequestLength(at path.Path, listPath string, expr filter.Parsed, sort string) diag.Diagnostics {
	var diags diag.Diagnostics
	n, err := listing.CheckFilterLength(listPath, expr, sort)
	if err != nil {
		diags.AddAttributeError(at, "Filter too long for one request",
			fmt.Sprintf("%s: the request for this filter would be %d bytes long (path and URL-encoded query); the service takes requests with a filter of at most %d bytes, "+
				"and the provider cannot split it: %v. The provider splits an in() of up to %d values over several requests, but not the rest of a filter: "+
				"use fewer or shorter values elsewhere, or split the list into several data sources.", at, n, commerce.MaxRequestBytes, err, filter.MaxInValues))
	}
	return diags
}

var objectAsOptions = basetypes.ObjectAsOptions{}

// whereFilterTerms are the filter terms of the where elements that are known and
// valid; known is false when any element is unknown at plan time.
func whereFilterTerms(ctx context.Context, where types.List, r *commerce.Endpoint, example string) (terms filter.Expr, known bool, diags diag.Diagnostics) {
	known = true
	var wheres []types.Object
	diags.Append(where.ElementsAs(ctx, &wheres, false)...)
	for i, obj := range wheres {
		p := path.Root("where").AtListIndex(i)
		if obj.IsUnknown() {
			known = false
			continue
		}
		var w whereModel
		diags.Append(obj.As(ctx, &w, objectAsOptions)...)
		term, termKnown, tdiags := whereTerm(p, w)
		diags.Append(tdiags...)
		if tdiags.HasError() {
			continue
		}
		if term.Attribute != "" {
			// With its value unknown, the attribute and operator alone.
			diags.Append(checkTerm(wherePaths(p, term.Op), term, whereItemText(w), r, func() string { return whereExample(example) })...)
		}
		if !termKnown {
			known = false
			continue
		}
		terms = append(terms, term)
	}
	return terms, known, diags
}

// consistencyBuffer is consistency_buffer as a duration, 0 without one.
func consistencyBuffer(buffer string) time.Duration {
	d, err := time.ParseDuration(buffer)
	if buffer == "" || err != nil || d <= 0 {
		return 0
	}
	return d
}

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
			msg = fmt.Sprintf("%s (at character %d, near %q)", severalValuesHint(se, r), se.Pos+1, se.Near())
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
		diags.Append(checkTerm(filterPaths(p), t, strconv.Quote(text[t.Start:t.End]), r, func() string { return example })...)
	}
	return parsed, diags
}

// severalValuesHint is a syntax error's message, with the fix for a
// one-value operator given several values fitted to the endpoint: in()
// only where the attribute takes it; where it does not, the value
// probably holds a comma and wants quotes.
func severalValuesHint(se *filter.SyntaxError, r *commerce.Endpoint) string {
	if se.SeveralValues == "" || r == nil {
		return se.Msg
	}
	if fa, ok := r.Filters[se.SeveralValues]; ok && !fa.Allows(filter.In) {
		return fmt.Sprintf("one value only, and %s %s takes no in(): quote a value that contains ',', e.g. eq(%s,\"Acme, Inc.\")",
			r.Name, se.SeveralValues, se.SeveralValues)
	}
	return se.Msg
}

// termPaths say where a term's diagnostics go (at) and how their text
// names each part of the term.
type termPaths struct {
	at            path.Path
	attribute, op string
	value         func(i int) string // the term's i-th value
}

// filterPaths puts every part of a term in a filter expression at p.
func filterPaths(p path.Path) termPaths {
	return termPaths{at: p, attribute: p.String(), op: p.String(), value: func(int) string { return p.String() }}
}

// wherePaths puts a term of where element p at the element itself, which
// Terraform shows as the item in the list (a path into the item's own
// attributes it cannot place, and shows the data source's first line),
// and names the part at fault in the text.
func wherePaths(p path.Path, op filter.Op) termPaths {
	value := func(int) string { return p.AtName("value").String() }
	if op == filter.In {
		value = func(i int) string { return p.AtName("values").AtListIndex(i).String() }
	}
	return termPaths{at: p, attribute: p.AtName("attribute").String(), op: p.AtName("op").String(), value: value}
}

// whereItemText is a where element as the user wrote it, for messages.
func whereItemText(w whereModel) string {
	parts := []string{"attribute = " + strconv.Quote(w.Attribute.ValueString()), "op = " + strconv.Quote(w.Op.ValueString())}
	quoted := func(s types.String) string {
		if s.IsUnknown() {
			return "(known after apply)"
		}
		return strconv.Quote(s.ValueString())
	}
	switch {
	case w.Value.IsUnknown():
		parts = append(parts, "value = (known after apply)")
	case !w.Value.IsNull():
		parts = append(parts, "value = "+quoted(w.Value))
	}
	switch {
	case w.Values.IsUnknown():
		parts = append(parts, "values = (known after apply)")
	case !w.Values.IsNull():
		var vs []string
		elems := w.Values.Elements()
		for _, v := range elems[:min(len(elems), shownValues)] {
			if s, ok := v.(types.String); ok {
				vs = append(vs, quoted(s))
			}
		}
		if more := len(elems) - shownValues; more > 0 {
			vs = append(vs, fmt.Sprintf("… %d more", more))
		}
		parts = append(parts, "values = ["+strings.Join(vs, ", ")+"]")
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// whereExample is a filter example written as where items.
func whereExample(example string) string {
	expr, err := filter.Parse(example)
	if err != nil || len(expr) == 0 {
		return example
	}
	items := make([]string, 0, len(expr))
	for _, t := range expr {
		w := whereModel{Attribute: types.StringValue(t.Attribute), Op: types.StringValue(string(t.Op)), Value: types.StringNull(), Values: types.ListNull(types.StringType)}
		if t.Op == filter.In {
			vs := make([]attr.Value, len(t.Values))
			for i, v := range t.Values {
				vs[i] = types.StringValue(v)
			}
			w.Values = types.ListValueMust(types.StringType, vs)
		} else if len(t.Values) > 0 {
			w.Value = types.StringValue(t.Values[0])
		}
		items = append(items, "  "+whereItemText(w)+",")
	}
	return "where = [\n" + strings.Join(items, "\n") + "\n]"
}

// checkTerm checks one term's attribute, operator and values. shown is
// the term as the user wrote it, quoted as messages show it; example is
// worked out only for a message (a where example parses the filter one).
func checkTerm(ps termPaths, t filter.Term, shown string, r *commerce.Endpoint, example func() string) diag.Diagnostics {
	var diags diag.Diagnostics
	if r == nil {
		return diags
	}
	fa, known := r.Filters[t.Attribute]
	if len(r.Filters) == 0 {
		diags.AddAttributeError(ps.at, "Endpoint takes no filter",
			fmt.Sprintf("%s: %s: the service does not filter %s at all (it refuses any filter); remove filter and where.", ps.attribute, shown, r.Name))
		return diags
	}
	if !known {
		diags.AddAttributeError(ps.at, "Unknown filter attribute",
			fmt.Sprintf("%s: %s: %s cannot be filtered on %q%s The service filters %s on: %s.\n\nExample: %s",
				ps.attribute, shown, r.Name, t.Attribute, didYouMean(filter.Closest(t.Attribute, r.FilterAttributeNames())),
				r.Name, strings.Join(r.FilterAttributeNames(), ", "), example()))
		return diags
	}
	if !fa.Allows(t.Op) {
		instead := ""
		if t.Op == filter.In && fa.Allows(filter.Eq) {
			instead = fmt.Sprintf(" For several values of %s, read one data source per value (for_each over the values, eq), "+
				"or list once and pick them in HCL: the guide \"Look up ids in HCL\" weighs the two.", t.Attribute)
		}
		diags.AddAttributeError(ps.at, "Operator not supported on this attribute",
			fmt.Sprintf("%s: %s: the service filters %s %s with %s only, not with %s.%s\n\nExample: %s",
				ps.op, shown, r.Name, t.Attribute, fa.OpNames(), t.Op, instead, example()))
		return diags
	}
	for i, v := range t.Values {
		if msg := badValue(fa.Kind, t.Attribute, v); msg != "" {
			diags.AddAttributeError(ps.at, "Invalid filter value",
				fmt.Sprintf("%s: %s: %s\n\nExample: %s", ps.value(i), shown, msg, example()))
		} else if fa.Kind == commerce.TimestampValue && t.Op == filter.Eq && filter.IsDateOnly(v) {
			day, _ := filter.ParseTimestamp(v)
			diags.AddAttributeWarning(ps.at, "Date matches one instant",
				fmt.Sprintf("%s: %s: a date stands for midnight UTC, so eq matches only records whose %s is exactly %s. For the whole day write ge(%s,%s):lt(%s,%s).",
					ps.value(i), shown, t.Attribute, filter.FormatTimestamp(day), t.Attribute, v, t.Attribute, day.AddDate(0, 0, 1).Format("2006-01-02")))
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
//
// When only the value is unknown (it comes from a variable or another
// resource), term holds the attribute and operator alone, checked: the
// literals a user wrote are checked at validate whatever the value.
func whereTerm(p path.Path, w whereModel) (term filter.Term, known bool, diags diag.Diagnostics) {
	if w.Attribute.IsUnknown() || w.Op.IsUnknown() {
		return term, false, nil
	}
	op := filter.Op(w.Op.ValueString())
	if !op.Valid() {
		// The schema has no OneOf validator for op, so that this is the one
		// diagnostic of a bad operator.
		diags.AddAttributeError(p, "Invalid where operator",
			fmt.Sprintf("%s is %q, which is not an operator%s Use one of %s.",
				p.AtName("op"), w.Op.ValueString(), didYouMean(filter.SuggestOp(w.Op.ValueString())), opNames()))
		return term, true, diags
	}
	if !filter.ValidAttribute(w.Attribute.ValueString()) {
		diags.AddAttributeError(p, "Invalid where attribute",
			fmt.Sprintf("%s is %q; an attribute name starts with a letter or _ and holds only letters, digits, _, dots and -, e.g. \"email\".", p.AtName("attribute"), w.Attribute.ValueString()))
		return term, true, diags
	}
	if valueUnknown(w) {
		return filter.Term{Op: op, Attribute: w.Attribute.ValueString()}, false, nil
	}
	var values []string
	if !w.Values.IsNull() {
		for i, v := range w.Values.Elements() {
			s, ok := v.(types.String)
			if !ok {
				return term, false, nil
			}
			if s.IsNull() {
				diags.AddAttributeError(p, "Null where value",
					fmt.Sprintf("%s is null; give every element of values a string.", p.AtName("values").AtListIndex(i)))
				return term, true, diags
			}
			values = append(values, s.ValueString())
		}
	}
	switch {
	case op == filter.In && !w.Value.IsNull():
		diags.AddAttributeError(p, "Use values with in",
			fmt.Sprintf("%s: the in operator takes a list: write values = [\"a\", \"b\"] instead of value.", p))
	case op == filter.In && len(values) == 0:
		diags.AddAttributeError(p, "Missing where values",
			fmt.Sprintf("%s: the in operator needs at least one element in values, e.g. values = [\"complete\", \"processing\"].", p))
	case op != filter.In && !w.Values.IsNull():
		diags.AddAttributeError(p, "Use value with "+string(op),
			fmt.Sprintf("%s: the %s operator takes one value: write value = \"...\"; values is only for in.", p, op))
	case op != filter.In && w.Value.IsNull():
		diags.AddAttributeError(p, "Missing where value",
			fmt.Sprintf("%s: the %s operator needs value = \"...\".", p, op))
	}
	if diags.HasError() {
		return term, true, diags
	}
	if op != filter.In {
		values = []string{w.Value.ValueString()}
	}
	return filter.NewTerm(op, w.Attribute.ValueString(), values...), true, diags
}

// valueUnknown is whether a where element's value, or any of its values,
// is known only at apply.
func valueUnknown(w whereModel) bool {
	if w.Value.IsUnknown() || w.Values.IsUnknown() {
		return true
	}
	for _, v := range w.Values.Elements() {
		if v.IsUnknown() {
			return true
		}
	}
	return false
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

// exampleTimestamp is the timestamp form the service's filters take.
const exampleTimestamp = "2026-01-01T00:00:00.000Z"

// shownValues is how many of a where element's values a message shows:
// the element is named by its index, and 200 names in a message bury
// what it says.
const shownValues = 3

// attributeGetter is the one method of tfsdk.Config the input helpers use,
// so that they do not care where the values come from.
type attributeGetter interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}
