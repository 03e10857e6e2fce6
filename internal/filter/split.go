package filter

import "fmt"

// MaxInValues bounds the values of an in() SplitIn splits: each part costs
// at least one request, and 10,000 values of 36-byte ids are about 50
// parts.
const MaxInValues = 10000

// InSplit says how a filter's in() is split: the attribute, how many
// values it has, and the parts' filters. Parts is nil when the filter was
// not split.
type InSplit struct {
	Attribute string
	Values    int
	Parts     []Parsed
}

// SplitIn splits the longest in() of expr, a filter too long for one
// request, into parts: expr with that in() holding a run of its values,
// every other term as written. Each part is the longest run for which fits
// holds, except that a part of align values or more holds a whole
// multiple of align (the last part excepted): align is a page of records,
// and one value more than whole pages hold costs a page more for one
// record. A value written twice goes to one part only: two parts that
// both held it would both list its records. It fails when expr has no
// in(), the in() has more than MaxInValues values, or fits holds for no
// part with a single value.
func SplitIn(expr Parsed, fits func(part string) bool, align int) (InSplit, error) {
	parsed, at, err := longestIn(expr.Terms)
	if err != nil {
		return InSplit{}, err
	}
	in := parsed[at]
	in.Values = distinct(in.Values)
	partOf := func(values []string) Parsed {
		part := append(Expr(nil), parsed...)
		part[at] = NewTerm(In, in.Attribute, values...)
		return expr.With(part)
	}
	render := func(values []string) string { return partOf(values).Text() }
	s := InSplit{Attribute: in.Attribute, Values: len(in.Values)}
	for start := 0; start < len(in.Values); {
		n := longestRun(in.Values[start:], func(values []string) bool { return fits(render(values)) })
		if n == 0 {
			return InSplit{}, fmt.Errorf("the filter is too long for one request even with a single value of in(%s,…)", in.Attribute)
		}
		if start+n < len(in.Values) && align > 0 && n >= align {
			n -= n % align
		}
		s.Parts = append(s.Parts, partOf(in.Values[start:start+n]))
		start += n
	}
	return s, nil
}

// distinct is values without repeats, each where it first appears.
func distinct(values []string) []string {
	seen := make(map[string]bool, len(values))
	out := make([]string, 0, len(values))
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// longestIn finds the in() of parsed with the most values.
func longestIn(parsed Expr) (Expr, int, error) {
	at := -1
	for i, t := range parsed {
		if t.Op == In && (at < 0 || len(t.Values) > len(parsed[at].Values)) {
			at = i
		}
	}
	if at < 0 {
		return nil, 0, fmt.Errorf("the filter has no in() the provider could split")
	}
	if n := len(parsed[at].Values); n > MaxInValues {
		return nil, 0, fmt.Errorf("in(%s,…) has %d values; the provider splits at most %d over several requests", parsed[at].Attribute, n, MaxInValues)
	}
	return parsed, at, nil
}

// longestRun is how many of values, from the first, fits takes at most
// (0 when not even one): by doubling then halving, since values differ in
// length and no fixed count will do.
func longestRun(values []string, fits func([]string) bool) int {
	if !fits(values[:1]) {
		return 0
	}
	end, step := 1, 1
	for end+step <= len(values) && fits(values[:end+step]) {
		end += step
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if end+step <= len(values) && fits(values[:end+step]) {
			end += step
		}
	}
	return end
}
