package filter

// MatchLike reports whether s matches the like pattern, in which every *
// matches any run of characters (including none) and every other character
// matches itself, case-sensitively. There is no escape for a literal *.
//
// It uses the greedy two-pointer algorithm: on a mismatch it only retries
// from the most recent *, never from earlier ones, because a later * can
// absorb anything an earlier one could. That bounds the work by
// len(pattern)*len(s) in the worst case and makes it close to linear in
// practice, where a backtracking matcher would be exponential on patterns
// such as *a*a*a*a*b — which users control, so the emulator must not choke
// on them.
//
// Comparing bytes rather than runes is correct for valid UTF-8: a literal in
// the pattern starts with a lead byte, which cannot match a continuation
// byte in s, so a literal never matches the middle of a character.
func MatchLike(pattern, s string) bool {
	p, i := 0, 0
	star := -1 // index in pattern of the last * seen, or -1
	mark := 0  // index in s where that * currently stops matching
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			// Let the * match nothing for now; remember where to resume.
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			// Mismatch: let the last * swallow one more byte and retry the
			// literal text after it.
			mark++
			p, i = star+1, mark
		default:
			return false
		}
	}
	// s is used up; what is left of the pattern must be all stars.
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
