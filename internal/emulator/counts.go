package emulator

// How a store counts the matches of a list request. The vendor's newer
// specs and its CLI (see shared/spec/vendor-reference-notes.md, "Counts
// that are not exact"): a list request takes page[total_method]; newer
// endpoints count a lower bound by default; the answer labels its
// meta.results.total with meta.results.total_method (exact, lower_bound,
// observed); the CLI also sends estimate, cached and none, and walks pages
// until one comes back empty when a total is missing. Which endpoints count
// lazily, and whether they all honour page[total_method]=exact, is not
// documented: the switches here cover every combination.

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// Count methods, as page[total_method] and meta.results.total_method
// spell them.
const (
	CountExact      = "exact"
	CountLowerBound = "lower_bound"
	CountObserved   = "observed"
	CountEstimate   = "estimate"
	CountCached     = "cached"
	CountNone       = "none"
)

// countMethods are the page[total_method] values a store accepts: those
// the vendor's CLI sends.
var countMethods = []string{CountExact, CountEstimate, CountLowerBound, CountObserved, CountCached, CountNone}

// Counting is how a store counts the matches of a list request.
type Counting struct {
	// Method is how the store counts when a request does not ask:
	// "" counts exactly and sends no total_method (as the documented API
	// and older endpoints do); CountExact the same, labelled; CountLowerBound
	// counts up to Cap; CountObserved counts the records up to the page's
	// end, plus one when more follow; CountEstimate is off by up to
	// Percent (either way, a different error on every request);
	// CountNone sends no results.total (nor meta.page.total).
	Method string
	// Cap is where a lower bound stops counting (CountLowerBound; 0 takes
	// 1,000).
	Cap int
	// Percent bounds an estimate's error (CountEstimate; 0 takes 10).
	Percent int
	// Unlabelled sends the count without meta.results.total_method, as a
	// store may for a lower bound too.
	Unlabelled bool
	// IgnoreExact answers page[total_method]=exact with the store's own
	// method, as an endpoint that does not honour it would. By default a
	// request that asks for a method gets it, labelled.
	IgnoreExact bool
}

// ParseCounting reads the command line's spelling of a Counting:
// "exact-unlabelled" (the default), "exact", "lower_bound[:N]",
// "observed", "estimate[:P]" or "none", then optional ",unlabelled" and
// ",ignore-exact".
func ParseCounting(s string) (Counting, error) {
	parts := strings.Split(s, ",")
	var c Counting
	method, arg, hasArg := strings.Cut(parts[0], ":")
	switch method {
	case "", "exact-unlabelled":
	case CountExact, CountObserved, CountNone:
		c.Method = method
	case CountLowerBound, CountEstimate:
		c.Method = method
		if hasArg {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return c, fmt.Errorf("counting %q: %q after %s: must be a whole number of 1 or more", s, arg, method)
			}
			if method == CountLowerBound {
				c.Cap = n
			} else {
				c.Percent = n
			}
		}
	default:
		return c, fmt.Errorf("counting %q: the method must be one of exact-unlabelled, exact, lower_bound[:N], observed, estimate[:P], none", s)
	}
	if hasArg && c.Method != CountLowerBound && c.Method != CountEstimate {
		return c, fmt.Errorf("counting %q: only lower_bound and estimate take a number", s)
	}
	for _, p := range parts[1:] {
		switch p {
		case "unlabelled":
			c.Unlabelled = true
		case "ignore-exact":
			c.IgnoreExact = true
		default:
			return c, fmt.Errorf("counting %q: %q is neither unlabelled nor ignore-exact", s, p)
		}
	}
	return c, c.check()
}

func (c Counting) check() error {
	switch {
	case c.Method != "" && !slices.Contains(countMethods, c.Method) || c.Method == CountCached:
		return fmt.Errorf("counting method %q is not one of exact, lower_bound, observed, estimate, none", c.Method)
	case c.Cap < 0 || c.Percent < 0 || c.Percent > 100:
		return fmt.Errorf("counting cap %d and percent %d: the cap must not be negative, the percent within 0..100", c.Cap, c.Percent)
	}
	return nil
}

// countPlan is what the store counts by: its default, and the resources
// that count otherwise.
type countPlan struct {
	store Counting
	byRes map[string]Counting
}

func (p *countPlan) forResource(name string) Counting {
	if c, ok := p.byRes[name]; ok {
		return c
	}
	return p.store
}

// SetCounting sets how the store counts (see Counting): for the resources
// named, or for the store (every resource not named in an earlier call)
// when none are. It panics on a Counting that Options would refuse.
func (s *Server) SetCounting(c Counting, resources ...string) {
	if err := c.check(); err != nil {
		panic("emulator: " + err.Error())
	}
	for {
		old := s.counting.Load()
		next := &countPlan{store: old.store, byRes: map[string]Counting{}}
		for k, v := range old.byRes {
			next.byRes[k] = v
		}
		if len(resources) == 0 {
			next.store = c
		}
		for _, r := range resources {
			next.byRes[r] = c
		}
		if s.counting.CompareAndSwap(old, next) {
			return
		}
	}
}

// listCount is what one list answer says of its matches: results.total
// (present false: none), and the label (empty: none).
type listCount struct {
	total   int
	present bool
	label   string
}

// countFor is the count a list answer of res carries: total matches, the
// page at offset with n records, asked the method asked ("" when the
// request did not ask). key varies an estimate's error from request to
// request.
func (s *Server) countFor(res string, asked string, total, offset, n int, key string) listCount {
	c := s.counting.Load().forResource(res)
	method, labelled := c.Method, !c.Unlabelled && c.Method != ""
	if asked != "" && asked != CountCached && (asked != CountExact || !c.IgnoreExact) {
		// A store that knows the parameter answers as asked, and says so.
		method, labelled = asked, true
	}
	out := listCount{total: total, present: true}
	switch method {
	case "", CountExact:
	case CountLowerBound:
		out.total = min(total, cmpOr(c.Cap, 1000))
	case CountObserved:
		out.total = offset + n
		if offset+n < total {
			out.total++
		}
	case CountEstimate:
		out.total = estimate(total, cmpOr(c.Percent, 10), key)
	case CountNone:
		return listCount{}
	}
	if labelled {
		out.label = method
	}
	return out
}

// estimate is total off by up to percent, either way, as key draws it.
func estimate(total, percent int, key string) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	span := int64(total) * int64(percent) / 100
	if span == 0 {
		return total
	}
	off := int64(h.Sum64()%uint64(2*span+1)) - span
	return max(0, total+int(off))
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
