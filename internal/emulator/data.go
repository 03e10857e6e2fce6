package emulator

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
)

// Records are stored column-wise: one slice per attribute, indexed by the
// record's storage position. Storage positions are assigned in insertion
// order and never reused; a deleted record keeps its position (marked in
// deleted) but leaves every index. Columnar storage keeps 100,000 orders
// compact and lets filtering and sorting work generically on any attribute;
// which attributes can be filtered (with which operators) and sorted is
// declared per column and schema, as the service documents it.

// colKind is the type of an attribute, which decides how filters compare it.
type colKind uint8

const (
	kindString colKind = iota // compared bytewise
	kindNumber                // integer, compared numerically; nullNum when absent
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

// opSet is a set of filter operators, one bit per filterOp.
type opSet uint8

func opsOf(ops ...filterOp) opSet {
	var s opSet
	for _, op := range ops {
		s |= 1 << op
	}
	return s
}

func (s opSet) has(op filterOp) bool { return op < numOps && s&(1<<op) != 0 }

// String lists the operators in documentation order: "eq, like".
func (s opSet) String() string {
	var names []string
	for op := range numOps {
		if s.has(op) {
			names = append(names, op.String())
		}
	}
	return strings.Join(names, ", ")
}

// The operator sets the service documents per attribute.
var (
	opsEq        = opsOf(opEq)
	opsEqLike    = opsOf(opEq, opLike)
	opsRange     = opsOf(opGt, opGe, opLt, opLe)
	opsEqRange   = opsEq | opsRange
	opsEqRangeIn = opsEqRange | opsOf(opIn)
)

// column describes one attribute of a resource. Its name is the attribute
// name used in filters and sorts (for a column that is not filterable it
// only documents the column).
type column struct {
	name string
	kind colKind
	// ops are the filter operators the service accepts on the attribute;
	// empty when it cannot be filtered on.
	ops opSet
}

// nullNum marks an absent number (a file without dimensions): no filter
// term matches it.
const nullNum = math.MinInt64

// schema is what the service documents about one resource type: its
// attributes, which of them filter with which operators, its sorts and
// default order, and its offset limit.
type schema struct {
	name string // path segment and API name: "orders"
	typ  string // JSON:API type of one record: "order"
	// prefix is the path the resource's segment follows; register sets
	// "/v2" where it is empty. The catalogue services live under "/pcm".
	prefix  string
	cols    []column
	idCol   int // always 0
	created int
	updated int // -1: the resource has no updated_at
	// sortCols are the columns a list can be sorted by, in the order error
	// messages list them; empty when the resource cannot be sorted at all.
	sortCols []int
	// defaultSort and defaultDesc give the order of a list without sort.
	defaultSort int
	defaultDesc bool
	// indexCols are the columns with a maintained index: the sort columns,
	// the default sort column and the id (for lookups). register derives
	// them.
	indexCols []int
	// hardOffsetLimit is true when the offset limit cannot be switched off.
	hardOffsetLimit bool
}

// deriveIndexCols sets indexCols from the id, sort and default sort columns.
func (s *schema) deriveIndexCols() {
	s.indexCols = []int{s.idCol}
	for _, c := range append(slices.Clone(s.sortCols), s.defaultSort) {
		if !slices.Contains(s.indexCols, c) {
			s.indexCols = append(s.indexCols, c)
		}
	}
}

// filterCol finds a filterable attribute by name.
func (s *schema) filterCol(name string) (int, bool) {
	for i, c := range s.cols {
		if c.name == name && c.ops != 0 {
			return i, true
		}
	}
	return 0, false
}

// sortCol finds a sortable attribute by name.
func (s *schema) sortCol(name string) (int, bool) {
	for _, c := range s.sortCols {
		if s.cols[c].name == name {
			return c, true
		}
	}
	return 0, false
}

// filterableNames lists the filterable attributes for messages.
func (s *schema) filterableNames() string {
	var names []string
	for _, c := range s.cols {
		if c.ops != 0 {
			names = append(names, c.name)
		}
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
	res *resource

	str [][]string // per column; nil unless kindString
	num [][]int64  // per column; nil unless kindNumber or kindTime
	boo [][]bool   // per column; nil unless kindBool

	deleted []bool
	live    int
	version uint64 // bumped by every write

	// asc holds, per indexed column, the live storage positions ordered by
	// (value, position): ascending by value, ties in storage order.
	asc [][]int32

	rng      *rand.Rand // continues the seeded stream for inserted records
	aux      *rand.Rand // second seeded stream, for attributes added later
	inserted int        // records ever created, seeded ones included
	// state is what the resource's generator keeps between records (the
	// buyers and products of orders); nil for most resources.
	state any

	// Descending indexes are derived lazily from asc, per data version.
	dmu     sync.Mutex
	desc    [][]int32
	descVer []uint64
}

func newTable(res *resource, capacity int, rng, aux *rand.Rand) *table {
	n := len(res.cols)
	t := &table{
		res:     res,
		str:     make([][]string, n),
		num:     make([][]int64, n),
		boo:     make([][]bool, n),
		asc:     make([][]int32, n),
		desc:    make([][]int32, n),
		descVer: make([]uint64, n),
		deleted: make([]bool, 0, capacity),
		rng:     rng,
		aux:     aux,
	}
	for i, c := range res.cols {
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
	for i, c := range t.res.cols {
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

func (t *table) id(row int32) string { return t.str[t.res.idCol][row] }

// cmpValue compares the values of col in rows a and b.
func (t *table) cmpValue(col int, a, b int32) int {
	switch t.res.cols[col].kind {
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

// latest returns the latest timestamp of any record (created_at or
// updated_at), or def if there is none later.
func (t *table) latest(def int64) int64 {
	for _, col := range []int{t.res.created, t.res.updated} {
		if col >= 0 {
			for _, v := range t.num[col] {
				def = max(def, v)
			}
		}
	}
	return def
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
