package commerce

import "strconv"

// How the service counts a list's matches. Newer endpoints count lazily:
// a list request takes page[total_method], and the answer labels its
// meta.results.total with meta.results.total_method (the vendor's
// account-addresses and promotions specs, and its CLI). A count may be
// exact, a lower bound, an estimate, one more than the records seen so
// far, or absent; older endpoints send an exact count without a label,
// and a lower bound may come unlabelled too. So a count can size the
// requests of a listing, but never end one: only a short or empty page
// does.

// CountMethod is how the service says it counted: the value of
// meta.results.total_method, or CountUnlabelled and CountNone.
type CountMethod string

// The count methods the provider tells apart (the vendor's CLI also sends
// estimate and cached, which come back as some other method: the provider
// treats every method it does not know as a guess).
const (
	// CountUnlabelled: a results.total without total_method, as older
	// endpoints send (exact, as far as their documentation goes).
	CountUnlabelled CountMethod = ""
	CountExact      CountMethod = "exact"
	// CountLowerBound: the matches are at least this many.
	CountLowerBound CountMethod = "lower_bound"
	// CountObserved: estimated from what the request saw, one more than
	// the records up to the page's end when another page follows.
	CountObserved CountMethod = "observed"
	// CountNone: the answer has no results.total at all.
	CountNone CountMethod = "none"
)

// TotalMethodParam is the list request parameter that asks for a count
// method.
const TotalMethodParam = "page[total_method]"

// Count is a list answer's results.total and how it was counted.
type Count struct {
	N      int // 0 when Method is CountNone
	Method CountMethod
}

// Exact reports whether the service labelled the count exact: the only
// count the provider reports as the number of matches, or compares with
// what it knows (the cache's refresh).
func (c Count) Exact() bool { return c.Method == CountExact }

// Steady reports whether the count is meant to stay put while nothing is
// written: labelled exact, or unlabelled. A listing takes a steady count
// that moves between two pages of one window as a sign of a write; a lazy
// count (a lower bound, an estimate, an observation) may move on its own.
func (c Count) Steady() bool { return c.Method == CountExact || c.Method == CountUnlabelled }

// Hint is the count as a guess at the matches, for sizing requests: 0
// where there is none.
func (c Count) Hint() int { return c.N }

// String says the count as a message names it: "250", "at least 1000",
// "about 5100", "no count".
func (c Count) String() string {
	switch c.Method {
	case CountNone:
		return "no count"
	case CountLowerBound:
		return "at least " + strconv.Itoa(c.N)
	case CountExact, CountUnlabelled:
		return strconv.Itoa(c.N)
	}
	return "about " + strconv.Itoa(c.N) + " (" + string(c.Method) + ")"
}
