package commerce

import (
	"strings"
	"testing"
)

func TestDecodeListBodyCount(t *testing.T) {
	const records = `"data":[{"type":"account","id":"00000000-0000-4000-8000-000000000001","name":"a"}]`
	for _, tc := range []struct {
		name, results string
		want          Count
		err           string
	}{
		{"unlabelled", `"results":{"total":30}`, Count{N: 30}, ""},
		{"exact", `"results":{"total":30,"total_method":"exact"}`, Count{N: 30, Method: CountExact}, ""},
		{"lower bound", `"results":{"total":1000,"total_method":"lower_bound"}`, Count{N: 1000, Method: CountLowerBound}, ""},
		{"observed", `"results":{"total":2,"total_method":"observed"}`, Count{N: 2, Method: CountObserved}, ""},
		{"no total", `"results":{}`, Count{Method: CountNone}, ""},
		{"no results", `"page":{"limit":1,"offset":0}`, Count{Method: CountNone}, ""},
		{"negative", `"results":{"total":-1}`, Count{}, "negative"},
		{"none with a total", `"results":{"total":3,"total_method":"none"}`, Count{}, `"none"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{` + records + `,"meta":{` + tc.results + `}}`
			p, err := DecodeListBody([]byte(body), Accounts, 1, 0, false, "/v2/accounts")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Count != tc.want || len(p.Records) != 1 {
				t.Errorf("count %+v with %d records, want %+v with 1", p.Count, len(p.Records), tc.want)
			}
		})
	}
}

func TestCountSteadyAndExact(t *testing.T) {
	for _, tc := range []struct {
		m             CountMethod
		steady, exact bool
		text          string
	}{
		{CountUnlabelled, true, false, "7"},
		{CountExact, true, true, "7"},
		{CountLowerBound, false, false, "at least 7"},
		{CountObserved, false, false, "about 7 (observed)"},
		{CountMethod("estimate"), false, false, "about 7 (estimate)"},
		{CountNone, false, false, "no count"},
	} {
		c := Count{N: 7, Method: tc.m}
		if c.Method == CountNone {
			c.N = 0
		}
		if c.Steady() != tc.steady || c.Exact() != tc.exact || c.String() != tc.text {
			t.Errorf("%q: steady %v exact %v %q, want %v %v %q", tc.m, c.Steady(), c.Exact(), c.String(), tc.steady, tc.exact, tc.text)
		}
	}
}
