package listing

// What an endpoint the capability table does not know can do, found out
// with at most two requests.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// probeCall is one Probe of a path: callers that come while it runs wait
// for its answer instead of asking the service again.
type probeCall struct {
	done chan struct{}
	res  commerce.Endpoint
	err  error
}

// EndpointFor returns what the list endpoint at path can do: its row of
// the capability table (known is true), else what Probe finds out.
func (e *Engine) EndpointFor(ctx context.Context, path string) (r commerce.Endpoint, known bool, err error) {
	if r, ok := commerce.EndpointForPath(path); ok {
		return r, true, nil
	}
	r, err = e.Probe(ctx, path)
	return r, false, err
}

// Probe asks the service what the list endpoint at path can do, with at
// most two requests, and describes the answer as an Endpoint for
// commerce.GenericKind. It asks once per Engine and path; concurrent callers share
// the answer, and a failed probe is forgotten, so that a later call asks
// again.
//
// The engine reaches past the offset limit only by keyset windows on
// created_at, which needs the service to sort by it and to bound it from
// both sides:
//
//  1. The first page with sort=created_at. A 400 naming the sort parameter
//     means it does not sort; so does a page out of created_at order or a
//     record without created_at.
//  2. Where it sorts, ge(created_at,m):lt(created_at,hi), with hi the last
//     created_at of that page and m one between: every record in that range
//     is on the first page, so the answer must hold exactly those records
//     (whatever its count says: a count may be lazy). A refusal or any
//     other answer means no range filter.
//
// Where both hold, created_at is a service sort and a range filter (ge,
// lt) and the listing goes by keyset windows. Otherwise the endpoint is
// listed by offset pages in its own order and sorted by the provider:
// complete up to the offset limit, and an UnlistableError naming the limit
// and the count beyond it. The Endpoint has no other filter attributes:
// the provider passes filter expressions through unchecked.
func (e *Engine) Probe(ctx context.Context, path string) (commerce.Endpoint, error) {
	if err := commerce.ValidateListPath(path); err != nil {
		return commerce.Endpoint{}, err
	}
	call := &probeCall{done: make(chan struct{})}
	for {
		v, loaded := e.probes.LoadOrStore(path, call)
		if !loaded {
			break
		}
		prev, _ := v.(*probeCall)
		select {
		case <-prev.done:
		case <-ctx.Done():
			return commerce.Endpoint{}, ctx.Err()
		}
		// A probe that failed only because its caller gave up says nothing
		// about the endpoint: ask again for this caller.
		if prev.err == nil || !errors.Is(prev.err, context.Canceled) && !errors.Is(prev.err, context.DeadlineExceeded) {
			return prev.res, prev.err
		}
	}
	call.res, call.err = e.probe(ctx, path)
	if call.err != nil {
		e.probes.Delete(path)
	}
	close(call.done)
	return call.res, call.err
}

// probedEndpoint is what an endpoint nothing is known of offers: the
// provider sorts its records by the attributes every record may have.
func probedEndpoint(path string) commerce.Endpoint {
	segments := strings.Split(strings.Trim(path, "/"), "/")
	return commerce.Endpoint{
		Name: segments[len(segments)-1], Singular: "record", Path: path,
		ProviderSorts: []string{"created_at", "updated_at", "id"},
		DefaultSort:   "created_at",
		Filters:       map[string]commerce.FilterAttribute{},
	}
}

// probe runs the requests of Probe.
func (e *Engine) probe(ctx context.Context, path string) (commerce.Endpoint, error) {
	r := probedEndpoint(path)
	kind := commerce.GenericKind(r)
	byCreated := keyFor(r, "created_at")
	p, err := fetchPage(ctx, e, kind, pageRequest{sort: byCreated.param(), limit: e.pageSize}, nil)
	if _, refused := sortRefusal(err); refused {
		return r, nil
	}
	if err != nil {
		return commerce.Endpoint{}, fmt.Errorf("asking %s what it can sort and filter by: %w", path, err)
	}
	keys := make([]string, len(p.Records))
	for i, rec := range p.Records {
		if keys[i], err = keyOf(byCreated, rec); err != nil {
			return r, nil //nolint:nilerr // a record without created_at: nothing to page by, so the endpoint does not sort
		}
	}
	if !slices.IsSorted(keys) {
		return r, nil // sort=created_at accepted but ignored
	}
	ranged, err := e.probeRange(ctx, kind, keys)
	if err != nil || !ranged {
		return r, err
	}
	r.ServiceSorts = []string{"created_at"}
	r.ProviderSorts = []string{"updated_at", "id"}
	r.Filters = map[string]commerce.FilterAttribute{"created_at": {Kind: commerce.TimestampValue, Ops: []filter.Op{filter.Ge, filter.Lt}}}
	return r, nil
}

// probeRange checks that the service bounds created_at from both sides, by
// a range that only the first page's records (their ascending created_at
// keys) can fall into. An endpoint without records can only show that it
// accepts the terms.
func (e *Engine) probeRange(ctx context.Context, kind commerce.Kind[commerce.Generic], keys []string) (bool, error) {
	distinct := slices.Compact(slices.Clone(keys))
	lo, hi := "2000-01-01T00:00:00.000Z", "2000-01-01T00:00:00.001Z"
	if len(distinct) > 0 {
		lo, hi = distinct[(len(distinct)-1)/2], distinct[len(distinct)-1]
	}
	want := 0
	for _, k := range keys {
		if k >= lo && k < hi {
			want++
		}
	}
	expr := filter.Expr{filter.NewTerm(filter.Ge, "created_at", lo), filter.NewTerm(filter.Lt, "created_at", hi)}
	p, err := fetchPage(ctx, e, kind, pageRequest{filter: expr.String(), sort: "created_at", limit: e.pageSize}, nil)
	if badRequest(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("asking %s whether it filters created_at by range: %w", kind.Path, err)
	}
	if len(p.Records) != want {
		return false, nil
	}
	key := keyFor(kind.Endpoint, "created_at")
	for _, rec := range p.Records {
		if k, err := keyOf(key, rec); err != nil || k < lo || k >= hi {
			return false, nil //nolint:nilerr // a record outside the range, or without created_at: no range filter
		}
	}
	return true, nil
}
