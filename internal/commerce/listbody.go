package commerce

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
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
	// as the service counted them, and how it counted (Count, below).
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

// How the service counts a list's matches. Newer endpoints count lazily:
// a list request takes page[total_method], and the answer labels its
// meta.results.total with meta.results.total_method (the vendor's
// account-addresses and promotions specs, and its CLI). A count may be
// exact, a lower bound, an estimate, one more than the records seen so
// far, or absent; older endpoints send an exact count without a label,
// and a lower bound may come unlabelled too. So a count can size the
// requests of a listing, but never end one: only a short or empty page
// does.

// CountMethod is how the service says it counted: the value of
// meta.results.total_method, or CountUnlabelled and CountNone.
type CountMethod string

// The count methods the provider tells apart (the vendor's CLI also sends
// estimate and cached, which come back as some other method: the provider
// treats every method it does not know as a guess).
const (
	// CountUnlabelled: a results.total without total_method, as older
	// endpoints send (exact, as far as their documentation goes).
	CountUnlabelled CountMethod = ""
	CountExact      CountMethod = "exact"
	// CountLowerBound: the matches are at least this many.
	CountLowerBound CountMethod = "lower_bound"
	// CountObserved: estimated from what the request saw, one more than
	// the records up to the page's end when another page follows.
	CountObserved CountMethod = "observed"
	// CountNone: the answer has no results.total at all.
	CountNone CountMethod = "none"
)

// TotalMethodParam is the list request parameter that asks for a count
// method.
const TotalMethodParam = "page[total_method]"

// Count is a list answer's results.total and how it was counted.
type Count struct {
	N      int // 0 when Method is CountNone
	Method CountMethod
}

// Exact reports whether the service labelled the count exact: the only
// count the provider reports as the number of matches, or compares with
// what it knows (the cache's refresh).
func (c Count) Exact() bool { return c.Method == CountExact }

// AtMostTruth reports whether the matches are at least N: an exact or
// unlabelled count, a lower bound, an observation. An estimate may say
// more than there are, and every method the provider does not know is an
// estimate to it.
func (c Count) AtMostTruth() bool {
	switch c.Method {
	case CountExact, CountUnlabelled, CountLowerBound, CountObserved:
		return true
	}
	return false
}

// Steady reports whether the count is meant to stay put while nothing is
// written: labelled exact, or unlabelled. A listing takes a steady count
// that moves between two pages of one window as a sign of a write; a lazy
// count (a lower bound, an estimate, an observation) may move on its own.
func (c Count) Steady() bool { return c.Method == CountExact || c.Method == CountUnlabelled }

// Hint is the count as a guess at the matches, for sizing requests: 0
// where there is none.
func (c Count) Hint() int { return c.N }

// String says the count as a message names it: "250", "at least 1000",
// "about 5100", "no count".
func (c Count) String() string {
	switch c.Method {
	case CountNone:
		return "no count"
	case CountLowerBound:
		return "at least " + strconv.Itoa(c.N)
	case CountExact, CountUnlabelled:
		return strconv.Itoa(c.N)
	}
	return "about " + strconv.Itoa(c.N) + " (" + string(c.Method) + ")"
}
