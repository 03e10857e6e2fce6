package listing

// An in() too long for one request: the service takes at most
// commerce.MaxRequestBytes of request target, about 200 ids. The engine
// splits the longest in() of the filter into parts whose requests fit,
// lists each part as a listing of its own, and merges them: in the order
// asked (by value, ties by id), each record once, the total the sum, and
// max_results over the merged list. A record matches at most one value of
// an in(), so the parts never share a record; the merge drops a repeated
// id all the same.

import (
	"context"
	"fmt"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// MaxInValues bounds the values of an in() the engine splits: each part
// costs at least one request, and 10,000 values of 36-byte ids are about
// 50 parts.
const MaxInValues = 10000

// boundReserve is the room a part leaves for the terms the engine adds to
// a window's requests (a keyset bound, a tie group's two bounds, a range
// window's two bounds, the consistency buffer): about 50 bytes each, URL
// encoded.
const boundReserve = 256

// InSplit says how a filter's in() is split to fit the service's limit on
// a request: the attribute, how many values, and the parts' filters. Parts
// is nil when the filter fits one request as it is.
type InSplit struct {
	Attribute string
	Values    int
	Parts     []string
}

// SplitIn splits the longest in() of expr (a filter of path, sorted by
// sort) so that every part's requests, with the engine's own bounds, stay
// within commerce.MaxRequestBytes. It fails when no split helps: the
// filter has no in(), the in() has more than MaxInValues values, or the
// rest of the filter with a single value is still too long.
func SplitIn(path, expr, sort string, pageSize int) (InSplit, error) {
	fits := func(text string) bool {
		return commerce.ListRequestLength(path, text, sort, commerce.OffsetLimit, pageSize)+boundReserve <= commerce.MaxRequestBytes
	}
	if expr == "" || fits(expr) {
		return InSplit{}, nil
	}
	parsed, err := filter.ParseSplittable(expr)
	if err != nil {
		return InSplit{}, err
	}
	at := -1
	for i, t := range parsed {
		if t.Op == filter.In && (at < 0 || len(t.Values) > len(parsed[at].Values)) {
			at = i
		}
	}
	if at < 0 {
		return InSplit{}, fmt.Errorf("the filter has no in() the provider could split")
	}
	in := parsed[at]
	if len(in.Values) > MaxInValues {
		return InSplit{}, fmt.Errorf("in(%s,…) has %d values; the provider splits at most %d over several requests", in.Attribute, len(in.Values), MaxInValues)
	}
	render := func(values []string) string {
		part := append(filter.Expr(nil), parsed...)
		part[at] = filter.NewTerm(filter.In, in.Attribute, values...)
		return part.Render(expr)
	}
	s := InSplit{Attribute: in.Attribute, Values: len(in.Values)}
	for start := 0; start < len(in.Values); {
		end := start + 1
		if !fits(render(in.Values[start:end])) {
			return InSplit{}, fmt.Errorf("the filter is too long for one request even with a single value of in(%s,…)", in.Attribute)
		}
		// The longest run of values from start that fits, by doubling then
		// halving: values differ in length, so no fixed count will do.
		step := 1
		for end+step <= len(in.Values) && fits(render(in.Values[start:end+step])) {
			end += step
			step *= 2
		}
		for ; step > 0; step /= 2 {
			if end+step <= len(in.Values) && fits(render(in.Values[start:end+step])) {
				end += step
			}
		}
		s.Parts = append(s.Parts, render(in.Values[start:end]))
		start = end
	}
	return s, nil
}

// listParts lists each part of a split in() on its own and hands emit the
// merged list: sorted by key as sortRecords sorts (ties by id), each id
// once, at most q.MaxResults. Records the parts' catch-ups found go to
// q.Late, sorted the same way.
func listParts[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, key sortKey, parts []string, emit func(T) error) (Stats, error) {
	var (
		stats     Stats
		all, late []T
	)
	for i, part := range parts {
		pq := q
		pq.Filter, pq.Progress = part, nil
		if q.Late != nil {
			pq.Late = func(rec commerce.Record) error {
				if r, ok := rec.(T); ok {
					late = append(late, r)
				}
				return nil
			}
		}
		st, err := List(ctx, e, kind, pq, func(rec T) error { all = append(all, rec); return nil })
		stats.Total += st.Total
		stats.Pages += st.Pages
		stats.Windows += st.Windows
		stats.Strategy = fmt.Sprintf("%s, in %d parts", st.Strategy, len(parts))
		if err != nil {
			return stats, fmt.Errorf("part %d of %d of the split in(): %w", i+1, len(parts), err)
		}
		if q.Progress != nil {
			q.Progress(len(all), stats.Total)
		}
	}
	all, late = uniqueByID(all), uniqueByID(late)
	if err := sortRecords(all, key); err != nil {
		return stats, err
	}
	if err := sortRecords(late, key); err != nil {
		return stats, err
	}
	if q.MaxResults > 0 && len(all) > q.MaxResults {
		all = all[:q.MaxResults]
	}
	for _, rec := range all {
		if err := emit(rec); err != nil {
			return stats, err
		}
		stats.Listed++
	}
	for _, rec := range late {
		if err := q.Late(rec); err != nil {
			return stats, err
		}
		stats.Listed++
	}
	return stats, nil
}

// uniqueByID keeps the first record of each id.
func uniqueByID[T commerce.Record](recs []T) []T {
	seen := make(map[string]struct{}, len(recs))
	out := recs[:0]
	for _, rec := range recs {
		if _, dup := seen[rec.RecordID()]; !dup {
			seen[rec.RecordID()] = struct{}{}
			out = append(out, rec)
		}
	}
	return out
}
