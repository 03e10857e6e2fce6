package filter

// Parsed is a filter expression as it travels from the provider to the
// request: its terms, and the text they were parsed from, so that a term
// kept as it was renders as the user wrote it (quotes and all) while terms
// added or merged render from their values. It is parsed once per read
// (ParseText); narrowing it, splitting its in() and sending it never parse
// it again.
type Parsed struct {
	Terms Expr
	// Source is the text Terms were parsed from: their Start and End point
	// into it. Empty for terms built with NewTerm alone.
	Source string
}

// ParseText parses s, which may be longer than one request takes when its
// in() is to be split over several (up to a megabyte).
func ParseText(s string) (Parsed, error) {
	terms, err := parseSplittable(s)
	return Parsed{Terms: terms, Source: s}, err
}

// Text is the expression as a request's filter parameter.
func (p Parsed) Text() string { return p.Terms.Render(p.Source) }

// With is p narrowed by terms, by the caller's rule of merging (which
// keeps p's terms, or some of them, and so their place in Source).
func (p Parsed) With(terms Expr) Parsed { return Parsed{Terms: terms, Source: p.Source} }
