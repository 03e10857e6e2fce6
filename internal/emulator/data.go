package emulator

import (
	"cmp"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
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

// opSet is a set of filter operators.
type opSet uint8

// opBit returns the set holding only op (empty for an unknown operator).
func opBit(op filter.Op) opSet {
	for i, o := range filter.Ops() {
		if o == op {
			return 1 << i
		}
	}
	return 0
}

func opsOf(ops ...filter.Op) opSet {
	var s opSet
	for _, op := range ops {
		s |= opBit(op)
	}
	return s
}

func (s opSet) has(op filter.Op) bool { return s&opBit(op) != 0 }

// String lists the operators in documentation order: "eq, like".
func (s opSet) String() string {
	var names []string
	for _, op := range filter.Ops() {
		if s.has(op) {
			names = append(names, string(op))
		}
	}
	return strings.Join(names, ", ")
}

// The operator sets the service documents per attribute.
var (
	opsEq        = opsOf(filter.Eq)
	opsEqLike    = opsOf(filter.Eq, filter.Like)
	opsEqLikeIn  = opsOf(filter.Eq, filter.Like, filter.In)
	opsRange     = opsOf(filter.Gt, filter.Ge, filter.Lt, filter.Le)
	opsEqRange   = opsEq | opsRange
	opsEqRangeIn = opsEqRange | opsOf(filter.In)
	opsIn        = opsOf(filter.In)
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

// schema describes one resource type.
type schema struct {
	resource string // path segment and API name: "orders"
	typ      string // JSON:API type of one record: "order"
	cols     []column
	idCol    int // always 0
	created  int
	updated  int // -1: the resource has no updated_at
	// sortCols are the columns a list can be sorted by, in the order error
	// messages list them; empty when the resource cannot be sorted at all.
	sortCols []int
	// defaultSort and defaultDesc give the order of a list without sort.
	defaultSort int
	defaultDesc bool
	// indexCols are the columns with a maintained index: the sort columns,
	// the default sort column and the id (for lookups).
	indexCols []int
	// hardOffsetLimit is true when the offset limit cannot be switched off.
	hardOffsetLimit bool
	// appendRecord appends the JSON of one record.
	appendRecord func(b []byte, t *table, row int32, enc *encoding) []byte
}

// encoding holds what record encoders need to know about the request.
type encoding struct {
	flat bool   // Options.FlatTimestamps
	self []byte // `"http://127.0.0.1:8080/v2/`: the quoted start of self links, open
}

// init derives indexCols; every schema calls it once.
func (s *schema) init() *schema {
	s.indexCols = []int{s.idCol}
	for _, c := range append(slices.Clone(s.sortCols), s.defaultSort) {
		if !slices.Contains(s.indexCols, c) {
			s.indexCols = append(s.indexCols, c)
		}
	}
	return s
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

func (s *schema) isIndexed(col int) bool { return slices.Contains(s.indexCols, col) }

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
	sch *schema

	str [][]string // per column; nil unless kindString
	num [][]int64  // per column; nil unless kindNumber or kindTime
	boo [][]bool   // per column; nil unless kindBool

	deleted []bool
	live    int
	version uint64 // bumped by every write

	// asc holds, per indexed column, the live storage positions ordered by
	// (value, position): ascending by value, ties in storage order.
	asc [][]int32

	rng      *rand.Rand  // continues the seeded stream for inserted records
	aux      *rand.Rand  // second seeded stream, for attributes added later
	inserted int         // records ever created, seeded ones included
	pools    *orderPools // customers, accounts and products of orders; nil for other resources

	// Descending indexes are derived lazily from asc, per data version.
	dmu     sync.Mutex
	desc    [][]int32
	descVer []uint64
}

func newTable(sch *schema, capacity int, rng, aux *rand.Rand) *table {
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
		aux:     aux,
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
	live := t.liveRows()
	for _, col := range t.sch.indexCols {
		t.asc[col] = t.buildIndex(col, live)
	}
	t.version++
}

// maxBuckets is the most distinct values a string column may have to be
// indexed by distribution rather than by sorting.
const maxBuckets = 64

// buildIndex returns the live rows (given in storage order) ordered by
// (value of col, position).
func (t *table) buildIndex(col int, live []int32) []int32 {
	idx := slices.Clone(live)
	switch t.sch.cols[col].kind {
	case kindString:
		vals := t.str[col]
		// Few distinct values (statuses): distribute the rows, in storage
		// order, into one bucket per value.
		bucket := make(map[string]int, maxBuckets)
		for _, row := range live {
			if _, ok := bucket[vals[row]]; !ok {
				if len(bucket) == maxBuckets {
					bucket = nil
					break
				}
				bucket[vals[row]] = 0
			}
		}
		if bucket != nil {
			keys := slices.Sorted(maps.Keys(bucket))
			starts := make([]int, len(keys))
			counts := make(map[string]int, len(keys))
			for _, row := range live {
				counts[vals[row]]++
			}
			n := 0
			for i, k := range keys {
				starts[i] = n
				bucket[k] = i
				n += counts[k]
			}
			for _, row := range live {
				b := bucket[vals[row]]
				idx[starts[b]] = row
				starts[b]++
			}
			return idx
		}
		// (value, position) is a total order, so an unstable sort gives the
		// same result as a stable sort by value over storage order.
		slices.SortFunc(idx, func(a, b int32) int {
			if c := strings.Compare(vals[a], vals[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	case kindNumber, kindTime:
		vals := t.num[col]
		slices.SortFunc(idx, func(a, b int32) int {
			if c := cmp.Compare(vals[a], vals[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	default:
		slices.SortFunc(idx, func(a, b int32) int { return t.cmpRows(col, a, b) })
	}
	return idx
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
	for _, col := range t.sch.indexCols {
		t.indexInsertCol(col, row)
	}
}

// indexRemove removes row from every index; row must still hold the values
// it was indexed with. Caller holds the write lock.
func (t *table) indexRemove(row int32) {
	for _, col := range t.sch.indexCols {
		t.indexRemoveCol(col, row)
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

// latest returns the latest timestamp of any record (created_at or
// updated_at), or def if there is none later.
func (t *table) latest(def int64) int64 {
	for _, col := range []int{t.sch.created, t.sch.updated} {
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
