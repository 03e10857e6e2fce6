package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// vendorFilter is one filter string that the vendor's guides and
// references show (testdata/vendor_filters.json, from the public
// repository elasticpath/elasticpath-dev):
//
//   - Filter or Query is the text as the document shows it: Filter the
//     value of the filter parameter, Query a query string (filter=... and
//     perhaps other parameters) where the document shows a URL. A query is
//     read with url.ParseQuery, as the emulator reads requests.
//   - Source is path:line at Commit (a key of the file's commits); Also
//     lists the other places that show the same filter at that commit.
//   - Terms is what the docs say the filter means: each term as operator,
//     attribute and values.
//   - Template says the values are placeholders (some-name, YYYY-MM-DD);
//     the grammar reads them literally.
//   - Invalid says why the text as printed cannot mean Terms (a slip in
//     the document); both parsers must refuse it.
//   - Refused says why both grammars refuse, on purpose, a text that the
//     docs mean as Terms.
//   - ProviderRefuses says why internal/filter refuses a text that the
//     emulator reads as Terms.
//   - Resource is an endpoint the emulator serves that takes the filter:
//     it is sent there (unless it is a template) and must be answered 200,
//     or 400 when the grammars refuse it or ResourceRefuses says why the
//     emulator does.
type vendorFilter struct {
	Filter          string     `json:"filter"`
	Query           string     `json:"query"`
	Source          string     `json:"source"`
	Commit          string     `json:"commit"`
	Also            []string   `json:"also"`
	Resource        string     `json:"resource"`
	Terms           [][]string `json:"terms"`
	Template        string     `json:"template"`
	Invalid         string     `json:"invalid"`
	Refused         string     `json:"refused"`
	ProviderRefuses string     `json:"provider_refuses"`
	ResourceRefuses string     `json:"resource_refuses"`
	Note            string     `json:"note"`
}

// params returns the query parameters the fixture stands for.
func (f *vendorFilter) params(t *testing.T) url.Values {
	t.Helper()
	if f.Query == "" {
		return url.Values{"filter": {f.Filter}}
	}
	v, err := url.ParseQuery(f.Query)
	if err != nil || !v.Has("filter") {
		t.Fatalf("query %q: %v, or no filter parameter", f.Query, err)
	}
	return v
}

// bothRefuse reports whether both grammars must refuse the fixture.
func (f *vendorFilter) bothRefuse() bool { return f.Invalid != "" || f.Refused != "" }

