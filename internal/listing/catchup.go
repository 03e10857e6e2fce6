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
	rounds, err := l.catchUpRounds(ctx, main, key)
	if err != nil {
		return err
	}
	// Each round found records newer than every record of the round
	// before: they go out last round first, so that the late records
	// too are newest first.
	for i := len(rounds) - 1; i >= 0; i-- {
		for _, rec := range rounds[i] {
			if err := emit(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// catchUpRounds runs the catch-up's rounds and returns what each found,
// in -updated_at order. Traversal goroutine.
func (l *listRun[T]) catchUpRounds(ctx context.Context, main *recordSink[T], key sortKey) ([][]T, error) {
	var rounds [][]T
	since := main.firstKey
	for range maxCatchUps {
		if since == "" {
			break
		}
		var round []T
		out := &recordSink[T]{emit: func(rec T) error { round = append(round, rec); return nil }, endpoint: l.kind.Endpoint,
			createdBefore: l.createdBefore, seen: main.seen, byID: true}
		w := l.walk(out, key)
		base, _, err := l.narrowed(l.filter, filter.Expr{filter.NewTerm(filter.Ge, key.attr, nextMillisecond(since))}, key.param(),
			"to find the records updated while the listing ran, the provider lists those updated since it began again")
		if err != nil {
			return nil, err
		}
		err = w.traverse(ctx, base, key)
		if err == nil {
			_, err = out.flush()
		}
		main.listed += out.listed
		main.dropped += out.dropped
		if err != nil {
			return nil, err
		}
		if out.listed == 0 {
			break
		}
		rounds = append(rounds, round)
		since = out.firstKey
	}
	return rounds, nil
}
