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
// bool or time.Time). An attribute the record lacks (the dimensions of a
// file that is not an image) is absent, and no filter term matches it.
type oracleRow map[string]any

func oracleRows(s *Server, resource string) []oracleRow {
	var rows []oracleRow
	switch resource {
	case "orders":
		for _, o := range s.Orders() {
			rows = append(rows, oracleRow{"id": o.ID, "status": o.Status, "payment": o.Payment, "shipping": o.Shipping,
				"order_number": o.OrderNumber, "external_ref": o.ExternalRef, "email": o.CustomerEmail, "name": o.CustomerName,
				"customer_id": o.CustomerID, "account_id": o.AccountID, "account_member_id": o.AccountMemberID,
				"contact.name": o.ContactName, "contact.email": o.ContactEmail,
				"shipping_postcode": o.ShippingPostcode, "billing_postcode": o.BillingPostcode,
				"product_id": o.ProductID, "product_sku": o.ProductSKU,
				"currency": o.Currency, "with_tax": o.WithTax, "without_tax": o.WithoutTax,
				"created_at": o.CreatedAt, "updated_at": o.UpdatedAt})
		}
	case "files":
		for _, f := range s.Files() {
			r := oracleRow{"id": f.ID, "file_name": f.FileName, "mime_type": f.MimeType, "file_size": f.FileSize,
				"public": f.Public, "created_at": f.CreatedAt}
			if strings.HasPrefix(f.MimeType, "image/") {
				r["width"], r["height"] = f.Width, f.Height
			}
			rows = append(rows, r)
		}
	case "accounts":
		for _, a := range s.Accounts() {
			rows = append(rows, oracleRow{"id": a.ID, "name": a.Name, "legal_name": a.LegalName, "registration_id": a.RegistrationID,
				"external_ref": a.ExternalRef, "parent_id": a.ParentID, "created_at": a.CreatedAt, "updated_at": a.UpdatedAt})
		}
	case "customers":
		for _, c := range s.Customers() {
			rows = append(rows, oracleRow{"id": c.ID, "name": c.Name, "email": c.Email, "external_ref": c.ExternalRef,
				"password": c.Password, "created_at": c.CreatedAt, "updated_at": c.UpdatedAt})
		}
	case "hierarchies":
		for _, h := range s.Hierarchies() {
			rows = append(rows, oracleRow{"id": h.ID, "name": h.Name, "description": h.Description, "slug": h.Slug,
				"created_at": h.CreatedAt, "updated_at": h.UpdatedAt})
		}
	}
	return rows
}

