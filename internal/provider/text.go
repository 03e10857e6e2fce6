package provider

import (
	"fmt"
	"strings"
)

// The words and numbers of messages, as every file of the package writes
// them.

// thousands renders n with comma separators: 20,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// backticks is a list of names as Markdown code: `a`, `b`.
func backticks(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func kib(n float64) string {
	if n < 1024 {
		return fmt.Sprintf("%.0f bytes", n)
	}
	return fmt.Sprintf("%.1f KiB", n/1024)
}
