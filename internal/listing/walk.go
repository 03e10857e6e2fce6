package listing

import "github.com/commerce-tf/terraform-provider-commerce/internal/commerce"

// walk is one strategy's pass over a listing: the listing it serves and
// the sink its records go to. Traversal goroutine.
type walk[T commerce.Record] struct {
	*listing[T]
	out *sink[T]
}

// walk starts a pass whose records go to out, which notes the key of the
// first one it takes in key order (for the catch-up).
func (l *listing[T]) walk(out *sink[T], key sortKey) *walk[T] {
	out.key = key
	return &walk[T]{listing: l, out: out}
}

// offsetLimitErrorFor turns a failed keyset request into an
// OffsetLimitError: the service refused the only way past its offset limit.
// Other errors pass unchanged. Traversal goroutine.
func (w *walk[T]) offsetLimitErrorFor(err error, win *window[T]) error {
	keyset := win.bound != nil || win.base != w.q.filter
	if keyset && badRequest(err) {
		return &OffsetLimitError{Endpoint: w.kind.Name, OffsetLimit: commerce.OffsetLimit, Count: w.stats.Count, Listed: w.out.listed + len(w.out.ties), Err: err}
	}
	return err
}
