package emulator

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The emulator reads filters with this parser of its own, written from the
// vendor's filtering guide (guides/Getting-Started/filtering.md in
// elasticpath/elasticpath-dev) and the examples of its references, not
// with internal/filter, with which the client formats and checks filters:
// a misreading shared by both sides would pass every test.
// vendor_filters_test.go holds both parsers to the filters the vendor's
// documents show (testdata/vendor_filters.json).
//
// What the guide says, and how the emulator reads it:
//
//   - A filter is one or more terms joined by ':', which ANDs them. A term
//     is op(attribute,value); in takes one or more comma-separated values,
//     the other operators exactly one.
//   - The operators are eq, like, in, gt, ge, lt and le, in lower case as
//     every example writes them. The beta syntax's is_null has neither an
//     example nor a documented form, so the emulator does not take it.
//   - The attribute is a field name: letters, digits, '_', '.' (nested
//     fields: contact.name) and '-' (custom API fields: location-name),
//     starting with a letter or '_'. No example quotes one.
//   - A value is unquoted, or quoted with ' or " (the beta syntax's quoted
//     operands), where a backslash escapes the next character:
//     'Food \'n Stuff'. An unquoted value runs to the next ',' or ')': it
//     may hold spaces and ':' (timestamps), but none of ( ' " \.
//   - Whitespace: the guide has the original syntax take a space as an
//     ordinary character and the beta syntax drop leading spaces, without
//     saying which of the two reads a given filter. The emulator refuses
//     whitespace wherever the two could differ (around ':', '(', ',' and
//     ')', and at either end of an unquoted value) rather than guess; a
//     quoted value keeps its spaces.
//   - An unencoded '+' in the query string is a space: url.ParseQuery
//     decodes it so before the filter gets here, as the guide says.
//   - At most 10 terms and 8 KB per request are checked in internal/commerce/endpoints.go; a
//     filter over 8 KB is refused here as well, for ExpectedIDs.

// filterOp is a filter operator.
type filterOp uint8

const (
	opEq filterOp = iota
	opLike
	opIn
	opGt
	opGe
	opLt
	opLe
	numOps
)

// opNames are the operators' names, in the guide's order.
var opNames = [numOps]string{"eq", "like", "in", "gt", "ge", "lt", "le"}

// allOps lists the operators for messages.
var allOps = strings.Join(opNames[:], ", ")

func (o filterOp) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("filterOp(%d)", o)
}

func lookupOp(name string) (filterOp, bool) {
	for i, n := range opNames {
		if n == name {
			return filterOp(i), true
		}
	}
	return 0, false
}

// filterTerm is one op(attribute,value...) term as written, with quotes and
// escapes removed from the values.
type filterTerm struct {
	op     filterOp
	attr   string
	values []string
}

// filterSyntaxError says why a filter cannot be read and where: pos is a
// byte offset into the filter, shown as a character position.
type filterSyntaxError struct {
	filter string
	pos    int
	msg    string
}

func (e *filterSyntaxError) Error() string {
	pos := min(max(e.pos, 0), len(e.filter))
	return fmt.Sprintf("%s (at character %d)", e.msg, utf8.RuneCountInString(e.filter[:pos])+1)
}

// maxFilterBytes is the longest filter the parser reads: the service's
// limit on a whole request that carries a filter.
const maxFilterBytes = DefaultMaxFilterRequestBytes

