package filter

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// termForm is appended to messages where the user seems unsure of the
// overall shape of a term.
const termForm = "a term has the form op(attribute,value)"

// Parse parses a filter expression; see the package documentation for the
// grammar. On failure it returns a nil Expr and a *SyntaxError describing the
// first problem found.
func Parse(s string) (Expr, error) {
	// Check the length first: it is the cheapest check, and there is no
	// point validating or parsing 1 MB the service will refuse anyway.
	if len(s) > maxLength {
		return nil, &SyntaxError{Input: s, Pos: maxLength, Msg: fmt.Sprintf(
			"filter is %d bytes long; the service accepts at most %d bytes, so use fewer or shorter terms", len(s), maxLength)}
	}
	return parse(s)
}

// maxSplitLength is the longest filter ParseSplittable accepts.
const maxSplitLength = 1 << 20

// parseSplittable parses a filter longer than the service takes in one
// request, up to MaxSplitLength bytes, which the provider splits over
// several requests by the values of an in(): the grammar is Parse's.
func parseSplittable(s string) (Expr, error) {
	if len(s) > maxSplitLength {
		return nil, &SyntaxError{Input: s, Pos: maxSplitLength, Msg: fmt.Sprintf(
			"filter is %d bytes long; the provider splits filters of at most %d bytes over several requests", len(s), maxSplitLength)}
	}
	return parse(s)
}

func parse(s string) (Expr, error) {
	parses.Add(1)
	if !utf8.ValidString(s) {
		off := invalidUTF8Offset(s)
		return nil, &SyntaxError{Input: s, Pos: off, Msg: fmt.Sprintf(
			"invalid UTF-8 at byte offset %d; filters must be UTF-8 text", off)}
	}
	if s == "" {
		return nil, &SyntaxError{Input: s, Pos: 0, Msg: "empty filter; " + termForm + ", e.g. eq(status,complete)"}
	}
	p := parser{s: s}
	var expr Expr
	for {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		expr = append(expr, t)
		if p.eof() {
			return expr, nil
		}
		if err := p.afterTerm(); err != nil {
			return nil, err
		}
	}
}

