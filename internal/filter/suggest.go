package filter

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the name in names that name most likely misspells, for a
// "did you mean" hint, or "" when none is close enough. Names are compared
// case-insensitively by their edit distance, counting an insertion, a
// deletion, a substitution or a swap of two neighbouring characters as one
// edit. A name is close when at most a third of name's characters (and at
// most two) are edited, so that a short name gets no far-fetched hint; when
// two names are equally close, neither is suggested.
func Closest(name string, names []string) string {
	limit := min(2, utf8.RuneCountInString(name)/3)
	lower := strings.ToLower(name)
	best, bestDist, tie := "", limit+1, false
	for _, n := range names {
		d := editDistance(lower, strings.ToLower(n))
		switch {
		case d < bestDist:
			best, bestDist, tie = n, d, false
		case d == bestDist && n != best:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b in
// runes: the Levenshtein distance with swaps of adjacent runes counting as
// one edit.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// Three rows of the dynamic programming table: two back, one back, now.
	prev2, prev, cur := make([]int, len(t)+1), make([]int, len(t)+1), make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