// The service's reference, written out independently of the emulator's
// schemas: the filterable attributes with their operators, and the sort
// values ("" is no sort).
var (
	eq, like, in, gt, ge, lt, le = filter.Eq, filter.Like, filter.In, filter.Gt, filter.Ge, filter.Lt, filter.Le
	rangeOps                     = []filter.Op{gt, ge, lt, le}
	timeOps                      = []filter.Op{eq, gt, ge, lt, le}

	serviceFilters = map[string]map[string][]filter.Op{
		"orders": {
			"status": {eq}, "payment": {eq}, "shipping": {eq}, "currency": {eq}, "product_id": {eq}, "product_sku": {eq},
			"name": {eq, like}, "email": {eq, like}, "customer_id": {eq, like}, "account_id": {eq, like},
			"account_member_id": {eq, like}, "contact.name": {eq, like}, "contact.email": {eq, like},
			"shipping_postcode": {eq, like}, "billing_postcode": {eq, like}, "external_ref": {eq, like}, "order_number": {eq, like},
			"with_tax": rangeOps, "without_tax": rangeOps,
			"created_at": timeOps, "updated_at": timeOps,
		},
		"files": {
			"file_name": {eq, like}, "width": rangeOps, "height": rangeOps, "file_size": rangeOps,
		},
		"accounts": {
			"name": {eq, like}, "legal_name": {eq, like}, "registration_id": {eq, like},
			"external_ref": {eq, like}, "id": {eq, gt, ge, lt, le, in},
			"created_at": timeOps, "updated_at": timeOps,
		},
		// docs/customer-management/customer-management-api/get-all-customers.md
		"customers": {
			"email": {eq, like}, "name": {eq, like}, "id": {eq, gt, ge, lt, le},
			"created_at": timeOps, "updated_at": timeOps, "external_ref": {eq},
		},
		// openapispecs/pim/pim.yaml, getHierarchy: page parameters only.
		"hierarchies": {},
	}
	// unfilterable are attributes records have that the service does not
	// filter on.
	unfilterable = map[string][]string{
		"orders":      {"id", "amount", "customer.email", "customer.name", "total"},
		"files":       {"created_at", "updated_at", "mime_type", "public", "name"},
		"accounts":    {"parent_id", "status"},
		"customers":   {"password", "phone", "legal_name"},
		"hierarchies": {"name", "slug", "created_at", "id"},
	}
	sortValues = map[string][]string{
		"orders":      {"", "created_at", "-created_at", "payment", "-payment", "shipping", "-shipping", "status", "-status", "with_tax", "-with_tax"},
		"files":       {""},
		"accounts":    {"", "created_at", "-created_at", "id", "-id", "name", "-name", "updated_at", "-updated_at"},
		"customers":   {"", "created_at", "-created_at", "email", "-email", "id", "-id", "name", "-name", "updated_at", "-updated_at"},
		"hierarchies": {""},
	}
	// defaultOrder is the order without sort.
	defaultOrder = map[string]string{"orders": "-created_at", "files": "id", "accounts": "-created_at", "customers": "-created_at", "hierarchies": "id"}
)

