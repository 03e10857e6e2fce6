package listing

// The service's limits on a request's filter, as the engine meets them:
// it merges its own terms into the user's (commerce.Endpoint.Narrow), then
// checks the request it would send against filter.MaxTerms and
// commerce.MaxRequestBytes, and stops with a FilterLimitError that says
// what to change before it sends one the service would refuse.

import (
	"fmt"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// FilterLimitError says that a request the listing needs would break one
// of the service's limits on filters: more than filter.MaxTerms terms, or
// a request target longer than MaxRequestBytes. The provider stops before
// sending it: the service would refuse it with 400.
type FilterLimitError struct {
	Endpoint string // the endpoint's name, "orders"
	Filter   string // the filter that request would carry
	Terms    int    // its terms
	Bytes    int    // its request target's length
	// Why says why the provider adds terms to the user's filter, or is
	// empty when the user's filter alone is over the limit.
	Why string
	Fix string
}

func (e *FilterLimitError) Error() string {
	var over string
	if e.Terms > filter.MaxTerms {
		over = fmt.Sprintf("%d filter terms, and the service takes at most %d per request", e.Terms, filter.MaxTerms)
	} else {
		over = fmt.Sprintf("a %d-byte request, and the service takes requests with filters of at most %d bytes", e.Bytes, commerce.MaxRequestBytes)
	}
	msg := fmt.Sprintf("listing %s would need %s", e.Endpoint, over)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg + "; the filter would be " + e.Filter + ". " + e.Fix
}

// filterRoom is the room the service's limits leave a filter of one
// endpoint's list requests, of pageSize records each. Any goroutine.
type filterRoom struct {
	endpoint commerce.Endpoint
	pageSize int
}

// narrowed is base (the user's filter, perhaps with terms the engine
// merged in before) narrowed by extra, and its text as requests sorted by
// sort send it, checked against the service's limits. Terms of base that
// stay are sent as written, so that a quoted operand stays quoted. why
// says, for messages, why the engine adds extra. Nothing is parsed: the
// filter travels parsed from the provider to the request.
func (r filterRoom) narrowed(base filter.Parsed, extra filter.Expr, sort, why string) (filter.Parsed, string, error) {
	merged := base.With(r.endpoint.Narrow(base.Terms, extra))
	text := merged.Text()
	if n := r.requestLength(text, sort); len(merged.Terms) > filter.MaxTerms || n > commerce.MaxRequestBytes {
		return filter.Parsed{}, "", r.limitError(merged.Terms, text, n, extra, why)
	}
	return merged, text, nil
}

// requestLength is the length of the longest request target of a window
// with filter expr: its last page's offset has the most digits.
func (r filterRoom) requestLength(expr, sort string) int {
	return commerce.ListRequestLength(r.endpoint.Path, expr, sort, commerce.OffsetLimit, r.pageSize)
}

// limitError describes a request over the service's filter limits, and
// what the user can do about it.
func (r filterRoom) limitError(merged filter.Expr, text string, n int, extra filter.Expr, why string) error {
	e := &FilterLimitError{Endpoint: r.endpoint.Name, Filter: text, Terms: len(merged), Bytes: n, Why: why}
	switch {
	case len(merged) > filter.MaxTerms && len(extra) > 0:
		e.Fix = fmt.Sprintf("Use at most %d terms in filter and where together, or make one of them %s, which the provider's own bound then replaces where it is tighter.",
			filter.MaxTerms-(len(merged)-filter.MaxTerms), boundHint(extra))
	case len(merged) > filter.MaxTerms:
		e.Fix = fmt.Sprintf("Use at most %d terms in filter and where together.", filter.MaxTerms)
	default:
		e.Fix = fmt.Sprintf("The provider splits an in() of up to %d values over several requests, but not the rest of a filter: use fewer or shorter values elsewhere, or split the list into several data sources.", filter.MaxInValues)
	}
	return e
}

// boundHint names the bounds a user can write so that extra merges into
// them, e.g. "a ge or gt bound on created_at".
func boundHint(extra filter.Expr) string {
	var hints []string
	seen := map[string]bool{}
	for _, t := range extra {
		var h string
		switch t.Op {
		case filter.Gt, filter.Ge:
			h = "a ge or gt bound on " + t.Attribute
		case filter.Lt, filter.Le:
			h = "an lt or le bound on " + t.Attribute
		default:
			continue
		}
		if !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	if len(hints) == 0 {
		return "a bound on the attribute the provider bounds"
	}
	return strings.Join(hints, " and ")
}

// room is what the service's limits leave the filters of endpoint's list
// requests.
func (e *Engine) room(endpoint commerce.Endpoint) filterRoom {
	return filterRoom{endpoint: endpoint, pageSize: e.pageSize}
}
