package filter

// The grammar, both ways: its terms and expressions, how they print, and
// how the parser reads them (further down).

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxLength is the longest filter, in bytes, that Parse accepts. The service
// rejects filters longer than about 8 KB, so a longer one is better caught at
// plan time than as an HTTP error during apply.
const maxLength = 8192

// MaxTerms is the most terms the service takes in the filter of one
// request; it answers 400 to more.
const MaxTerms = 10

// TimestampLayout is the time.Parse layout of the timestamps the provider
// writes itself: ISO 8601 in UTC with exactly three fractional digits and a
// literal Z. ParseTimestamp reads every form the service takes.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Op is a filter operator.
type Op string

// The operators, in the order Ops returns them.
const (
	Eq   Op = "eq"
	Like Op = "like"
	In   Op = "in"
	Gt   Op = "gt"
	Ge   Op = "ge"
	Lt   Op = "lt"
	Le   Op = "le"
)

// Ops returns all operators in documentation order. The slice is new on each
// call, so callers may modify it.
func Ops() []Op {
	return []Op{Eq, Like, In, Gt, Ge, Lt, Le}
}

// Valid reports whether o is one of the operators. Operator names are
// case-sensitive: "EQ" is not valid.
func (o Op) Valid() bool {
	switch o {
	case Eq, Like, In, Gt, Ge, Lt, Le:
		return true
	}
	return false
}

// JoinOps lists ops for messages, in the order given: "eq, like, in".
func JoinOps(ops []Op) string {
	var b strings.Builder
	for i, o := range ops {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(o))
	}
	return b.String()
}

// opAliases are the spellings other query languages give the service's
// operators, where the edit distance alone cannot choose ("gte" is one edit
// from both ge and gt).
var opAliases = map[string]Op{"gte": Ge, "lte": Le}

// SuggestOp returns the operator that name most likely means, or "" when
// none is close. Besides Closest, it requires the first letter to match,
// since "neq" or "ne" would otherwise suggest an operator with the opposite
// meaning (eq, le, ge).
func SuggestOp(name string) Op {
	lower := strings.ToLower(name)
	if op, ok := opAliases[lower]; ok {
		return op
	}
	var same []string
	for _, o := range Ops() {
		if lower != "" && o[0] == lower[0] {
			same = append(same, string(o))
		}
	}
	return Op(Closest(name, same))
}

// opHint is what an error message about the unknown operator name adds
// after quoting it: ` (did you mean "ge"?)`, a note when only the case is
// wrong, or "" when no operator is close.
func opHint(name string) string {
	op := SuggestOp(name)
	switch {
	case op == "":
		return ""
	case Op(strings.ToLower(name)) == op:
		return fmt.Sprintf(" (operator names are lower-case; did you mean %q?)", op)
	}
	return fmt.Sprintf(" (did you mean %q?)", op)
}

// opList lists every operator, for the parser's messages.
var opList = JoinOps(Ops())

// Term is one op(attribute,value...) condition of an expression.
type Term struct {
	Op        Op
	Attribute string
	// Values holds the values with quotes and escapes removed. It has exactly
	// one element, except for In, which has one or more.
	Values []string
	// Start and End are the byte offsets of the term in the input Parse was
	// given, End exclusive, so input[Start:End] is the term's text. They are
	// zero for terms built with NewTerm.
	Start, End int
}

// Expr is a filter expression: the AND of its terms.
type Expr []Term

// NewTerm returns the term op(attribute,values...). It does not validate its
// arguments; a term with an invalid operator or attribute, or with the wrong
// number of values, formats to text that Parse rejects. values is copied, so
// the caller may reuse its slice.
func NewTerm(op Op, attribute string, values ...string) Term {
	return Term{Op: op, Attribute: attribute, Values: slices.Clone(values)}
}

