package listing

// One read planned once, and read in full: the sort key, the filter within
// the service's limits, an in() split over several requests.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// readPlan is one read's query, planned once, before anything is sent:
// the sort key, the filter checked against the service's limits, and how
// its in() is split over several requests. Every later step of the read
// (sharing, the cache, the windows) takes what it needs from here;
// nothing about the query is parsed or worked out again.
type readPlan[T commerce.Record] struct {
	e      *Engine
	kind   commerce.Kind[T]
	filter filter.Parsed
	key    sortKey
	// split is how the filter's in() is split; Parts is nil when one
	// request holds the filter.
	split  filter.InSplit
	buffer time.Duration
	// name identifies the listing the read needs (listingName).
	name string
}

// newPlan plans q on kind.
func newPlan[T commerce.Record](e *Engine, kind commerce.Kind[T], q Query) (*readPlan[T], error) {
	e.plans.Add(1)
	key, err := parseSort(kind.Endpoint, q.Sort)
	if err != nil {
		return nil, err
	}
	switch {
	case q.MaxResults < 0:
		return nil, fmt.Errorf("max results %d must not be negative", q.MaxResults)
	case q.ConsistencyBuffer < 0:
		return nil, fmt.Errorf("consistency buffer %s must not be negative", q.ConsistencyBuffer)
	}
	p := &readPlan[T]{e: e, kind: kind, filter: q.Filter, key: key, buffer: q.ConsistencyBuffer}
	p.name = listingName[T](kind.Path, q.Filter.Text(), key, q.ConsistencyBuffer)
	if split, err := splitIn(kind.Path, q.Filter, key.param(), e.pageSize); err == nil && split.Parts != nil {
		p.split = split
		return p, nil
	}
	// A filter that needs no split must parse, and be within the
	// service's limits on its own; the terms the engine adds later merge
	// into it (filterlimits.go).
	if _, _, err := e.room(kind.Endpoint).narrowed(q.Filter, nil, key.param(), ""); err != nil {
		return nil, err
	}
	return p, nil
}

// listingName identifies the listing a read needs: the record type, the
// endpoint, the filter, the sort and the consistency buffer. Reads with the
// same name want the same records in the same order, whatever each keeps;
// it also names the listing's snapshot in the cache.
func listingName[T commerce.Record](path, filter string, key sortKey, buffer time.Duration) string {
	return strings.Join([]string{reflect.TypeFor[T]().String(), path, filter, key.param(), buffer.String()}, "\x00")
}

// listQuery is the listing the plan's readers need: all the records any
// of them keeps, with JSON if any of them keeps it, cut at the consistency
// point, which is fixed now, as the listing starts.
func (p *readPlan[T]) listQuery(keep []Query) listQuery {
	q := listQuery{filter: p.filter, key: p.key, progress: true}
	for i, k := range keep {
		if i == 0 || q.maxResults > 0 && (k.MaxResults == 0 || k.MaxResults > q.maxResults) {
			q.maxResults = k.MaxResults
		}
		q.includeJSON = q.includeJSON || k.IncludeJSON
		// Asked whatever the listing's own limit, so that a read cut at
		// its MaxResults reports the same shared or alone.
		q.exactCount = q.exactCount || k.CountMatches && k.MaxResults > 0
	}
	if p.buffer > 0 {
		q.createdBefore = time.Now().Add(-p.buffer)
	}
	return q
}

// CheckFilterLength checks, before a read is planned (terraform validate),
// that the requests of a read of expr on path sorted by sort (empty: the
// endpoint's default) fit the service's limit on a request's length, split
// over several where the filter's in() allows. It returns the length of
// one request for the filter, and why no split helps (nil when the filter
// fits, or a split does).
func CheckFilterLength(path string, expr filter.Parsed, sort string) (int, error) {
	n := commerce.ListRequestLength(path, expr.Text(), sort, commerce.OffsetLimit, commerce.DefaultPageSize)
	if n <= commerce.MaxRequestBytes {
		return n, nil
	}
	_, err := splitIn(path, expr, sort, commerce.DefaultPageSize)
	return n, err
}

// readFull lists the plan's filter, or each part of its split in().
func (p *readPlan[T]) readFull(ctx context.Context, q listQuery, to emitters[T]) (listStats, error) {
	if p.split.Parts != nil {
		return listParts(ctx, p.e, p.kind, p.split.Parts, q, to)
	}
	return listAll(ctx, p.e, p.kind, q, to)
}
