// Package idset holds the ids a listing has handed out, compactly. The
// service's ids are lowercase UUIDs: as 16 bytes each in an open-addressed
// table they take about 18 MB for a million, where a Go map of the same 16
// bytes, sized alike, takes 36 MB (measured side by side in one run,
// TestAMillionUUIDsAreCompact), and a map of strings 38 MB for the map
// alone and keeps alive the 48-byte allocation the JSON decoder made for
// each id, 86 MB in all. It is hand-written for the figure it holds: a
// million ids read with the provider at 122 MB of RSS (PERFORMANCE.md, "A
// million ids"), which the map of 16-byte keys would put 18 MB of heap,
// and twice that with the collector's headroom, above. Any other id (an
// endpoint with ids of its own shape, or a UUID in upper case, which is
// another id) is kept as its string.
package idset

import (
	"encoding/binary"
	"math/bits"
)

// Set is a set of ids. The zero value is empty and ready to use; New sizes
// it.
type Set struct {
	// slots is an open-addressed table of UUIDs, probed linearly from a
	// hash of the UUID; the zero UUID marks an empty slot, and hasZero
	// says whether that UUID itself is in the set.
	slots   []uuid
	used    int
	hasZero bool
	other   map[string]struct{}
}

type uuid [16]byte

// maxLoad is the share of the table's slots in use before it grows: 7/8
// keeps linear probes short on the random bits of UUIDs.
const maxLoadNum, maxLoadDen = 7, 8

// New is a set sized for about n ids.
func New(n int) *Set {
	s := &Set{}
	s.resize(n)
	return s
}

// Add adds id, and reports whether it was not in the set.
func (s *Set) Add(id string) bool {
	u, ok := parseUUID(id)
	switch {
	case !ok:
		if s.other == nil {
			s.other = map[string]struct{}{}
		}
		if _, dup := s.other[id]; dup {
			return false
		}
		s.other[id] = struct{}{}
		return true
	case u == uuid{}:
		added := !s.hasZero
		s.hasZero = true
		return added
	}
	if (s.used+1)*maxLoadDen > len(s.slots)*maxLoadNum {
		s.resize(2 * (s.used + 1))
	}
	return s.insert(u)
}

// Has reports whether id is in the set.
func (s *Set) Has(id string) bool {
	u, ok := parseUUID(id)
	switch {
	case !ok:
		_, in := s.other[id]
		return in
	case u == uuid{}:
		return s.hasZero
	}
	if len(s.slots) == 0 {
		return false
	}
	for i := s.home(u); ; i++ {
		if i == len(s.slots) {
			i = 0
		}
		switch s.slots[i] {
		case u:
			return true
		case uuid{}:
			return false
		}
	}
}

// Len is how many ids the set holds.
func (s *Set) Len() int {
	n := s.used + len(s.other)
	if s.hasZero {
		n++
	}
	return n
}

// insert puts u in the table, which has room, and reports whether it was
// not there.
func (s *Set) insert(u uuid) bool {
	for i := s.home(u); ; i++ {
		if i == len(s.slots) {
			i = 0
		}
		switch s.slots[i] {
		case u:
			return false
		case uuid{}:
			s.slots[i] = u
			s.used++
			return true
		}
	}
}

// home is u's first slot: a hash of all its bits, mapped onto the table
// by multiplication, so that the table needs no power-of-two size.
func (s *Set) home(u uuid) int {
	h := binary.LittleEndian.Uint64(u[:8])*0x9E3779B97F4A7C15 ^ binary.LittleEndian.Uint64(u[8:])*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	hi, _ := bits.Mul64(h, uint64(len(s.slots)))
	return int(hi)
}

// resize makes a table for n ids at the largest load, and moves the ids
// in.
func (s *Set) resize(n int) {
	old := s.slots
	s.slots = make([]uuid, max(64, n*maxLoadDen/maxLoadNum+1))
	s.used = 0
	for _, u := range old {
		if u != (uuid{}) {
			s.insert(u)
		}
	}
}

// parseUUID reads a UUID in its canonical lowercase form,
// xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx; any other text is not one (so
// that each text maps to one array, and back).
func parseUUID(s string) (uuid, bool) {
	var u uuid
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := hexDigit(s[i])
		lo, ok2 := hexDigit(s[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return u, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
