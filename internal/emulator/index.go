package emulator

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// buildIndexes (re)builds every ascending index from scratch.
func (t *table) buildIndexes() {
	live := t.liveRows()
	for _, col := range t.res.indexCols {
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
	kind := t.res.cols[col].kind
	if kind == kindString {
		if idx := distribute(t.str[col], live); idx != nil {
			return idx
		}
	}
	idx := slices.Clone(live)
	// (value, position) is a total order, so an unstable sort gives the
	// same result as a stable sort by value over storage order.
	switch kind {
	case kindString:
		vals := t.str[col]
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

// distribute orders the rows of a column with few distinct values
// (statuses) by distributing them, in storage order, into one bucket per
// value. It returns nil when the column has more than maxBuckets values.
func distribute(vals []string, live []int32) []int32 {
	bucket := make(map[string]int, maxBuckets)
	for _, row := range live {
		if _, ok := bucket[vals[row]]; !ok {
			if len(bucket) == maxBuckets {
				return nil
			}
			bucket[vals[row]] = 0
		}
	}
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
	idx := make([]int32, len(live))
	for _, row := range live {
		b := bucket[vals[row]]
		idx[starts[b]] = row
		starts[b]++
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
	idx := t.asc[t.res.idCol]
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
	for _, col := range t.res.indexCols {
		t.indexInsertCol(col, row)
	}
}

// indexRemove removes row from every index; row must still hold the values
// it was indexed with. Caller holds the write lock.
func (t *table) indexRemove(row int32) {
	for _, col := range t.res.indexCols {
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
