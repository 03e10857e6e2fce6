package filter

import (
	"fmt"
	"slices"
	"strings"
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
