package commerce

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// pageMeta accepts both spellings of the paging members: "limit" (what the
// service sends) and "page[limit]" (how the spec's table names them).
type pageMeta struct {
	Limit   *int `json:"limit"`
	Offset  *int `json:"offset"`
	Current *int `json:"current"`
	Total   *int `json:"total"`

	BracketLimit   *int `json:"page[limit]"`
	BracketOffset  *int `json:"page[offset]"`
	BracketCurrent *int `json:"page[current]"`
	BracketTotal   *int `json:"page[total]"`
}

type resultsMeta struct {
	Total       *int    `json:"total"`
	TotalMethod *string `json:"total_method"`
}

// listEnvelope is a list body without its records.
type listEnvelope struct {
	Meta *struct {
		Page    *pageMeta    `json:"page"`
		Results *resultsMeta `json:"results"`
	} `json:"meta"`
	// The spec's flat form: paging at the top level.
	Page    *pageMeta    `json:"page"`
	Results *resultsMeta `json:"results"`
}

// Page is one decoded list response.
type Page[T Record] struct {
	Records []T
	// Count is results.total, the records matching the request's filter
	// as the service counted them, and how it counted (count.go).
	Count  Count
	Offset int // offset requested
	// Issues are the display attributes of an unexpected type its records
	// held (lenient.go).
	Issues Issues
}

// DecodeListBody decodes one list response body and checks it against the
// contract: paging attributes present and of their type, no more records
// than limit, every record with an id. A body that is not JSON is returned
// as a plain error (the caller retries it); a body that breaks the
// contract is a ProtocolError naming path, the request's path and query.
// Display attributes of an unexpected type break nothing: they are in the
// page's issues.
func DecodeListBody[T Record](body []byte, kind Kind[T], limit, offset int, keepRaw bool, path string) (Page[T], error) {
	out := Page[T]{Offset: offset}
	var (
		d   decodedBody[T]
		err error
	)
	if !keepRaw {
		d, err = kind.decodeAll(body)
	}
	if keepRaw || err != nil {
		// Record by record: to keep the raw JSON, or to tell a body that is
		// not JSON (retried) from a record of the wrong shape (named).
		d, err = decodeEach(body, kind.decodeRecord, keepRaw)
	}
	problem := func(format string, args ...any) error { return ContractBroken(path, format, args...) }
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		// Valid JSON, and the records are taken apart on their own:
		// results.total, the paging or data has the wrong type.
		field := strings.TrimPrefix(typeErr.Field, "listEnvelope.")
		return out, problem("the response's %s is a JSON %s, where the contract has %s", field, typeErr.Value, contractType(typeErr.Type))
	}
	if err != nil {
		return out, err // a cut or garbled body: retried
	}
	lb := d.env
	results := lb.Results
	if lb.Meta != nil && lb.Meta.Results != nil {
		results = lb.Meta.Results
	}
	count, err := decodeCount(results)
	if err != nil {
		return out, problem("%v", err)
	}
	if d.records == nil {
		return out, problem("the response has no data array")
	}
	if d.count > limit {
		return out, problem("page[limit] was %d but the page holds %d records", limit, d.count)
	}
	if d.badRecord != nil {
		return out, problem("record %d of the page at offset %d: %v", d.badIndex, offset, d.badRecord)
	}
	out.Count = count
	out.Records = *d.records
	out.Issues = d.issues
	// One answer lists a record once; a repeated id means another record
	// of the page was hidden behind it, which deduplication would make a
	// silent loss.
	index := make(map[string]int, len(out.Records))
	for i, rec := range out.Records {
		if j, dup := index[rec.RecordID()]; dup {
			return out, problem("records %d and %d of the page at offset %d have the same id %q", j, i, offset, rec.RecordID())
		}
		index[rec.RecordID()] = i
	}
	return out, nil
}

// decodeCount reads results.total and its total_method. A missing total
// is a count the service chose not to make (CountNone): the listing goes
// by the pages alone.
func decodeCount(results *resultsMeta) (Count, error) {
	if results == nil || results.Total == nil {
		return Count{Method: CountNone}, nil
	}
	c := Count{N: *results.Total}
	if results.TotalMethod != nil {
		c.Method = CountMethod(*results.TotalMethod)
	}
	switch {
	case c.N < 0:
		return c, fmt.Errorf("results.total is negative (%d)", c.N)
	case c.Method == CountNone:
		return c, errors.New(`results.total_method is "none", but the response has a results.total`)
	}
	return c, nil
}

// contractType names the type a member of a list body should have had.
func contractType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Pointer, reflect.Map:
		return "an object"
	}
	return t.String()
}
