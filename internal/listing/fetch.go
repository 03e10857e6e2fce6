package listing

import (
	"context"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// pageRequest is one list request: a filter, a sort (empty: the
// service's own order), which records, whether to keep their JSON, and
// whether to ask for an exact count.
type pageRequest struct {
	filter, sort  string
	offset, limit int
	includeJSON   bool
	exactCount    bool
}

// fetchPage requests one page of kind and checks it against the contract
// (commerce.DecodeListBody); a page that breaks it is a
// commerce.ProtocolError, which the transport does not retry. The display
// attributes of an unexpected type its records held go to notes.
func fetchPage[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], req pageRequest, notes *commerce.DecodeLog) (commerce.Page[T], error) {
	q := commerce.ListParams(req.filter, req.sort, req.offset, req.limit)
	if req.exactCount {
		q.Set(commerce.TotalMethodParam, string(commerce.CountExact))
	}
	path := kind.Path + "?" + q.Encode()
	if req.filter != "" && len(path) > commerce.MaxRequestBytes {
		// The listing checks its requests before it builds them; this
		// guards every other path to the service.
		return commerce.Page[T]{}, &FilterLimitError{Endpoint: kind.Name, Filter: req.filter, Terms: -1, Bytes: len(path),
			Fix: "Use fewer or shorter values (an in() of about 200 ids fills a request)."}
	}
	var out commerce.Page[T]
	err := e.get.Get(ctx, kind.Path, q, func(body []byte) error {
		p, err := commerce.DecodeListBody(body, kind, req.limit, req.offset, req.includeJSON, path)
		out = p
		return err
	})
	if err == nil && notes != nil {
		// The worker that decoded the page adds its issues; the listing
		// warns of them when it ends.
		notes.Add(out.Issues)
	}
	return out, err
}

// warnDecoded logs, at the end of a listing, one WARN per attribute that
// held values of an unexpected type.
func (e *Engine) warnDecoded(ctx context.Context, resource string, notes *commerce.DecodeLog) {
	for _, w := range notes.Warnings(resource) {
		e.log.Warn(ctx, w.Message, w.Fields)
	}
}
