// Package excerpt shortens text the service sent (an error page, a value of
// an unexpected type) for a message: one line, valid UTF-8, bounded, so that
// no answer can flood a diagnostic or a log line.
package excerpt

import (
	"strings"
	"unicode/utf8"
)

// MaxRunes bounds an excerpt.
const MaxRunes = 200

// Of is b on one line (runs of white space folded), invalid UTF-8
// replaced, cut at MaxRunes with an ellipsis.
func Of(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > MaxRunes {
		r := []rune(s)
		s = string(r[:MaxRunes]) + "…"
	}
	return s
}
