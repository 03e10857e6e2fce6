package cache

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const secret = "client-secret-1"

// readFile is os.ReadFile, failing t on an error: a check of what a file
// holds never passes on a file it could not read.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readDir is os.ReadDir, failing t on an error.
func readDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func open(t *testing.T, dir, secret string, now func() time.Time) *Store {
	t.Helper()
	s, err := Open(dir, secret, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	s := open(t, dir, secret, nil)
	if _, _, err := s.Load("store|query"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty folder: %v, want ErrNotFound", err)
	}
	data := []byte("the records")
	if err := s.Save("store|query", data); err != nil {
		t.Fatal(err)
	}
	got, written, err := s.Load("store|query")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Load: %q, %v", got, err)
	}
	if time.Since(written) > time.Minute {
		t.Errorf("written %v", written)
	}
	if _, _, err := s.Load("store|other query"); !errors.Is(err, ErrNotFound) {
		t.Errorf("another key: %v, want ErrNotFound", err)
	}
	if err := s.Remove("store|query"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Load("store|query"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after Remove: %v", err)
	}
}

// Folder and files are the owner's alone, and names say nothing of the key.
func TestOwnerOnlyAndOpaqueNames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes do not carry access on Windows")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	s := open(t, dir, secret, nil)
	key := "https://store.example.com|client-abc|/v2/accounts|eq(name,Blue)"
	if err := s.Save(key, []byte("0f3c5e8a-record-id")); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v, %v; want 0700", info.Mode().Perm(), err)
	}
	entries := readDir(t, dir)
	if len(entries) != 1 {
		t.Fatalf("%d files, want 1", len(entries))
	}
	fi, err := entries[0].Info()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("entry mode %v, want 0600", fi.Mode().Perm())
	}
	body := readFile(t, filepath.Join(dir, entries[0].Name()))
	for _, plain := range []string{"store.example.com", "client-abc", "accounts", "Blue", "0f3c5e8a"} {
		if strings.Contains(entries[0].Name(), plain) || bytes.Contains(body, []byte(plain)) {
			t.Errorf("%q appears in the entry's name or body", plain)
		}
	}
}

// A folder others can write is refused, naming the fix; one they can only
// read (a plain mkdir, a folder a CI cache step restored) is used.
func TestFolderModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes do not carry access on Windows")
	}
	for mode, refused := range map[os.FileMode]bool{0o700: false, 0o750: false, 0o755: false, 0o770: true, 0o775: true, 0o757: true, 0o777: true} {
		dir := t.TempDir()
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir, secret, Options{})
		switch {
		case refused && (!errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), "chmod go-w")):
			t.Errorf("Open on a %04o folder: %v, want a refusal naming chmod go-w", mode, err)
		case !refused && err != nil:
			t.Errorf("Open on a %04o folder: %v, want it used", mode, err)
		}
	}
}

// A folder the provider cannot write in is found when it is opened, and
// is no security refusal.
func TestReadOnlyFolderIsUnusable(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs file modes that bind the current user")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	_, err := Open(dir, secret, Options{})
	if err == nil || errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), "cannot write in") {
		t.Fatalf("Open on a read-only folder: %v, want a failure to write", err)
	}
}

// Another secret finds nothing, and cannot open an entry written with the
// first secret even under the first secret's name.
func TestAnotherSecretCannotReadOrForge(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	a := open(t, dir, secret, nil)
	if err := a.Save("k", []byte("data")); err != nil {
		t.Fatal(err)
	}
	b := open(t, dir, "client-secret-2", nil)
	if _, _, err := b.Load("k"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another secret: %v, want ErrNotFound", err)
	}
	// Written by b under a's name for the key: a must refuse it.
	if err := b.Save("k", []byte("forged")); err != nil {
		t.Fatal(err)
	}
	forged := readFile(t, filepath.Join(dir, b.name("k")))
	if err := os.WriteFile(filepath.Join(dir, a.name("k")), forged, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Load("k"); !errors.Is(err, errUnreadable) {
		t.Fatalf("entry written with another secret: %v, want ErrUnreadable", err)
	}
}

// A truncated, changed or moved entry does not open.
func TestTamperedEntriesDoNotOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	s := open(t, dir, secret, nil)
	if err := s.Save("k", bytes.Repeat([]byte("x"), 1000)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, s.name("k"))
	good := readFile(t, path)
	for name, change := range map[string]func([]byte) []byte{
		"truncated":     func(b []byte) []byte { return b[:len(b)/2] },
		"empty":         func([]byte) []byte { return nil },
		"one bit":       func(b []byte) []byte { c := bytes.Clone(b); c[len(c)/2] ^= 1; return c },
		"nonce changed": func(b []byte) []byte { c := bytes.Clone(b); c[len(magic)] ^= 1; return c },
		"magic changed": func(b []byte) []byte { c := bytes.Clone(b); c[0] = 'X'; return c },
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, change(good), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Load("k"); !errors.Is(err, errUnreadable) {
				t.Fatalf("%v, want ErrUnreadable", err)
			}
		})
	}
	// Moved under another key's name: the name is authenticated.
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, filepath.Join(dir, s.name("k2"))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Load("k2"); !errors.Is(err, errUnreadable) {
		t.Fatalf("moved entry: %v, want ErrUnreadable", err)
	}
}

// Entries past the maximum age, or from the future, are not served; Open
// sweeps the old ones out.
func TestMaxAge(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	now := time.Now()
	clock := func() time.Time { return now }
	s := open(t, dir, secret, clock)
	if err := s.Save("k", []byte("d")); err != nil {
		t.Fatal(err)
	}
	now = now.Add(DefaultMaxAge - time.Minute)
	if _, _, err := s.Load("k"); err != nil {
		t.Fatalf("within the maximum age: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if _, _, err := s.Load("k"); !errors.Is(err, errExpired) {
		t.Fatalf("past the maximum age: %v, want ErrExpired", err)
	}
	now = now.Add(-DefaultMaxAge - time.Hour) // the clock went back
	if _, _, err := s.Load("k"); !errors.Is(err, errExpired) {
		t.Fatalf("written in the future: %v, want ErrExpired", err)
	}
	// Sweeping goes by the file's time.
	old := time.Now().Add(-DefaultMaxAge - time.Hour)
	if err := os.Chtimes(filepath.Join(dir, s.name("k")), old, old); err != nil {
		t.Fatal(err)
	}
	open(t, dir, secret, nil)
	if entries := readDir(t, dir); len(entries) != 0 {
		t.Fatalf("Open left %d old files", len(entries))
	}
}

// Two runs writing the same entry at once leave one whole entry.
func TestConcurrentWritersLeaveOneWholeEntry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	a := open(t, dir, secret, nil)
	b := open(t, dir, secret, nil)
	big := func(c byte) []byte { return bytes.Repeat([]byte{c}, 1<<20) }
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			if err := s.Save("k", big(byte('a'+i))); err != nil {
				t.Error(err)
			}
		}()
	}
	// Readers meanwhile see a whole entry or none.
	for range 20 {
		got, _, err := a.Load("k")
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatalf("read during writes: %v", err)
		}
		if err == nil && !bytes.Equal(got, big(got[0])) {
			t.Fatal("read a mixed entry")
		}
	}
	wg.Wait()
	got, _, err := a.Load("k")
	if err != nil || len(got) != 1<<20 || !bytes.Equal(got, big(got[0])) {
		t.Fatalf("final entry: %d bytes, %v", len(got), err)
	}
	if entries := readDir(t, dir); len(entries) != 1 {
		t.Fatalf("%d files left, want 1", len(entries))
	}
}
