package listing

// The engine's errors: what keeps a listing from being complete, and the
// signals its strategies pass each other.

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// OffsetLimitError says that a listing needed to go past the service's
// offset limit and the service refused the keyset filter that does so.
type OffsetLimitError struct {
	Endpoint    string // the endpoint's name, "orders"
	OffsetLimit int
	Count       commerce.Count // the service's count of the filter's matches
	Listed      int            // how many were listed before the engine had to stop
	Err         error          // the service's answer to the keyset request
}

func (e *OffsetLimitError) Error() string {
	return fmt.Sprintf("%s: %s records match, but the service serves at most %d by offset and refused the keyset filter needed to list the rest (listed %d): %v",
		e.Endpoint, e.Matches(), e.OffsetLimit, e.Listed, e.Err)
}

// Matches says how many records match, for messages: the service's count
// where it is meant to be exact and past the offset limit, else more than
// the limit (the listing had to go past it).
func (e *OffsetLimitError) Matches() string {
	if e.Count.Steady() && e.Count.N > e.OffsetLimit {
		return strconv.Itoa(e.Count.N)
	}
	return "more than " + strconv.Itoa(e.OffsetLimit)
}

func (e *OffsetLimitError) Unwrap() error { return e.Err }

// UnlistableError says the service offers no way to list every record the
// query matches: the provider refuses to return a truncated list.
type UnlistableError struct {
	Endpoint    string // the endpoint's name, "orders"
	Total       int    // records the query matches, as far as the listing saw (at least)
	OffsetLimit int
	Reason      string // why no strategy reaches them all
	Fix         string // what the user can do
}

func (e *UnlistableError) Error() string {
	return fmt.Sprintf("%s: %s; %s", e.Endpoint, e.Reason, e.Fix)
}

// sortUnusableError reports, from the first page of a sorted listing, that
// the service refused the sort= parameter or ignored it.
type sortUnusableError struct{ cause string }

func (e *sortUnusableError) Error() string { return e.cause }

// errWindowChanged says a window changed while it was read by offsets: a
// record was inserted, deleted or moved, so offsets shifted and a record
// may have slipped between two pages.
var errWindowChanged = errors.New("window changed while it was listed")

// sortRefusal recognises the service refusing sort=: a 400 naming the
// parameter. The transport's error says so through RefusedParameter
// (client.APIError), so that the engine reads no HTTP status itself.
func sortRefusal(err error) (string, bool) {
	var refusal interface {
		RefusedParameter(name string) (string, bool)
	}
	if !errors.As(err, &refusal) {
		return "", false
	}
	if said, ok := refusal.RefusedParameter("sort"); ok {
		return "it answered 400 " + said, true
	}
	return "", false
}

// badRequest reports whether the service refused a request as malformed
// (400), as the transport's error says through BadRequest.
func badRequest(err error) bool {
	var bad interface{ BadRequest() bool }
	return errors.As(err, &bad) && bad.BadRequest()
}