func loadVendorFilters(t *testing.T) []vendorFilter {
	t.Helper()
	b, err := os.ReadFile("testdata/vendor_filters.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		About    string            `json:"about"`
		Commits  map[string]string `json:"commits"`
		Fixtures []vendorFilter    `json:"fixtures"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for i, f := range doc.Fixtures {
		switch {
		case (f.Filter == "") == (f.Query == ""):
			t.Fatalf("fixture %d (%s): give exactly one of filter and query", i, f.Source)
		case f.Source == "" || doc.Commits[f.Commit] == "":
			t.Fatalf("fixture %d: source %q at unknown commit %q", i, f.Source, f.Commit)
		case f.Invalid != "" && f.Refused != "":
			t.Fatalf("fixture %d (%s): invalid and refused", i, f.Source)
		case len(f.Terms) == 0 && !f.bothRefuse():
			t.Fatalf("fixture %d (%s): no terms", i, f.Source)
		}
	}
	return doc.Fixtures
}

// termsOfEmulator and termsOfFilter render parsed terms as the fixtures
// write them.
func termsOfEmulator(ts []filterTerm) [][]string {
	out := make([][]string, len(ts))
	for i, t := range ts {
		out[i] = append([]string{t.op.String(), t.attr}, t.values...)
	}
	return out
}

func termsOfFilter(e filter.Expr) [][]string {
	out := make([][]string, len(e))
	for i, t := range e {
		out[i] = append([]string{string(t.Op), t.Attribute}, t.Values...)
	}
	return out
}

func equalTerms(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

// TestVendorFilters reads every filter of the vendor's documents with the
// emulator's parser and with internal/filter's (the client's), and holds
// both to what the docs say it means, except where a fixture records why
// one of them differs.
func TestVendorFilters(t *testing.T) {
	fixtures := loadVendorFilters(t)
	if len(fixtures) < 100 {
		t.Fatalf("%d fixtures", len(fixtures))
	}
	for _, f := range fixtures {
		t.Run(f.Source, func(t *testing.T) {
			raw := f.params(t).Get("filter")

			got, err := parseFilter(raw)
			switch {
			case f.bothRefuse() && err == nil:
				t.Errorf("emulator reads %q as %q; the fixture says both grammars refuse it: %s%s", raw, termsOfEmulator(got), f.Invalid, f.Refused)
			case !f.bothRefuse() && err != nil:
				t.Errorf("emulator refuses %q: %v; the docs mean %q", raw, err, f.Terms)
			case err == nil && !equalTerms(termsOfEmulator(got), f.Terms):
				t.Errorf("emulator reads %q as %q; the docs mean %q", raw, termsOfEmulator(got), f.Terms)
			}

			expr, err := filter.Parse(raw)
			refuses := f.bothRefuse() || f.ProviderRefuses != ""
			switch {
			case refuses && err == nil:
				t.Errorf("internal/filter reads %q as %q; the fixture says it refuses it: %s%s%s", raw, termsOfFilter(expr),
					f.Invalid, f.Refused, f.ProviderRefuses)
			case !refuses && err != nil:
				t.Errorf("internal/filter refuses %q: %v; the docs mean %q", raw, err, f.Terms)
			case err == nil && !equalTerms(termsOfFilter(expr), f.Terms):
				t.Errorf("internal/filter reads %q as %q; the docs mean %q", raw, termsOfFilter(expr), f.Terms)
			}
		})
	}
}

// TestVendorFiltersOverHTTP sends the fixtures of the endpoints the
// emulator serves to those endpoints, through the URL layer: each is
// answered 200, with the filter as read echoed in the links, or 400 on the
// filter parameter where the fixture says the emulator refuses it.
func TestVendorFiltersOverHTTP(t *testing.T) {
	c := startServer(t, Options{Orders: 40, Files: 40, Accounts: 40, Customers: 40, Hierarchies: -1})
	sent := 0
	for _, f := range loadVendorFilters(t) {
		if f.Resource == "" || f.Template != "" {
			continue
		}
		sent++
		params := f.params(t)
		resp, body := c.get(listPath(f.Resource), params.Encode())
		name := f.Resource + " " + f.Source
		if f.bothRefuse() || f.ResourceRefuses != "" {
			e := c.wantError(http.StatusBadRequest, resp, body)
			if e.Source == nil || e.Source.Parameter != "filter" {
				t.Errorf("%s: error source %+v, want the filter parameter", name, e.Source)
			}
			if f.bothRefuse() && !strings.HasPrefix(e.Detail, "Could not parse the supplied filter: ") {
				t.Errorf("%s: detail %q", name, e.Detail)
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %s: status %d: %s", name, params.Encode(), resp.StatusCode, body)
			continue
		}
		var lb listBody
		if err := json.Unmarshal(body, &lb); err != nil || lb.Links["first"] == nil {
			t.Fatalf("%s: %v: %s", name, err, body)
		}
		first, err := url.Parse(*lb.Links["first"])
		if err != nil {
			t.Fatal(err)
		}
		if echoed := first.Query().Get("filter"); echoed != params.Get("filter") {
			t.Errorf("%s: the links carry filter %q, want %q", name, echoed, params.Get("filter"))
		}
	}
	if sent < 30 {
		t.Errorf("only %d fixtures sent", sent)
	}
}

// TestUnencodedPlusIsASpace: the guide says an unencoded + in a filter is
// taken as a space, and %2B as a +; the emulator reads the query string so.
func TestUnencodedPlusIsASpace(t *testing.T) {
	c := startServer(t, Options{Orders: -1, Files: -1, Accounts: -1, Customers: 5, Hierarchies: -1})
	for raw, want := range map[string]string{
		"filter=eq(email,ron+1@swanson.com)":           "eq(email,ron 1@swanson.com)",
		"filter=eq%28email%2Cron%2B1%40swanson.com%29": "eq(email,ron+1@swanson.com)",
	} {
		resp, body := c.get("/v2/customers", raw)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", raw, resp.StatusCode, body)
		}
		var lb listBody
		if err := json.Unmarshal(body, &lb); err != nil {
			t.Fatal(err)
		}
		first, err := url.Parse(*lb.Links["first"])
		if err != nil {
			t.Fatal(err)
		}
		if got := first.Query().Get("filter"); got != want {
			t.Errorf("%s read as %q, want %q", raw, got, want)
		}
	}
}
