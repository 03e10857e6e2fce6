package emulator

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// TestParseFilterErrors: each refusal says what is wrong, where, and how
// to write it instead.
func TestParseFilterErrors(t *testing.T) {
	for _, tc := range []struct {
		filter string
		want   []string // in the message
	}{
		{"", []string{"empty", "op(attribute,value)"}},
		{"eq(status", []string{"eq(status", "no closing ')'", "character 10"}},
		{"EQ(status,complete)", []string{`"EQ"`, "lower case"}},
		{"gte(created_at,2024-01-01)", []string{`"gte"`, "eq, like, in, gt, ge, lt, le", "character 1"}},
		{"not-eq(a,b)", []string{`"not-eq"`}},
		{"eq(status,complete);eq(payment,paid)", []string{"';'", "join terms with ':'", "character 20"}},
		{"eq(a,b):", []string{"ends with ':'"}},
		{":eq(a,b)", []string{"empty term"}},
		{"eq(a,b)::eq(c,d)", []string{"empty term", "character 9"}},
		{" eq(a,b)", []string{"whitespace before the term"}},
		{"eq(a,b) ", []string{"whitespace", "after the term"}},
		{"eq (a,b)", []string{"expected '(' after the operator eq"}},
		{"eq", []string{"ends after the operator eq"}},
		{"eq( a,b)", []string{"attribute name", "whitespace"}},
		{"eq(a ,b)", []string{"after the attribute \"a\""}},
		{`eq("a",b)`, []string{"not quoted"}},
		{"eq(1a,b)", []string{`"1a"`, "letter or '_'"}},
		{"eq(a)", []string{"eq(a) has no value"}},
		{"eq(a,)", []string{"missing value", `""`}},
		{"in(a,b,)", []string{"missing value", "character 8"}},
		{"eq(status, complete)", []string{"starts with whitespace", "quote the value", "character 11"}},
		{"eq(status,complete )", []string{`"complete "`, "ends with whitespace"}},
		{"eq(a,b,c)", []string{"eq takes one value", "in(a,value1,value2)"}},
		{"eq(a,b(c))", []string{"'('", "quote the value"}},
		{`eq(a,b\)`, []string{`'\\'`, "quote the value"}},
		{`eq(a,x"y")`, []string{`'"'`}},
		{`eq(a,"x"y)`, []string{"after the quoted value"}},
		{`eq(a,'x)`, []string{"no closing '"}},
		{`eq(a,"x\")`, []string{`no closing "`}},
		{"eq(a,\xff)", []string{"UTF-8", "character 6"}},
		{"eq(a," + strings.Repeat("x", maxFilterBytes) + ")", []string{"bytes long", "8192"}},
		{"eq(é,x)", []string{"attribute name", "'é'"}},
		{"eq(a,b):gt(ç,1)", []string{"character 12"}}, // characters, not bytes
	} {
		_, err := parseFilter(tc.filter)
		if err == nil {
			t.Errorf("%q accepted", tc.filter)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %q does not say %q", tc.filter, err, w)
			}
		}
	}
}

