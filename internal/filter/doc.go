// Package filter parses, validates and formats the filter expressions of the
// commerce REST service, and reads the dates and timestamps they take.
//
// The package is shared by the Terraform provider (which validates
// user-written filters at plan time and builds filters on the user's behalf)
// and the listing engine (which adds its keyset and window bounds to them:
// Parsed.With, narrowed per window).
// The service emulator reads filters with a parser of its own, so that a
// misreading of the grammar here cannot pass on both sides; its tests read
// the vendor's documented filters with both. This package knows nothing
// about HTTP or Terraform; this comment is the reference for the filter
// syntax.
//
// # Expressions and terms
//
// A filter expression is one or more terms joined by ":", which means AND:
//
//	eq(status,complete):ge(created_at,2026-01-01T00:00:00.000Z)
//
// A term is an operator applied to an attribute and a value:
//
//	op(attribute,value)
//
// except for "in", which takes one or more values and matches any of them:
//
//	in(status,pending,processing,complete)
//
// # Operators
//
// Operator names are lower-case; "EQ" or "Eq" are rejected.
//
//	eq    attribute equals value
//	like  attribute matches value, where every * matches any run of characters
//	in    attribute equals any of the values (at least one)
//	gt    attribute is greater than value
//	ge    attribute is greater than or equal to value
//	lt    attribute is less than value
//	le    attribute is less than or equal to value
//
// eq, like, gt, ge, lt and le take exactly one value; in takes at least one.
//
// In a like value every * is a wildcard matching any run of characters,
// including none, and matching is case-sensitive: like(email,*@example.com)
// matches "jo@example.com" but not "jo@Example.com". There is no way to match
// a literal * with like, and quoting the value does not change that: "*" and *
// are the same wildcard. Use eq to match a value containing a literal *.
//
// # Attributes
//
// An attribute name is an ASCII letter or underscore followed by any number
// of ASCII letters, digits, underscores, hyphens and dots (dots select
// nested fields, as in shipping_address.country). Attribute names are never
// quoted.
//
// # Values
//
// A value is either unquoted or quoted.
//
// An unquoted value is one or more characters, none of which is
// , ( ) ' " or \. Colons are allowed, so timestamps need no quoting: the ":"
// that joins terms only counts between terms, outside parentheses. Spaces are
// allowed inside an unquoted value (eq(name,Jo Smith)) but not at its start
// or end: eq(status, complete) is an error rather than a silently trimmed
// value, because the service would compare against " complete". Quote the
// value if the leading or trailing space is intended.
//
// A quoted value is enclosed in single quotes ('...') or double quotes
// ("..."). Inside, a backslash escapes the character after it, whatever that
// character is, so \" \' and \\ stand for ", ' and \; the backslash itself is
// dropped. Every other character, including , ( ) : * and newlines, stands
// for itself. "" (or two single quotes) is the empty string. A quoted value
// must be closed
// with the quote character that opened it, and a backslash cannot be the
// last character of the filter.
//
// To write an empty value, a value with surrounding spaces, or a value
// containing , ( ) ' " or \, quote it. QuoteValue does this for you.
//
// # Whitespace
//
// Whitespace (any Unicode space character) is only allowed inside quoted
// values and inside unquoted values. Anywhere else — at the start or end of
// the filter, around ":", "(", ",", ")" or between an operator and "(" — it is
// an error, so that a filter means exactly what it says.
//
// # Limits and errors
//
// A filter must be valid UTF-8 and at most maxLength (8192) bytes long, the
// limit the service enforces. Parse reports every problem as a *SyntaxError
// carrying the byte offset of the problem and a message that says how to fix
// it, for example:
//
//	at character 21 near "complete):gte(created_at,2026-": unknown operator "gte" (did you mean "ge"?); use one of eq, like, in, gt, ge, lt, le
//
// Error positions in messages are counted in characters from 1; Pos is the
// 0-based byte offset.
//
// # Grammar
//
// In EBNF, where any-char is any Unicode character and no whitespace may
// appear between tokens:
//
//	expression = term { ":" term } .
//	term       = op "(" attribute "," value { "," value } ")" .   (several values only for in)
//	op         = "eq" | "like" | "in" | "gt" | "ge" | "lt" | "le" .
//	attribute  = ( letter | "_" ) { letter | digit | "_" | "." | "-" } .
//	value      = unquoted | quoted .
//	unquoted   = uchar { uchar } .             (first and last uchar not whitespace)
//	uchar      = any-char except , ( ) ' " \ .
//	quoted     = "'" { qchar | escape } "'" | `"` { qchar | escape } `"` .
//	qchar      = any-char except \ and the enclosing quote .
//	escape     = `\` any-char .
//
// # Building filters
//
// NewTerm, And and String build filter text from values; Render writes the
// terms Parse read as they were spelled. String quotes a value only when it
// has to or when quoting makes it clearer (see QuoteValue), and any
// expression built from valid operators and attribute names and arbitrary
// valid UTF-8 values parses back to the same operators, attributes and
// values, as long as the text is within maxLength (quoting can make a filter
// longer than the one it was parsed from). Values that are not valid UTF-8
// are still formatted, but Parse rejects the result: filters are UTF-8 text.
//
// Timestamps are written in TimestampLayout (ISO 8601 with milliseconds in
// UTC, e.g. 2026-01-01T00:00:00.000Z) by FormatTimestamp; ParseTimestamp
// reads every form the service takes.
package filter
