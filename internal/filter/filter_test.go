package filter

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// sameTerms reports whether a and b have equal operators, attributes and
// values, ignoring offsets (which built terms do not have).
func sameTerms(a, b Expr) bool {
	return slices.EqualFunc(a, b, func(x, y Term) bool {
		return x.Op == y.Op && x.Attribute == y.Attribute && slices.Equal(x.Values, y.Values)
	})
}

// term is a short name for NewTerm, for compact tables.
func term(op Op, attr string, values ...string) Term { return NewTerm(op, attr, values...) }

func TestOps(t *testing.T) {
	want := []Op{"eq", "like", "in", "gt", "ge", "lt", "le"}
	if got := Ops(); !slices.Equal(got, want) {
		t.Fatalf("Ops() = %v, want %v", got, want)
	}
	// Callers may modify the result without affecting later calls.
	Ops()[0] = "xx"
	if Ops()[0] != Eq {
		t.Fatal("Ops() returned a shared slice")
	}
	for _, o := range want {
		if !o.Valid() {
			t.Errorf("%q.Valid() = false", o)
		}
	}
	for _, o := range []Op{"", "EQ", "Eq", "gte", "ne", "like ", "in(", "equal"} {
		if o.Valid() {
			t.Errorf("%q.Valid() = true", o)
		}
	}
}

