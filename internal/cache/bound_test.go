package cache

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// folderBytes is the size of dir's entries together.
func folderBytes(t *testing.T, dir string) (total int64, entries int) {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		info, err := f.Info()
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Ext(f.Name()) == suffix {
			total += info.Size()
			entries++
		}
	}
	return total, entries
}

const kib = 1 << 10

// The entries used least recently go first: reading one keeps it.
func TestBoundRemovesTheLeastRecentlyUsed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	now := time.Now()
	s, err := Open(dir, secret, Options{MaxBytes: 350 * kib, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	save := func(key string) {
		t.Helper()
		now = now.Add(time.Second)
		if err := s.Save(key, bytes.Repeat([]byte{key[0]}, 100*kib)); err != nil {
			t.Fatal(err)
		}
	}
	save("a")
	save("b")
	save("c")
	now = now.Add(time.Second)
	if _, _, err := s.Load("a"); err != nil { // a is now used after b and c
		t.Fatal(err)
	}
	save("d")
	for key, kept := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		_, _, err := s.Load(key)
		if kept && err != nil || !kept && !errors.Is(err, ErrNotFound) {
			t.Errorf("entry %s: %v, want kept %v", key, err, kept)
		}
	}
	if total, _ := folderBytes(t, dir); total > 350*kib {
		t.Errorf("the folder holds %d bytes, over its bound of %d", total, 350*kib)
	}
}

// An entry larger than the bound is not written, and the stale one it
// would have replaced goes.
func TestEntryLargerThanTheBound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	s, err := Open(dir, secret, Options{MaxBytes: 100 * kib})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save("k", make([]byte, 10*kib)); err != nil {
		t.Fatal(err)
	}
	err = s.Save("k", make([]byte, 100*kib))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Save of an entry over the bound: %v, want ErrTooLarge", err)
	}
	if _, entries := folderBytes(t, dir); entries != 0 {
		t.Errorf("%d entries left, want the stale one removed", entries)
	}
}

// Runs that write to one folder at once, each a new key (a filter that
// changes every plan), leave it within the bound, every entry whole.
func TestBoundHoldsAcrossConcurrentWriters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	const bound = 1 << 20
	var stores []*Store
	for range 3 {
		s, err := Open(dir, secret, Options{MaxBytes: bound})
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	var wg sync.WaitGroup
	for w, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				data := bytes.Repeat([]byte{byte(i)}, (50+i*7%150)*kib)
				if err := s.Save(fmt.Sprintf("writer %d plan %d", w, i), data); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	total, entries := folderBytes(t, dir)
	t.Logf("%d entries, %d bytes", entries, total)
	if total > bound || entries == 0 {
		t.Fatalf("the folder holds %d bytes in %d entries, want at most %d and at least one entry", total, entries, bound)
	}
	for w := range stores {
		got, _, err := stores[0].Load(fmt.Sprintf("writer %d plan 39", w))
		if err != nil && !errors.Is(err, ErrNotFound) || err == nil && !bytes.Equal(got, bytes.Repeat([]byte{39}, len(got))) {
			t.Errorf("writer %d's last entry: %v", w, err)
		}
	}
}

// A file where the folder should be is an unusable folder, not an unsafe
// one.
func TestAFileInTheFoldersPlace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(file, secret, Options{})
	if err == nil || errors.Is(err, ErrInsecure) {
		t.Fatalf("Open on a file: %v, want an unusable folder", err)
	}
}
