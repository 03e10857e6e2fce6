package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
)

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
func stateTooLargeDiagnostic(dataSource, noun string, e *liststate.TooLargeError, res listing.Result, in listInputs) diag.Diagnostic {
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

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func kib(n float64) string {
	if n < 1024 {
		return fmt.Sprintf("%.0f bytes", n)
	}
	return fmt.Sprintf("%.1f KiB", n/1024)
}
