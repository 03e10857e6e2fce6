package provider

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// The warnings of a read that cost more than its configuration suggests:
// a user who writes max_results = 10 expects one request, and one who
// adds include_json does not expect Terraform to need gigabytes.

// maxResultsWarning: max_results (limit, at least 1) cannot end a read
// early when the service cannot give the asked order; the provider then
// lists every match and sorts them itself. Said once the read has shown
// what it cost. The caller asks only for a read with max_results, so that
// a plain read does not pass through this file.
func maxResultsWarning(limit int64, sort string, r *commerce.Endpoint, res reads.Result) diag.Diagnostics {
	var diags diag.Diagnostics
	if r == nil || res.Pages <= 1 {
		return diags
	}
	if sort == "" {
		sort = r.DefaultSort
	}
	attr := strings.TrimPrefix(sort, "-")
	if !slices.Contains(r.ProviderSorts, attr) || slices.Contains(r.ServiceSorts, attr) {
		return diags
	}
	instead := "narrow filter or where: the service sorts " + r.Name + " by nothing, so the provider always reads every match to sort them."
	if len(r.ServiceSorts) > 0 {
		instead = fmt.Sprintf("sort by one the service sorts (%s) to read only the pages needed, or narrow filter or where.", backticks(r.ServiceSorts))
	}
	matches := ""
	if res.TotalKnown {
		matches = thousands(res.Total) + " records, "
	}
	diags.AddAttributeWarning(path.Root("max_results"), "max_results did not end the read early",
		fmt.Sprintf("max_results = %d with sort = %q: the service does not sort %s by %s, so the provider listed every match (%s%s list requests) and kept the first %d. To read less, %s",
			limit, sort, r.Name, attr, matches, thousands(res.Pages), limit, instead))
	return diags
}

// jsonStateWarning is the size of a state past which include_json gets a
// word: Terraform holds a data source's state several times over (120 MB
// of orders with include_json took Terraform to 1.34 GB of memory).
const jsonStateWarning = 32 << 20

// includeJSONWarning: include_json keeps every record's whole JSON in the
// state; past jsonStateWarning bytes the user hears what it costs. The
// caller asks only for a read with include_json.
func includeJSONWarning(stateBytes, records int) diag.Diagnostics {
	var diags diag.Diagnostics
	if stateBytes < jsonStateWarning {
		return diags
	}
	diags.AddAttributeWarning(path.Root("include_json"), "include_json makes a large state",
		fmt.Sprintf("include_json kept the JSON of %s records: %s of state, which Terraform holds in memory several times over (120 MB took it to 1.34 GB) and writes to every plan file. "+
			"Remove include_json where the typed attributes hold what you use, set include_records = false where ids are enough, or narrow filter.",
			thousands(records), mib(stateBytes)))
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