// invalidUTF8Offset returns the byte offset of the first invalid UTF-8
// sequence in s, or len(s) if there is none.
func invalidUTF8Offset(s string) int {
	for i, r := range s {
		// Ranging over a string yields RuneError with width 1 for invalid
		// bytes; a genuine U+FFFD in the input has width 3.
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}

// parser is a hand-written recursive-descent parser. The grammar is small
// enough that a separate lexer would only make the context-specific error
// messages harder to produce.
type parser struct {
	s   string
	pos int
}

func (p *parser) eof() bool { return p.pos >= len(p.s) }

func (p *parser) errf(pos int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Input: p.s, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// spaceAt reports whether a whitespace rune starts at byte offset i.
func (p *parser) spaceAt(i int) bool {
	if i >= len(p.s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(p.s[i:])
	return unicode.IsSpace(r)
}

// skipSpace returns the offset of the first non-space rune at or after i.
func (p *parser) skipSpace(i int) int {
	for i < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// maxShown is the longest operator, attribute or value, in bytes, that
// messages quote in full. Longer ones are cut so that a mistake in a long
// value does not produce a message several kilobytes long.
const maxShown = 40

// quoteShort quotes s for a message, cutting it at a character boundary
// after maxShown bytes and marking the cut with an ellipsis.
func quoteShort(s string) string {
	if len(s) <= maxShown {
		return fmt.Sprintf("%q", s)
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", s[:cut])
}

// char describes the rune at offset i for messages, e.g. `'-'` or `' '`.
func (p *parser) char(i int) string {
	r, _ := utf8.DecodeRuneInString(p.s[i:])
	return fmt.Sprintf("%q", r)
}

// afterTerm consumes the ":" after a term, or reports why the text after the
// term's ")" is not one. The caller has checked that input remains.
func (p *parser) afterTerm() error {
	switch c := p.s[p.pos]; {
	case c == ':':
		p.pos++
		return nil
	case c == ')':
		return p.errf(p.pos, "unbalanced parentheses: unexpected ')' after the end of the term; remove it")
	case p.spaceAt(p.pos):
		if p.skipSpace(p.pos) == len(p.s) {
			return p.errf(p.pos, "trailing whitespace at end of filter; remove it")
		}
		return p.errf(p.pos, "whitespace after ')'; join terms with ':' and no spaces, e.g. eq(a,1):eq(b,2)")
	default:
		return p.errf(p.pos, "unexpected %s after ')'; join terms with ':', e.g. eq(a,1):eq(b,2)", p.char(p.pos))
	}
}

// unclosed reports a term whose ")" is missing, at the end of the input.
func (p *parser) unclosed(start int) *SyntaxError {
	return p.errf(len(p.s), "unbalanced parentheses: missing ')' to close the term that starts at character %d",
		utf8.RuneCountInString(p.s[:start])+1)
}

// term parses one op(attribute,value...) term starting at p.pos.
func (p *parser) term() (Term, error) {
	start := p.pos
	if err := p.termStart(); err != nil {
		return Term{}, err
	}
	op, err := p.op()
	if err != nil {
		return Term{}, err
	}
	p.pos++ // '('
	attr, err := p.attribute(op, start)
	if err != nil {
		return Term{}, err
	}
	p.pos++ // ','
	var values []string
	for {
		v, err := p.value(start)
		if err != nil {
			return Term{}, err
		}
		values = append(values, v)
		// value has checked that p.pos is at ',' or ')'.
		if p.s[p.pos] == ')' {
			p.pos++
			return Term{Op: op, Attribute: attr, Values: values, Start: start, End: p.pos}, nil
		}
		if op != In {
			return Term{}, p.errf(p.pos,
				"%s takes exactly one value; to match any of several values use in(%s,value1,value2), "+
					"or quote a value that contains ','", op, attr)
		}
		p.pos++
	}
}

// termStart reports the problems that can occur where a term should begin:
// the input or a ":" has just been consumed.
func (p *parser) termStart() error {
	switch {
	case p.eof():
		// Parse rejects empty input itself, so this follows a ':'.
		return p.errf(p.pos-1, "trailing ':' with no term after it; remove the ':' or add a term")
	case p.s[p.pos] == ':':
		if p.pos == 0 {
			return p.errf(p.pos, "filter starts with ':'; remove it")
		}
		return p.errf(p.pos, "empty term between ':' and ':'; join terms with a single ':'")
	case p.spaceAt(p.pos):
		if p.pos == 0 {
			return p.errf(p.pos, "leading whitespace at start of filter; remove it")
		}
		return p.errf(p.pos, "whitespace after ':'; join terms with ':' and no spaces, e.g. eq(a,1):eq(b,2)")
	}
	return nil
}

// op parses an operator name and checks that "(" follows, leaving p.pos at
// the "(".
func (p *parser) op() (Op, error) {
	start := p.pos
	// Take everything up to a delimiter as the operator name, so that a
	// misspelt operator such as "not-eq" is reported as a whole.
	end := start
	for end < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[end:])
		if strings.ContainsRune("(),:'\"\\", r) || unicode.IsSpace(r) {
			break
		}
		end += size
	}
	name := p.s[start:end]
	if name == "" {
		switch p.s[start] {
		case '(':
			return "", p.errf(start, "missing operator before '('; %s with op one of %s", termForm, opList)
		case ')':
			return "", p.errf(start, "unbalanced parentheses: unexpected ')'")
		}
		return "", p.errf(start, "expected an operator (one of %s), found %s; %s", opList, p.char(start), termForm)
	}
	op := Op(name)
	if !op.Valid() {
		msg := "unknown operator " + quoteShort(name) + opHint(name) + "; use one of " + opList
		if end == len(p.s) || p.s[end] != '(' {
			msg += "; " + termForm
		}
		return "", p.errf(start, "%s", msg)
	}
	switch {
	case end == len(p.s):
		return "", p.errf(end, "unexpected end of filter: expected '(' after operator %s; %s", op, termForm)
	case p.s[end] == '(':
		p.pos = end
		return op, nil
	case p.spaceAt(end):
		return "", p.errf(end, "whitespace between operator %s and '('; remove it", op)
	default:
		return "", p.errf(end, "expected '(' after operator %s, found %s; %s", op, p.char(end), termForm)
	}
}

// isAttrStart and isAttrChar define attribute names: an ASCII letter or
// underscore, then letters, digits, underscores and dots.
func isAttrStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isAttrChar(c byte) bool {
	return isAttrStart(c) || '0' <= c && c <= '9' || c == '.' || c == '-'
}

// attribute parses the attribute name after "(", leaving p.pos at the ","
// that follows it. termStart is the offset of the term, for messages.
func (p *parser) attribute(op Op, termStart int) (string, error) {
	start := p.pos
	if p.eof() {
		return "", p.unclosed(termStart)
	}
	switch c := p.s[start]; {
	case c == ',':
		return "", p.errf(start, "missing attribute before ','; write %s", form(op))
	case c == ')':
		return "", p.errf(start, "missing attribute and value; write %s", form(op))
	case c == '"' || c == '\'':
		return "", p.errf(start, "attribute names are not quoted; write %s", form(op))
	case p.spaceAt(start):
		return "", p.errf(start, "whitespace before attribute name; remove it")
	case !isAttrStart(c):
		return "", p.errf(start, "attribute name must start with a letter or '_', found %s", p.char(start))
	}
	end := start + 1
	for end < len(p.s) && isAttrChar(p.s[end]) {
		end++
	}
	attr := p.s[start:end]
	p.pos = end
	switch {
	case p.eof():
		return "", p.unclosed(termStart)
	case p.s[end] == ',':
		return attr, nil
	case p.s[end] == ')':
		return "", p.errf(end, "missing value: %s takes an attribute and %s; write %s", op, arity(op), form(op))
	case p.spaceAt(end):
		return "", p.errf(end, "whitespace after attribute name %s; remove it", quoteShort(attr))
	default:
		return "", p.errf(end, "invalid character %s in attribute name %s; attribute names contain only "+
			"letters, digits, '_', '.' and '-'", p.char(end), quoteShort(attr))
	}
}

// arity describes how many values op takes, for messages.
func arity(op Op) string {
	if op == In {
		return "one or more values"
	}
	return "one value"
}

// form returns the usage of op for messages.
func form(op Op) string {
	if op == In {
		return "in(attribute,value1,value2,...)"
	}
	return string(op) + "(attribute,value)"
}

// parses counts the expressions parsed, for the tests that hold a read to
// one parse.
// parses counts the expressions parsed, for the tests that hold a read to
// one parse.
var parses atomic.Int64

// Parses is how many filter expressions this process has parsed.
func Parses() int64 { return parses.Load() }

// ValidAttribute reports whether name is an attribute name the grammar
// takes: an ASCII letter or _, then letters, digits, _, dots and -.
func ValidAttribute(name string) bool {
	if name == "" || !isAttrStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isAttrChar(name[i]) {
			return false
		}
	}
	return true
}
