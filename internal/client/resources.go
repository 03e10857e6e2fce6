package client

import "sort"

// FieldKind is how the service compares an attribute in a filter.
type FieldKind int

const (
	KindString FieldKind = iota
	KindTimestamp
	KindNumber
	KindBool
)

// Resource describes one list endpoint: what it can be sorted and filtered
// by. The service may know more filter attributes than listed here; callers
// warn rather than refuse on an unknown one.
type Resource struct {
	Name     string // plural, as in the path: "orders"
	Singular string // "order"
	Path     string // "/v2/orders"
	// SortAttributes the endpoint accepts in sort=, without the "-" prefix.
	SortAttributes []string
	// FilterAttributes the provider knows, with how they compare.
	FilterAttributes map[string]FieldKind
}

// DefaultSort is the order used when a listing names none: the service's
// own default, oldest first.
const DefaultSort = "created_at"

var commonFilters = map[string]FieldKind{
	"id":         KindString,
	"created_at": KindTimestamp,
	"updated_at": KindTimestamp,
}

func withCommon(extra map[string]FieldKind) map[string]FieldKind {
	out := make(map[string]FieldKind, len(commonFilters)+len(extra))
	for k, v := range commonFilters {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// The three list endpoints.
var (
	OrdersResource = Resource{
		Name: "orders", Singular: "order", Path: APIPrefix + "/orders",
		SortAttributes: []string{"created_at", "updated_at", "id"},
		FilterAttributes: withCommon(map[string]FieldKind{
			"status": KindString, "payment": KindString, "shipping": KindString,
			"order_number": KindString, "external_ref": KindString,
			"email": KindString, "name": KindString, "currency": KindString, "amount": KindNumber,
		}),
	}
	FilesResource = Resource{
		Name: "files", Singular: "file", Path: APIPrefix + "/files",
		SortAttributes: []string{"created_at", "updated_at", "id"},
		FilterAttributes: withCommon(map[string]FieldKind{
			"file_name": KindString, "mime_type": KindString, "file_size": KindNumber, "public": KindBool,
		}),
	}
	AccountsResource = Resource{
		Name: "accounts", Singular: "account", Path: APIPrefix + "/accounts",
		SortAttributes: []string{"created_at", "updated_at", "id", "name"},
		FilterAttributes: withCommon(map[string]FieldKind{
			"name": KindString, "legal_name": KindString, "registration_id": KindString,
			"external_ref": KindString, "parent_id": KindString,
		}),
	}
)

// CanSort reports whether attr (without "-") is a sort attribute.
func (r Resource) CanSort(attr string) bool {
	for _, a := range r.SortAttributes {
		if a == attr {
			return true
		}
	}
	return false
}

// FilterAttributeNames lists the known filter attributes, sorted.
func (r Resource) FilterAttributeNames() []string {
	out := make([]string, 0, len(r.FilterAttributes))
	for k := range r.FilterAttributes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
