package emulator

import (
	"fmt"
	"time"
)

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// accessor gives the exported copies (Order, File, Account) of the records
// of one resource, for the typed methods of Server.
type accessor[R any] struct {
	res *resource
	at  func(t *table, row int32) R
}

// all returns copies of the live records in storage (insertion) order.
func (a accessor[R]) all(s *Server) []R {
	t := s.tableOf(a.res)
	s.mu.RLock()
	defer s.mu.RUnlock()
	rows := t.liveRows()
	out := make([]R, len(rows))
	for i, row := range rows {
		out[i] = a.at(t, row)
	}
	return out
}

// insert creates a record and returns its copy.
func (a accessor[R]) insert(s *Server) R {
	t := s.tableOf(a.res)
	return a.read(s, t, s.insert(t))
}

// update changes a record and returns its copy.
func (a accessor[R]) update(s *Server, id string) (R, error) {
	t := s.tableOf(a.res)
	row, err := s.update(t, id)
	if err != nil {
		var zero R
		return zero, err
	}
	return a.read(s, t, row), nil
}

func (a accessor[R]) delete(s *Server, id string) error { return s.remove(s.tableOf(a.res), id) }

// read returns the copy of a row, read under the data lock.
func (a accessor[R]) read(s *Server, t *table, row int32) R {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return a.at(t, row)
}

// table returns the table of the named resource, or nil.
func (s *Server) table(resource string) *table {
	for _, t := range s.tables {
		if t.res.name == resource {
			return t
		}
	}
	return nil
}

// tableOf returns the table of a registered resource.
func (s *Server) tableOf(r *resource) *table {
	for _, t := range s.tables {
		if t.res == r {
			return t
		}
	}
	panic("emulator: resource " + r.name + " is not registered")
}

// knownTable is table with the error of the data access methods for an
// unknown resource.
func (s *Server) knownTable(resource string) (*table, error) {
	if t := s.table(resource); t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("%q: %w", resource, errUnknownResource)
}

// ids returns the ids of rows.
func (t *table) ids(rows []int32) []string {
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = t.id(row)
	}
	return ids
}

// Count returns the number of live records of a resource ("orders", "files"
// or "accounts"), or 0 for an unknown resource.
func (s *Server) Count(resource string) int {
	t := s.table(resource)
	if t == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return t.live
}

// ExpectedIDs returns the ids of all records of resource matching filter, in
// the order of sort, exactly as the list endpoint would serve them page by
// page (but without paging or offset limits). An empty filter or sort means
// the parameter is absent: sort "" gives the service's default order
// (created_at descending for orders and accounts, ascending id for files).
// The error carries the detail the API would send, e.g. for any sort of
// files or an operator the attribute does not support.
func (s *Server) ExpectedIDs(resource, filter, sort string) ([]string, error) {
	t, err := s.knownTable(resource)
	if err != nil {
		return nil, err
	}
	q, aerr := compileQuery(&t.res.schema, filter, filter != "", sort, sort != "", s.ignoresSort(t.res))
	if aerr != nil {
		return nil, aerr
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return t.ids(s.run(t, q)), nil
}
