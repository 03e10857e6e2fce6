package filter

import (
	"fmt"
	"strings"
	"testing"
)

// The longest in() is split into the longest parts that fit, whole
// multiples of align but the last; every other term stays as written.
func TestSplitIn(t *testing.T) {
	values := make([]string, 450)
	for i := range values {
		values[i] = fmt.Sprintf("v%03d", i)
	}
	expr := mustParseText(t, `eq(name,"a,b"):in(id,`+strings.Join(values, ",")+`):in(status,x,y)`)
	count := func(part string) int { return strings.Count(part, ",v") }
	fitsLen := len(`eq(name,"a,b"):in(id,` + strings.Join(values[:201], ",") + `):in(status,x,y)`)
	fits := func(part string) bool { return len(part) <= fitsLen }
	for _, tc := range []struct {
		align int
		want  []int
	}{{0, []int{201, 201, 48}}, {100, []int{200, 200, 50}}, {300, []int{201, 201, 48}}} {
		s, err := SplitIn(expr, fits, tc.align)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, part := range s.Parts {
			p := part.Text()
			if !strings.HasPrefix(p, `eq(name,"a,b"):in(id,`) || !strings.HasSuffix(p, `):in(status,x,y)`) {
				t.Errorf("part %.40q... lost the other terms", p)
			}
			got = append(got, count(p))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || s.Attribute != "id" || s.Values != 450 {
			t.Errorf("align %d: parts of %v values (%s, %d), want %v", tc.align, got, s.Attribute, s.Values, tc.want)
		}
	}
	// A value written twice goes to one part: two parts would list its
	// records twice.
	twice := mustParseText(t, "in(id,"+strings.Join(values, ",")+","+strings.Join(values[:300], ",")+")")
	s, err := SplitIn(twice, fits, 100)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, part := range s.Parts {
		for _, v := range part.Terms[0].Values {
			seen[v]++
		}
	}
	if len(seen) != len(values) || len(s.Parts) != 3 {
		t.Errorf("750 values, 450 distinct: %d parts hold %d distinct values, want 3 parts and 450", len(s.Parts), len(seen))
	}
	for v, n := range seen {
		if n > 1 {
			t.Errorf("%s is in %d parts", v, n)
		}
	}
	for _, bad := range []struct{ expr, want string }{
		{"eq(name,a)", "no in()"},
		{"in(id," + strings.Repeat("x,", MaxInValues) + "x)", "splits at most 10000"},
	} {
		if _, err := SplitIn(mustParseText(t, bad.expr), fits, 100); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%.30q: %v, want it to say %q", bad.expr, err, bad.want)
		}
	}
	if _, err := SplitIn(expr, func(string) bool { return false }, 100); err == nil || !strings.Contains(err.Error(), "single value") {
		t.Errorf("nothing fits: %v", err)
	}
}

func mustParseText(t *testing.T, s string) Parsed {
	t.Helper()
	p, err := ParseText(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A Parsed renders its kept terms as written, and counts as one parse.
func TestParsedRendersKeptTermsAsWritten(t *testing.T) {
	before := Parses()
	p := mustParseText(t, `eq(name,'a b'):gt(with_tax,5)`)
	if n := Parses() - before; n != 1 {
		t.Errorf("ParseText counted %d parses, want 1", n)
	}
	narrowed := p.With(And(p.Terms[:1], Expr{NewTerm(Lt, "created_at", "2024-01-01T00:00:00.000Z")}))
	if got, want := narrowed.Text(), `eq(name,'a b'):lt(created_at,2024-01-01T00:00:00.000Z)`; got != want {
		t.Errorf("narrowed text %q, want %q", got, want)
	}
	if n := Parses() - before; n != 1 {
		t.Errorf("narrowing and rendering parsed again: %d parses", n)
	}
}

func TestValidAttribute(t *testing.T) {
	for name, want := range map[string]bool{"email": true, "contact.email": true, "_x-1": true, "": false, "1a": false, "a b": false, "a,b": false, "é": false} {
		if got := ValidAttribute(name); got != want {
			t.Errorf("ValidAttribute(%q) = %v, want %v", name, got, want)
		}
		// The grammar agrees.
		if _, err := Parse(NewTerm(Eq, name, "x").String()); (err == nil) != want {
			t.Errorf("Parse of eq(%s,x): %v, but ValidAttribute says %v", name, err, want)
		}
	}
}
