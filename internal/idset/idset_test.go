package idset

import (
	"fmt"
	"runtime"
	"testing"
)

// Each id is in the set once, whatever its shape; a UUID in upper case is
// another id than in lower case, as the service compares them.
func TestAddReportsWhatIsNew(t *testing.T) {
	s := New(4)
	for _, tc := range []struct {
		id  string
		new bool
	}{
		{"9f2c1e4a-0b3d-4c5e-8f70-1a2b3c4d5e6f", true},
		{"9f2c1e4a-0b3d-4c5e-8f70-1a2b3c4d5e6f", false},
		{"9F2C1E4A-0B3D-4C5E-8F70-1A2B3C4D5E6F", true},
		{"9F2C1E4A-0B3D-4C5E-8F70-1A2B3C4D5E6F", false},
		{"9f2c1e4a0b3d4c5e8f701a2b3c4d5e6f", true},
		{"9f2c1e4a-0b3d-4c5e-8f70-1a2b3c4d5e6g", true},
		{"order-42", true},
		{"order-42", false},
		{"", true},
		{"", false},
		{"00000000-0000-0000-0000-000000000000", true},
		{"00000000-0000-0000-0000-000000000000", false},
	} {
		if got := s.Add(tc.id); got != tc.new {
			t.Errorf("Add(%q) = %v, want %v", tc.id, got, tc.new)
		}
	}
	if s.Len() != 7 {
		t.Errorf("Len = %d, want 7", s.Len())
	}
	var zero Set
	if !zero.Add("a") || zero.Add("a") || zero.Len() != 1 {
		t.Error("the zero Set is not ready to use")
	}
}

// A million UUIDs take a fraction of what a map of their strings takes.
func TestAMillionUUIDsAreCompact(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a million ids")
	}
	const n = 1_000_000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", i, i&0xffff, i&0xfff, i&0xfff, i)
	}
	// grown is the heap the structure build makes takes, kept alive until
	// it is measured.
	grown := func(build func() any) uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		before := m.HeapAlloc
		v := build()
		runtime.GC()
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(v)
		return m.HeapAlloc - min(before, m.HeapAlloc)
	}
	var s *Set
	set := grown(func() any {
		s = New(n)
		for _, id := range ids {
			s.Add(id)
		}
		return s
	})
	strings := grown(func() any {
		m := make(map[string]struct{}, n)
		for _, id := range ids {
			m[id] = struct{}{}
		}
		return m
	})
	// The simplest code that keeps the same 16 bytes a UUID: a Go map of
	// them, sized alike.
	bytesMap := grown(func() any {
		keys := make(map[uuid]struct{}, n)
		for _, id := range ids {
			u, _ := parseUUID(id)
			keys[u] = struct{}{}
		}
		return keys
	})
	runtime.KeepAlive(ids) // measured apart from the three
	t.Logf("a million UUIDs: %d MB in the set, %d MB in a map of their 16 bytes, %d MB in a map of strings (not counting the strings)",
		set>>20, bytesMap>>20, strings>>20)
	if s.Len() != n || set > 24<<20 || set*3 > strings*2 || set*3 > bytesMap*2 {
		t.Errorf("%d ids in %d MB, a map of 16-byte keys %d MB, of strings %d MB: want at most 24 MB and two thirds of either map",
			s.Len(), set>>20, bytesMap>>20, strings>>20)
	}
}

// A set sized for few ids grows as they come, and keeps every one.
func TestSetGrows(t *testing.T) {
	s := New(0)
	for i := range 100_000 {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i*7919, i)
		if !s.Add(id) {
			t.Fatalf("id %d was already in the set", i)
		}
		if i%10 == 0 && s.Add(id) {
			t.Fatalf("id %d went in twice", i)
		}
	}
	if s.Len() != 100_000 {
		t.Errorf("Len = %d", s.Len())
	}
}

// Has answers for every kind of id Add takes, before and after it does.
func TestHas(t *testing.T) {
	s := New(0)
	ids := []string{"0b7c6b2e-3f7e-4d6c-9a53-1c2d3e4f5a6b", "00000000-0000-0000-0000-000000000000", "not-a-uuid"}
	for _, id := range ids {
		if s.Has(id) {
			t.Errorf("empty set has %q", id)
		}
		s.Add(id)
		if !s.Has(id) {
			t.Errorf("after Add, no %q", id)
		}
	}
	if s.Has("1b7c6b2e-3f7e-4d6c-9a53-1c2d3e4f5a6b") {
		t.Error("has an id never added")
	}
}
