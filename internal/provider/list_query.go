package provider

import (
	"context"
	"fmt"
	"time"

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

// splitWarning says, after a read whose in() was split over several
// requests, into how many parts and what they cost.
func splitWarning(in listInputs, res listing.Result) diag.Diagnostics {
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
		if !termKnown {
			known = false
			continue
		}
		if tdiags.HasError() {
			continue
		}
		diags.Append(checkTerm(wherePaths(p, term.Op), term, term.String(), r, example)...)
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
