package emulator

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// The tests compute expected results with an oracle written independently
// of the emulator's query engine: plain loops over the exported records, a
// regexp for like, and sort.SliceStable.

// oracleRow is one record as attribute name -> typed value (string, int64,
// bool or time.Time).
type oracleRow map[string]any

func oracleRows(s *Server, resource string) []oracleRow {
	var rows []oracleRow
	switch resource {
	case "orders":
		for _, o := range s.Orders() {
			rows = append(rows, oracleRow{"id": o.ID, "status": o.Status, "payment": o.Payment, "shipping": o.Shipping,
				"order_number": o.OrderNumber, "external_ref": o.ExternalRef, "email": o.CustomerEmail, "name": o.CustomerName,
				"currency": o.Currency, "amount": o.Amount, "created_at": o.CreatedAt, "updated_at": o.UpdatedAt})
		}
	case "files":
		for _, f := range s.Files() {
			rows = append(rows, oracleRow{"id": f.ID, "file_name": f.FileName, "mime_type": f.MimeType, "file_size": f.FileSize,
				"public": f.Public, "created_at": f.CreatedAt, "updated_at": f.UpdatedAt})
		}
	case "accounts":
		for _, a := range s.Accounts() {
			rows = append(rows, oracleRow{"id": a.ID, "name": a.Name, "legal_name": a.LegalName, "registration_id": a.RegistrationID,
				"external_ref": a.ExternalRef, "parent_id": a.ParentID, "created_at": a.CreatedAt, "updated_at": a.UpdatedAt})
		}
	}
	return rows
}

var filterableAttrs = map[string][]string{
	"orders":   {"id", "status", "payment", "shipping", "order_number", "external_ref", "email", "name", "currency", "amount", "created_at", "updated_at"},
	"files":    {"id", "file_name", "mime_type", "file_size", "public", "created_at", "updated_at"},
	"accounts": {"id", "name", "legal_name", "registration_id", "external_ref", "parent_id", "created_at", "updated_at"},
}

var sortValues = map[string][]string{
	"orders":   {"created_at", "-created_at", "updated_at", "-updated_at", "id", "-id"},
	"files":    {"created_at", "-created_at", "updated_at", "-updated_at", "id", "-id"},
	"accounts": {"created_at", "-created_at", "updated_at", "-updated_at", "id", "-id", "name", "-name"},
}

