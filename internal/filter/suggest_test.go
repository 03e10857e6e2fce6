package filter

import (
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"status", "status", 0},
		{"stauts", "status", 1}, // a swap is one edit
		{"gte", "ge", 1}, {"gte", "gt", 1}, {"satus", "status", 1}, {"statuss", "status", 1},
		{"kitten", "sitting", 3}, {"neq", "eq", 1}, {"contains", "in", 6},
		{"größe", "grösse", 2}, // counted in runes
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"account_id", "created_at", "email", "status", "updated_at", "with_tax", "without_tax"}
	for _, tc := range []struct{ name, want string }{
		{"stauts", "status"},          // swap
		{"statu", "status"},           // deletion
		{"Status", "status"},          // case only
		{"crated_at", "created_at"},   // one missing letter
		{"creatd_att", "created_at"},  // two edits in ten letters
		{"emial", "email"},            // swap in five letters
		{"colour", ""},                // nothing close
		{"stt", ""},                   // three edits
		{"id", ""},                    // too short for any edit
		{"with_taxx", "with_tax"},     // closer than without_tax
		{"withot_tax", "without_tax"}, // closer than with_tax
		{"", ""},
	} {
		if got := Closest(tc.name, names); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	// Equally close names: no guess.
	if got := Closest("abcd", []string{"abce", "abcf"}); got != "" {
		t.Errorf("tie: Closest = %q, want none", got)
	}
}

func TestSuggestOp(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Op
	}{
		{"gte", Ge}, {"lte", Le}, {"GTE", Ge}, {"EQ", Eq}, {"Like", Like}, {"lik", Like}, {"liek", Like}, //nolint:misspell // a typo on purpose
		{"ne", ""}, {"neq", ""}, {"contains", ""}, {"equals", ""}, {"not", ""}, {"", ""}, {"g", ""},
	} {
		if got := SuggestOp(tc.name); got != tc.want {
			t.Errorf("SuggestOp(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestOpHint(t *testing.T) {
	for name, want := range map[string]string{
		"gte":      ` (did you mean "ge"?)`,
		"EQ":       ` (operator names are lower-case; did you mean "eq"?)`,
		"contains": "",
	} {
		if got := opHint(name); got != want {
			t.Errorf("OpHint(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestParseSuggestsOperators(t *testing.T) {
	for in, want := range map[string]string{
		"gte(a,b)":      `at character 1 near "gte(a,b)": unknown operator "gte" (did you mean "ge"?); use one of eq, like, in, gt, ge, lt, le`,
		"lte(a,b)":      `unknown operator "lte" (did you mean "le"?); use one of`,
		"liek(a,b)":     `unknown operator "liek" (did you mean "like"?); use one of`, //nolint:misspell // a typo on purpose
		"EQ(a,b)":       `unknown operator "EQ" (operator names are lower-case; did you mean "eq"?); use one of`,
		"contains(a,b)": `unknown operator "contains"; use one of eq, like`,
		"neq(a,b)":      `unknown operator "neq"; use one of eq, like`,
		"ne(a,b)":       `unknown operator "ne"; use one of eq, like`,
		"gte":           `unknown operator "gte" (did you mean "ge"?); use one of eq, like, in, gt, ge, lt, le; a term has the form`,
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", in, err, want)
		}
	}
}
