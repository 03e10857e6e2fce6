package emulator

import (
	"strings"
	"testing"
)

// results is a list answer's results member, whichever form it came in.
func (lb *listBody) results() *resultsInfo {
	if lb.Meta != nil {
		return lb.Meta.Results
	}
	return lb.Results
}

func TestCounting(t *testing.T) {
	const accounts = 250
	type want struct {
		total  int // -1: no results.total
		method string
	}
	for _, tc := range []struct {
		name     string
		counting Counting
		query    []string
		want     want
	}{
		{"default", Counting{}, nil, want{accounts, ""}},
		{"default, exact asked", Counting{}, []string{"page[total_method]", "exact"}, want{accounts, "exact"}},
		{"exact", Counting{Method: CountExact}, nil, want{accounts, "exact"}},
		{"lower bound", Counting{Method: CountLowerBound, Cap: 100}, nil, want{100, "lower_bound"}},
		{"lower bound, unlabelled", Counting{Method: CountLowerBound, Cap: 100, Unlabelled: true}, nil, want{100, ""}},
		{"lower bound above the matches", Counting{Method: CountLowerBound, Cap: 1000}, nil, want{accounts, "lower_bound"}},
		{"lower bound, exact asked", Counting{Method: CountLowerBound, Cap: 100}, []string{"page[total_method]", "exact"}, want{accounts, "exact"}},
		{"lower bound, exact ignored", Counting{Method: CountLowerBound, Cap: 100, IgnoreExact: true}, []string{"page[total_method]", "exact"}, want{100, "lower_bound"}},
		{"observed, first page", Counting{Method: CountObserved}, []string{"page[limit]", "25"}, want{26, "observed"}},
		{"observed, last page", Counting{Method: CountObserved}, []string{"page[limit]", "25", "page[offset]", "240"}, want{250, "observed"}},
		{"none", Counting{Method: CountNone}, nil, want{-1, ""}},
		{"none asked", Counting{}, []string{"page[total_method]", "none"}, want{-1, ""}},
		{"cached asked: the store's own", Counting{Method: CountLowerBound, Cap: 10}, []string{"page[total_method]", "cached"}, want{10, "lower_bound"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startServer(t, Options{Accounts: accounts, Orders: -1, Files: -1, Counting: tc.counting})
			lb := c.list("accounts", q(tc.query...))
			r := lb.results()
			switch {
			case tc.want.total < 0 && r != nil && r.Total != nil:
				t.Errorf("results.total %d, want none", *r.Total)
			case tc.want.total >= 0 && (r == nil || r.Total == nil):
				t.Fatalf("no results.total, want %d", tc.want.total)
			case tc.want.total >= 0 && *r.Total != tc.want.total:
				t.Errorf("results.total %d, want %d", *r.Total, tc.want.total)
			}
			method := ""
			if r != nil && r.TotalMethod != nil {
				method = *r.TotalMethod
			}
			if method != tc.want.method {
				t.Errorf("total_method %q, want %q", method, tc.want.method)
			}
			if tc.want.total < 0 && lb.Links["last"] != nil {
				t.Errorf("links.last %q on an answer without a count, want null", *lb.Links["last"])
			}
		})
	}
}

// An estimate is off by at most its percent, and not always by the same.
func TestCountingEstimate(t *testing.T) {
	c := startServer(t, Options{Accounts: 1000, Orders: -1, Files: -1, Counting: Counting{Method: CountEstimate, Percent: 10}})
	seen := map[int]bool{}
	for range 20 {
		r := c.list("accounts", q("page[limit]", "1")).results()
		if r.Total == nil || *r.Total < 900 || *r.Total > 1100 || r.TotalMethod == nil || *r.TotalMethod != "estimate" {
			t.Fatalf("estimate %v (%v), want 900..1100 labelled estimate", r.Total, r.TotalMethod)
		}
		seen[*r.Total] = true
	}
	if len(seen) < 2 {
		t.Errorf("20 estimates all said %v: an estimate moves from request to request", seen)
	}
}

// One resource counts otherwise than the store, and a switch changes it
// while the store serves.
func TestCountingForOneResource(t *testing.T) {
	c := startServer(t, Options{Accounts: 250, Orders: 300, Files: -1,
		CountingFor: map[string]Counting{"orders": {Method: CountLowerBound, Cap: 100}}})
	if r := c.list("orders", nil).results(); *r.Total != 100 {
		t.Errorf("orders: results.total %d, want 100 (a lower bound)", *r.Total)
	}
	if r := c.list("accounts", nil).results(); *r.Total != 250 || r.TotalMethod != nil {
		t.Errorf("accounts: results.total %d (%v), want 250 unlabelled", *r.Total, r.TotalMethod)
	}
	c.s.SetCounting(Counting{Method: CountNone})
	if r := c.list("accounts", nil).results(); r != nil && r.Total != nil {
		t.Errorf("accounts after SetCounting none: results.total %d, want none", *r.Total)
	}
	if r := c.list("orders", nil).results(); *r.Total != 100 {
		t.Errorf("orders after the store's SetCounting: results.total %d, want its own 100", *r.Total)
	}
}

func TestCountingRefusesUnknownMethod(t *testing.T) {
	c := startServer(t, Options{Accounts: 10, Orders: -1, Files: -1})
	resp, body := c.get("/v2/accounts", "page[total_method]=precise")
	e := c.wantError(400, resp, body)
	if !strings.Contains(e.Detail, "exact, estimate, lower_bound, observed, cached, none") || e.Source == nil || e.Source.Parameter != "page[total_method]" {
		t.Errorf("detail %q (source %+v), want the methods listed and the parameter named", e.Detail, e.Source)
	}
}

func TestParseCounting(t *testing.T) {
	for in, want := range map[string]Counting{
		"":                             {},
		"exact-unlabelled":             {},
		"exact":                        {Method: CountExact},
		"lower_bound:1000":             {Method: CountLowerBound, Cap: 1000},
		"lower_bound:10000,unlabelled": {Method: CountLowerBound, Cap: 10000, Unlabelled: true},
		"observed,ignore-exact":        {Method: CountObserved, IgnoreExact: true},
		"estimate:10":                  {Method: CountEstimate, Percent: 10},
		"none":                         {Method: CountNone},
	} {
		got, err := ParseCounting(in)
		if err != nil || got != want {
			t.Errorf("ParseCounting(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"precise", "observed:3", "lower_bound:0", "lower_bound:x", "exact,loud", "estimate:101"} {
		if _, err := ParseCounting(bad); err == nil {
			t.Errorf("ParseCounting(%q) accepted it", bad)
		}
	}
}