// And returns the terms of a followed by the terms of b. The result never
// shares memory with a or b (Values are copied too), so appending to it or
// modifying it — as a client does when it adds keyset bounds to a user's
// filter — cannot corrupt either argument. Start and End are kept as they
// are: they describe each term's position in its own original input.
func And(a, b Expr) Expr {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := make(Expr, 0, len(a)+len(b))
	for _, e := range [2]Expr{a, b} {
		for _, t := range e {
			t.Values = slices.Clone(t.Values)
			out = append(out, t)
		}
	}
	return out
}

// String returns the canonical text of t, with each value formatted by
// QuoteValue.
func (t Term) String() string {
	var b strings.Builder
	t.writeTo(&b)
	return b.String()
}

func (t Term) writeTo(b *strings.Builder) {
	b.WriteString(string(t.Op))
	b.WriteByte('(')
	b.WriteString(t.Attribute)
	for _, v := range t.Values {
		b.WriteByte(',')
		b.WriteString(QuoteValue(v))
	}
	b.WriteByte(')')
}

// String returns the canonical text of e: its terms joined by ":". An empty
// expression formats as "", which Parse rejects: a filter has at least one
// term.
func (e Expr) String() string { return e.Render("") }

// Render returns the text of e like String, except that a term Parse read
// from src (one whose End lies within src) is written as it is spelled
// there, so that a value quoted in src stays quoted. Terms built by NewTerm,
// or taken from another text, need Start and End set to zero first.
func (e Expr) Render(src string) string {
	var b strings.Builder
	for i, t := range e {
		if i > 0 {
			b.WriteByte(':')
		}
		if t.End > 0 && t.End <= len(src) {
			b.WriteString(src[t.Start:t.End])
		} else {
			t.writeTo(&b)
		}
	}
	return b.String()
}

// QuoteValue returns v as it should appear in a filter: unquoted when the
// unquoted form parses back to exactly v, otherwise in double quotes with "
// and \ escaped by a backslash.
//
// Values are quoted when they are empty; contain , ( ) ' " \ : or *; contain
// any whitespace; contain invisible characters (controls, format characters
// and other non-printing runes); or are not valid UTF-8. Stars do not need
// quoting in the grammar, and unquoted interior spaces are legal, but quoting
// them makes built filters unambiguous to people reading plans. Quoting never
// changes meaning: in a like value a quoted * is still a wildcard.
//
// Colons are left unquoted on purpose: timestamps contain them, and the
// service documents its timestamp filters in the unquoted form
// ge(created_at,2026-01-01T00:00:00.000Z), so keyset bounds the client builds
// must look exactly like that.
//
// A value that is not valid UTF-8 is still quoted byte for byte, but Parse
// rejects the resulting filter because filters must be UTF-8.
func QuoteValue(v string) string {
	if !needsQuote(v) {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) + 2)
	b.WriteByte('"')
	// Escaping byte by byte is safe even for multi-byte runes (and for
	// invalid UTF-8): '"' and '\' are ASCII, and ASCII bytes never occur
	// inside a multi-byte UTF-8 sequence.
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte('"')
	return b.String()
}

