package emulator

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
)

// Records are stored column-wise: one slice per attribute, indexed by the
// record's storage position. Storage positions are assigned in insertion
// order and never reused; a deleted record keeps its position (marked in
// deleted) but leaves every index. Columnar storage keeps 100,000 orders
// compact and lets filtering and sorting work generically on any attribute.

// colKind is the type of an attribute, which decides how filters compare it.
type colKind uint8

const (
	kindString colKind = iota // compared bytewise
	kindNumber                // integer, compared numerically
	kindBool                  // eq/in with true or false only
	kindTime                  // milliseconds since the Unix epoch, UTC
)

func (k colKind) String() string {
	switch k {
	case kindNumber:
		return "number"
	case kindBool:
		return "boolean"
	case kindTime:
		return "timestamp"
	}
	return "string"
}

// column describes one attribute of a resource. Its name is the attribute
// name used in filters and sorts.
type column struct {
	name string
	kind colKind
}

// schema describes one resource type.
type schema struct {
	resource string // path segment and API name: "orders"
	typ      string // JSON:API type of one record: "order"
	cols     []column
	idCol    int // always 0
	created  int
	updated  int
	// sortCols are the columns a list can be sorted by; each has an index.
	sortCols []int
	// hardOffsetLimit is true when the offset limit cannot be switched off.
	hardOffsetLimit bool
	// appendRecord appends the JSON of one record.
	appendRecord func(b []byte, t *table, row int32, flat bool) []byte
}

func (s *schema) colByName(name string) (int, bool) {
	for i, c := range s.cols {
		if c.name == name {
			return i, true
		}
	}
	return 0, false
}

func (s *schema) isSortCol(col int) bool { return slices.Contains(s.sortCols, col) }

