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

// query is the listing the inputs ask for, with expr (from expression) as
// its filter; Read adds the callbacks.
func (in listInputs) query(expr string) listing.Query {
	return listing.Query{
		Filter:      expr,
		Sort:        in.Sort.ValueString(),
		MaxResults:  int(in.MaxResults.ValueInt64()),
		IncludeJSON: in.IncludeJSON.ValueBool(),
		// The validator checked the duration; an unset buffer parses as 0.
		CreatedBefore: createdBefore(in.ConsistencyBuffer.ValueString()),
	}
}

// expression combines filter and where into the filter the service gets,
// and checks it against the service's limits: at most filter.MaxTerms
// terms, and a request of at most commerce.MaxRequestBytes to listPath.
// Parts unknown at plan time are skipped (validation runs again at read).
func (in listInputs) expression(ctx context.Context, r *commerce.Endpoint, example, listPath string) (expr string, diags diag.Diagnostics) {
	known := true
	var filterText string
	var filterExpr, whereExpr filter.Expr
	filterTerms, whereTerms := 0, 0
	if in.Filter.IsUnknown() {
		known = false
	} else if !in.Filter.IsNull() {
		filterText = in.Filter.ValueString()
		diags.Append(checkFilterText(path.Root("filter"), filterText, r, example)...)
		// A filter that does not parse has its diagnostic; the read stops.
		filterExpr, _ = filter.Parse(filterText)
		filterTerms = len(filterExpr)
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
		return "", diags
	}
	// The filter's terms as the user wrote them, then where's.
	expr = filter.And(filterExpr, whereExpr).Render(filterText)
	if known && !diags.HasError() {
		sort := in.Sort.ValueString()
		if sort == "" && r != nil {
			sort = r.DefaultSort
		}
		at := path.Root("filter")
		if in.Filter.IsNull() {
			at = path.Root("where")
		}
		diags.Append(checkRequestLength(at, listPath, expr, sort)...)
	}
	return expr, diags
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

// checkRequestLength reports a filter whose list request to listPath would
// be longer than the service takes: a warning with the requests it costs
// where the provider splits its in() over several, else an error.
func checkRequestLength(at path.Path, listPath, expr, sort string) diag.Diagnostics {
	var diags diag.Diagnostics
	n := listing.ListRequestLength(listPath, expr, sort)
	split, err := listing.SplitIn(listPath, expr, sort, commerce.DefaultPageSize)
	switch {
	case err == nil && split.Parts != nil:
		diags.AddAttributeWarning(at, "Long in() split over several requests",
			fmt.Sprintf("%s: in(%s,…) has %d values, and one request for it would be %d bytes long (path and URL-encoded query), over the service's %d. "+
				"The provider lists it in %d parts, each within the limit, and merges them (in order, each record once): at least %d requests instead of one. "+
				"Nothing to change unless that is too many; it splits at most %d values.",
				at, split.Attribute, split.Values, n, commerce.MaxRequestBytes, len(split.Parts), len(split.Parts), listing.MaxInValues))
	case n > commerce.MaxRequestBytes:
		diags.AddAttributeError(at, "Filter too long for one request",
			fmt.Sprintf("%s: the request for this filter would be %d bytes long (path and URL-encoded query); the service takes requests with a filter of at most %d bytes, "+
				"and the provider cannot split it: %v. The provider splits an in() of up to %d values over several requests, but not the rest of a filter: "+
				"use fewer or shorter values elsewhere, or split the list into several data sources.", at, n, commerce.MaxRequestBytes, err, listing.MaxInValues))
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

// createdBefore is the cut-off of a consistency buffer: now minus the
// buffer, or zero without one.
func createdBefore(buffer string) time.Time {
	d, err := time.ParseDuration(buffer)
	if buffer == "" || err != nil || d <= 0 {
		return time.Time{}
	}
	return time.Now().Add(-d)
}