// parseFilter reads a filter expression (see the comment at the top of the
// file). Every error is a *filterSyntaxError.
func parseFilter(s string) ([]filterTerm, error) {
	switch {
	case s == "":
		return nil, &filterSyntaxError{msg: "the filter is empty; write one or more op(attribute,value) terms joined by ':', e.g. eq(status,complete)"}
	case len(s) > maxFilterBytes:
		return nil, &filterSyntaxError{filter: s, pos: maxFilterBytes, msg: fmt.Sprintf(
			"the filter is %d bytes long; a request with a filter must not exceed %d bytes", len(s), maxFilterBytes)}
	case !utf8.ValidString(s):
		i := 0
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return nil, &filterSyntaxError{filter: s, pos: i, msg: "the filter is not UTF-8 text"}
	}
	p := filterScanner{s: s}
	// countTerms sizes the result, capped: a filter of thousands of ':'
	// fails at its first empty term.
	terms := make([]filterTerm, 0, min(countTerms(s), 2*DefaultMaxFilterTerms))
	for {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
		switch {
		case p.i == len(s):
			return terms, nil
		case s[p.i] != ':':
			return nil, p.fail(p.i, "unexpected %s after the term %s; join terms with ':' and nothing else, e.g. eq(a,1):eq(b,2)",
				p.char(p.i), short(s[p.start:p.i]))
		case p.i+1 == len(s):
			return nil, p.fail(p.i, "the filter ends with ':'; remove it or add a term after it")
		}
		p.i++
	}
}

// filterScanner reads one filter left to right; i is the next byte and
// start the offset of the term being read.
type filterScanner struct {
	s        string
	i, start int
}

func (p *filterScanner) fail(pos int, format string, args ...any) error {
	return &filterSyntaxError{filter: p.s, pos: pos, msg: fmt.Sprintf(format, args...)}
}

// char describes the character at offset i for messages.
func (p *filterScanner) char(i int) string {
	r, _ := utf8.DecodeRuneInString(p.s[i:])
	if unicode.IsSpace(r) {
		return fmt.Sprintf("whitespace (%q)", r)
	}
	return fmt.Sprintf("%q", r)
}

// unclosed reports a term that the end of the filter cuts short.
func (p *filterScanner) unclosed() error {
	return p.fail(len(p.s), "the term %s has no closing ')'", short(p.s[p.start:]))
}

