package listing

// The catch-up pass of sort -updated_at: the records updated while the
// listing ran, which moved behind the position already read.

import (
	"context"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// maxCatchUps bounds the catch-up rounds of a store that never stops
// updating records.
const maxCatchUps = 5

// catchUp finds, for sort -updated_at, the records updated while the
// listing ran: an update moves a record to the front, behind the position
// already read, where no single pass can see it. They all have an
// updated_at after the first record main took, so a filtered pass finds
// them; it repeats while it still finds records updated during the last
// pass. Records it finds go to the late emitter (to emit without one),
// past the limit, each once with main's records. Traversal goroutine.
func (l *listRun[T]) catchUp(ctx context.Context, main *recordSink[T], key sortKey) error {
	emit := l.to.emit
	if l.to.late != nil {
		emit = l.to.late
	}
	since := main.firstKey
	for range maxCatchUps {
		if since == "" {
			return nil
		}
		out := &recordSink[T]{emit: emit, endpoint: l.kind.Endpoint,
			createdBefore: l.createdBefore, seen: main.seen, byID: true}
		w := l.walk(out, key)
		base, _, err := l.narrowed(l.q.filter, filter.Expr{filter.NewTerm(filter.Ge, key.attr, nextMillisecond(since))}, key.param(),
			"to find the records updated while the listing ran, the provider lists those updated since it began again")
		if err != nil {
			return err
		}
		err = w.traverse(ctx, base, key)
		if err == nil {
			_, err = out.flush()
		}
		main.listed += out.listed
		main.dropped += out.dropped
		if err != nil || out.listed == 0 {
			return err
		}
		since = out.firstKey
	}
	return nil
}
