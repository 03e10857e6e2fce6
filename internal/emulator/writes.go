package emulator

import "fmt"

// Every write stamps the record with the emulator clock, which is strictly
// increasing and later than every seeded timestamp, and bumps the data
// version, which invalidates cached results.

// tick advances the write clock. Caller holds the write lock.
func (s *Server) tick() int64 {
	now := s.opts.Now().UnixMilli()
	if now <= s.clock {
		now = s.clock + 1
	}
	s.clock = now
	return now
}

func (s *Server) insert(t *table) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.tick()
	row := t.addRow()
	t.res.fill(t, row, t.inserted, false)
	t.num[t.res.created][row] = now
	if t.res.updated >= 0 {
		t.num[t.res.updated][row] = now
	}
	t.indexInsert(row)
	t.version++
	return row
}

func (s *Server) update(t *table, id string) (int32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := t.lookup(id)
	if !ok {
		return 0, fmt.Errorf("no %s with id %q", t.res.typ, id)
	}
	t.indexRemove(row)
	if t.res.updated >= 0 {
		t.num[t.res.updated][row] = s.tick()
	}
	t.res.update(t, row)
	t.indexInsert(row)
	t.version++
	return row, nil
}

func (s *Server) remove(t *table, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := t.lookup(id)
	if !ok {
		return fmt.Errorf("no %s with id %q", t.res.typ, id)
	}
	t.indexRemove(row)
	t.deleted[row] = true
	t.live--
	t.version++
	return nil
}

// Insert creates a record of resource and returns its id.
func (s *Server) Insert(resource string) (string, error) {
	t, err := s.knownTable(resource)
	if err != nil {
		return "", err
	}
	row := s.insert(t)
	s.mu.RLock()
	defer s.mu.RUnlock()
	return t.id(row), nil
}

// Update changes a record of resource and sets its updated_at to the
// emulator clock (files, which have none, only change).
func (s *Server) Update(resource, id string) error {
	t, err := s.knownTable(resource)
	if err != nil {
		return err
	}
	_, err = s.update(t, id)
	return err
}

// Delete deletes a record of resource.
func (s *Server) Delete(resource, id string) error {
	t, err := s.knownTable(resource)
	if err != nil {
		return err
	}
	return s.remove(t, id)
}
