package emulator

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// SortedIDs returns the ids of all records of resource matching filter,
// sorted by any of its attributes ("attr" or "-attr"), whether or not the
// service sorts by it: ascending or descending by value (timestamps to the
// millisecond, numbers numerically, text bytewise), ties by id ascending,
// records without a value last. It is the reference answer for a client
// that sorts a complete listing itself.
func (s *Server) SortedIDs(resource, filter, sort string) ([]string, error) {
	t, err := s.knownTable(resource)
	if err != nil {
		return nil, err
	}
	name, desc := strings.CutPrefix(sort, "-")
	col := slices.IndexFunc(t.res.cols, func(c column) bool { return c.name == name })
	if col < 0 {
		return nil, fmt.Errorf("%s have no attribute %q to sort by", resource, name)
	}
	q, aerr := compileQuery(&t.res.schema, filter, filter != "", "", false, false)
	if aerr != nil {
		return nil, aerr
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	rows := slices.Clone(s.run(t, q))
	kind := t.res.cols[col].kind
	has := func(row int32) bool {
		switch kind {
		case kindString:
			return t.str[col][row] != ""
		case kindNumber:
			return t.num[col][row] != nullNum
		}
		return true
	}
	slices.SortStableFunc(rows, func(a, b int32) int {
		if ha, hb := has(a), has(b); ha != hb {
			if ha {
				return -1
			}
			return 1
		}
		var c int
		switch kind {
		case kindString:
			c = strings.Compare(t.str[col][a], t.str[col][b])
		case kindNumber, kindTime:
			c = cmp.Compare(t.num[col][a], t.num[col][b])
		case kindBool:
			c = cmp.Compare(boolInt(t.boo[col][a]), boolInt(t.boo[col][b]))
		}
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(t.id(a), t.id(b))
	})
	return t.ids(rows), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
