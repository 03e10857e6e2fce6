package listing

import "github.com/commerce-tf/terraform-provider-commerce/internal/commerce"

// sink is where one strategy's records go, each once: the caller's emit
// (or the catch-up's Late, or a provider-side sort's collection), up to a
// limit, with the records it already took. A strategy gets a fresh sink,
// so a strategy that gives up leaves nothing behind for the next.
// Traversal goroutine.
type sink[T commerce.Record] struct {
	emit  func(T) error
	limit int // stop after this many records; 0: all
	// createdBefore drops records created at or after it (a normalised
	// timestamp), where the service cannot filter on created_at; dropped
	// counts them.
	createdBefore string
	dropped       int
	kind          commerce.Resource

	seen   map[string]struct{} // ids taken, shared with a catch-up's sink
	listed int                 // records handed to emit
	// firstKey is the sort key (by key) of the first record taken, for
	// the catch-up; empty until one is.
	key      sortKey
	firstKey string

	sizeHint func() int       // results.total, to size seen once
	progress func(listed int) // nil: no progress reports
}

// deliver hands rec to emit unless it was taken already. done is true once
// the limit is reached.
func (s *sink[T]) deliver(rec T) (done bool, err error) {
	id := rec.RecordID()
	if s.seen == nil {
		// Sized once from results.total: growing a map of 100,000 ids
		// step by step allocates it several times over.
		hint := 0
		if s.sizeHint != nil {
			hint = s.sizeHint()
		}
		if s.limit > 0 {
			hint = min(hint, s.limit)
		}
		s.seen = make(map[string]struct{}, min(hint, 1<<20))
	}
	if _, dup := s.seen[id]; dup {
		return false, nil // repeated at a window boundary, or moved by an update
	}
	s.seen[id] = struct{}{}
	if s.createdBefore != "" {
		if created, err := keyOf(keyFor(s.kind, "created_at"), rec); err == nil && created >= s.createdBefore {
			s.dropped++
			return false, nil
		}
	}
	if err := s.emit(rec); err != nil {
		return false, err
	}
	if s.firstKey == "" && s.key.attr != "" {
		s.firstKey, _ = keyOf(s.key, rec)
	}
	s.listed++
	if s.progress != nil {
		s.progress(s.listed)
	}
	return s.full(), nil
}

// full reports whether the limit is reached.
func (s *sink[T]) full() bool { return s.limit > 0 && s.listed >= s.limit }

// quota is what the sink still wants, for planning a window.
func (s *sink[T]) quota() quota {
	if s.limit <= 0 {
		return unlimited
	}
	return quota{limited: true, left: s.limit - s.listed}
}
