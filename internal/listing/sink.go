package listing

// Where one strategy's records go, each once, in an order the same on
// every read of the same store.

import (
	"slices"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/idset"
)

// sink is where one strategy's records go, each once: the caller's emit
// (or the catch-up's Late, or a provider-side sort's collection), up to a
// limit, with the records it already took. A strategy gets a fresh sink,
// so a strategy that gives up leaves nothing behind for the next.
// Traversal goroutine.
type recordSink[T commerce.Record] struct {
	emit  func(T) error
	limit int // stop after this many records; 0: all
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at; dropped
	// counts them.
	createdBefore string
	dropped       int
	endpoint      commerce.Endpoint

	seen   *idset.Set // ids taken, shared with a catch-up's sink
	listed int        // records handed to emit
	// firstKey is the sort key (by key) of the first record taken, for
	// the catch-up; empty until one is.
	key      sortKey
	firstKey string

	sizeHint func() int       // results.total, to size seen once
	progress func(listed int) // nil: no progress reports

	// byID: the records come in key order from the service, and those that
	// share a sort value wait in ties until a record with another value
	// comes (or the pass ends, flush), then go to emit by id. The service
	// documents no order among ties, and a store may give them in another
	// order on every request: the provider's order is the same on every
	// read of the same store.
	byID   bool
	tieKey string
	ties   []T
}

// accept hands rec to emit unless it was taken already. done is true once
// the limit is reached.
func (s *recordSink[T]) accept(rec T) (done bool, err error) {
	id := rec.RecordID()
	if s.seen == nil {
		// Sized once from results.total: growing a set of 100,000 ids
		// step by step allocates it several times over.
		hint := 0
		if s.sizeHint != nil {
			hint = s.sizeHint()
		}
		if s.limit > 0 {
			hint = min(hint, s.limit)
		}
		s.seen = idset.New(min(hint, 1<<21))
	}
	if !s.seen.Add(id) {
		return false, nil // repeated at a window boundary, or moved by an update
	}
	if s.createdBefore != "" {
		if created, err := keyOf(keyFor(s.endpoint, "created_at"), rec); err == nil && created >= s.createdBefore {
			s.dropped++
			return false, nil
		}
	}
	if s.firstKey == "" && s.key.attr != "" {
		s.firstKey, _ = keyOf(s.key, rec)
	}
	if !s.byID {
		return s.take(rec)
	}
	k, err := keyOf(s.key, rec)
	if err != nil {
		return false, err
	}
	if k != s.tieKey {
		if done, err := s.flush(); done || err != nil {
			return done, err
		}
		s.tieKey = k
	}
	s.ties = append(s.ties, rec)
	return false, nil
}

// flush hands the waiting ties to emit by id, up to the limit. done is
// true once the limit is reached.
func (s *recordSink[T]) flush() (done bool, err error) {
	slices.SortFunc(s.ties, func(a, b T) int { return strings.Compare(a.RecordID(), b.RecordID()) })
	for i, rec := range s.ties {
		if done, err = s.take(rec); done || err != nil {
			clear(s.ties[i:])
			break
		}
	}
	s.ties = s.ties[:0]
	return done, err
}

// take hands rec to emit and counts it.
func (s *recordSink[T]) take(rec T) (done bool, err error) {
	if err := s.emit(rec); err != nil {
		return false, err
	}
	s.listed++
	if s.progress != nil {
		s.progress(s.listed)
	}
	return s.full(), nil
}

// full reports whether the limit is reached.
func (s *recordSink[T]) full() bool { return s.limit > 0 && s.listed >= s.limit }

// quota is what the sink still wants, for planning a window.
func (s *recordSink[T]) quota() quota {
	if s.limit <= 0 {
		return unlimited
	}
	return quota{limited: true, left: s.limit - s.listed}
}