func TestParseFilterValues(t *testing.T) {
	for in, want := range map[string][][]string{
		`eq(name,'Food \'n Stuff')`:               {{"eq", "name", "Food 'n Stuff"}},
		`eq(a,"\\"):eq(b,"\"")`:                   {{"eq", "a", `\`}, {"eq", "b", `"`}},
		`eq(a,""):eq(b,'')`:                       {{"eq", "a", ""}, {"eq", "b", ""}},
		`eq(a," x, (y): z ")`:                     {{"eq", "a", " x, (y): z "}},
		`eq(a,'say "hi"')`:                        {{"eq", "a", `say "hi"`}},
		"in(id,a,\"b,c\",'d')":                    {{"in", "id", "a", "b,c", "d"}},
		"ge(created_at,2024-01-01T00:00:00.000Z)": {{"ge", "created_at", "2024-01-01T00:00:00.000Z"}},
		"eq(name,Jo Smith):like(email,*@x.org)":   {{"eq", "name", "Jo Smith"}, {"like", "email", "*@x.org"}},
		"eq(_a.b-c,x*y$|{}+/@)":                   {{"eq", "_a.b-c", "x*y$|{}+/@"}},
		"eq(name,Zoë)":                            {{"eq", "name", "Zoë"}},
		"eq(a,\"é\\ü\")":                          {{"eq", "a", "éü"}},
		"eq(contact.email,\"line\nbreak\")":       {{"eq", "contact.email", "line\nbreak"}},
		"eq(a,x\u00a0y)":                          {{"eq", "a", "x\u00a0y"}},
		"le(file_size,20953):gt(width,200)":       {{"le", "file_size", "20953"}, {"gt", "width", "200"}},
		"lt(a,1):le(a,2):gt(a,3):ge(a,4):eq(a,5)": {{"lt", "a", "1"}, {"le", "a", "2"}, {"gt", "a", "3"}, {"ge", "a", "4"}, {"eq", "a", "5"}},
		"in(status,pending,processing,complete)":  {{"in", "status", "pending", "processing", "complete"}},
		"like(name,*)":                            {{"like", "name", "*"}},
		"eq(a,'\"'):eq(b,\"'\")":                  {{"eq", "a", `"`}, {"eq", "b", "'"}},
		"eq(A9,x)":                                {{"eq", "A9", "x"}},
		"eq(a,\"x\")":                             {{"eq", "a", "x"}},
		"eq(a,)x)":                                nil, // refused: missing value
		"eq(a,\"x\"):eq(b,'y'):in(c,\"1\",'2',3)": {{"eq", "a", "x"}, {"eq", "b", "y"}, {"in", "c", "1", "2", "3"}},
		"eq(a,\u3000x)":                           nil, // ideographic space: whitespace
		"eq(a,x\u2003)":                           nil, // em space at the end
		"eq(a,\"\u3000x\")":                       {{"eq", "a", "\u3000x"}},
		"eq(a,b):eq(a,b):eq(a,b):eq(a,b):eq(a,b)": {{"eq", "a", "b"}, {"eq", "a", "b"}, {"eq", "a", "b"}, {"eq", "a", "b"}, {"eq", "a", "b"}},
		"eq(a,\\\")":                              nil,
		"in(a,\"x\" ,y)":                          nil,
		"eq(a,x):\teq(b,y)":                       nil,
		"eq(a,x)\u00a0":                           nil,
		"eq\u00a0(a,x)":                           nil,
		"in(a,'x','y'":                            nil,
		"eq(a,'x':eq(b,y)":                        nil,
		"eq(a,\"x\\\"":                            nil,
		"eq(a,\"x\"":                              nil,
		"eq(a,x":                                  nil,
		"eq(a,":                                   nil,
		"eq(a":                                    nil,
		"eq(":                                     nil,
		"(a,b)":                                   nil,
		")":                                       nil,
		",":                                       nil,
		"eq(a,b))":                                nil,
		"eq(a.b,c)x":                              nil,
		"is_null(a)":                              nil,
	} {
		got, err := parseFilter(in)
		switch {
		case want == nil && err == nil:
			t.Errorf("%q accepted as %q", in, termsOfEmulator(got))
		case want != nil && err != nil:
			t.Errorf("%q: %v", in, err)
		case want != nil && !equalTerms(termsOfEmulator(got), want):
			t.Errorf("%q read as %q, want %q", in, termsOfEmulator(got), want)
		}
	}
}

// parsersDisagree compares the emulator's reading of s with
// internal/filter's; "" when they agree. The one difference on purpose is
// an attribute with '-', which the vendor's guides use and internal/filter
// refuses (see the fixtures).
func parsersDisagree(s string) string {
	mine, errMine := parseFilter(s)
	theirs, errTheirs := filter.Parse(s)
	switch {
	case errMine != nil && errTheirs != nil:
		return ""
	case errMine == nil && errTheirs == nil:
		if !equalTerms(termsOfEmulator(mine), termsOfFilter(theirs)) {
			return fmt.Sprintf("emulator reads %q, internal/filter %q", termsOfEmulator(mine), termsOfFilter(theirs))
		}
		return ""
	case errMine == nil:
		for _, t := range mine {
			if strings.Contains(t.attr, "-") {
				return ""
			}
		}
		return fmt.Sprintf("emulator reads %q, internal/filter refuses: %v", termsOfEmulator(mine), errTheirs)
	}
	return fmt.Sprintf("internal/filter reads %q, emulator refuses: %v", termsOfFilter(theirs), errMine)
}

// filterPieces are what the random filters are made of: the grammar's
// delimiters, operators right and wrong, attributes, values, whitespace of
// several kinds and non-ASCII text.
var filterPieces = []string{
	"eq", "like", "in", "gt", "ge", "lt", "le", "EQ", "gte", "is_null",
	"(", ")", ",", ":", "'", `"`, `\`, "*", "-", ".", "_",
	"status", "contact.name", "location-name", "9a", "created_at",
	"complete", "Jo Smith", "2024-01-01T00:00:00.000Z", "é", "ü", "a,b",
	" ", "\t", "\n", "\u00a0", "\u3000", "\xff", "",
}

// randomFilter returns a valid filter, written by internal/filter, then
// perhaps damaged by inserting, deleting or replacing pieces.
func randomFilter(rng *rand.Rand) string {
	var e filter.Expr
	for range 1 + rng.IntN(3) {
		op := filter.Ops()[rng.IntN(7)]
		attr := []string{"status", "contact.name", "a_b", "x9"}[rng.IntN(4)]
		n := 1
		if op == filter.In {
			n += rng.IntN(3)
		}
		var vals []string
		for range n {
			var b strings.Builder
			for range rng.IntN(4) {
				b.WriteString(filterPieces[rng.IntN(len(filterPieces))])
			}
			vals = append(vals, b.String())
		}
		e = append(e, filter.NewTerm(op, attr, vals...))
	}
	s := e.String()
	for range rng.IntN(3) {
		i := rng.IntN(len(s) + 1)
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		piece := filterPieces[rng.IntN(len(filterPieces))]
		switch rng.IntN(3) {
		case 0:
			s = s[:i] + piece + s[i:]
		case 1:
			j := min(i+1+rng.IntN(3), len(s))
			s = s[:i] + s[j:]
		default:
			j := min(i+1, len(s))
			s = s[:i] + piece + s[j:]
		}
	}
	return s
}

// TestParsersAgree compares the two grammars on random filters, valid and
// damaged: they must accept the same ones and read them the same way.
func TestParsersAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 7))
	accepted := 0
	for range 20000 {
		s := randomFilter(rng)
		if d := parsersDisagree(s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
		if _, err := parseFilter(s); err == nil {
			accepted++
		}
	}
	if accepted < 2000 || accepted > 18000 {
		t.Errorf("%d of 20000 random filters accepted; the mix proves little", accepted)
	}
}

// FuzzParsersAgree is TestParsersAgree for go test -fuzz; the vendor's
// filters are its seeds.
func FuzzParsersAgree(f *testing.F) {
	for _, s := range []string{"eq(a,b)", `in(id,"x, y",z)`, "eq(location-name,London)", `eq(name,'Food \'n Stuff')`, "eq(a, b)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := parsersDisagree(s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
	})
}

// TestLikePattern checks the like matcher against the oracle's regular
// expressions on random patterns and texts.
func TestLikePattern(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", "*", "é", "ab"}
	word := func(n int, stars bool) string {
		var b strings.Builder
		for range n {
			p := alphabet[rng.IntN(len(alphabet))]
			if p == "*" && !stars {
				p = "a"
			}
			b.WriteString(p)
		}
		return b.String()
	}
	for range 20000 {
		pattern, s := word(rng.IntN(6), true), word(rng.IntN(8), false)
		lp := compileLike(pattern)
		if got, want := lp.match(s), likeRegexp(pattern).MatchString(s); got != want {
			t.Fatalf("like %q on %q: %v, want %v", pattern, s, got, want)
		}
	}
}

// TestCanonicalTerms: cache keys are equal exactly when the terms are.
func TestCanonicalTerms(t *testing.T) {
	canon := func(f string) string {
		ts, err := parseFilter(f)
		if err != nil {
			t.Fatal(err)
		}
		tm := term{src: ts[0]}
		return tm.canon()
	}
	for _, same := range [][2]string{
		{`eq(name,x)`, `eq(name,"x")`},
		{`eq(name,x)`, `eq(name,'x')`},
		{`in(id,a,b)`, `in(id,"a",'b')`},
		{`eq(a,"it's")`, `eq(a,'it\'s')`},
	} {
		if canon(same[0]) != canon(same[1]) {
			t.Errorf("%s and %s have different keys", same[0], same[1])
		}
	}
	for _, diff := range [][2]string{
		{`in(id,"a,b")`, `in(id,a,b)`},
		{`eq(a,b)`, `eq(a,"b ")`},
		{`eq(a,b)`, `like(a,b)`},
		{`eq(a,"b),eq(c")`, `eq(a,b)`},
		{`eq(a,x)`, `eq(b,x)`},
	} {
		if canon(diff[0]) == canon(diff[1]) {
			t.Errorf("%s and %s share the key %s", diff[0], diff[1], canon(diff[0]))
		}
	}
}

// BenchmarkParseFilter compares the emulator's parser with internal/filter's
// on a keyset page's filter.
func BenchmarkParseFilter(b *testing.B) {
	const f = `ge(created_at,2024-01-01T01:00:00.000Z):eq(status,complete):like(email,"*@example.com")`
	b.Run("emulator", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseFilter(f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("internal-filter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := filter.Parse(f); err != nil {
				b.Fatal(err)
			}
		}
	})
}