// filterAttrs returns the filterable attributes of resource, sorted.
func filterAttrs(resource string) []string {
	var attrs []string
	for a := range serviceFilters[resource] {
		attrs = append(attrs, a)
	}
	slices.Sort(attrs)
	return attrs
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

// oracleMatch evaluates one term on a row.
func oracleMatch(tm filter.Term, r oracleRow) (match bool) {
	v, ok := r[tm.Attribute]
	if !ok {
		return false
	}
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

// oracleIDs filters rows (in storage order) and sorts them stably by
// sortParam, or by the resource's default order for "": records with equal
// sort values stay in storage order in both directions.
func oracleIDs(resource string, rows []oracleRow, terms []filter.Term, sortParam string) []string {
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
	if sortParam == "" {
		sortParam = defaultOrder[resource]
	}
	key, desc := strings.CutPrefix(sortParam, "-")
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

func formatValue(v any) string {
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
	panic(fmt.Sprintf("type %T", v))
}

// sampleTerms returns terms exercising each of ops on attr, with values
// taken from the data.
func sampleTerms(rows []oracleRow, attr string, ops []filter.Op, rng *rand.Rand) []filter.Term {
	n := len(rows)
	var picks []oracleRow
	for _, p := range []oracleRow{rows[0], rows[n/2], rows[n-1], rows[rng.IntN(n)], rows[rng.IntN(n)], rows[rng.IntN(n)]} {
		if _, ok := p[attr]; ok {
			picks = append(picks, p)
		}
	}
	var terms []filter.Term
	for _, p := range picks {
		v := formatValue(p[attr])
		for _, op := range ops {
			switch op {
			case filter.In:
				other := rows[rng.IntN(n)][attr]
				vals := []string{v}
				if other != nil {
					vals = append(vals, formatValue(other))
				}
				if _, isString := p[attr].(string); isString {
					vals = append(vals, "no-such-value-"+strconv.Itoa(rng.IntN(9)))
				}
				terms = append(terms, filter.NewTerm(filter.In, attr, vals...))
			case filter.Like:
				s := p[attr].(string)
				terms = append(terms, filter.NewTerm(filter.Like, attr, s), filter.NewTerm(filter.Like, attr, "*"))
				if len(s) >= 2 {
					k := 1 + rng.IntN(len(s)-1)
					for len(s) > k && !utf8Boundary(s, k) {
						k++
					}
					terms = append(terms,
						filter.NewTerm(filter.Like, attr, s[:k]+"*"),
						filter.NewTerm(filter.Like, attr, "*"+s[k:]),
						filter.NewTerm(filter.Like, attr, "*"+s[k:]+"*"))
				}
			default:
				terms = append(terms, filter.NewTerm(op, attr, v))
			}
		}
	}
	return terms
}

func utf8Boundary(s string, i int) bool { return i >= len(s) || s[i] < 0x80 || s[i] >= 0xC0 }

// sampleValue is a valid value of attr for an operator the attribute does
// not support.
func sampleValue(rows []oracleRow, attr string) string {
	for _, r := range rows {
		if v, ok := r[attr]; ok {
			return formatValue(v)
		}
	}
	panic(attr)
}

// TestFilterOperatorsAgainstOracle checks every operator the service
// documents on every filterable attribute, under every sort, against the
// oracle; and that every other operator is refused.
func TestFilterOperatorsAgainstOracle(t *testing.T) {
	s := New(Options{Orders: 700, Files: 300, Accounts: 260, Customers: 240, Hierarchies: 60, Seed: 7})
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, res := range resourceNames() {
		rows := oracleRows(s, res)
		var all []filter.Term
		for _, attr := range filterAttrs(res) {
			ops := serviceFilters[res][attr]
			terms := sampleTerms(rows, attr, ops, rng)
			seen := map[filter.Op]bool{}
			for _, tm := range terms {
				seen[tm.Op] = true
				all = append(all, tm)
				text := filter.Expr{tm}.String()
				for _, sortParam := range sortValues[res] {
					got, err := s.ExpectedIDs(res, text, sortParam)
					if err != nil {
						t.Fatalf("%s %s: %v", res, text, err)
					}
					if want := oracleIDs(res, rows, []filter.Term{tm}, sortParam); !slices.Equal(got, want) {
						t.Fatalf("%s filter=%s sort=%s: got %d ids, want %d", res, text, sortParam, len(got), len(want))
					}
					checked++
				}
			}
			if len(seen) != len(ops) {
				t.Fatalf("%s %s: sampled operators %v of %v", res, attr, seen, ops)
			}
			// Every other operator is refused, naming the attribute and the
			// operators it supports.
			var opNames []string // in documentation order
			for _, op := range filter.Ops() {
				if slices.Contains(ops, op) {
					opNames = append(opNames, string(op))
				}
			}
			for _, op := range filter.Ops() {
				if slices.Contains(ops, op) {
					continue
				}
				text := filter.Expr{filter.NewTerm(op, attr, sampleValue(rows, attr))}.String()
				_, err := s.ExpectedIDs(res, text, "")
				if err == nil {
					t.Fatalf("%s: %s accepted", res, text)
				}
				for _, want := range []string{"Could not parse the supplied filter", `"` + attr + `"`, strings.Join(opNames, ", ")} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s %s: error %q does not contain %q", res, text, err, want)
					}
				}
			}
		}
		// Attributes the service does not filter on are refused, naming
		// the filterable ones.
		for _, attr := range unfilterable[res] {
			_, err := s.ExpectedIDs(res, "eq("+attr+",x)", "")
			if err == nil || !strings.Contains(err.Error(), `"`+attr+`"`) {
				t.Fatalf("%s: filter on %s: %v", res, attr, err)
			}
			for _, a := range filterAttrs(res) {
				if !strings.Contains(err.Error(), a) {
					t.Errorf("%s: error %q does not name %s", res, err, a)
				}
			}
		}
		// Conjunctions of two or three terms, often on the sort attribute.
		for range 300 * min(len(all), 1) {
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
			if want := oracleIDs(res, rows, terms, sortParam); !slices.Equal(got, want) {
				t.Fatalf("%s filter=%s sort=%s: got %d ids, want %d", res, text, sortParam, len(got), len(want))
			}
			checked++
		}
		// Sorts outside the reference are refused.
		for _, attr := range []string{"id", "updated_at", "name", "amount", "created_at", "file_size", "without_tax", "email"} {
			for _, sortParam := range []string{attr, "-" + attr} {
				_, err := s.ExpectedIDs(res, "", sortParam)
				if slices.Contains(sortValues[res], sortParam) != (err == nil) {
					t.Errorf("%s sort=%s: %v", res, sortParam, err)
				}
			}
		}
	}
	t.Logf("%d filter/sort combinations checked", checked)
}

// TestFilterOverHTTP checks that the API serves what ExpectedIDs computes,
// for a few filters of each operator, by paging through all results.
func TestFilterOverHTTP(t *testing.T) {
	c := startServer(t, Options{Orders: 400, Files: 120, Accounts: 90})
	o := c.s.Orders()[17]
	unicodeName := c.s.Orders()[slices.IndexFunc(c.s.Orders(), func(o Order) bool { return !isASCII(o.CustomerName) })].CustomerName
	cases := []struct{ res, filter, sort string }{
		{"orders", "eq(status,complete)", ""},
		{"orders", "eq(currency,EUR):gt(with_tax,100000)", "-with_tax"},
		{"orders", "like(email,*@example.org)", "status"},
		{"orders", "ge(created_at,2024-01-01T01:00:00.000Z):lt(created_at,2024-01-01T03:00:00.000Z)", "-created_at"},
		{"orders", "le(without_tax,5000)", "payment"},
		{"orders", "eq(name," + unicodeName + ")", ""},
		{"orders", "eq(product_sku," + o.ProductSKU + ")", "-shipping"},
		{"orders", "like(shipping_postcode," + o.ShippingPostcode[:2] + "*)", ""},
		{"orders", "eq(contact.email," + o.ContactEmail + ")", "created_at"},
		{"files", "like(file_name,photo-*):ge(width,1000)", ""},
		{"files", "ge(file_size,1000000):lt(height,3000)", ""},
		{"accounts", `like(name,"*,*")`, "name"},
		{"accounts", `like(external_ref,crm-00000*)`, "-name"},
		{"accounts", `like(name,"*o*")`, "-updated_at"},
		{"accounts", `gt(id,"8"):gt(created_at,2024-01-02T00:00:00.000Z)`, "id"},
	}
	for _, tc := range cases {
		want, err := c.s.ExpectedIDs(tc.res, tc.filter, tc.sort)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if len(want) == 0 {
			t.Errorf("%+v: matches nothing; the case proves little", tc)
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
		{"orders", strings.Repeat("eq(status,complete):", 410) + "eq(status,complete)", []string{"must not exceed 8192 bytes"}},
		{"orders", "eq(colour,red)", []string{`"colour"`, "status, payment, shipping, order_number, external_ref, email, name, currency, with_tax, created_at, updated_at, without_tax, customer_id"}},
		{"orders", "eq(customer.email,a@b.c)", []string{`"customer.email"`}},
		{"orders", "gt(amount,100)", []string{`"amount"`, "with_tax"}},
		{"orders", "eq(id,x)", []string{`"id"`}},
		{"orders", "in(status,complete,processing)", []string{parsePrefix, "operator in", `"status"`, "supported operators for status are eq."}},
		{"orders", "like(status,comp*)", []string{parsePrefix, "operator like", `"status"`}},
		{"orders", "eq(with_tax,1000)", []string{parsePrefix, "operator eq", `"with_tax"`, "gt, ge, lt, le"}},
		{"orders", "like(created_at,2024*)", []string{parsePrefix, "like", "created_at", "eq, gt, ge, lt, le"}},
		{"orders", "in(created_at,2024-01-01T00:00:00.000Z)", []string{parsePrefix, "operator in"}},
		{"orders", "gt(email,a)", []string{parsePrefix, `"email"`, "eq, like"}},
		{"files", "eq(name,x)", []string{`"name"`, "file_name"}},
		{"files", "eq(public,true)", []string{`"public"`, "file_name, file_size, width, height"}},
		{"files", "ge(created_at,2024-01-01T00:00:00.000Z)", []string{`"created_at"`}},
		{"files", "eq(updated_at,2024-01-01T00:00:00.000Z)", []string{`"updated_at"`}},
		{"files", "like(mime_type,image/*)", []string{`"mime_type"`}},
		{"files", "in(id,x)", []string{`"id"`, "file_name, file_size, width, height"}},
		{"accounts", "in(external_ref,a,b)", []string{parsePrefix, "eq, like."}},
		{"files", "eq(file_size,100)", []string{parsePrefix, "gt, ge, lt, le"}},
		{"files", "in(file_name,a.png,b.png)", []string{parsePrefix, "eq, like"}},
		{"accounts", "eq(status,x)", []string{`"status"`, "legal_name"}},
		{"accounts", "eq(parent_id,x)", []string{`"parent_id"`}},
		{"accounts", "in(name,a,b)", []string{parsePrefix, "eq, like."}},
		{"accounts", "gt(external_ref,a)", []string{parsePrefix, "eq, like."}},
		{"accounts", "like(id,a*)", []string{parsePrefix, "eq, in, gt, ge, lt, le"}},
		{"orders", "ge(created_at,2024-1-01)", []string{"created_at", "YYYY-MM-DD", "milliseconds", "ISO 8601"}},
		{"orders", "ge(created_at,2024-01-01T00:00:00)", []string{"created_at"}},
		{"orders", "ge(created_at,2024-01-01T00:00:00.1Z)", []string{"created_at"}},
		{"orders", "ge(updated_at,2024-01-01T00:00:00.000+0100)", []string{"updated_at"}},
		{"orders", "ge(updated_at,-1)", []string{"updated_at"}},
		{"orders", "ge(created_at,2024-02-30T00:00:00.000Z)", []string{"created_at"}},
		{"accounts", "eq(created_at,yesterday)", []string{"yesterday"}},
		{"orders", "gt(with_tax,abc)", []string{`"abc"`, "integer"}},
		{"orders", "gt(with_tax,100.25)", []string{`"100.25"`, "integer", "minor units"}},
		{"orders", "gt(with_tax,1e5)", []string{`"1e5"`}},
		{"orders", "lt(without_tax,0x10)", []string{`"0x10"`}},
		{"orders", "gt(with_tax,Inf)", []string{`"Inf"`}},
		{"orders", "gt(with_tax,99999999999999999999)", []string{`"99999999999999999999"`}},
		{"files", "gt(width,+5)", []string{`"+5"`}},
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
	for _, tc := range []struct{ res, filter string }{
		{"orders", "gt(with_tax,-5)"},
		{"orders", `eq(external_ref,"")`},
		{"orders", `eq(customer_id,"")`},
		{"orders", `gt(created_at,"2024-01-01T00:00:00.000Z")`},
		{"files", "ge(file_size,0)"},
		{"accounts", "in(id,x)"},
	} {
		if resp, body := c.get("/v2/"+tc.res, url.Values{"filter": {tc.filter}}.Encode()); resp.StatusCode != 200 {
			t.Errorf("%s %s: %d %s", tc.res, tc.filter, resp.StatusCode, body)
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
		filters := []string{
			"eq(name," + filter.QuoteValue(a.Name) + ")",
			filter.Expr{filter.NewTerm(filter.Eq, "legal_name", a.LegalName)}.String(),
		}
		if !strings.Contains(a.LegalName, "*") { // like would take * as a wildcard
			filters = append(filters, filter.Expr{filter.NewTerm(filter.Like, "legal_name", a.LegalName)}.String())
		}
		for _, f := range filters {
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
	if ids := expectedIDs(t, c.s, "accounts", `eq(name,"*")`, ""); len(ids) != 1 {
		t.Errorf(`eq(name,"*") matches %d accounts`, len(ids))
	}
	if ids := expectedIDs(t, c.s, "accounts", `like(name,"*")`, ""); len(ids) != len(accounts) {
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

// largestTieGroup returns the storage-ordered ids of the largest group of
// records sharing one value of attr, and that value.
func largestTieGroup(rows []oracleRow, attr string) ([]string, any) {
	groups := map[any][]string{}
	for _, r := range rows {
		groups[r[attr]] = append(groups[r[attr]], r["id"].(string))
	}
	var best []string
	var at any
	for v, ids := range groups {
		if len(ids) > len(best) {
			best, at = ids, v
		}
	}
	return best, at
}

func TestSortTies(t *testing.T) {
	c := startServer(t, Options{Orders: 2000, Files: 200, Accounts: 300, Customers: 400,
		OrderTieGroups: []int{350}, FileTieGroups: []int{40, 20}, AccountTieGroups: []int{120}, CustomerTieGroups: []int{150}})
	for _, tc := range []struct {
		res  string
		size int
	}{{"orders", 350}, {"files", 40}, {"accounts", 120}, {"customers", 150}} {
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
		if tc.res == "files" {
			continue // files cannot be sorted or filtered by created_at
		}
		for _, sortParam := range sortValues[tc.res] {
			ids, err := c.s.ExpectedIDs(tc.res, "", sortParam)
			if err != nil {
				t.Fatal(err)
			}
			if want := oracleIDs(tc.res, rows, nil, sortParam); !slices.Equal(ids, want) {
				t.Errorf("%s sort=%s differs from a stable sort of storage order", tc.res, sortParam)
			}
			if sortParam == "" || strings.TrimPrefix(sortParam, "-") == "created_at" {
				i := slices.Index(ids, group[0])
				if i < 0 || !slices.Equal(ids[i:i+len(group)], group) {
					t.Errorf("%s sort=%s: tie group not contiguous in storage order", tc.res, sortParam)
				}
			}
		}
		// Paging inside the tie group by offset is stable and matches.
		ts := formatValue(at)
		var got []string
		for offset := 0; offset < len(group); offset += 100 {
			for _, sortParam := range []string{"created_at", "-created_at", ""} {
				v := q("filter", "eq(created_at,"+ts+")", "page[limit]", "100", "page[offset]", strconv.Itoa(offset))
				if sortParam != "" {
					v.Set("sort", sortParam)
				}
				lb := c.list(tc.res, v)
				if sortParam == "created_at" {
					got = append(got, lb.ids()...)
				} else if !slices.Equal(lb.ids(), group[offset:min(offset+100, len(group))]) {
					t.Errorf("%s: page at %d of the tie group with sort=%q differs", tc.res, offset, sortParam)
				}
			}
		}
		if !slices.Equal(got, group) {
			t.Errorf("%s: paging the tie group gives a different order", tc.res)
		}
	}
	// The default order of orders, accounts and customers is created_at
	// descending, over the API too.
	for _, res := range []string{"orders", "accounts", "customers"} {
		def := expectedIDs(t, c.s, res, "", "")
		desc := expectedIDs(t, c.s, res, "", "-created_at")
		if !slices.Equal(def, desc) {
			t.Errorf("%s: default order is not -created_at", res)
		}
		lb := c.list(res, q("page[limit]", "100", "page[offset]", "100"))
		if !slices.Equal(lb.ids(), desc[100:200]) {
			t.Errorf("%s: API default order differs", res)
		}
	}
	// updated_at has the tie group too (a bulk import).
	if g, _ := largestTieGroup(oracleRows(c.s, "orders"), "updated_at"); len(g) < 350 {
		t.Errorf("updated_at tie group of %d", len(g))
	}
	// Sorting on attributes with few values keeps ties in storage order.
	rows := oracleRows(c.s, "orders")
	for _, sortParam := range []string{"status", "-payment"} {
		ids := expectedIDs(t, c.s, "orders", "eq(status,complete)", sortParam)
		if want := oracleIDs("orders", rows, []filter.Term{filter.NewTerm(filter.Eq, "status", "complete")}, "created_at"); !slices.Equal(ids, want) {
			t.Errorf("sort=%s: equal values not in storage order", sortParam)
		}
	}
}

// TestFilesOrderAndSortRefusal: files come in ascending id order, and any
// sort is refused with a JSON:API error on the sort parameter, unless
// IgnoreSort lets the list ignore it.
func TestFilesOrderAndSortRefusal(t *testing.T) {
	c := startServer(t, Options{Orders: 30, Files: 250, Accounts: 30})
	files := c.s.Files()
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	slices.Sort(ids)
	got, err := c.s.ExpectedIDs("files", "", "")
	if err != nil || !slices.Equal(got, ids) {
		t.Fatalf("files not in id order: %v", err)
	}
	var created []string
	for _, f := range files { // storage order is created_at order
		created = append(created, f.ID)
	}
	if slices.Equal(created, ids) {
		t.Fatal("id order equals created_at order; the test proves nothing")
	}
	var paged []string
	for offset := 0; offset < len(ids); offset += 100 {
		paged = append(paged, c.list("files", q("page[limit]", "100", "page[offset]", strconv.Itoa(offset))).ids()...)
	}
	if !slices.Equal(paged, ids) {
		t.Error("API order of files is not ascending id")
	}
	for _, sortParam := range []string{"created_at", "-created_at", "id", "file_name", "", "-updated_at"} {
		resp, body := c.get("/v2/files", url.Values{"sort": {sortParam}, "filter": {"gt(file_size,1)"}}.Encode())
		e := c.wantError(400, resp, body)
		if string(e.Status) != "400" || e.Title != "Bad Request" || !strings.Contains(e.Detail, "sort") ||
			!strings.Contains(e.Detail, "files") || e.Source == nil || e.Source.Parameter != "sort" {
			t.Errorf("sort=%q: %s", sortParam, body)
		}
		if _, err := c.s.ExpectedIDs("files", "", sortParam); sortParam != "" && (err == nil || !strings.Contains(err.Error(), "sort")) {
			t.Errorf("ExpectedIDs sort=%q: %v", sortParam, err)
		}
	}

	// IgnoreSort, switched at run time.
	c.s.SetIgnoreSort("files", "orders")
	for _, sortParam := range []string{"created_at", "-id", "nonsense", ""} {
		lb := c.list("files", q("sort", sortParam, "page[limit]", "100"))
		if !slices.Equal(lb.ids(), ids[:100]) {
			t.Errorf("ignored sort=%q: not the default order", sortParam)
		}
		if got, err := c.s.ExpectedIDs("files", "", sortParam); err != nil || !slices.Equal(got, ids) {
			t.Errorf("ExpectedIDs with ignored sort=%q: %v", sortParam, err)
		}
	}
	def := expectedIDs(t, c.s, "orders", "", "")
	if lb := c.list("orders", q("sort", "with_tax", "page[limit]", "30")); !slices.Equal(lb.ids(), def) {
		t.Error("orders: ignored sort changes the order")
	}
	// Accounts still sort, and refuse unknown sorts.
	resp, body := c.get("/v2/accounts", "sort=nonsense")
	c.wantError(400, resp, body)
	c.s.SetIgnoreSort()
	resp, body = c.get("/v2/files", "sort=id")
	c.wantError(400, resp, body)
	if lb := c.list("orders", q("sort", "with_tax", "page[limit]", "30")); slices.Equal(lb.ids(), def) {
		t.Error("orders: sort=with_tax ignored after SetIgnoreSort()")
	}

	// The option.
	loose := startServer(t, Options{Orders: 5, Files: 5, Accounts: 5, IgnoreSort: []string{"accounts"}})
	if resp, body := loose.get("/v2/accounts", "sort=whatever"); resp.StatusCode != 200 {
		t.Errorf("IgnoreSort option: %d %s", resp.StatusCode, body)
	}
	resp, body = loose.get("/v2/files", "sort=id")
	loose.wantError(400, resp, body)
}

// TestFileSizeTieGroups makes more files of one exact size than one list
// can page through by offset.
func TestFileSizeTieGroups(t *testing.T) {
	c := startServer(t, Options{Orders: 5, Files: 10100, Accounts: 5, FileSizeTieGroups: []int{10001, 30}})
	files := c.s.Files()
	bySize := map[int64]int{}
	for _, f := range files {
		bySize[f.FileSize]++
	}
	var groups []int
	var big int64
	for size, n := range bySize {
		if n > 1 {
			groups = append(groups, n)
		}
		if n == 10001 {
			big = size
		}
	}
	slices.Sort(groups)
	if !slices.Equal(groups, []int{30, 10001}) {
		t.Fatalf("file_size groups %v, want exactly [30 10001]", groups)
	}
	f := "ge(file_size," + strconv.FormatInt(big, 10) + "):le(file_size," + strconv.FormatInt(big, 10) + ")"
	lb := c.list("files", q("filter", f, "page[limit]", "100", "page[offset]", "10000"))
	if _, total := lb.pagination(); total != 10001 || len(lb.Data) != 1 {
		t.Errorf("results.total %d, %d records at offset 10000", total, len(lb.Data))
	}
	resp, body := c.get("/v2/files", url.Values{"filter": {f}, "page[offset]": {"10001"}}.Encode())
	c.wantError(400, resp, body)

	// By default sizes are spread.
	spread := New(Options{Orders: 5, Files: 5000, Accounts: 5})
	if g, _ := largestTieGroup(oracleRows(spread, "files"), "file_size"); len(g) > 3 {
		t.Errorf("default file sizes: %d files share one size", len(g))
	}
	for _, f := range spread.Files() {
		if f.FileSize < 512 || f.FileSize > 512+20<<20 {
			t.Fatalf("file_size %d", f.FileSize)
		}
	}
}

// TestKeysetTraversal walks all orders by created_at, and all accounts by
// id, through the API, and must see every record exactly once in
// ExpectedIDs order.
func TestKeysetTraversal(t *testing.T) {
	c := startServer(t, Options{Orders: 12000, Files: 5, Accounts: 3000, OrderTieGroups: []int{350, 150}})
	want := expectedIDs(t, c.s, "orders", "", "created_at")

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

	// Accounts by id with gt.
	wantByID := expectedIDs(t, c.s, "accounts", "", "id")
	got = got[:0]
	last := ""
	for {
		v := q("sort", "id", "page[limit]", "100")
		if last != "" {
			v.Set("filter", "gt(id,"+last+")")
		}
		lb := c.list("accounts", v)
		if len(lb.Data) == 0 {
			break
		}
		got = append(got, lb.ids()...)
		last = lb.Data[len(lb.Data)-1].ID
	}
	if !slices.Equal(got, wantByID) || len(got) != 3000 {
		t.Fatalf("id traversal: %d ids, want %d", len(got), len(wantByID))
	}
	if byCreated := expectedIDs(t, c.s, "accounts", "", "created_at"); slices.Equal(byCreated, wantByID) {
		t.Error("ids sort like created_at")
	}
}

func TestExpectedIDsErrors(t *testing.T) {
	s := New(Options{Orders: 5, Files: 5, Accounts: 5})
	if _, err := s.ExpectedIDs("promotions", "", ""); err == nil {
		t.Error("unknown resource accepted")
	}
	// Hierarchies take neither a sort nor a filter.
	if _, err := s.ExpectedIDs("hierarchies", "", "created_at"); err == nil || !strings.Contains(err.Error(), "remove the sort parameter") {
		t.Errorf("hierarchies sort: %v", err)
	}
	if _, err := s.ExpectedIDs("hierarchies", "eq(name,Shoes)", ""); err == nil || !strings.Contains(err.Error(), "filtering is not supported on hierarchies") {
		t.Errorf("hierarchies filter: %v", err)
	}
	if _, err := s.ExpectedIDs("orders", "", "name"); err == nil ||
		!strings.Contains(err.Error(), "allowed values are created_at, -created_at, payment, -payment, shipping, -shipping, status, -status, with_tax, -with_tax") {
		t.Errorf("bad sort: %v", err)
	}
	if _, err := s.ExpectedIDs("files", "", "created_at"); err == nil || !strings.Contains(err.Error(), "remove the sort parameter") {
		t.Errorf("files sort: %v", err)
	}
	if s.Count("orders") != 5 || s.Count("nope") != 0 {
		t.Error("Count")
	}
}
