package provider

import (
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Reads that would send the same requests share one listing, when
// Terraform runs them together (internal/coalesce has the rule: a read
// joins only a listing that has not sent anything yet, so that a read that
// depends on a write never gets a result from before it). What they share
// is the listing's encoded records, not the records: each read writes its
// own state around them, with its own configuration.

// listOutcome is what one listing hands every read that shared it.
type listOutcome struct {
	// collector holds the encoded ids and records; read-only once the
	// listing has ended.
	collector interface {
		state(config tftypes.Value, records string, total, maxResults int) ([]byte, error)
	}
	total int
	diags diag.Diagnostics
}

// readKey identifies what a read sends: the data source, the endpoint, the
// effective filter (filter and where merged), the sort, the limit, what the
// state keeps, and the consistency buffer. Two reads with the same key ask
// the service the same and get the same state around their configuration.
func readKey(dataSource, listPath, expr string, in listInputs) string {
	return strings.Join([]string{
		dataSource, listPath, expr, in.Sort.ValueString(),
		strconv.FormatInt(in.MaxResults.ValueInt64(), 10),
		strconv.FormatBool(in.IncludeJSON.ValueBool()),
		strconv.FormatBool(in.includeRecords()),
		in.ConsistencyBuffer.ValueString(),
	}, "\x00")
}