// cmpAny compares two values of the same attribute: -1, 0 or 1.
func cmpAny(a, b any) int {
	switch x := a.(type) {
	case string:
		return strings.Compare(x, b.(string))
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case time.Time:
		return x.Compare(b.(time.Time))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	panic(fmt.Sprintf("type %T", a))
}

var likeCache = map[string]*regexp.Regexp{}

// likeRegexp turns a like pattern into an anchored regexp.
func likeRegexp(p string) *regexp.Regexp {
	if re, ok := likeCache[p]; ok {
		return re
	}
	parts := strings.Split(p, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	re := regexp.MustCompile(`(?s)\A` + strings.Join(parts, ".*") + `\z`)
	likeCache[p] = re
	return re
}

// oracleMatch evaluates one term on a row. ok is false if the value does
// not convert (the emulator must reject such a filter).
func oracleMatch(tm filter.Term, r oracleRow) (match bool) {
	v := r[tm.Attribute]
	for _, raw := range tm.Values {
		var want any
		switch v.(type) {
		case string:
			want = raw
		case int64:
			n, err := strconv.ParseInt(raw, 10, 64)
			if err != nil {
				panic(err)
			}
			want = n
		case bool:
			want = raw == "true"
		case time.Time:
			ts, err := time.Parse(timestampLayout, raw)
			if err != nil {
				panic(err)
			}
			want = ts
		}
		c := cmpAny(v, want)
		switch tm.Op {
		case filter.Eq, filter.In:
			if c == 0 {
				return true
			}
		case filter.Like:
			return likeRegexp(raw).MatchString(v.(string))
		case filter.Gt:
			return c > 0
		case filter.Ge:
			return c >= 0
		case filter.Lt:
			return c < 0
		case filter.Le:
			return c <= 0
		}
	}
	return false
}

func oracleIDs(rows []oracleRow, terms []filter.Term, sortParam string) []string {
	var out []oracleRow
	for _, r := range rows {
		ok := true
		for _, tm := range terms {
			if !oracleMatch(tm, r) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	key, desc := strings.CutPrefix(sortParam, "-")
	if key == "" {
		key = "created_at"
	}
	sort.SliceStable(out, func(i, j int) bool {
		c := cmpAny(out[i][key], out[j][key])
		if desc {
			return c > 0
		}
		return c < 0
	})
	ids := make([]string, len(out))
	for i, r := range out {
		ids[i] = r["id"].(string)
	}
	return ids
}

// sampleTerms returns terms exercising every operator on attr, with values
// taken from the data.
func sampleTerms(rows []oracleRow, attr string, rng *rand.Rand) []filter.Term {
	n := len(rows)
	picks := []oracleRow{rows[0], rows[n/2], rows[n-1], rows[rng.IntN(n)], rows[rng.IntN(n)]}
	var terms []filter.Term
	format := func(v any) string {
		switch x := v.(type) {
		case string:
			return x
		case int64:
			return strconv.FormatInt(x, 10)
		case bool:
			return strconv.FormatBool(x)
		case time.Time:
			return x.UTC().Format(timestampLayout)
		}
		panic("type")
	}
	for _, p := range picks {
		v := format(p[attr])
		for _, op := range []filter.Op{filter.Eq, filter.Gt, filter.Ge, filter.Lt, filter.Le} {
			if _, isBool := p[attr].(bool); isBool && op != filter.Eq {
				continue
			}
			terms = append(terms, filter.NewTerm(op, attr, v))
		}
		other := format(rows[rng.IntN(n)][attr])
		terms = append(terms, filter.NewTerm(filter.In, attr, v, other, "no-such-value-"+strconv.Itoa(rng.IntN(9))))
		if s, ok := p[attr].(string); ok && len(s) >= 2 {
			k := 1 + rng.IntN(len(s)-1)
			for len(s) > k && !utf8Boundary(s, k) {
				k++
			}
			terms = append(terms,
				filter.NewTerm(filter.Like, attr, s[:k]+"*"),
				filter.NewTerm(filter.Like, attr, "*"+s[k:]),
				filter.NewTerm(filter.Like, attr, "*"+s[k:]+"*"),
				filter.NewTerm(filter.Like, attr, s),
				filter.NewTerm(filter.Like, attr, "*"))
		}
	}
	if _, isBool := rows[0][attr].(bool); isBool {
		terms = append(terms, filter.NewTerm(filter.Eq, attr, "false"), filter.NewTerm(filter.In, attr, "true", "false"))
	}
	return terms
}

func utf8Boundary(s string, i int) bool { return i >= len(s) || s[i] < 0x80 || s[i] >= 0xC0 }

// numeric values in In must parse for the oracle; drop the junk value there.
func fixForKind(tm filter.Term, rows []oracleRow) filter.Term {
	switch rows[0][tm.Attribute].(type) {
	case int64, bool, time.Time:
		vals := tm.Values[:0:0]
		for _, v := range tm.Values {
			if !strings.HasPrefix(v, "no-such-value") {
				vals = append(vals, v)
			}
		}
		tm.Values = vals
	}
	return tm
}

func TestFilterOperatorsAgainstOracle(t *testing.T) {
	s := New(Options{Orders: 700, Files: 300, Accounts: 260, Seed: 7})
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, res := range []string{"orders", "files", "accounts"} {
		rows := oracleRows(s, res)
		var all []filter.Term
		for _, attr := range filterableAttrs[res] {
			for _, tm := range sampleTerms(rows, attr, rng) {
				tm = fixForKind(tm, rows)
				all = append(all, tm)
				text := filter.Expr{tm}.String()
				for _, sortParam := range sortValues[res] {
					got, err := s.ExpectedIDs(res, text, sortParam)
					if err != nil {
						t.Fatalf("%s %s: %v", res, text, err)
					}
					if want := oracleIDs(rows, []filter.Term{tm}, sortParam); !slices.Equal(got, want) {
						t.Fatalf("%s filter=%s sort=%s: got %d ids, want %d", res, text, sortParam, len(got), len(want))
					}
					checked++
				}
			}
		}
		// Conjunctions of two or three terms, often on the sort attribute.
		for range 300 {
			terms := []filter.Term{all[rng.IntN(len(all))], all[rng.IntN(len(all))]}
			if rng.IntN(2) == 0 {
				terms = append(terms, all[rng.IntN(len(all))])
			}
			text := filter.Expr(terms).String()
			sortParam := sortValues[res][rng.IntN(len(sortValues[res]))]
			got, err := s.ExpectedIDs(res, text, sortParam)
			if err != nil {
				t.Fatalf("%s %s: %v", res, text, err)
			}
			if want := oracleIDs(rows, terms, sortParam); !slices.Equal(got, want) {
				t.Fatalf("%s filter=%s sort=%s: got %d ids, want %d", res, text, sortParam, len(got), len(want))
			}
			checked++
		}
	}
	t.Logf("%d filter/sort combinations checked", checked)
}

// TestFilterOverHTTP checks that the API serves what ExpectedIDs computes,
// for a few filters of each operator, by paging through all results.
func TestFilterOverHTTP(t *testing.T) {
	c := startServer(t, Options{Orders: 400, Files: 120, Accounts: 90})
	cases := []struct{ res, filter, sort string }{
		{"orders", "eq(status,complete)", ""},
		{"orders", "in(currency,EUR,GBP):gt(amount,100000)", "-updated_at"},
		{"orders", "like(email,*@example.org)", "id"},
		{"orders", "ge(created_at,2024-01-01T01:00:00.000Z):lt(created_at,2024-01-01T03:00:00.000Z)", "-created_at"},
		{"orders", "le(amount,5000.5)", ""},
		{"orders", "eq(name,Zoë Müller)", ""},
		{"files", "eq(public,true):like(mime_type,image/*)", "-id"},
		{"files", "ge(file_size,1000000)", "updated_at"},
		{"accounts", `like(name,"*,*")`, "name"},
		{"accounts", `eq(parent_id,"")`, "-name"},
		{"accounts", `gt(name,"M")`, "-name"},
	}
	for _, tc := range cases {
		want, err := c.s.ExpectedIDs(tc.res, tc.filter, tc.sort)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		var got []string
		for offset := 0; ; offset += 13 {
			v := q("filter", tc.filter, "page[limit]", "13", "page[offset]", strconv.Itoa(offset))
			if tc.sort != "" {
				v.Set("sort", tc.sort)
			}
			lb := c.list(tc.res, v)
			if _, total := lb.pagination(); total != len(want) {
				t.Fatalf("%+v: results.total %d, want %d", tc, total, len(want))
			}
			if len(lb.Data) == 0 {
				break
			}
			got = append(got, lb.ids()...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: pages give %d ids, ExpectedIDs %d (or order differs)", tc, len(got), len(want))
		}
	}
}

func TestFilterErrors(t *testing.T) {
	c := startServer(t, Options{Orders: 50, Files: 50, Accounts: 50})
	const parsePrefix = "Could not parse the supplied filter: "
	cases := []struct {
		res, filter string
		detail      []string
	}{
		{"orders", "eq(status", []string{parsePrefix}},
		{"orders", "EQ(status,complete)", []string{parsePrefix}},
		{"orders", "eq(status, complete)", []string{parsePrefix}},
		{"orders", "gte(created_at,2024-01-01T00:00:00.000Z)", []string{parsePrefix, "gte"}},
		{"orders", "eq(status,complete);eq(payment,paid)", []string{parsePrefix}},
		{"orders", "", []string{parsePrefix}},
		{"orders", strings.Repeat("eq(status,complete):", 410) + "eq(status,complete)", []string{parsePrefix, "8192"}},
		{"orders", "eq(colour,red)", []string{`"colour"`, "id, status, payment, shipping, order_number, external_ref, email, name, currency, amount, created_at, updated_at"}},
		{"orders", "eq(customer.email,a@b.c)", []string{`"customer.email"`}},
		{"files", "eq(name,x)", []string{`"name"`, "file_name"}},
		{"accounts", "eq(status,x)", []string{`"status"`, "legal_name"}},
		{"orders", "ge(created_at,2024-01-01)", []string{"created_at", "2006-01-02T15:04:05.000Z"}},
		{"orders", "ge(created_at,2024-01-01T00:00:00Z)", []string{"created_at"}},
		{"orders", "ge(updated_at,2024-01-01T00:00:00.000+01:00)", []string{"updated_at"}},
		{"orders", "ge(created_at,2024-02-30T00:00:00.000Z)", []string{"created_at"}},
		{"accounts", "in(created_at,2024-01-01T00:00:00.000Z,yesterday)", []string{"yesterday"}},
		{"orders", "like(amount,1*)", []string{"like", "amount"}},
		{"orders", "like(created_at,2024*)", []string{"like", "created_at"}},
		{"files", "like(public,t*)", []string{"like", "public"}},
		{"files", "gt(public,false)", []string{"gt", "public", "true or false"}},
		{"files", "eq(public,yes)", []string{`"yes"`, "true or false"}},
		{"files", "eq(public,TRUE)", []string{`"TRUE"`}},
		{"orders", "eq(amount,abc)", []string{`"abc"`, "number"}},
		{"orders", "eq(amount,1e5)", []string{`"1e5"`}},
		{"orders", "eq(amount,0x10)", []string{`"0x10"`}},
		{"orders", "gt(amount,Inf)", []string{`"Inf"`}},
		{"files", "in(file_size,1,2,x)", []string{`"x"`}},
	}
	for _, tc := range cases {
		name := tc.res + "?filter=" + tc.filter
		if len(name) > 80 {
			name = name[:80]
		}
		t.Run(name, func(t *testing.T) {
			resp, body := c.get("/v2/"+tc.res, url.Values{"filter": {tc.filter}}.Encode())
			e := c.wantError(400, resp, body)
			for _, d := range tc.detail {
				if d == parsePrefix {
					if !strings.HasPrefix(e.Detail, d) || len(e.Detail) <= len(d) {
						t.Errorf("detail %q does not start with %q", e.Detail, d)
					}
				} else if !strings.Contains(e.Detail, d) {
					t.Errorf("detail %q does not contain %q", e.Detail, d)
				}
			}
			if e.Source == nil || e.Source.Parameter != "filter" {
				t.Errorf("source %+v", e.Source)
			}
			if _, err := c.s.ExpectedIDs(tc.res, tc.filter, ""); err == nil && tc.filter != "" {
				t.Error("ExpectedIDs accepts the filter")
			}
		})
	}
	// Accepted edge cases.
	for _, f := range []string{"eq(amount,-5)", "gt(amount,100.25)", "in(status,complete)", `eq(external_ref,"")`, "eq(file_size,0)"} {
		res := "orders"
		if strings.Contains(f, "file_size") {
			res = "files"
		}
		if resp, body := c.get("/v2/"+res, url.Values{"filter": {f}}.Encode()); resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", f, resp.StatusCode, body)
		}
	}
}

// TestQuotingRoundTrip filters each account by its exact name (and legal
// name), quoted with filter.QuoteValue and sent URL-encoded: every hostile
// name must select exactly its account.
func TestQuotingRoundTrip(t *testing.T) {
	c := startServer(t, Options{Orders: 5, Files: 5, Accounts: 60})
	accounts := c.s.Accounts()
	hostile := 0
	for _, a := range accounts {
		if strings.ContainsAny(a.Name, `,()'":\* `) || strings.TrimSpace(a.Name) != a.Name || !isASCII(a.Name) {
			hostile++
		}
		for _, f := range []string{
			"eq(name," + filter.QuoteValue(a.Name) + ")",
			filter.Expr{filter.NewTerm(filter.Eq, "legal_name", a.LegalName)}.String(),
			filter.Expr{filter.NewTerm(filter.In, "name", a.Name, "nobody")}.String(),
		} {
			lb := c.list("accounts", q("filter", f))
			if len(lb.Data) != 1 || lb.Data[0].ID != a.ID || lb.Data[0].Name != a.Name {
				t.Errorf("filter %s: got %+v, want account %q", f, lb.Data, a.Name)
			}
		}
	}
	if hostile < 18 {
		t.Errorf("only %d hostile account names", hostile)
	}
	// like with a quoted * is still a wildcard; eq with * is literal.
	if ids, _ := c.s.ExpectedIDs("accounts", `eq(name,"*")`, ""); len(ids) != 1 {
		t.Errorf(`eq(name,"*") matches %d accounts`, len(ids))
	}
	if ids, _ := c.s.ExpectedIDs("accounts", `like(name,"*")`, ""); len(ids) != len(accounts) {
		t.Errorf(`like(name,"*") matches %d accounts`, len(ids))
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// tieGroup returns the storage-ordered ids of the largest group of records
// sharing one created_at, and that time.
func largestTieGroup(rows []oracleRow, attr string) ([]string, time.Time) {
	groups := map[time.Time][]string{}
	for _, r := range rows {
		ts := r[attr].(time.Time)
		groups[ts] = append(groups[ts], r["id"].(string))
	}
	var best []string
	var at time.Time
	for ts, ids := range groups {
		if len(ids) > len(best) {
			best, at = ids, ts
		}
	}
	return best, at
}

func TestSortTies(t *testing.T) {
	c := startServer(t, Options{Orders: 2000, Files: 200, Accounts: 300,
		OrderTieGroups: []int{350}, FileTieGroups: []int{40, 20}, AccountTieGroups: []int{120}})
	for _, tc := range []struct {
		res  string
		size int
	}{{"orders", 350}, {"files", 40}, {"accounts", 120}} {
		rows := oracleRows(c.s, tc.res)
		group, at := largestTieGroup(rows, "created_at")
		if len(group) != tc.size {
			t.Fatalf("%s: largest created_at tie group has %d records, want %d", tc.res, len(group), tc.size)
		}
		if slices.IsSorted(group) {
			t.Fatalf("%s: tie group storage order equals id order; the test would prove nothing", tc.res)
		}
		// A single group sits in the middle of the range.
		if pos := slices.IndexFunc(rows, func(r oracleRow) bool { return r["id"] == group[0] }); tc.res != "files" && pos < len(rows)/4 || pos > len(rows)*3/4 {
			t.Errorf("%s: tie group starts at %d of %d", tc.res, pos, len(rows))
		}
		for _, sortParam := range sortValues[tc.res] {
			ids, err := c.s.ExpectedIDs(tc.res, "", sortParam)
			if err != nil {
				t.Fatal(err)
			}
			if want := oracleIDs(rows, nil, sortParam); !slices.Equal(ids, want) {
				t.Errorf("%s sort=%s differs from a stable sort of storage order", tc.res, sortParam)
			}
			if strings.TrimPrefix(sortParam, "-") == "created_at" {
				i := slices.Index(ids, group[0])
				if i < 0 || !slices.Equal(ids[i:i+len(group)], group) {
					t.Errorf("%s sort=%s: tie group not contiguous in storage order", tc.res, sortParam)
				}
			}
		}
		// Paging inside the tie group by offset is stable and matches.
		ts := at.Format(timestampLayout)
		var got []string
		for offset := 0; offset < len(group); offset += 100 {
			for _, sortParam := range []string{"created_at", "-created_at"} {
				lb := c.list(tc.res, q("filter", "eq(created_at,"+ts+")", "sort", sortParam, "page[limit]", "100", "page[offset]", strconv.Itoa(offset)))
				if sortParam == "created_at" {
					got = append(got, lb.ids()...)
				} else if !slices.Equal(lb.ids(), group[offset:min(offset+100, len(group))]) {
					t.Errorf("%s: descending page at %d of the tie group differs", tc.res, offset)
				}
			}
		}
		if !slices.Equal(got, group) {
			t.Errorf("%s: paging the tie group gives a different order", tc.res)
		}
	}
	// Default sort is created_at ascending.
	def, _ := c.s.ExpectedIDs("orders", "", "")
	asc, _ := c.s.ExpectedIDs("orders", "", "created_at")
	if !slices.Equal(def, asc) {
		t.Error("default sort is not created_at")
	}
	lb := c.list("orders", q("page[limit]", "100", "page[offset]", "900"))
	if !slices.Equal(lb.ids(), asc[900:1000]) {
		t.Error("API default order differs")
	}
	// updated_at has the tie group too (a bulk import).
	if g, _ := largestTieGroup(oracleRows(c.s, "orders"), "updated_at"); len(g) < 350 {
		t.Errorf("updated_at tie group of %d", len(g))
	}
}

// TestKeysetTraversal walks all orders as section 4.3 describes, through
// the API, and must see every order exactly once in ExpectedIDs order.
func TestKeysetTraversal(t *testing.T) {
	c := startServer(t, Options{Orders: 12000, Files: 5, Accounts: 5, OrderTieGroups: []int{350, 150}})
	want, _ := c.s.ExpectedIDs("orders", "", "created_at")

	// By created_at with ge, skipping what was already seen at the cursor.
	var got []string
	cursor, skip := "", 0
	for pages := 0; ; pages++ {
		v := q("sort", "created_at", "page[limit]", "100")
		if cursor != "" {
			v.Set("filter", "ge(created_at,"+cursor+")")
		}
		if skip > 0 {
			v.Set("page[offset]", strconv.Itoa(skip))
		}
		lb := c.list("orders", v)
		if len(lb.Data) == 0 {
			break
		}
		got = append(got, lb.ids()...)
		last := lb.Data[len(lb.Data)-1].created()
		if last == cursor {
			skip += len(lb.Data)
		} else {
			skip = 0
			for _, r := range lb.Data {
				if r.created() == last {
					skip++
				}
			}
			cursor = last
		}
		if pages > 1000 {
			t.Fatal("no progress")
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("created_at traversal: %d ids, want %d (or order differs)", len(got), len(want))
	}

	// By id with gt.
	wantByID, _ := c.s.ExpectedIDs("orders", "", "id")
	got = got[:0]
	last := ""
	for {
		v := q("sort", "id", "page[limit]", "100")
		if last != "" {
			v.Set("filter", "gt(id,"+last+")")
		}
		lb := c.list("orders", v)
		if len(lb.Data) == 0 {
			break
		}
		got = append(got, lb.ids()...)
		last = lb.Data[len(lb.Data)-1].ID
	}
	if !slices.Equal(got, wantByID) {
		t.Fatalf("id traversal: %d ids, want %d", len(got), len(wantByID))
	}
	if slices.Equal(want, wantByID) {
		t.Error("ids sort like created_at")
	}
}

func TestExpectedIDsErrors(t *testing.T) {
	s := New(Options{Orders: 5, Files: 5, Accounts: 5})
	if _, err := s.ExpectedIDs("customers", "", ""); err == nil {
		t.Error("unknown resource accepted")
	}
	if _, err := s.ExpectedIDs("orders", "", "name"); err == nil || !strings.Contains(err.Error(), "allowed values") {
		t.Errorf("bad sort: %v", err)
	}
	if s.Count("orders") != 5 || s.Count("nope") != 0 {
		t.Error("Count")
	}
}
