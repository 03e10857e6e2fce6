package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
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
	Total *int `json:"total"`
}

type listBody struct {
	Data *[]json.RawMessage `json:"data"`
	Meta *struct {
		Page    *pageMeta    `json:"page"`
		Results *resultsMeta `json:"results"`
	} `json:"meta"`
	// The spec's flat form: paging at the top level.
	Page    *pageMeta    `json:"page"`
	Results *resultsMeta `json:"results"`
}

// page is one decoded list response.
type page[T Record] struct {
	records []T
	total   int // results.total: records matching the request's filter
	offset  int // offset requested
}

// fetchPage requests one page and checks it against the contract: paging
// attributes present, no more records than asked for, every record with an
// id. A response that breaks it is a ProtocolError, which is not retried.
func fetchPage[T Record](ctx context.Context, c *Client, kind Kind[T], filterExpr, sort string, offset, limit int, keepRaw bool) (page[T], error) {
	q := url.Values{}
	q.Set("page[limit]", strconv.Itoa(limit))
	q.Set("page[offset]", strconv.Itoa(offset))
	if sort != "" {
		q.Set("sort", sort)
	}
	if filterExpr != "" {
		q.Set("filter", filterExpr)
	}
	out := page[T]{offset: offset}
	err := c.get(ctx, kind.Path, q, func(body []byte) error {
		var lb listBody
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := dec.Decode(&lb); err != nil {
			return err // a cut or garbled body: retried
		}
		problem := func(format string, args ...any) error {
			return &ProtocolError{Method: "GET", Path: kind.Path + "?" + q.Encode(), Problem: fmt.Sprintf(format, args...)}
		}
		results := lb.Results
		if lb.Meta != nil && lb.Meta.Results != nil {
			results = lb.Meta.Results
		}
		if results == nil || results.Total == nil {
			return problem("the response has no results.total (neither meta.results.total nor results.total), so the provider cannot tell whether the list is complete")
		}
		if *results.Total < 0 {
			return problem("results.total is negative (%d)", *results.Total)
		}
		if lb.Data == nil {
			return problem("the response has no data array")
		}
		if n := len(*lb.Data); n > limit {
			return problem("page[limit] was %d but the page holds %d records", limit, n)
		}
		out.total = *results.Total
		out.records = make([]T, 0, len(*lb.Data))
		for i, raw := range *lb.Data {
			rec, err := kind.decode(raw, keepRaw)
			if err != nil {
				return problem("record %d of the page at offset %d: %v", i, offset, err)
			}
			out.records = append(out.records, rec)
		}
		return nil
	})
	return out, err
}
