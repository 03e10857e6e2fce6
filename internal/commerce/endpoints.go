package commerce

import (
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// ValueType is how the service compares an attribute in a filter.
type ValueType int

const (
	StringValue ValueType = iota
	TimestampValue
	NumberValue
	BoolValue
)

func (k ValueType) String() string {
	switch k {
	case TimestampValue:
		return "timestamp"
	case NumberValue:
		return "number"
	case BoolValue:
		return "boolean"
	}
	return "string"
}

// FilterAttribute is one attribute an endpoint filters on: how it compares
// and which operators the service accepts for it.
type FilterAttribute struct {
	Kind ValueType
	Ops  []filter.Op
}

// Allows reports whether the service accepts op on the attribute.
func (a FilterAttribute) Allows(op filter.Op) bool { return slices.Contains(a.Ops, op) }

// OpNames lists the accepted operators, for messages.
func (a FilterAttribute) OpNames() string { return filter.JoinOps(a.Ops) }

// Ranged reports whether the attribute can bound a window on both sides.
func (a FilterAttribute) Ranged() bool {
	return (a.Allows(filter.Ge) || a.Allows(filter.Gt)) && (a.Allows(filter.Lt) || a.Allows(filter.Le))
}

// Endpoint is one list endpoint's row of the capability table: what the
// service can sort and filter it by, and what the provider offers on top.
//
// The table is taken from the vendor's API reference (elasticpath/
// elasticpath-dev: openapispecs/accounts, openapispecs/files,
// openapispecs/cartsorders, openapispecs/pim, docs/customer-management and
// guides/Getting-Started/{sorting,filtering,pagination}.md). The listing engine confirms it at run time: a service
// that refuses or ignores a sort the table promises makes the engine switch
// strategy (see List).
type Endpoint struct {
	Name     string // plural, as in the path: "orders"
	Singular string // "order"
	Path     string // "/v2/orders"

	// ServiceSorts are the orders the provider has the service give, by
	// keyset windows: it sorts by them and filters them by range (without
	// "-"). Empty: listings come in the service's own order.
	ServiceSorts []string
	// ProviderSorts are orders the provider offers although the service
	// cannot give them: it lists every matching record and sorts them
	// itself: timestamps to the millisecond, numbers numerically, text
	// bytewise (as Terraform's sort() does), ties by id.
	ProviderSorts []string
	// DefaultSort is the order of a listing that names none.
	DefaultSort string
	// Filters are the attributes the service filters on, with their
	// operators.
	Filters map[string]FilterAttribute
	// RangeAttribute is a whole-number attribute the service range-filters
	// on, used to cut a listing the service cannot sort (or a tie group it
	// cannot break) into windows under the offset limit. Empty: none.
	RangeAttribute string
	// HardOffsetLimit is true where the service refuses offsets past
	// OffsetLimit whatever the store's settings (orders and files).
	HardOffsetLimit bool
	// ValuePaths says where a record decoded generically (GenericKind)
	// holds a sort or range attribute that is not at the top level or
	// under "attributes": dotted paths into the record's JSON, the first
	// that leads to a value wins (the vendor documents some attributes in
	// two places).
	ValuePaths map[string][]string
}

var (
	eqOnly    = []filter.Op{filter.Eq}
	eqLike    = []filter.Op{filter.Eq, filter.Like}
	ranges    = []filter.Op{filter.Gt, filter.Ge, filter.Lt, filter.Le}
	eqRanges  = []filter.Op{filter.Eq, filter.Gt, filter.Ge, filter.Lt, filter.Le}
	allRanges = []filter.Op{filter.Eq, filter.Gt, filter.Ge, filter.Lt, filter.Le, filter.In}
)

func attrs(kind ValueType, ops []filter.Op, names ...string) map[string]FilterAttribute {
	out := make(map[string]FilterAttribute, len(names))
	for _, n := range names {
		out[n] = FilterAttribute{Kind: kind, Ops: ops}
	}
	return out
}

func merge(parts ...map[string]FilterAttribute) map[string]FilterAttribute {
	out := map[string]FilterAttribute{}
	for _, p := range parts {
		for k, v := range p {
			out[k] = v
		}
	}
	return out
}

// The list endpoints of the capability table: the three typed ones, and
// those only the generic listing (GenericKind) reaches.
var (
	// Orders sort only by created_at, payment, shipping, status and
	// with_tax: not by id or updated_at, which the provider sorts itself.
	// A created_at tie group too large for a window is cut by with_tax.
	OrdersEndpoint = Endpoint{
		Name: "orders", Singular: "order", Path: apiPrefix + "/orders",
		ServiceSorts:  []string{"created_at"},
		ProviderSorts: []string{"updated_at", "id"},
		DefaultSort:   "created_at",
		Filters: merge(
			attrs(StringValue, eqOnly, "status", "payment", "shipping", "currency", "product_id", "product_sku"),
			attrs(StringValue, eqLike, "name", "email", "customer_id", "account_id", "account_member_id",
				"contact.name", "contact.email", "shipping_postcode", "billing_postcode", "external_ref", "order_number"),
			attrs(NumberValue, ranges, "with_tax", "without_tax"),
			attrs(TimestampValue, eqRanges, "created_at", "updated_at"),
		),
		RangeAttribute:  "with_tax",
		HardOffsetLimit: true,
		// The vendor's examples and SDK have the amounts under
		// meta.display_price; the OrderMeta schema of its carts-orders
		// spec has them directly under meta.
		ValuePaths: map[string][]string{
			"with_tax":    {"meta.display_price.with_tax.amount", "meta.with_tax.amount"},
			"without_tax": {"meta.display_price.without_tax.amount", "meta.without_tax.amount"},
		},
	}
	// Files cannot be sorted at all, nor filtered by time or id: the
	// provider lists them in windows of file_size and sorts them. Filters
	// as in openapispecs/files/files.yaml, operation getAllFiles, at its
	// newest version (ecbdbbec, 2024-05-24, unchanged on main through
	// 33ab00fe; the mono-repository copy apps/core/openapispecs/files/
	// files.yaml at 74b406fd, 2024-08-22, is the same): file_name,
	// width, height and file_size only; no version of it has a filter on
	// id.
	FilesEndpoint = Endpoint{
		Name: "files", Singular: "file", Path: apiPrefix + "/files",
		ProviderSorts: []string{"created_at", "file_size", "id"},
		DefaultSort:   "created_at",
		Filters: merge(
			attrs(StringValue, eqLike, "file_name"),
			attrs(NumberValue, ranges, "width", "height", "file_size"),
		),
		RangeAttribute:  "file_size",
		HardOffsetLimit: true,
	}
	// Accounts sort by created_at, id, name and updated_at (the service's
	// own default is -created_at) and range-filter on id and timestamps.
	// Names filter with eq and like only, so no keyset reaches past the
	// offset limit in name order: the provider sorts names itself, bytewise
	// (as Terraform's sort() does), whatever the count. Filters as in
	// openapispecs/accounts/OpenAPISpec.yaml, operation get-v2-accounts, at
	// its newest version (37e486ea, 2024-11-15, branch
	// docs-account-management.svc; main's abb600f8, 2024-08-13, as read at
	// 33ab00fe, has the same filter table, as has every version since
	// 5028f168, 2024-05-31): external_ref takes eq and like, not in; only
	// id takes in.
	AccountsEndpoint = Endpoint{
		Name: "accounts", Singular: "account", Path: apiPrefix + "/accounts",
		ServiceSorts:  []string{"created_at", "updated_at", "id"},
		ProviderSorts: []string{"name"},
		DefaultSort:   "created_at",
		Filters: merge(
			attrs(StringValue, eqLike, "name", "legal_name", "registration_id"),
			attrs(StringValue, eqLike, "external_ref"),
			attrs(StringValue, allRanges, "id"),
			attrs(TimestampValue, eqRanges, "created_at", "updated_at"),
		),
	}
	// Customers, from the vendor's "Get all Customers" page (docs/
	// customer-management/customer-management-api/get-all-customers.md):
	// sort by created_at, email, id, name and updated_at (default
	// -created_at); email and name filter with eq and like, external_ref
	// with eq, id and the timestamps with eq and ranges. As for accounts'
	// names, no keyset reaches past the offset limit in email or name
	// order, so the provider sorts those itself. The pagination guide gives
	// customers the soft offset limit.
	CustomersEndpoint = Endpoint{
		Name: "customers", Singular: "customer", Path: apiPrefix + "/customers",
		ServiceSorts:  []string{"created_at", "updated_at", "id"},
		ProviderSorts: []string{"email", "name"},
		DefaultSort:   "created_at",
		Filters: merge(
			attrs(StringValue, eqLike, "email", "name"),
			attrs(StringValue, eqOnly, "external_ref"),
			attrs(StringValue, eqRanges, "id"),
			attrs(TimestampValue, eqRanges, "created_at", "updated_at"),
		),
	}
	// Hierarchies of the Product Experience Manager (openapispecs/pim/
	// pim.yaml, operation getHierarchy): page[offset] and page[limit] only,
	// no sort (the sorting guide does not list them either) and no filter.
	// The provider sorts them itself; past the offset limit nothing reaches
	// further records, so a larger store cannot be listed completely.
	HierarchiesEndpoint = Endpoint{
		Name: "hierarchies", Singular: "hierarchy", Path: "/pcm/hierarchies",
		ProviderSorts: []string{"created_at", "updated_at", "id", "name"},
		DefaultSort:   "created_at",
		Filters:       map[string]FilterAttribute{},
	}
)

// knownEndpoints is the capability table, by path.
var knownEndpoints = []*Endpoint{&OrdersEndpoint, &FilesEndpoint, &AccountsEndpoint, &CustomersEndpoint, &HierarchiesEndpoint}

// EndpointForPath returns the capability-table row of the list endpoint at
// path ("/v2/customers"), and false for a path the table does not know;
// the listing engine probes what such an endpoint can do.
func EndpointForPath(path string) (Endpoint, bool) {
	for _, r := range knownEndpoints {
		if r.Path == path {
			return *r, true
		}
	}
	return Endpoint{}, false
}

// KnownPaths lists the paths of the capability table, for messages and
// documentation.
func KnownPaths() []string {
	out := make([]string, len(knownEndpoints))
	for i, r := range knownEndpoints {
		out[i] = r.Path
	}
	return out
}

// SortAttributes are every order the provider offers: the service's and
// its own.
func (r Endpoint) SortAttributes() []string {
	return append(slices.Clone(r.ServiceSorts), r.ProviderSorts...)
}

// CanSort reports whether attr (without "-") is an order the provider
// offers.
func (r Endpoint) CanSort(attr string) bool { return slices.Contains(r.SortAttributes(), attr) }

// ServiceSorts reports whether the service itself sorts by attr.
func (r Endpoint) ServiceCanSort(attr string) bool { return slices.Contains(r.ServiceSorts, attr) }

// SortType is how attr compares when sorting, for the attributes records
// carry: timestamps by name, the rest as the endpoint filters them.
func (r Endpoint) SortType(attr string) ValueType {
	if attr == "created_at" || attr == "updated_at" {
		return TimestampValue
	}
	if f, ok := r.Filters[attr]; ok {
		return f.Kind
	}
	return StringValue
}

// RecordNoun names one record in messages: the Singular, else "record".
func (r Endpoint) RecordNoun() string {
	if r.Singular == "" {
		return "record"
	}
	return r.Singular
}

// FilterAttributeNames lists the known filter attributes, sorted.
func (r Endpoint) FilterAttributeNames() []string {
	out := make([]string, 0, len(r.Filters))
	for k := range r.Filters {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FiltersWith reports whether the service filters attr with op.
func (r Endpoint) FiltersWith(attr string, op filter.Op) bool {
	f, ok := r.Filters[attr]
	return ok && f.Allows(op)
}

// KeysetCapable reports whether the service can page through attr by
// keyset: sort by it and bound it from both sides.
func (r Endpoint) KeysetCapable(attr string) bool {
	f, ok := r.Filters[attr]
	return r.ServiceCanSort(attr) && ok && f.Ranged()
}

// The service's limits on list requests, from the vendor's pagination and
// filtering guides.
const (
	// MaxPageSize is the largest page[limit] the service takes.
	MaxPageSize     = 100
	DefaultPageSize = 100
	// OffsetLimit is the largest page[offset] the service serves: a hard
	// limit for orders and files, a soft one (behaviour undocumented) for
	// everything else, so the engine treats it as hard everywhere.
	OffsetLimit = 10000
	// MaxRequestBytes is the longest request target (path and query string,
	// as sent) of a request with a filter that the service takes: the
	// vendor's filtering guide limits such requests to 8 KB, which is about
	// 200 ids in an in().
	MaxRequestBytes = 8192
	// apiPrefix is the versioned prefix of resource paths below base_url.
	apiPrefix = "/v2"
)

// ListParams are the query parameters of a list request.
func ListParams(expr, sort string, offset, limit int) url.Values {
	q := url.Values{}
	q.Set("page[limit]", strconv.Itoa(limit))
	q.Set("page[offset]", strconv.Itoa(offset))
	if sort != "" {
		q.Set("sort", sort)
	}
	if expr != "" {
		q.Set("filter", expr)
	}
	return q
}

// ListRequestLength is the length of the request target of a list request
// of path, as ListParams builds it and with an exact count asked for (the
// longest a listing sends): what the service's MaxRequestBytes counts.
func ListRequestLength(path, expr, sort string, offset, limit int) int {
	q := ListParams(expr, sort, offset, limit)
	q.Set(TotalMethodParam, string(CountExact))
	return len(path) + 1 + len(q.Encode())
}

// The service takes at most filter.MaxTerms terms in a request's filter,
// and at most MaxRequestBytes of request target. The listing engine adds
// terms of its own to the user's filter (keyset window bounds, tie groups,
// range windows, the consistency buffer), so it merges each of them into
// a term of the user's on the same attribute and side wherever one of the
// two implies the other, instead of appending it: a window's
// ge(created_at,X) replaces the user's looser ge(created_at,2024-01-02),
// and is dropped when the user's own bound is tighter. Either way the
// request selects exactly the records of both, with no more terms than
// the user wrote where the user bounds that attribute already. How two
// values compare is the service's model, so the rules live here.

// Narrow returns base with every term of extra merged in (see mergeTerm).
// It never modifies base or extra.
func (r Endpoint) Narrow(base, extra filter.Expr) filter.Expr {
	out := filter.And(base, nil)
	for _, t := range filter.And(extra, nil) {
		// Its position is in another text than base's.
		t.Start, t.End = 0, 0
		out = r.mergeTerm(out, t)
	}
	return out
}

// side is which way a range operator bounds its attribute.
type side int

const (
	noSide side = iota
	lower       // gt, ge
	upper       // lt, le
)

func sideOf(op filter.Op) side {
	switch op {
	case filter.Gt, filter.Ge:
		return lower
	case filter.Lt, filter.Le:
		return upper
	}
	return noSide
}

// mergeTerm adds t to e: it replaces a bound of e on the same attribute and
// side that t implies, is dropped when such a bound implies t, or when an
// eq term of e holds a value within t; else it is appended. Only values
// the client can compare (timestamps in any form, numbers, ids) merge;
// text compares by the service's collation, which the client does not
// know, so bounds on text are only merged with identical terms.
func (r Endpoint) mergeTerm(e filter.Expr, t filter.Term) filter.Expr {
	s := sideOf(t.Op)
	for i, u := range e {
		if u.Attribute != t.Attribute {
			continue
		}
		if u.Op == t.Op && slices.Equal(u.Values, t.Values) {
			return e // already there
		}
		if s == noSide || sideOf(u.Op) != s {
			continue
		}
		c, ok := r.compareValues(t.Attribute, t.Values[0], u.Values[0])
		if !ok {
			continue
		}
		if tighter(s, c, t.Op, u.Op) {
			e[i] = t
		}
		return e
	}
	if s != noSide {
		for _, u := range e {
			if u.Attribute == t.Attribute && u.Op == filter.Eq && r.satisfies(t, u.Values[0]) {
				return e
			}
		}
	}
	return append(e, t)
}

// tighter reports whether a bound with op a implies one with op b on the
// same side, where c compares a's value with b's.
func tighter(s side, c int, a, b filter.Op) bool {
	if s == upper {
		c = -c
	}
	switch {
	case c > 0:
		return true
	case c < 0:
		return false
	}
	// Equal values: the strict operator is the tighter one.
	return a == filter.Gt || a == filter.Lt || a == b
}

// satisfies reports whether value v of t's attribute passes the bound t;
// false when the client cannot compare them.
func (r Endpoint) satisfies(t filter.Term, v string) bool {
	c, ok := r.compareValues(t.Attribute, v, t.Values[0])
	if !ok {
		return false
	}
	switch t.Op {
	case filter.Gt:
		return c > 0
	case filter.Ge:
		return c >= 0
	case filter.Lt:
		return c < 0
	case filter.Le:
		return c <= 0
	}
	return false
}

// compareValues compares two filter values of attr as the service does,
// where the client knows how: -1, 0 or +1, and false where it does not.
func (r Endpoint) compareValues(attr, a, b string) (int, bool) {
	switch {
	case r.SortType(attr) == TimestampValue:
		x, errA := filter.ParseTimestamp(a)
		y, errB := filter.ParseTimestamp(b)
		if errA != nil || errB != nil {
			return 0, false
		}
		return x.Compare(y), true
	case r.SortType(attr) == NumberValue:
		x, okA := new(big.Rat).SetString(a)
		y, okB := new(big.Rat).SetString(b)
		if !okA || !okB {
			return 0, false
		}
		return x.Cmp(y), true
	case attr == "id" && isUUID(a) && isUUID(b):
		// Ids are lowercase UUIDs, which every collation orders as bytes.
		return strings.Compare(a, b), true
	}
	return 0, false
}

// isUUID reports whether s is a UUID in the lowercase form the service
// gives ids.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}
