package provider

// One read of a list data source, the same for the typed lists and
// commerce_list:
//
//	openListRead   inputs, timeouts.read, a configured client
//	target         what to list: fixed for a typed list, from the path for
//	               commerce_list (a probe of the service the first time)
//	readList       one call around the engine (reads.Read), the records
//	               written straight into the state's msgpack
//	               (internal/liststate)
//
// The provider server serves every list read this way (server.go); the
// framework's Read of a list data source is an adapter over the same
// readDirect, for whoever serves the provider through providerserver alone.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// listTarget is what a read lists, and what its filter is checked against.
type listTarget[T commerce.Record] struct {
	kind commerce.Kind[T]
	// rules are the filter attributes the terms are checked against; nil
	// for an endpoint the capability table does not know (the grammar only).
	rules   *commerce.Endpoint
	example string
	// records is the state attribute that holds the records.
	records string
}

// dataSourceName is the type name of the data source that reads t, for
// messages.
func (t listTarget[T]) dataSourceName() string {
	if t.records == recordsAttribute {
		return "list"
	}
	return t.records
}

// openListRead reads a list data source's inputs and bounds ctx by its
// timeouts.read; the caller calls cancel.
func openListRead(ctx context.Context, c *configuredStore, cfg tfsdk.Config) (context.Context, context.CancelFunc, listInputs, diag.Diagnostics) {
	in, diags := getListInputs(ctx, cfg, hasAttribute(cfg, "include_json"))
	ctx, cancel, more := withReadTimeout(ctx, cfg)
	diags.Append(more...)
	if c == nil && !diags.HasError() {
		diags.AddError("Provider not configured", "The provider was not configured before the data source was read; this is a bug in Terraform or the provider, please report it.")
	}
	return ctx, cancel, in, diags
}

// readList lists what in asks of t and returns the data source's state:
// config with ids, total and the records filled in, as msgpack. The read
// enters reads.Read once, which plans it, shares a listing
// with the reads that need the same one, and reads through the cache.
func readList[T commerce.Record](ctx context.Context, c *configuredStore, config tftypes.Value, in listInputs, t listTarget[T], enc liststate.Encoder[T]) ([]byte, diag.Diagnostics) {
	expr, _, diags := in.expression(ctx, t.rules, t.example)
	if diags.HasError() {
		return nil, diags
	}
	col := liststate.NewCollector(enc, liststate.Options{
		IncludeJSON: in.IncludeJSON.ValueBool(), IncludeRecords: in.includeRecords(), MaxBytes: maxStateBytes, MaxResults: int(in.MaxResults.ValueInt64()),
	})
	defer col.Release()
	res, err := c.read(ctx, t.kind.Endpoint, func(ctx context.Context) (reads.Result, error) {
		return reads.Read(ctx, c.reads, t.kind, in.query(expr), listing.Reader[T]{Emit: col.Add, Late: col.AddLate})
	})
	diags.Append(splitWarning(in, res)...)
	if limit := in.MaxResults.ValueInt64(); limit > 0 { // only a cut read can have failed to stop early
		diags.Append(maxResultsWarning(limit, in.Sort.ValueString(), &t.kind.Endpoint, res)...)
	}
	diags.Append(c.cache.warning()...)
	var tooLarge *liststate.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		diags.Append(stateTooLargeDiagnostic("commerce_"+t.dataSourceName(), t.kind.Name, tooLarge, res, in))
	case err != nil:
		diags.Append(errorDiagnostic(ctx, "list "+t.kind.Name, err))
	}
	if diags.HasError() {
		return nil, diags
	}
	state, err := col.State(config, t.records, res.Total, res.TotalKnown)
	if err != nil {
		diags.AddError("Internal error", err.Error())
	}
	if in.IncludeJSON.ValueBool() {
		diags.Append(includeJSONWarning(len(state), res.Listed)...)
	}
	return state, diags
}

