package client

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
// updated_at after the first record listed, so a filtered pass finds them;
// it repeats while it still finds records updated during the last pass.
// Records it finds go to q.Late (see deliver). Traversal goroutine.
func (l *lister[T]) catchUp(ctx context.Context) error {
	l.late = true
	for range maxCatchUps {
		if l.firstListedKey == "" {
			return nil
		}
		since := filter.Expr{filter.NewTerm(filter.Ge, l.key.attr, nextMillisecond(l.firstListedKey))}
		before := l.stats.Listed
		l.firstListedKey = ""
		base, err := l.narrowed(l.q.Filter, since, l.key.param(),
			"to find the records updated while the listing ran, the provider lists those updated since it began again")
		if err != nil {
			return err
		}
		if err := l.traverse(ctx, base, l.key); err != nil {
			return err
		}
		if l.stats.Listed == before {
			return nil
		}
	}
	return nil
}