func needsQuote(v string) bool {
	if v == "" || !utf8.ValidString(v) {
		return true
	}
	for _, r := range v {
		switch r {
		case ',', '(', ')', '\'', '"', '\\', '*':
			return true
		}
		// unicode.IsPrint is false for every space except U+0020, so the
		// IsSpace test matters only for that one; both are listed for
		// clarity.
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}

// SyntaxError describes why Parse rejected a filter. Every error Parse
// returns is a *SyntaxError.
type SyntaxError struct {
	Input string // the whole input given to Parse
	Pos   int    // byte offset of the problem in Input; len(Input) for "unexpected end"
	Msg   string // what is wrong and how to fix it
	// SeveralValues names the attribute of a one-value operator given
	// more than one value (eq(name,Acme, Inc.)): the caller, who knows
	// whether the attribute takes in(), can say which fix applies.
	SeveralValues string
}

// Error returns the message prefixed by the 1-based character (not byte)
// position and an excerpt of the input around it, e.g.
//
//	at character 11 near "eq(status, complete)": unquoted value " complete" has leading space; ...
func (e *SyntaxError) Error() string {
	// Terraform users count characters, not bytes, so convert. Clamp first
	// in case the error was constructed by hand with an out-of-range Pos.
	pos := min(max(e.Pos, 0), len(e.Input))
	char := utf8.RuneCountInString(e.Input[:pos]) + 1
	if near := e.Near(); near != "" {
		return fmt.Sprintf("at character %d near %q: %s", char, near, e.Msg)
	}
	return fmt.Sprintf("at character %d: %s", char, e.Msg)
}

// Near returns a short excerpt of the input around Pos for use in messages:
// at most 10 bytes before it and 20 from it, so at most 30 characters. It
// never splits a character and is always valid UTF-8: invalid input bytes
// are replaced by U+FFFD, which can make the excerpt longer in bytes than 30.
func (e *SyntaxError) Near() string {
	const before, after = 10, 20
	s := e.Input
	pos := min(max(e.Pos, 0), len(s))
	start := max(pos-before, 0)
	end := min(pos+after, len(s))
	// Move the cut points to character boundaries: start forward and end
	// backward, so the excerpt only shrinks. In valid UTF-8 a character has
	// at most 3 continuation bytes, so these loops are short.
	for start < end && !utf8.RuneStart(s[start]) {
		start++
	}
	for end > start && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	return strings.ToValidUTF8(s[start:end], "\uFFFD")
}

// The parser.

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

// maxSplitLength is the longest filter parseSplittable accepts.
const maxSplitLength = 1 << 20

// parseSplittable parses a filter longer than the service takes in one
// request, up to maxSplitLength bytes, which the provider splits over
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
			err := p.errf(p.pos,
				"%s takes exactly one value; to match any of several values use in(%s,value1,value2), "+
					"or quote a value that contains ','", op, attr)
			err.SeveralValues = attr
			return Term{}, err
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
// underscore, then letters, digits, underscores, hyphens and dots.
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

// Values: unquoted, single-quoted or double-quoted, with backslash escapes
// inside quotes. The parser's grammar is above.

// value parses one quoted or unquoted value after "(attribute," or ",",
// leaving p.pos at the "," or ")" that ends it (or at the end of the input).
func (p *parser) value(termStart int) (string, error) {
	if p.eof() {
		return "", p.unclosed(termStart)
	}
	switch c := p.s[p.pos]; {
	case c == '"' || c == '\'':
		return p.quoted(termStart)
	case c == ',' || c == ')':
		return "", p.errf(p.pos, `missing value; to match an empty string write ""`)
	case p.spaceAt(p.pos):
		// Spaces before a quote would otherwise be reported as a quote
		// inside an unquoted value, which hides the real problem.
		if i := p.skipSpace(p.pos); i < len(p.s) && (p.s[i] == '"' || p.s[i] == '\'') {
			return "", p.errf(p.pos, "whitespace before quoted value; remove it")
		}
	}
	return p.unquoted(termStart)
}

// unquoted parses an unquoted value. The caller has checked that it is not
// empty.
func (p *parser) unquoted(termStart int) (string, error) {
	start := p.pos
	end := start
	// Stop bytes are all ASCII, so a byte scan cannot split a rune.
	for end < len(p.s) && !strings.ContainsRune(",()'\"\\", rune(p.s[end])) {
		end++
	}
	v := p.s[start:end]
	p.pos = end
	shown := quoteShort(v)
	// Only suggest a quoted form when v is the whole value, or the
	// suggestion would be wrong, and when it is short enough to read.
	suggest := ""
	if end < len(p.s) && (p.s[end] == ',' || p.s[end] == ')') && len(v) <= maxShown {
		suggest = ": " + QuoteValue(v)
	}
	// Report problems in the order they occur in the input.
	if p.spaceAt(start) {
		return "", p.errf(start, "unquoted value %s has leading space; remove the space, or quote the value if "+
			"the space is intended%s", shown, suggest)
	}
	if end == len(p.s) {
		return "", p.unclosed(termStart)
	}
	where := "in unquoted value " + shown
	if v == "" {
		where = "at start of value"
	}
	switch c := p.s[end]; c {
	case '(':
		hint := ""
		if strings.Contains(v, ":") {
			hint = ", or add the missing ')' before ':'"
		}
		return "", p.errf(end, "unexpected '(' %s; quote values that contain parentheses%s", where, hint)
	case '\'', '"':
		return "", p.errf(end, `unexpected %s %s; to use quotes in a value, quote the whole value and `+
			`escape quotes inside it with \, e.g. "O'Brien" or 'say \'hi\''`, quoteName(c), where)
	case '\\':
		return "", p.errf(end, `unexpected \ %s; backslash escapes only work in a quoted value, `+
			`e.g. "a\\b"`, where)
	}
	// Find where trailing whitespace begins by trimming it off.
	if trimmed := strings.TrimRightFunc(v, unicode.IsSpace); len(trimmed) < len(v) {
		return "", p.errf(start+len(trimmed), "unquoted value %s has trailing space; remove the space, or quote "+
			"the value if the space is intended%s", shown, suggest)
	}
	return v, nil
}

// quoteName names a quote character in words, which reads better in
// messages than a quote character inside quotes.
func quoteName(q byte) string {
	if q == '\'' {
		return "single quote"
	}
	return "double quote"
}

// quoted parses a quoted value, removing the quotes and escapes.
func (p *parser) quoted(termStart int) (string, error) {
	open := p.pos
	q := p.s[open]
	i := open + 1
	// Most values contain no escapes; only build a new string when one is
	// found.
	var b strings.Builder
	escaped := false
	chunk := i // start of the text not yet copied to b
	for {
		if i >= len(p.s) {
			return "", p.errf(open, "unterminated quoted value: missing closing %s", quoteName(q))
		}
		c := p.s[i]
		if c == q {
			break
		}
		if c != '\\' {
			i++
			continue
		}
		if i+1 >= len(p.s) {
			return "", p.errf(i, `backslash at end of filter escapes nothing and leaves the quoted value `+
				`unterminated; to end a value with a backslash write \\ followed by the closing %s`, quoteName(q))
		}
		escaped = true
		b.WriteString(p.s[chunk:i])
		// Escape a whole rune, not a byte: the input is valid UTF-8.
		_, size := utf8.DecodeRuneInString(p.s[i+1:])
		b.WriteString(p.s[i+1 : i+1+size])
		i += 1 + size
		chunk = i
	}
	v := p.s[open+1 : i]
	if escaped {
		b.WriteString(p.s[chunk:i])
		v = b.String()
	}
	p.pos = i + 1
	switch {
	case p.eof():
		return "", p.unclosed(termStart)
	case p.s[p.pos] == ',' || p.s[p.pos] == ')':
		return v, nil
	case p.spaceAt(p.pos):
		return "", p.errf(p.pos, "whitespace after quoted value; remove it")
	default:
		return "", p.errf(p.pos, `unexpected %s after quoted value; expected ',' or ')' (to use the quote `+
			`character inside a value, escape it as \%c)`, p.char(p.pos), q)
	}
}

// The forms a timestamp value may take in a filter, as the vendor's
// filtering guide and endpoint references document them.
//
//   - A date, YYYY-MM-DD: midnight UTC at the start of that day.
//   - An integer number of milliseconds since 1970-01-01T00:00:00Z.
//   - ISO 8601 date and time, with or without milliseconds, in UTC (Z) or
//     with an offset (+hh:mm or -hh:mm): 2026-01-02T03:04:05Z,
//     2026-01-02T03:04:05.678Z, 2026-01-02T05:04:05+02:00.
//
// Every form is exact to the millisecond, the precision the service
// compares at; a value more precise than that is refused rather than
// rounded, so a filter never means less than it says.

// timestampForms describes the accepted forms, for messages.
const timestampForms = "a date (2026-01-02, midnight UTC), milliseconds since 1970-01-01 (1767312000000), " +
	"or ISO 8601 with or without milliseconds (2026-01-02T03:04:05Z, 2026-01-02T03:04:05.678Z, 2026-01-02T05:04:05+02:00)"

// maxEpochMillis is 9999-12-31T23:59:59.999Z: later instants have no
// four-digit year, so no other form could write them.
const maxEpochMillis = 253402300799999

// ParseTimestamp reads a timestamp value in any documented form (see
// timestampForms) and returns it in UTC. The error says what is wrong with
// the value and which forms are accepted.
func ParseTimestamp(v string) (time.Time, error) {
	switch {
	case v == "":
		return time.Time{}, fmt.Errorf("an empty value is not a timestamp; use %s", timestampForms)
	case allDigits(v):
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms > maxEpochMillis {
			return time.Time{}, fmt.Errorf("%q milliseconds since 1970 is past the year 9999", v)
		}
		return time.UnixMilli(ms).UTC(), nil
	case len(v) == len("2006-01-02"):
		if !shaped(v, "0000-00-00") {
			break
		}
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not a date that exists", v)
		}
		return t, nil
	case len(v) >= len("2006-01-02T15:04:05"):
		return parseDateTime(v)
	}
	return time.Time{}, fmt.Errorf("%q is not a timestamp; use %s", v, timestampForms)
}

