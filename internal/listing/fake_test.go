package listing

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// fakeOrders is a Getter that serves /v2/orders from memory, with no
// token, budget or HTTP: enough of the service for the engine's window
// planning to be tested on its own. It filters created_at, id and with_tax
// by the terms the engine sends, sorts by created_at (ties in the order
// the records were added), serves offsets up to the service's limit, and
// remembers every request.
type fakeOrders struct {
	records []fakeOrder // in the service's own order
	// ignoreSort makes it accept sort= and answer in its own order, as a
	// service that ignores the parameter would.
	ignoreSort bool

	mu       sync.Mutex
	requests []url.Values
}

type fakeOrder struct {
	id      string
	created time.Time
	withTax int64
}

// fakeRefusal is the fake's 400, shaped as the transport's error reads to
// the engine.
type fakeRefusal struct {
	param string // the query parameter at fault
	words string
}

func (e *fakeRefusal) Error() string    { return "400 Bad Request: " + e.words }
func (e *fakeRefusal) BadRequest() bool { return true }
func (e *fakeRefusal) RefusedParameter(name string) (string, bool) {
	return e.words, e.param == name
}

func (f *fakeOrders) Get(_ context.Context, path string, q url.Values, decode func([]byte) error) error {
	f.mu.Lock()
	f.requests = append(f.requests, q)
	f.mu.Unlock()
	if path != commerce.OrdersEndpoint.Path {
		return fmt.Errorf("fake: no endpoint %s", path)
	}
	offset, _ := strconv.Atoi(q.Get("page[offset]"))
	limit, _ := strconv.Atoi(q.Get("page[limit]"))
	if offset > commerce.OffsetLimit {
		return &fakeRefusal{param: "page[offset]", words: "page[offset] must not exceed 10000"}
	}
	matched, err := f.match(q.Get("filter"))
	if err != nil {
		return &fakeRefusal{param: "filter", words: err.Error()}
	}
	switch s := q.Get("sort"); {
	case s == "" || f.ignoreSort:
	case strings.TrimPrefix(s, "-") == "created_at":
		slices.SortStableFunc(matched, func(a, b fakeOrder) int {
			if s[0] == '-' {
				return b.created.Compare(a.created)
			}
			return a.created.Compare(b.created)
		})
	default:
		return &fakeRefusal{param: "sort", words: "cannot sort by " + s}
	}
	page := matched[min(offset, len(matched)):min(offset+limit, len(matched))]
	return decode(fakeBody(page, len(matched), offset, limit))
}

// match is the records the filter selects, in the service's own order.
func (f *fakeOrders) match(expr string) ([]fakeOrder, error) {
	terms, err := filter.Parse(expr)
	if expr != "" && err != nil {
		return nil, err
	}
	var out []fakeOrder
	for _, r := range f.records {
		keep := true
		for _, t := range terms {
			c, err := r.compare(t.Attribute, t.Values[0])
			if err != nil {
				return nil, err
			}
			switch t.Op {
			case filter.Eq:
				keep = keep && c == 0
			case filter.Gt:
				keep = keep && c > 0
			case filter.Ge:
				keep = keep && c >= 0
			case filter.Lt:
				keep = keep && c < 0
			case filter.Le:
				keep = keep && c <= 0
			default:
				return nil, fmt.Errorf("fake: operator %s", t.Op)
			}
		}
		if keep {
			out = append(out, r)
		}
	}
	return out, nil
}

// compare compares the record's attr with a filter value v.
func (r fakeOrder) compare(attr, v string) (int, error) {
	switch attr {
	case "created_at":
		ts, err := filter.ParseTimestamp(v)
		return r.created.Compare(ts), err
	case "with_tax":
		n, err := strconv.ParseInt(v, 10, 64)
		return cmp.Compare(r.withTax, n), err
	case "id":
		return strings.Compare(r.id, v), nil
	}
	return 0, fmt.Errorf("fake: cannot filter by %s", attr)
}

// fakeBody is a list body in the service's shape.
func fakeBody(page []fakeOrder, total, offset, limit int) []byte {
	type amount struct {
		Amount   int64  `json:"amount"`
		Currency string `json:"currency"`
	}
	type record struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Meta struct {
			Timestamps struct {
				CreatedAt string `json:"created_at"`
				UpdatedAt string `json:"updated_at"`
			} `json:"timestamps"`
			DisplayPrice struct {
				WithTax amount `json:"with_tax"`
			} `json:"display_price"`
		} `json:"meta"`
	}
	data := make([]record, len(page))
	for i, o := range page {
		data[i].Type, data[i].ID = "order", o.id
		ts := o.created.UTC().Format("2006-01-02T15:04:05.000Z")
		data[i].Meta.Timestamps.CreatedAt, data[i].Meta.Timestamps.UpdatedAt = ts, ts
		data[i].Meta.DisplayPrice.WithTax = amount{Amount: o.withTax, Currency: "EUR"}
	}
	body, err := json.Marshal(map[string]any{
		"data": data,
		"meta": map[string]any{
			"page":    map[string]int{"limit": limit, "offset": offset, "current": offset/max(limit, 1) + 1, "total": (total + limit - 1) / max(limit, 1)},
			"results": map[string]int{"total": total},
		},
	})
	if err != nil {
		panic(err)
	}
	return body
}

// sent is every request so far.
func (f *fakeOrders) sent() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// fakeID is the i-th id, a lowercase UUID that sorts as i does.
func fakeID(i int) string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
}
