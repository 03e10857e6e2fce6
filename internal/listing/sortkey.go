package listing

// The sort key of a listing: its keyset filters, how it compares values,
// and the provider's own sort by it.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// sortKey is a listing's sort attribute and direction, and the keyset
// filters that continue a traversal from a value of it.
//
// Timestamps are compared at millisecond precision, the precision of the
// filter grammar: records whose timestamps agree to the millisecond form one
// tie group, since no filter can tell them apart.
type sortKey struct {
	attr      string
	desc      bool
	timestamp bool
	number    bool
}

var idKey = sortKey{attr: "id"}

// unsorted is the key of a listing in the service's own order: no sort=
// parameter, no keyset.
var unsorted = sortKey{}

// keyFor is the sort key of attr ("attr" or "-attr") on r, unchecked.
func keyFor(r commerce.Endpoint, s string) sortKey {
	k := sortKey{attr: strings.TrimPrefix(s, "-"), desc: strings.HasPrefix(s, "-")}
	switch r.SortType(k.attr) {
	case commerce.TimestampValue:
		k.timestamp = true
	case commerce.NumberValue:
		k.number = true
	}
	return k
}

// parseSort reads "attr" or "-attr" for r; empty means r's DefaultSort.
func parseSort(r commerce.Endpoint, s string) (sortKey, error) {
	if s == "" {
		s = r.DefaultSort
	}
	k := keyFor(r, s)
	if !r.CanSort(k.attr) {
		return k, fmt.Errorf("%s cannot be sorted by %q; use one of %s, with a leading \"-\" for descending order",
			r.Name, k.attr, strings.Join(r.SortAttributes(), ", "))
	}
	return k, nil
}

// param is the sort= query value.
func (k sortKey) param() string {
	if k.desc {
		return "-" + k.attr
	}
	return k.attr
}

// keyOf returns rec's value of the sort attribute in the form keyset
// filters use. Generic rather than a method taking a Record: boxing a
// record into the interface would copy it to the heap for every record.
func keyOf[T commerce.Record](k sortKey, rec T) (string, error) {
	v, ok := rec.SortValue(k.attr)
	if !ok || v == "" {
		return "", fmt.Errorf("record %s has no %s to continue the listing from", rec.RecordID(), k.attr)
	}
	if !k.timestamp {
		return v, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return "", fmt.Errorf("record %s has %s %q, which is not an ISO 8601 timestamp", rec.RecordID(), k.attr, v)
	}
	return t.UTC().Truncate(time.Millisecond).Format(filter.TimestampLayout), nil
}

// before reports whether key a sorts strictly before key b in this order.
// Only timestamps and numbers have an order the client knows for sure; for
// strings the service's collation decides, so they never count as out of
// order.
func (k sortKey) before(a, b string) bool {
	switch {
	case k.timestamp:
		if k.desc {
			return a > b
		}
		return a < b
	case k.attr == "id":
		// Ids are lowercase UUIDs, which every collation orders as bytes.
		if k.desc {
			return a > b
		}
		return a < b
	case k.number:
		x, errA := strconv.ParseInt(a, 10, 64)
		y, errB := strconv.ParseInt(b, 10, 64)
		if errA != nil || errB != nil {
			return false
		}
		if k.desc {
			return x > y
		}
		return x < y
	}
	return false
}

// fixed reports whether a record's value of k never changes: created_at
// and id; an update moves a record in any other order.
func (k sortKey) fixed() bool { return k.attr == "created_at" || k.attr == idKey.attr }

// checked reports whether the client can tell records out of this order:
// not for text such as names, whose order is the service's collation.
func (k sortKey) checked() bool { return k.timestamp || k.number || k.attr == "id" }

func nextMillisecond(v string) string {
	t, err := time.Parse(filter.TimestampLayout, v)
	if err != nil {
		// keyOf produced v, so this cannot happen.
		panic(fmt.Sprintf("client: key %q is not a normalized timestamp", v))
	}
	return t.Add(time.Millisecond).Format(filter.TimestampLayout)
}

func (k sortKey) term(op filter.Op, v string) filter.Expr {
	return filter.Expr{filter.NewTerm(op, k.attr, v)}
}

// from selects the records at or after v in sort order, v's tie group
// included.
func (k sortKey) from(v string) filter.Expr {
	switch {
	case k.timestamp && k.desc:
		return k.term(filter.Lt, nextMillisecond(v))
	case k.desc:
		return k.term(filter.Le, v)
	default:
		return k.term(filter.Ge, v)
	}
}

// after selects the records strictly after v's tie group.
func (k sortKey) after(v string) filter.Expr {
	switch {
	case k.timestamp && k.desc:
		return k.term(filter.Lt, v)
	case k.timestamp:
		return k.term(filter.Ge, nextMillisecond(v))
	case k.desc:
		return k.term(filter.Lt, v)
	default:
		return k.term(filter.Gt, v)
	}
}

// equal selects exactly v's tie group.
func (k sortKey) equal(v string) filter.Expr {
	if k.timestamp {
		return filter.Expr{filter.NewTerm(filter.Ge, k.attr, v), filter.NewTerm(filter.Lt, k.attr, nextMillisecond(v))}
	}
	return k.term(filter.Eq, v)
}

// sortRecords sorts recs by k, stably, with ties (equal values, to the
// millisecond for timestamps) by id and records without a value last.
func sortRecords[T commerce.Record](recs []T, k sortKey) error {
	items, err := sortItems(recs, k)
	if err != nil {
		return err
	}
	slices.SortStableFunc(items, func(a, b sortItem[T]) int {
		if a.has != b.has {
			if a.has {
				return -1
			}
			return 1
		}
		c := strings.Compare(a.s, b.s)
		if k.number {
			c = cmp.Compare(a.n, b.n)
		}
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(a.rec.RecordID(), b.rec.RecordID())
	})
	for i := range items {
		recs[i] = items[i].rec
	}
	return nil
}

// sortItem is a record with its sort value parsed once.
type sortItem[T commerce.Record] struct {
	rec T
	has bool   // the record has a value
	s   string // the value of a timestamp (as keyOf gives it) or text
	n   int64  // the value of a number
}

func sortItems[T commerce.Record](recs []T, k sortKey) ([]sortItem[T], error) {
	items := make([]sortItem[T], len(recs))
	for i, rec := range recs {
		it := sortItem[T]{rec: rec}
		if v, ok := rec.SortValue(k.attr); ok && v != "" {
			it.has = true
			switch {
			case k.timestamp:
				key, err := keyOf(k, rec)
				if err != nil {
					return nil, err
				}
				it.s = key
			case k.number:
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("record %s has %s %q, which is not a whole number", rec.RecordID(), k.attr, v)
				}
				it.n = n
			default:
				it.s = v
			}
		}
		items[i] = it
	}
	return items, nil
}
