package provider

import (
	"fmt"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// filterTable renders the capability table's filter attributes with their
// operators, for schema descriptions and docs.
func filterTable(r commerce.Endpoint) string {
	parts := make([]string, 0, len(r.Filters))
	for _, name := range r.FilterAttributeNames() {
		parts = append(parts, fmt.Sprintf("`%s` (%s)", name, r.Filters[name].OpNames()))
	}
	return strings.Join(parts, ", ")
}

// sortNote says who sorts: the service, or the provider after listing
// everything.
func sortNote(r commerce.Endpoint) string {
	var b strings.Builder
	if len(r.ServiceSorts) > 0 {
		fmt.Fprintf(&b, "The service sorts by %s itself; records with equal values come by `id`, whatever order the service gives them in, "+
			"so that the same store gives the same list on every read (with `max_results`, the provider reads past the cut until the values change). ", backticks(r.ServiceSorts))
	}
	if len(r.ProviderSorts) > 0 {
		fmt.Fprintf(&b, "The service cannot list %s by %s past its offset limit: for those the provider lists every matching record and sorts them itself, text bytewise, "+
			"ties by `id`, records without a value last (with `max_results`, after sorting the complete list).", r.Name, backticks(r.ProviderSorts))
	}
	return strings.TrimSpace(b.String())
}

// howListed explains, per data source, what the service can do and how the
// provider reaches every record.
func howListed(r commerce.Endpoint) string {
	limit := thousands(commerce.OffsetLimit)
	switch {
	case len(r.ServiceSorts) == 0:
		return fmt.Sprintf("**How it lists.** The service cannot sort %s and filters them only on %s. "+
			"Up to %s matches, the provider reads offset pages in the service's own order, in parallel. "+
			"Above that it cuts the listing into ranges of `%s`, cut at the values the first page shows and checked against the counts the service reports, until each is small enough to read by offset, and merges them without duplicates. "+
			"It then sorts the complete list itself. If more than %s %s share one `%s`, no filter can tell them apart: the read fails and says how to narrow the filter.",
			r.Name, backticks(r.FilterAttributeNames()), limit, r.RangeAttribute, limit, r.Name, r.RangeAttribute)
	case r.RangeAttribute != "":
		return fmt.Sprintf("**How it lists.** The service sorts %s by %s and filters `%s` by range, so the provider reads keyset windows: "+
			"offset pages in parallel up to %s records, then the next window from the last `%s` seen. "+
			"Orders it cannot get from the service (%s) it sorts itself after listing by `%s`. "+
			"More than %s records with one `%s` are cut into windows of `%s`. "+
			"If the service turns out not to sort as documented (it refuses or ignores `sort`), the provider switches to offset pages and windows of `%s` once per run and logs it.",
			r.Name, backticks(r.ServiceSorts), r.ServiceSorts[0], limit, r.ServiceSorts[0], backticks(r.ProviderSorts), r.ServiceSorts[0],
			limit, r.ServiceSorts[0], r.RangeAttribute, r.RangeAttribute)
	default:
		return fmt.Sprintf("**How it lists.** The service sorts %s by %s and filters them by range, so the provider reads keyset windows: "+
			"offset pages in parallel up to %s records, then the next window from the last sort value seen; more than %s records with one sort value are listed by `id`. "+
			"The service cannot filter %s by range, so the provider sorts by them itself after listing by `created_at`. "+
			"If the service turns out not to sort as documented (it refuses or ignores `sort`), the provider lists up to %s records in the service's order and sorts them itself, "+
			"or fails saying why when more match.",
			r.Name, backticks(r.ServiceSorts), limit, limit, backticks(r.ProviderSorts), limit)
	}
}
