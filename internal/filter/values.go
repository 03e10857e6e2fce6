package filter

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Values: unquoted, single-quoted or double-quoted, with backslash escapes
// inside quotes. The parser's grammar is in parse.go.

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