func TestJoinOps(t *testing.T) {
	if got, want := JoinOps(Ops()), "eq, like, in, gt, ge, lt, le"; got != want {
		t.Errorf("JoinOps(Ops()) = %q, want %q", got, want)
	}
	if got := JoinOps([]Op{Ge, Lt}); got != "ge, lt" {
		t.Errorf("JoinOps(ge, lt) = %q", got)
	}
	if got := JoinOps(nil); got != "" {
		t.Errorf("JoinOps(nil) = %q", got)
	}
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		in   string
		want Expr
	}{
		{"eq(status,complete)", Expr{term(Eq, "status", "complete")}},
		{"eq(status,complete):ge(created_at,2026-01-01T00:00:00.000Z)", Expr{
			term(Eq, "status", "complete"),
			term(Ge, "created_at", "2026-01-01T00:00:00.000Z"),
		}},
		// Colons inside values do not split terms.
		{"lt(updated_at,2026-12-31T23:59:59.999Z)", Expr{term(Lt, "updated_at", "2026-12-31T23:59:59.999Z")}},
		{"eq(a,b:c):eq(d,e)", Expr{term(Eq, "a", "b:c"), term(Eq, "d", "e")}},
		{"eq(a,::)", Expr{term(Eq, "a", "::")}},
		// Chains of several terms, every operator.
		{"eq(a,1):like(b,*x*):in(c,1,2,3):gt(d,4):ge(e,5):lt(f,6):le(g,7)", Expr{
			term(Eq, "a", "1"), term(Like, "b", "*x*"), term(In, "c", "1", "2", "3"),
			term(Gt, "d", "4"), term(Ge, "e", "5"), term(Lt, "f", "6"), term(Le, "g", "7"),
		}},
		{"in(status,pending)", Expr{term(In, "status", "pending")}},
		{"in(status,pending,processing,complete,cancelled)", Expr{
			term(In, "status", "pending", "processing", "complete", "cancelled"),
		}},
		{`in(name,"a,b",'c)d',e,"")`, Expr{term(In, "name", "a,b", "c)d", "e", "")}},
		// Attributes.
		{"eq(_x,1)", Expr{term(Eq, "_x", "1")}},
		{"eq(shipping_address.country,DE)", Expr{term(Eq, "shipping_address.country", "DE")}},
		{"eq(A9.b_C.d0,1)", Expr{term(Eq, "A9.b_C.d0", "1")}},
		// Unquoted values: interior spaces, non-ASCII, punctuation.
		{"eq(name,Jo Smith)", Expr{term(Eq, "name", "Jo Smith")}},
		{"eq(name,Müller)", Expr{term(Eq, "name", "Müller")}},
		{"eq(name,🎉)", Expr{term(Eq, "name", "🎉")}},
		{"like(email,*@example.com)", Expr{term(Like, "email", "*@example.com")}},
		{"eq(price,-1.5e3)", Expr{term(Eq, "price", "-1.5e3")}},
		{"eq(x,a=b&c;d|e!%$#@[]{}<>?/~`^+)", Expr{term(Eq, "x", "a=b&c;d|e!%$#@[]{}<>?/~`^+")}},
		// Quoted values.
		{`eq(name,"")`, Expr{term(Eq, "name", "")}},
		{`eq(name,'')`, Expr{term(Eq, "name", "")}},
		{`eq(name," ")`, Expr{term(Eq, "name", " ")}},
		{`eq(name," lead")`, Expr{term(Eq, "name", " lead")}},
		{`eq(name,"a,b(c)d:e*f'g")`, Expr{term(Eq, "name", "a,b(c)d:e*f'g")}},
		{`eq(name,'a,b(c)d:e*f"g')`, Expr{term(Eq, "name", `a,b(c)d:e*f"g`)}},
		{`eq(name,"say \"hi\"")`, Expr{term(Eq, "name", `say "hi"`)}},
		{`eq(name,'O\'Brien')`, Expr{term(Eq, "name", "O'Brien")}},
		{`eq(name,"a\\b")`, Expr{term(Eq, "name", `a\b`)}},
		{`eq(name,"\\")`, Expr{term(Eq, "name", `\`)}},
		// A backslash escapes any character, itself dropped.
		{`eq(name,"\a\,\(\)\:\*\'")`, Expr{term(Eq, "name", `a,():*'`)}},
		{`eq(name,"\ü\🎉")`, Expr{term(Eq, "name", "ü🎉")}},
		{"eq(name,\"line1\nline2\")", Expr{term(Eq, "name", "line1\nline2")}},
		{"eq(name,\"\\\n\")", Expr{term(Eq, "name", "\n")}},
		{`eq(a,"x"):eq(b,'y'):eq(c,z)`, Expr{term(Eq, "a", "x"), term(Eq, "b", "y"), term(Eq, "c", "z")}},
		// Operator names are also valid attribute names and values.
		{"eq(eq,eq)", Expr{term(Eq, "eq", "eq")}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): unexpected error: %v", tt.in, err)
			continue
		}
		if !sameTerms(got, tt.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
		checkOffsets(t, tt.in, got)
	}
}

// checkOffsets verifies that the terms' offsets tile the input: each term's
// text re-parses to that term alone, and terms are separated by single ':'.
func checkOffsets(t *testing.T, in string, e Expr) {
	t.Helper()
	next := 0
	for i, tm := range e {
		if tm.Start != next {
			t.Errorf("Parse(%q): term %d starts at %d, want %d", in, i, tm.Start, next)
			return
		}
		if tm.End <= tm.Start || tm.End > len(in) || in[tm.End-1] != ')' {
			t.Errorf("Parse(%q): term %d has bad End %d", in, i, tm.End)
			return
		}
		single, err := Parse(in[tm.Start:tm.End])
		if err != nil || len(single) != 1 || !sameTerms(single, e[i:i+1]) {
			t.Errorf("Parse(%q): term %d text %q re-parses to %v, %v", in, i, in[tm.Start:tm.End], single, err)
		}
		next = tm.End + 1 // skip ':'
		if i < len(e)-1 && in[tm.End] != ':' {
			t.Errorf("Parse(%q): term %d not followed by ':'", in, i)
		}
	}
	if last := e[len(e)-1].End; last != len(in) {
		t.Errorf("Parse(%q): last term ends at %d, want %d", in, last, len(in))
	}
}

func TestParseOffsets(t *testing.T) {
	in := `eq(a,1):in(b,"x:y",z):like(c,*)`
	got, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 7}, {8, 21}, {22, 31}}
	for i, tm := range got {
		if tm.Start != want[i][0] || tm.End != want[i][1] {
			t.Errorf("term %d offsets = %d,%d, want %d,%d", i, tm.Start, tm.End, want[i][0], want[i][1])
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		pos  int
		msg  string
	}{
		// Whole input.
		{"empty", "", 0, "empty filter"},
		{"too long", "eq(a," + strings.Repeat("x", maxLength) + ")", maxLength, "at most 8192 bytes"},
		{"invalid UTF-8", "eq(a,b\xffc)", 6, "invalid UTF-8 at byte offset 6"},
		{"invalid UTF-8 in quotes", "eq(a,\"\xc3\")", 6, "invalid UTF-8 at byte offset 6"},
		{"invalid UTF-8 after valid", "eq(a,ü\xe2\x82)", 7, "invalid UTF-8 at byte offset 7"},

		// Term separators.
		{"trailing colon", "eq(a,b):", 7, "trailing ':'"},
		{"double colon", "eq(a,b)::eq(c,d)", 8, "empty term between ':' and ':'"},
		{"leading colon", ":eq(a,b)", 0, "filter starts with ':'"},
		{"only colon", ":", 0, "filter starts with ':'"},
		{"text after term", "eq(a,b)x", 7, "unexpected 'x' after ')'; join terms with ':'"},
		{"term after term", "eq(a,b)eq(c,d)", 7, "unexpected 'e' after ')'"},
		{"comma after term", "eq(a,b),eq(c,d)", 7, "unexpected ',' after ')'"},

		// Parentheses.
		{"missing close", "eq(a,b", 6, "missing ')' to close the term that starts at character 1"},
		{"missing close second term", "eq(a,b):eq(c,d", 14, "missing ')' to close the term that starts at character 9"},
		{"missing close after quoted", `eq(a,"b"`, 8, "missing ')'"},
		{"missing close after attribute", "eq(a", 4, "missing ')'"},
		{"missing close after open", "eq(", 3, "missing ')'"},
		{"missing close after comma", "eq(a,", 5, "missing ')'"},
		{"missing close in list", "in(a,b,", 7, "missing ')'"},
		{"extra close", "eq(a,b))", 7, "unbalanced parentheses: unexpected ')' after the end of the term"},
		{"close first", ")", 0, "unbalanced parentheses: unexpected ')'"},
		{"nested open in value", "eq(a,(b))", 5, "unexpected '(' at start of value; quote values that contain parentheses"},
		{"backslash starting value", `eq(a,\b)`, 5, `unexpected \ at start of value`},
		{"open in value", "eq(a,f(x))", 6, "quote values that contain parentheses"},
		{"missing close before colon", "eq(a,b:eq(c,d))", 9, "add the missing ')' before ':'"},
		{"missing open", "eq", 2, "expected '(' after operator eq"},
		{"missing operator", "(a,b)", 0, "missing operator before '('"},

		// Operators.
		{"unknown operator", "gte(created_at,2026-01-01T00:00:00.000Z)", 0, `unknown operator "gte" (did you mean "ge"?); use one of eq, like, in, gt, ge, lt, le`},
		{"unknown operator second term", "eq(status,complete):gte(created_at,x)", 20, `unknown operator "gte" (did you mean "ge"?)`},
		{"upper-case operator", "EQ(a,b)", 0, `unknown operator "EQ" (operator names are lower-case; did you mean "eq"?); use one of eq, like`},
		{"mixed-case operator", "Like(a,b)", 0, "lower-case"},
		{"not a term", "status=complete", 0, `unknown operator "status=complete"; use one of eq, like, in, gt, ge, lt, le; a term has the form`},
		{"operator with symbol", "not-eq(a,b)", 0, `unknown operator "not-eq"`},
		{"operator then colon", "eq:eq(a,b)", 2, "expected '(' after operator eq, found ':'"},
		{"quote instead of operator", `"eq"(a,b)`, 0, "expected an operator (one of eq, like, in, gt, ge, lt, le), found '\"'"},
		{"comma instead of operator", ",eq(a,b)", 0, "expected an operator"},

		// Attributes.
		{"missing attribute", "eq(,b)", 3, "missing attribute before ','"},
		{"empty parens", "eq()", 3, "missing attribute and value"},
		{"attribute digit", "eq(1a,b)", 3, "attribute name must start with a letter or '_', found '1'"},
		{"attribute dot", "eq(.a,b)", 3, "must start with a letter or '_', found '.'"},
		{"attribute non-ASCII", "eq(ü,b)", 3, "must start with a letter or '_', found 'ü'"},
		{"attribute bad char", "eq(na+me,b)", 5, `invalid character '+' in attribute name "na"`},
		{"attribute non-ASCII char", "eq(naïve,b)", 5, `invalid character 'ï' in attribute name "na"`},
		{"attribute quoted", `eq("name",b)`, 3, "attribute names are not quoted"},
		{"attribute open paren", "eq((a),b)", 3, "must start with a letter or '_', found '('"},

		// Arity.
		{"eq without value", "eq(a)", 4, "missing value: eq takes an attribute and one value; write eq(attribute,value)"},
		{"in without value", "in(a)", 4, "missing value: in takes an attribute and one or more values; write in(attribute,value1,value2,...)"},
		{"eq two values", "eq(a,b,c)", 6, "eq takes exactly one value; to match any of several values use in(a,value1,value2)"},
		{"like two values", "like(a,b,c)", 8, "like takes exactly one value"},
		{"gt two values", `gt(a,"1","2")`, 8, "gt takes exactly one value"},
		{"le two values", "le(a,1,2)", 6, "le takes exactly one value"},

		// Missing values.
		{"empty value", "eq(name,)", 8, `missing value; to match an empty string write ""`},
		{"empty value in list", "in(a,x,,y)", 7, "missing value"},
		{"empty last value in list", "in(a,x,)", 7, "missing value"},
		{"empty first value in list", "in(a,,x)", 5, "missing value"},

		// Whitespace.
		{"leading space in value", "eq(status, complete)", 10, `unquoted value " complete" has leading space; remove the space, or quote the value if the space is intended: " complete"`},
		{"trailing space in value", "eq(status,complete )", 18, `unquoted value "complete " has trailing space`},
		{"trailing spaces in value", "eq(status,complete  \t)", 18, "has trailing space"},
		{"space-only value", "eq(status, )", 10, "has leading space"},
		{"trailing newline in value", "eq(status,complete\n)", 18, "has trailing space"},
		{"trailing NBSP in value", "eq(status,complete\u00a0)", 18, "has trailing space"},
		{"leading ideographic space in value", "eq(status,\u3000x)", 10, "has leading space"},
		{"trailing space in list value", "in(s,a ,b)", 6, "has trailing space"},
		{"space before quoted value", `eq(a, "b")`, 5, "whitespace before quoted value"},
		{"space after quoted value", `eq(a,"b" )`, 8, "whitespace after quoted value"},
		{"space between operator and paren", "eq (a,b)", 2, "whitespace between operator eq and '('"},
		{"space before attribute", "eq( a,b)", 3, "whitespace before attribute name"},
		{"space after attribute", "eq(a ,b)", 4, `whitespace after attribute name "a"`},
		{"leading space", " eq(a,b)", 0, "leading whitespace at start of filter"},
		{"trailing space", "eq(a,b) ", 7, "trailing whitespace at end of filter"},
		{"trailing newline", "eq(a,b)\n", 7, "trailing whitespace at end of filter"},
		{"space before colon", "eq(a,b) :eq(c,d)", 7, "whitespace after ')'"},
		{"space after colon", "eq(a,b): eq(c,d)", 8, "whitespace after ':'"},
		{"only space", " ", 0, "leading whitespace"},

		// Quoting.
		{"unterminated double", `eq(a,"abc)`, 5, "unterminated quoted value: missing closing double quote"},
		{"unterminated single", `eq(a,'abc)`, 5, "unterminated quoted value: missing closing single quote"},
		{"unterminated escaped quote", `eq(a,"abc\")`, 5, "unterminated quoted value"},
		{"mismatched quotes", `eq(a,"abc')`, 5, "missing closing double quote"},
		{"lone trailing backslash", `eq(a,"abc\`, 9, "backslash at end of filter escapes nothing"},
		{"quote inside unquoted", "eq(name,O'Brien)", 9, `unexpected single quote in unquoted value "O"; to use quotes in a value, quote the whole value`},
		{"double quote inside unquoted", `eq(name,say "hi")`, 12, `unexpected double quote in unquoted value "say "`},
		{"backslash in unquoted", `eq(path,a\b)`, 9, `unexpected \ in unquoted value "a"; backslash escapes only work in a quoted value`},
		{"text after quoted", `eq(a,"x"y)`, 8, `unexpected 'y' after quoted value; expected ',' or ')'`},
		{"doubled quote", `eq(a,"x""y")`, 8, "unexpected '\"' after quoted value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error", tt.in, e)
			}
			if e != nil {
				t.Errorf("Parse(%q) returned non-nil Expr %v with error", tt.in, e)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T is not *SyntaxError", tt.in, err)
			}
			if se.Input != tt.in {
				t.Errorf("Input = %q, want %q", se.Input, tt.in)
			}
			if se.Pos != tt.pos {
				t.Errorf("Parse(%q) Pos = %d, want %d (error: %v)", tt.in, se.Pos, tt.pos, err)
			}
			if !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Parse(%q) Msg = %q, want it to contain %q", tt.in, se.Msg, tt.msg)
			}
			if !strings.HasSuffix(err.Error(), se.Msg) {
				t.Errorf("Error() = %q does not end with Msg", err.Error())
			}
		})
	}
}

func TestSyntaxErrorFormat(t *testing.T) {
	_, err := Parse("eq(status,complete):gte(created_at,2026-01-01T00:00:00.000Z)")
	want := `at character 21 near "complete):gte(created_at,2026-": unknown operator "gte" (did you mean "ge"?); use one of eq, like, in, gt, ge, lt, le`
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %q,\nwant     %q", err, want)
	}

	// Positions are reported in characters, not bytes.
	_, err = Parse("eq(name,Müller )")
	if err == nil || !strings.HasPrefix(err.Error(), "at character 15 ") {
		t.Errorf("Error() = %q, want character 15", err)
	}

	// Empty input has no excerpt.
	_, err = Parse("")
	if err == nil || !strings.HasPrefix(err.Error(), "at character 1: empty filter") {
		t.Errorf("Error() = %q", err)
	}

	tests := []struct {
		input string
		pos   int
		near  string
	}{
		{"eq(a,b)", 0, "eq(a,b)"},
		{"eq(a,b)", 7, "eq(a,b)"},
		{"0123456789abcdefghijklmnopqrstuvwxyz0123456789", 15, "56789abcdefghijklmnopqrstuvwxy"},
		// Cuts move inwards to character boundaries: "é" is bytes 4..5 and
		// "€" bytes 27..29, so a cut at 5 or 28 would split them.
		{"abcdéfghijklmnopqrstuvwxyz€x", 15, "fghijklmnopqrstuvwxyz€x"},
		{"abcdéfghijklmnopqrstuvwxyz€x", 14, "éfghijklmnopqrstuvwxyz€x"},
		{"abcdéfghijklmnopqrstuvwxyz€x", 8, "abcdéfghijklmnopqrstuvwxyz"},
		// Invalid input bytes are replaced so the excerpt is valid UTF-8.
		{"eq(a,\xff)", 5, "eq(a,\uFFFD)"},
		// Out-of-range positions are clamped rather than panicking.
		{"eq(a,b)", -3, "eq(a,b)"},
		{"eq(a,b)", 99, "eq(a,b)"},
		{"", 0, ""},
	}
	for _, tt := range tests {
		se := &SyntaxError{Input: tt.input, Pos: tt.pos, Msg: "m"}
		got := se.Near()
		if got != tt.near {
			t.Errorf("Near(%q, %d) = %q, want %q", tt.input, tt.pos, got, tt.near)
		}
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > 30 {
			t.Errorf("Near(%q, %d) = %q: invalid UTF-8 or too long", tt.input, tt.pos, got)
		}
		_ = se.Error() // must not panic
	}
}

func TestMaxLength(t *testing.T) {
	// Exactly MaxLength bytes is accepted.
	in := "eq(a," + strings.Repeat("x", maxLength-6) + ")"
	if len(in) != maxLength {
		t.Fatalf("test input is %d bytes", len(in))
	}
	if _, err := Parse(in); err != nil {
		t.Errorf("Parse of %d bytes: %v", len(in), err)
	}
	// One more byte is not.
	in = "eq(a," + strings.Repeat("x", maxLength-5) + ")"
	if _, err := Parse(in); err == nil {
		t.Errorf("Parse of %d bytes succeeded", len(in))
	}
}

func TestQuoteValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"complete", "complete"},
		{"Müller", "Müller"},
		{"🎉", "🎉"},
		{"a.b-c_d@e+f", "a.b-c_d@e+f"},
		{"", `""`},
		{" ", `" "`},
		{"a b", `"a b"`},
		{"a\tb", "\"a\tb\""},
		{"a\nb", "\"a\nb\""},
		{"a\u00a0b", "\"a\u00a0b\""},
		{"a\u200bb", "\"a\u200bb\""}, // zero-width space: invisible, so quoted
		{"\x00", "\"\x00\""},
		{"a,b", `"a,b"`},
		{"f(x)", `"f(x)"`},
		// Colons stay bare: keyset bounds must match the service's documented
		// unquoted timestamp form.
		{"a:b", "a:b"},
		{"2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"},
		{"*@example.com", `"*@example.com"`},
		{"O'Brien", `"O'Brien"`},
		{`say "hi"`, `"say \"hi\""`},
		{`a\b`, `"a\\b"`},
		{`\"`, `"\\\""`},
		{"\xff", "\"\xff\""},
	}
	for _, tt := range tests {
		if got := QuoteValue(tt.in); got != tt.want {
			t.Errorf("QuoteValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		e    Expr
		want string
	}{
		{nil, ""},
		{Expr{NewTerm(Eq, "status", "complete")}, "eq(status,complete)"},
		{Expr{NewTerm(In, "s", "a", "b c", "")}, `in(s,a,"b c","")`},
		{Expr{NewTerm(Eq, "status", "complete"), NewTerm(Ge, "created_at", "2026-01-01T00:00:00.000Z")},
			`eq(status,complete):ge(created_at,2026-01-01T00:00:00.000Z)`},
		{Expr{NewTerm(Like, "email", "*@example.com")}, `like(email,"*@example.com")`},
		// Built terms are not validated; what they format to is rejected by
		// Parse.
		{Expr{NewTerm(In, "s")}, "in(s)"},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
	// Parsed expressions format canonically.
	e, err := Parse(`eq(a,'x'):like(b,"y"):in(c,"1",2)`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.String(), "eq(a,x):like(b,y):in(c,1,2)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := e[1].String(), "like(b,y)"; got != want {
		t.Errorf("Term.String() = %q, want %q", got, want)
	}
}

// hostile are values that stress quoting; the round trip must preserve them.
var hostile = []string{
	`Müller, "Bob" (Ltd): 50% *off*\`,
	"O'Brien",
	`a\b`,
	`\`,
	`\\`,
	`"`,
	`'`,
	`\"`,
	`""`,
	`''`,
	"",
	" ",
	" lead",
	"trail ",
	"\t",
	"line1\nline2",
	"\r\n",
	"🎉",
	"👩‍👩‍👧",
	"a:b",
	"2026-01-01T00:00:00.000Z",
	"*",
	"**",
	",",
	"(",
	")",
	"()",
	"eq(a,b)",
	"x):eq(y,z",
	"\x00",
	"\u200b",
	"\u00a0x",
	"x\u3000",
	"\uFFFD",
	"plain",
}

func TestRoundTrip(t *testing.T) {
	for _, v := range hostile {
		for _, op := range Ops() {
			e := Expr{NewTerm(op, "a.b", v)}
			if op == In {
				e = Expr{NewTerm(op, "a.b", v, v, "x")}
			}
			e = And(e, Expr{NewTerm(Eq, "_c", v)})
			s := e.String()
			got, err := Parse(s)
			if err != nil {
				t.Errorf("Parse(%q) for value %q: %v", s, v, err)
				continue
			}
			if !sameTerms(got, e) {
				t.Errorf("Parse(%q) = %#v, want %#v", s, got, e)
			}
			if again := got.String(); again != s {
				t.Errorf("String() not canonical: %q then %q", s, again)
			}
		}
	}
}

func TestNewTermCopiesValues(t *testing.T) {
	vals := []string{"a", "b"}
	tm := NewTerm(In, "x", vals...)
	vals[0] = "changed"
	if tm.Values[0] != "a" {
		t.Error("NewTerm aliases the caller's slice")
	}
	if tm.Start != 0 || tm.End != 0 {
		t.Error("built term has offsets")
	}
}

func TestAnd(t *testing.T) {
	a := make(Expr, 1, 4) // spare capacity is where aliasing bugs would hide
	a[0] = NewTerm(Eq, "a", "1")
	b := Expr{NewTerm(In, "b", "2", "3")}

	got := And(a, b)
	if want := "eq(a,1):in(b,2,3)"; got.String() != want {
		t.Fatalf("And = %q, want %q", got, want)
	}
	// Appending to or modifying the result must not affect a or b.
	_ = append(got, NewTerm(Lt, "c", "4"))
	got2 := And(a, Expr{NewTerm(Gt, "d", "5")})
	got[0].Values[0] = "changed"
	got[1].Values[0] = "changed"
	if a.String() != "eq(a,1)" || b.String() != "in(b,2,3)" || a[:cap(a)][1].Op != "" {
		t.Errorf("And aliased its arguments: a=%q b=%q", a, b)
	}
	if got2.String() != "eq(a,1):gt(d,5)" {
		t.Errorf("second And = %q", got2)
	}

	if got := And(nil, nil); got != nil {
		t.Errorf("And(nil, nil) = %v, want nil", got)
	}
	if got := And(nil, b); got.String() != "in(b,2,3)" {
		t.Errorf("And(nil, b) = %q", got)
	}
	if got := And(a, nil); got.String() != "eq(a,1)" {
		t.Errorf("And(a, nil) = %q", got)
	}
	// Offsets of parsed terms are kept.
	p, _ := Parse("eq(x,1):eq(y,2)")
	if got := And(a, p); got[2].Start != 8 {
		t.Errorf("And dropped offsets: %+v", got[2])
	}
}

func TestRender(t *testing.T) {
	src := `eq(status,'complete'):gt(total,10)`
	e, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	// Parsed terms keep their spelling, built ones are canonical.
	e = append(e, NewTerm(Lt, "created_at", "2026-01-01T00:00:00.000Z"))
	if got, want := e.Render(src), `eq(status,'complete'):gt(total,10):lt(created_at,2026-01-01T00:00:00.000Z)`; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	if got, want := e.Render(""), e.String(); got != want {
		t.Errorf(`Render("") = %q, String = %q`, got, want)
	}
}

func TestIsTimestamp(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"2026-01-01T00:00:00.000Z", true},
		{"2026-12-31T23:59:59.999Z", true},
		{"2024-02-29T12:00:00.000Z", true}, // leap year
		{"2026-02-29T12:00:00.000Z", false},
		{"2026-02-30T00:00:00.000Z", false},
		{"2026-13-01T00:00:00.000Z", false},
		{"2026-00-01T00:00:00.000Z", false},
		{"2026-01-00T00:00:00.000Z", false},
		{"2026-01-01T24:00:00.000Z", false},
		{"2026-01-01T00:60:00.000Z", false},
		{"2026-01-01T23:59:60.000Z", false}, // no leap seconds
		{"2026-01-01T00:00:00Z", false},
		{"2026-01-01T00:00:00.00Z", false},
		{"2026-01-01T00:00:00.0000Z", false},
		{"2026-01-01T00:00:00.000", false},
		{"2026-01-01T00:00:00.000z", false},
		{"2026-01-01t00:00:00.000Z", false},
		{"2026-01-01 00:00:00.000Z", false},
		{"2026-01-01T00:00:00.000+00:00", false},
		{"2026-1-01T00:00:00.000ZZ", false},
		{"2026-01-01T0:00:00.000ZZ", false},
		{"+026-01-01T00:00:00.000Z", false},
		{"２０２６-01-01T00:00:00.000Z", false},
		{"2026-01-01", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := isTimestamp(tt.s); got != tt.want {
			t.Errorf("isTimestamp(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// validAttr is the attribute grammar, written independently of the parser
// so the fuzzers cross-check it.
var validAttr = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"eq(status,complete)",
		"eq(status,complete):ge(created_at,2026-01-01T00:00:00.000Z)",
		`in(name,"a,b",'c)d',e,"")`,
		`eq(name,"say \"hi\"")`,
		`eq(x,"\`,
		"eq(a, b)",
		"EQ(a,b)",
		"eq(a,b)::eq(c,d)",
		"like(email,*@example.com)",
		"eq(a,b\xff)",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not *SyntaxError", err)
			}
			if se.Input != s || se.Pos < 0 || se.Pos > len(s) || se.Msg == "" {
				t.Fatalf("bad SyntaxError %+v", se)
			}
			if e != nil {
				t.Fatalf("non-nil Expr with error")
			}
			if near := se.Near(); !utf8.ValidString(near) || utf8.RuneCountInString(near) > 30 {
				t.Fatalf("bad Near %q", near)
			}
			_ = se.Error()
			return
		}
		if len(e) == 0 {
			t.Fatalf("Parse(%q) succeeded with no terms", s)
		}
		for _, tm := range e {
			if !tm.Op.Valid() || !validAttr.MatchString(tm.Attribute) || len(tm.Values) == 0 ||
				tm.Op != In && len(tm.Values) != 1 {
				t.Fatalf("Parse(%q) produced invalid term %#v", s, tm)
			}
		}
		checkOffsets(t, s, e)
		out := e.String()
		if len(out) > maxLength {
			// Canonical quoting can lengthen a filter past the limit; the
			// guarantee only holds for output Parse accepts.
			return
		}
		e2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its String %q fails: %v", s, out, err)
		}
		if !sameTerms(e, e2) {
			t.Fatalf("Parse(%q) = %#v\nbut Parse(String) = %#v", s, e, e2)
		}
		if out2 := e2.String(); out2 != out {
			t.Fatalf("String not canonical: %q then %q", out, out2)
		}
	})
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(uint8(0), "status", "complete", "", "x")
	f.Add(uint8(1), "email", "*@example.com", "**", "a*b")
	f.Add(uint8(2), "name", `Müller, "Bob" (Ltd): 50% *off*\`, "O'Brien", `a\b`)
	f.Add(uint8(3), "created_at", "2026-01-01T00:00:00.000Z", " lead", "trail ")
	f.Add(uint8(4), "a.b", "line1\nline2", "🎉", "\x00")
	f.Add(uint8(5), "", `\`, `"`, `'`)
	f.Add(uint8(6), "1bad", "\xff", "ok", "\u200b")
	f.Fuzz(func(t *testing.T, opIdx uint8, attr, v1, v2, v3 string) {
		ops := Ops()
		op := ops[int(opIdx)%len(ops)]
		if !validAttr.MatchString(attr) {
			attr = "attr"
		}
		var e Expr
		if op == In {
			e = Expr{NewTerm(op, attr, v1, v2, v3)}
		} else {
			e = Expr{NewTerm(op, attr, v1)}
		}
		e = And(e, Expr{NewTerm(Eq, "x.y", v2), NewTerm(Like, "_z", v3)})
		s := e.String()
		got, err := Parse(s)
		switch {
		case !utf8.ValidString(v1) || !utf8.ValidString(v2) || !utf8.ValidString(v3):
			// Filters are UTF-8, so invalid values cannot round-trip.
			// (Check each value: fragments of a character split across
			// values can concatenate to valid UTF-8.)
			if err == nil {
				t.Fatalf("Parse(%q) accepted invalid UTF-8", s)
			}
			return
		case len(s) > maxLength:
			if err == nil {
				t.Fatalf("Parse accepted %d bytes", len(s))
			}
			return
		case err != nil:
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if !sameTerms(got, e) {
			t.Fatalf("Parse(%q) = %#v, want %#v", s, got, e)
		}
		// An unquoted value must be exactly the text between the
		// delimiters.
		for _, v := range []string{v1, v2, v3} {
			if q := QuoteValue(v); q == v {
				one, err := Parse("eq(a," + v + ")")
				if err != nil || one[0].Values[0] != v {
					t.Fatalf("unquoted value %q does not parse back: %v", v, err)
				}
			}
		}
	})
}

func TestLongNamesAreCutInMessages(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, in := range []string{
		"eq(a,b):" + long + "(a,b)",                // operator
		"eq(a" + strings.Repeat("b", 200) + "+,x)", // attribute
		"eq(a," + long + " )",                      // value
	} {
		_, err := Parse(in)
		if err == nil {
			t.Fatalf("Parse(%q) succeeded", in)
		}
		msg := err.(*SyntaxError).Msg
		if len(msg) > 300 || !strings.Contains(msg, "…") || !utf8.ValidString(msg) {
			t.Errorf("Parse(%q): message not cut: %q", in, msg)
		}
	}
}
