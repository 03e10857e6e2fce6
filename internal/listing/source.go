package listing

// What the cache (internal/reads) and a refresh (internal/refresh's
// Source) ask of a planned listing besides reading it: whether its order
// can be reproduced, its records put in that order, and the count, first
// page and ranges a refresh reads. The engine knows neither the cache nor
// the refresh.

import (
	"context"
	"errors"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// PageSize is the records per page the engine asks for.
func (l *Listing[T]) PageSize() int { return l.e.pageSize }

// OrderReproducible reports whether the provider can put records in the
// listing's order itself (Sort): false where the service sorts by a text
// attribute in a collation of its own.
func (l *Listing[T]) OrderReproducible() bool {
	return l.key.checked() || !l.kind.ServiceCanSort(l.key.attr)
}

// Sort puts recs in the listing's order.
func (l *Listing[T]) Sort(recs []T) error { return sortRecords(recs, l.key) }

// LogProgress says, every progressInterval records, how far a listing
// served from elsewhere (the cache) got.
func (l *Listing[T]) LogProgress(ctx context.Context, listed int, count commerce.Count) {
	if listed%progressInterval == 0 {
		l.e.logProgress(ctx, l.kind.Name, listed, count)
	}
}

// BaseFilter is the listing's filter with need's consistency cut, or an
// error when the service's limits leave no room for the cut's term.
func (l *Listing[T]) BaseFilter(need Need) (filter.Parsed, error) {
	base, cut := l.createdBeforeFilter(need)
	if cut != "" {
		return filter.Parsed{}, errors.New("no room in the filter for consistency_buffer's created_at bound, which the counts need")
	}
	return base, nil
}

// ExactCount is the service's count of the records matching expr, asked
// for with page[total_method]=exact: one request for one record.
func (l *Listing[T]) ExactCount(ctx context.Context, expr filter.Parsed) (commerce.Count, error) {
	page, err := fetchPage(ctx, l.e, l.kind, pageRequest{filter: expr.Text(), limit: 1, exactCount: true}, nil)
	return page.Count, err
}

// FirstPage is the first page of the records matching expr, with their
// JSON, in the endpoint's default order.
func (l *Listing[T]) FirstPage(ctx context.Context, expr filter.Parsed) (commerce.Page[T], error) {
	return fetchPage(ctx, l.e, l.kind, pageRequest{filter: expr.Text(), limit: l.e.pageSize, includeJSON: true}, nil)
}

// List is every record matching expr, with its JSON, in the endpoint's
// default order, and the page requests it took. A page out of that order
// shows a service that does not sort the endpoint as documented (it
// ignores sort=, and its own order differs once records were written):
// List has handed nothing out yet, so it lists again, once, in the
// service's own order, as a listing does that sees it on its first page.
func (l *Listing[T]) List(ctx context.Context, expr filter.Parsed) ([]T, int, error) {
	ep := l.kind.Endpoint
	pages := 0
	for again := false; ; again = true {
		var out []T
		st, err := l.derive(expr, keyFor(ep, ep.DefaultSort)).listAll(ctx, Need{IncludeJSON: true},
			emitters[T]{emit: func(rec T) error { out = append(out, rec); return nil }})
		pages += st.Pages
		var disorder disorderError
		if again || !errors.As(err, &disorder) || l.e.sortUnusable(ep.Path) {
			return out, pages, err
		}
		l.e.markSortUnusable(ctx, ep.Path, ep.DefaultSort, disorder.Error())
	}
}

// NarrowFilter is base with extra merged in, within the service's limits
// on a filter; why names the terms for the error that says they do not
// fit.
func (l *Listing[T]) NarrowFilter(base filter.Parsed, extra filter.Expr, why string) (filter.Parsed, error) {
	narrowed, _, err := l.e.room(l.kind.Endpoint).narrowed(base, extra, "", why)
	return narrowed, err
}