// readThroughDirect is the framework's Read of a list data source: r's
// readDirect, its state decoded into the framework's value.
func readThroughDirect(ctx context.Context, r directReader, c *configuredStore, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	typ := req.Config.Raw.Type()
	// The server prepares its shared instance once; the framework makes a
	// new one for every read.
	if err := r.prepareDirect(typ); err != nil {
		resp.Diagnostics.AddError("Internal error", err.Error())
		return
	}
	state, diags := r.readDirect(ctx, c, req.Config)
	resp.Diagnostics.Append(diags...)
	if state == nil {
		return
	}
	v, err := (&tfprotov6.DynamicValue{MsgPack: state}).Unmarshal(typ)
	if err != nil {
		resp.Diagnostics.AddError("Internal error", "the state does not decode: "+err.Error())
		return
	}
	resp.State.Raw = v
}

// hasAttribute reports whether cfg's schema has a top-level attribute name.
func hasAttribute(cfg tfsdk.Config, name string) bool {
	_, ok := cfg.Schema.GetAttributes()[name]
	return ok
}

// directReader is a data source whose state readDirect writes as msgpack.
type directReader interface {
	datasource.DataSource
	// prepareDirect derives the encoder from the schema's Terraform type.
	prepareDirect(typ tftypes.Type) error
	// readDirect reads with c and returns the msgpack state, or nil and
	// the errors. Safe for concurrent reads: the server shares one
	// instance among all blocks of the data source.
	readDirect(ctx context.Context, c *configuredStore, cfg tfsdk.Config) ([]byte, diag.Diagnostics)
}

// recordsAttribute holds commerce_list's records.
const recordsAttribute = "records"

// defaultReadTimeout bounds a whole listing when timeouts.read is not set:
// generous, since 100,000 records at a slow store take minutes.
const defaultReadTimeout = 20 * time.Minute

// attributeGetter is the one method of tfsdk.Config the input helpers use,
// so that they do not care where the values come from.
type attributeGetter interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}

// withReadTimeout bounds ctx by the data source's timeouts.read.
func withReadTimeout(ctx context.Context, cfg tfsdk.Config) (context.Context, context.CancelFunc, diag.Diagnostics) {
	var to timeouts.Value
	diags := cfg.GetAttribute(ctx, path.Root("timeouts"), &to)
	readTimeout := defaultReadTimeout
	if !to.IsNull() && !to.IsUnknown() {
		// Only a block that is there is asked: the library logs, for every
		// data source, that a missing one holds no read timeout.
		var more diag.Diagnostics
		readTimeout, more = to.Read(ctx, defaultReadTimeout)
		diags.Append(more...)
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	return ctx, cancel, diags
}

// readTimeoutBlock is the timeouts block of every data source, described
// for the generated documentation.
func readTimeoutBlock(ctx context.Context) schema.Block {
	b := timeouts.BlockWithOpts(ctx, timeouts.Opts{
		ReadDescription: fmt.Sprintf("How long the whole read may take, as a duration such as `30m`. Defaults to `%dm`. Each request attempt is bounded by the provider's `request_timeout` as well.", int(defaultReadTimeout.Minutes())),
	})
	if nested, ok := b.(schema.SingleNestedBlock); ok {
		nested.MarkdownDescription = "Time limits of the data source."
		return nested
	}
	return b
}

// configureClient takes the provider's client from the ProviderData of a
// data source's or an ephemeral resource's ConfigureRequest. It is nil
// before the provider is configured (e.g. during validation).
func configureClient(providerData any, dst **configuredStore) diag.Diagnostics {
	var diags diag.Diagnostics
	if providerData == nil {
		return diags
	}
	c, ok := providerData.(*configuredStore)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *configuredStore, got %T; this is a bug in the provider, please report it", providerData))
		return diags
	}
	*dst = c
	return diags
}

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