// filterableNames lists the filterable attributes (all columns) for messages.
func (s *schema) filterableNames() string {
	names := make([]string, len(s.cols))
	for i, c := range s.cols {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// sortValues lists the accepted sort parameter values for messages.
func (s *schema) sortValues() string {
	var names []string
	for _, c := range s.sortCols {
		names = append(names, s.cols[c].name, "-"+s.cols[c].name)
	}
	return strings.Join(names, ", ")
}

// table holds the records of one resource. Fields other than dmu, desc and
// descVer are guarded by Server.mu.
type table struct {
	sch *schema

	str [][]string // per column; nil unless kindString
	num [][]int64  // per column; nil unless kindNumber or kindTime
	boo [][]bool   // per column; nil unless kindBool

	deleted []bool
	live    int
	version uint64 // bumped by every write

	// asc holds, per sortable column, the live storage positions ordered by
	// (value, position): ascending by value, ties in storage order.
	asc [][]int32

	rng      *rand.Rand // continues the seeded stream for inserted records
	inserted int        // records ever created, seeded ones included

	// Descending indexes are derived lazily from asc, per data version.
	dmu     sync.Mutex
	desc    [][]int32
	descVer []uint64
}

func newTable(sch *schema, capacity int, rng *rand.Rand) *table {
	n := len(sch.cols)
	t := &table{
		sch:     sch,
		str:     make([][]string, n),
		num:     make([][]int64, n),
		boo:     make([][]bool, n),
		asc:     make([][]int32, n),
		desc:    make([][]int32, n),
		descVer: make([]uint64, n),
		deleted: make([]bool, 0, capacity),
		rng:     rng,
	}
	for i, c := range sch.cols {
		switch c.kind {
		case kindString:
			t.str[i] = make([]string, 0, capacity)
		case kindNumber, kindTime:
			t.num[i] = make([]int64, 0, capacity)
		case kindBool:
			t.boo[i] = make([]bool, 0, capacity)
		}
	}
	return t
}

// addRow appends a record with zero values and returns its position. It does
// not touch the indexes.
func (t *table) addRow() int32 {
	for i, c := range t.sch.cols {
		switch c.kind {
		case kindString:
			t.str[i] = append(t.str[i], "")
		case kindNumber, kindTime:
			t.num[i] = append(t.num[i], 0)
		case kindBool:
			t.boo[i] = append(t.boo[i], false)
		}
	}
	t.deleted = append(t.deleted, false)
	t.live++
	t.inserted++
	return int32(len(t.deleted) - 1)
}

func (t *table) id(row int32) string { return t.str[t.sch.idCol][row] }

// cmpValue compares the values of col in rows a and b.
func (t *table) cmpValue(col int, a, b int32) int {
	switch t.sch.cols[col].kind {
	case kindString:
		return strings.Compare(t.str[col][a], t.str[col][b])
	case kindBool:
		x, y := t.boo[col][a], t.boo[col][b]
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return cmp.Compare(t.num[col][a], t.num[col][b])
}

// cmpRows is the index order: by value, then by storage position.
func (t *table) cmpRows(col int, a, b int32) int {
	if c := t.cmpValue(col, a, b); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// buildIndexes (re)builds every ascending index from scratch.
func (t *table) buildIndexes() {
	for _, col := range t.sch.sortCols {
		idx := make([]int32, 0, t.live)
		for row := range int32(len(t.deleted)) {
			if !t.deleted[row] {
				idx = append(idx, row)
			}
		}
		// (value, position) is a total order, so an unstable sort gives the
		// same result as a stable sort by value over storage order.
		slices.SortFunc(idx, func(a, b int32) int { return t.cmpRows(col, a, b) })
		t.asc[col] = idx
	}
	t.version++
}

// index returns the positions of the live records sorted by col, ascending or
// descending by value; records with equal values are in storage order in
// both directions. The caller holds Server.mu (read or write) and must not
// modify the result.
func (t *table) index(col int, desc bool) []int32 {
	asc := t.asc[col]
	if !desc {
		return asc
	}
	t.dmu.Lock()
	defer t.dmu.Unlock()
	if t.desc[col] != nil && t.descVer[col] == t.version {
		return t.desc[col]
	}
	// Reverse the order of the tie groups but not their contents.
	d := make([]int32, 0, len(asc))
	end := len(asc)
	for end > 0 {
		start := end - 1
		for start > 0 && t.cmpValue(col, asc[start-1], asc[end-1]) == 0 {
			start--
		}
		d = append(d, asc[start:end]...)
		end = start
	}
	t.desc[col] = d
	t.descVer[col] = t.version
	return d
}

// lookup finds a live record by id.
func (t *table) lookup(id string) (int32, bool) {
	idx := t.asc[t.sch.idCol]
	i, found := slices.BinarySearchFunc(idx, id, func(row int32, id string) int {
		return strings.Compare(t.id(row), id)
	})
	if !found {
		return 0, false
	}
	return idx[i], true
}

// indexInsert adds row to every index. Caller holds the write lock.
func (t *table) indexInsert(row int32) {
	for _, col := range t.sch.sortCols {
		t.indexInsertCol(col, row)
	}
}

func (t *table) indexInsertCol(col int, row int32) {
	idx := t.asc[col]
	i, _ := slices.BinarySearchFunc(idx, row, func(a, b int32) int { return t.cmpRows(col, a, b) })
	t.asc[col] = slices.Insert(idx, i, row)
}

// indexRemoveCol removes row from the index of col; row must still hold the
// value it was indexed with.
func (t *table) indexRemoveCol(col int, row int32) {
	idx := t.asc[col]
	i, found := slices.BinarySearchFunc(idx, row, func(a, b int32) int { return t.cmpRows(col, a, b) })
	if found {
		t.asc[col] = slices.Delete(idx, i, i+1)
	}
}

// liveRows returns the live positions in storage order.
func (t *table) liveRows() []int32 {
	rows := make([]int32, 0, t.live)
	for row := range int32(len(t.deleted)) {
		if !t.deleted[row] {
			rows = append(rows, row)
		}
	}
	return rows
}