// parseDateTime reads the ISO 8601 date-and-time forms.
func parseDateTime(v string) (time.Time, error) {
	const head = "0000-00-00T00:00:00" // the shape before fraction and zone
	if !shaped(v[:len(head)], head) {
		return time.Time{}, fmt.Errorf("%q is not a timestamp; use %s", v, timestampForms)
	}
	rest := v[len(head):]
	if len(rest) > 0 && rest[0] == '.' {
		digits := 0
		for digits+1 < len(rest) && '0' <= rest[digits+1] && rest[digits+1] <= '9' {
			digits++
		}
		if digits != 3 {
			return time.Time{}, fmt.Errorf("%q has %d fractional digits; write milliseconds with exactly three (.000) or none, since the service compares timestamps to the millisecond", v, digits)
		}
		rest = rest[4:]
	}
	offset := len(rest) == len("+00:00") && (rest[0] == '+' || rest[0] == '-') && shaped(rest[1:], "00:00")
	if rest != "Z" && !offset {
		return time.Time{}, fmt.Errorf("%q has no time zone the service reads; end it with Z (UTC) or an offset such as +02:00", v)
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date and time that exist", v)
	}
	return t.UTC(), nil
}

// IsDateOnly reports whether v is a timestamp written as a bare date
// (YYYY-MM-DD), which stands for midnight UTC: eq with it matches only that
// instant, not the whole day.
func IsDateOnly(v string) bool {
	_, err := time.Parse(time.DateOnly, v)
	return err == nil && len(v) == len(time.DateOnly) && shaped(v, "0000-00-00")
}

// FormatTimestamp writes t in TimestampLayout, the form the provider's own
// bounds use, at millisecond precision.
func FormatTimestamp(t time.Time) string {
	return t.UTC().Truncate(time.Millisecond).Format(TimestampLayout)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// shaped reports whether s has the shape of pattern, in which every 0
// stands for a digit and every other byte for itself.
func shaped(s, pattern string) bool {
	if len(s) != len(pattern) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if pattern[i] == '0' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != pattern[i] {
			return false
		}
	}
	return true
}