// splitWarning says, after a read whose in() was split over several
// requests, into how many parts and what they cost.
func splitWarning(in listInputs, res reads.Result) diag.Diagnostics {
	var diags diag.Diagnostics
	s := res.Split
	if s.Parts == nil {
		return diags
	}
	at := in.filterPath()
	diags.AddAttributeWarning(at, "Long in() split over several requests",
		fmt.Sprintf("%s: in(%s,…) has %d values, more than one request can carry (the service takes at most %d bytes). "+
			"The provider listed it in %d parts, each within the limit and a whole number of pages of values, and merged them (in order, each record once): "+
			"%d list requests. Nothing to change unless that is too many; it splits at most %d values.",
			at, s.Attribute, s.Values, commerce.MaxRequestBytes, len(s.Parts), res.Pages, filter.MaxInValues))
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

// shownValues is how many of a where element's values a message shows:
// the element is named by its index, and 200 names in a message bury
// what it says.
const shownValues = 3

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

// matchCount says how many records match, for messages: the read's total
// where it knows it, else the service's count where it is meant to be
// exact (labelled so, or unlabelled as the documented API sends it), else
// at least those found (and at least a lower bound).
func matchCount(res reads.Result, found int) string {
	switch c := res.Count; {
	case res.TotalKnown:
		return strconv.Itoa(res.Total)
	case c.Steady() && c.N >= found:
		return strconv.Itoa(c.N)
	case c.Method == commerce.CountLowerBound && c.N > found:
		return "at least " + strconv.Itoa(c.N)
	}
	return "at least " + strconv.Itoa(found)
}

// maxStateBytes is the most state one read may give Terraform: its plugin
// protocol carries at most 256 MiB in one message (terraform-plugin-go's
// gRPC limit), and the state travels in the ReadDataSource response beside
// the diagnostics and the message's own framing, for which 64 KiB is left.
// A variable, so that tests can lower it.
var maxStateBytes = 256<<20 - 64<<10

// stateTooLargeDiagnostic says how large the read got, against what limit,
// and the changes that shrink it, largest effect first.
// A state past it is a liststate.TooLargeError: no further request can
// make it fit, so the collector ends the listing at once, and the read
// fails saying what to change.
func stateTooLargeDiagnostic(dataSource, noun string, e *liststate.TooLargeError, res reads.Result, in listInputs) diag.Diagnostic {
	total := max(res.Count.Hint(), e.Listed)
	matches := matchCount(res, e.Listed)
	var fixes []string
	perRecord := float64(e.Bytes) / float64(max(e.Listed, 1))
	if in.IncludeJSON.ValueBool() && e.JSONBytes > 0 {
		fixes = append(fixes, fmt.Sprintf("`include_json = false`: the records' JSON is %d%% of the state so far", 100*e.JSONBytes/e.Bytes))
	}
	if in.includeRecords() {
		ids := float64(e.IDBytes) / float64(max(e.Listed, 1)) * float64(max(total, e.Listed))
		fixes = append(fixes, fmt.Sprintf("`include_records = false`: the ids alone of all %s %s take about %s", matches, noun, mib(int(ids))))
	}
	fits := int(float64(maxStateBytes) / perRecord * 0.95)
	fixes = append(fixes, fmt.Sprintf("`max_results = %d` or less (about %s per record in this state)", fits, kib(perRecord)),
		"a narrower `filter`, or several data sources that split the list (for example by `created_at` ranges)")
	var b strings.Builder
	fmt.Fprintf(&b, "%s would hold more state than Terraform can take: its plugin protocol carries at most 256 MiB in one message. "+
		"%s %s match; after %d of them the state had reached %s (%s bytes, over the limit of %s), so the provider stopped listing and sent no further request.\n\nTo fix it, one of:",
		dataSource, matches, noun, e.Listed, mib(e.Bytes), thousands(e.Bytes), thousands(maxStateBytes))
	for i, f := range fixes {
		fmt.Fprintf(&b, "\n%d. %s", i+1, f)
	}
	return diag.NewErrorDiagnostic("Too large for Terraform", b.String())
}