// short cuts s to about 40 bytes for a message, at a character boundary.
func short(s string) string {
	const most = 40
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// term reads op(attribute,value...) at p.i.
func (p *filterScanner) term() (filterTerm, error) {
	p.start = p.i
	op, err := p.op()
	if err != nil {
		return filterTerm{}, err
	}
	attr, err := p.attribute(op)
	if err != nil {
		return filterTerm{}, err
	}
	t := filterTerm{op: op, attr: attr}
	for {
		p.i++ // the ',' before the value
		v, err := p.value()
		if err != nil {
			return filterTerm{}, err
		}
		t.values = append(t.values, v)
		if p.s[p.i] == ')' {
			p.i++
			return t, nil
		}
		if op != opIn {
			return filterTerm{}, p.fail(p.i, "%s takes one value; to match any of several write in(%s,value1,value2), or quote a value that holds ','",
				op, short(attr))
		}
	}
}

// op reads an operator name and the '(' after it.
func (p *filterScanner) op() (filterOp, error) {
	// The name runs to the '(' (or to where one should be), so that a
	// misspelt operator such as not-eq is quoted whole.
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(`(),:'"\`, rune(p.s[p.i])) && !isSpace(p.s, p.i) {
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" {
		switch {
		case p.i == len(p.s) || p.s[p.i] == ':':
			return 0, p.fail(p.i, "empty term: join terms with a single ':', and do not start or end the filter with one")
		case isSpace(p.s, p.i):
			return 0, p.fail(p.i, "whitespace before the term; a filter has none outside its values")
		}
		return 0, p.fail(p.i, "expected an operator (%s), found %s", allOps, p.char(p.i))
	}
	op, ok := lookupOp(name)
	if !ok {
		hint := ""
		if _, lower := lookupOp(strings.ToLower(name)); lower {
			hint = " (operators are written in lower case)"
		}
		return 0, p.fail(start, "unknown operator %q%s; the operators are %s", short(name), hint, allOps)
	}
	switch {
	case p.i == len(p.s):
		return 0, p.fail(p.i, "the filter ends after the operator %s; write %s(attribute,value)", op, op)
	case p.s[p.i] != '(':
		return 0, p.fail(p.i, "expected '(' after the operator %s, found %s", op, p.char(p.i))
	}
	p.i++
	return op, nil
}

// attribute reads the attribute name after '(' and leaves p.i at the ','
// that follows it.
func (p *filterScanner) attribute(op filterOp) (string, error) {
	start := p.i
	for p.i < len(p.s) && isAttrByte(p.s[p.i]) {
		p.i++
	}
	attr := p.s[start:p.i]
	switch {
	case attr != "" && !isLetter(attr[0]) && attr[0] != '_':
		return "", p.fail(start, "the attribute %q does not start with a letter or '_'", short(attr))
	case p.i == len(p.s):
		return "", p.unclosed()
	case attr == "" && (p.s[p.i] == '"' || p.s[p.i] == '\''):
		return "", p.fail(p.i, "attribute names are not quoted; write %s(attribute,value)", op)
	case attr == "":
		return "", p.fail(p.i, "expected an attribute name after %s(, found %s", op, p.char(p.i))
	case p.s[p.i] == ',':
		return attr, nil
	case p.s[p.i] == ')':
		return "", p.fail(p.i, "%s(%s) has no value; write %s(%s,value)", op, short(attr), op, short(attr))
	}
	return "", p.fail(p.i, "unexpected %s after the attribute %q; attribute names hold letters, digits, '_', '.' and '-'",
		p.char(p.i), short(attr))
}

// value reads one value and leaves p.i at the ',' or ')' after it.
func (p *filterScanner) value() (string, error) {
	switch {
	case p.i == len(p.s):
		return "", p.unclosed()
	case p.s[p.i] == '"' || p.s[p.i] == '\'':
		return p.quoted()
	case isSpace(p.s, p.i):
		return "", p.fail(p.i, "the value starts with whitespace, which the service may keep or drop (its guide says both); "+
			"remove it, or quote the value if the space is meant")
	}
	start := p.i
	k := strings.IndexAny(p.s[start:], `,()'"\`)
	if k < 0 {
		return "", p.unclosed()
	}
	p.i = start + k
	v := p.s[start:p.i]
	switch c := p.s[p.i]; {
	case c == '(' || c == '\'' || c == '"' || c == '\\':
		return "", p.fail(p.i, "%s in the unquoted value %q; quote the value, e.g. \"a(b)\" or 'it\\'s'", p.char(p.i), short(v+string(c)))
	case v == "":
		return "", p.fail(p.i, "missing value; write the empty value as \"\"")
	}
	if r, _ := utf8.DecodeLastRuneInString(v); unicode.IsSpace(r) {
		return "", p.fail(p.i-1, "the value %q ends with whitespace, which the service may keep or drop; "+
			"remove it, or quote the value if the space is meant", short(v))
	}
	return v, nil
}

// quoted reads a value in ' or " quotes, where a backslash escapes the next
// character, and checks that ',' or ')' follows it.
func (p *filterScanner) quoted() (string, error) {
	open, q := p.i, p.s[p.i]
	escaped := false
	end := -1
	for j := open + 1; j < len(p.s) && end < 0; j++ {
		switch p.s[j] {
		case '\\':
			escaped = true
			j++
		case q:
			end = j
		}
	}
	if end < 0 {
		return "", p.fail(open, "the value quoted with %c here has no closing %c (a \\ escapes the character after it)", q, q)
	}
	v := p.s[open+1 : end]
	if escaped {
		var b strings.Builder
		b.Grow(len(v))
		for j := 0; j < len(v); j++ {
			if v[j] == '\\' {
				j++
			}
			b.WriteByte(v[j])
		}
		v = b.String()
	}
	p.i = end + 1
	switch {
	case p.i == len(p.s):
		return "", p.unclosed()
	case p.s[p.i] != ',' && p.s[p.i] != ')':
		return "", p.fail(p.i, "unexpected %s after the quoted value; a quoted value is followed by ',' or ')'", p.char(p.i))
	}
	return v, nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isAttrByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// isSpace reports whether a whitespace character starts at s[i].
func isSpace(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}
