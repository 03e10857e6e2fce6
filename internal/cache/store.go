// Package cache keeps the provider's list results between runs, on disk,
// encrypted and authenticated: a folder of entries, each the result of one
// query on one store, that only a holder of the store's client secret can
// read or forge.
//
// It knows files and cryptography, and nothing of HTTP, records or
// Terraform: an entry is a key (a string the caller builds from the store
// and the query) and opaque bytes.
//
// On disk, an entry is one file, named by an HMAC of its key (so that the
// name reveals neither the store nor the query), holding
//
//	magic "CPCE1" | 12-byte random nonce | AES-256-GCM(plaintext)
//
// with the file's name as additional data, so that an entry moved under
// another name does not open. The plaintext is the time it was written,
// the key (checked on reading), and the caller's bytes. Both keys come
// from the client secret through HKDF-SHA256: a secret that changed finds
// no entry, and could open none.
//
// Files are written to a temporary name in the folder, synced, then
// renamed over the entry: a reader sees the old entry or the new one,
// never part of one, and two runs that write the same entry leave one of
// them whole. A new folder is the owner's alone (0700), and so are the
// files (0600); a folder others can only read (0755, as a plain mkdir or a
// CI cache step leaves it) is used, since its names and bodies reveal
// nothing, and one others can write is refused.
//
// The folder is bounded (Options.MaxBytes): after each write, the entries
// used least recently go until the rest fit. An entry's file time is when
// it was last written or read, so the sweep of entries older than the
// maximum age removes only entries no run has touched for that long (an
// entry's own write time, inside it, decides whether it is served).
package cache

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultMaxAge is how long an entry serves: older ones are read in full
// (and swept from the folder), so that whatever a refresh cannot see (a
// store that changed a record without changing its updated_at) lasts at
// most a day.
const DefaultMaxAge = 24 * time.Hour

// DefaultMaxBytes bounds a folder's entries together: 1 GiB holds the
// snapshots of a few lists of a million orders, or thousands of small
// ones.
const DefaultMaxBytes = 1 << 30

const (
	magic     = "CPCE1"
	suffix    = ".entry"
	tmpPrefix = ".tmp-"
	// salt separates these keys from any other use of the secret.
	salt = "terraform-provider-commerce cache v1"
)

// Why an entry was not served: the caller reads the store in full.
var (
	ErrNotFound = errors.New("no entry for this query")
	// ErrTooLarge: Save refused an entry larger than the folder's bound.
	ErrTooLarge = errors.New("the entry is larger than the cache's size bound")
	// ErrInsecure: Open refused a folder that other users can write or
	// that belongs to another user; any other error of Open is a folder
	// that cannot be used (missing rights, a file in its place, a
	// read-only file system).
	ErrInsecure = errors.New("the cache folder is not safe to use")
	errExpired  = errors.New("the entry is older than the maximum age")
	// errUnreadable: the entry does not open with this secret's key: it
	// was written with another client secret, or it was truncated or
	// changed on disk.
	errUnreadable = errors.New("the entry does not decrypt with this client secret's key (another secret wrote it, or it was truncated or changed)")
)

// Store is a cache folder opened with one client secret's keys. It is safe
// for concurrent use, also by several processes.
type Store struct {
	dir      string
	aead     cipher.AEAD
	nameKey  []byte
	maxAge   time.Duration
	maxBytes int64
	now      func() time.Time
}

// Options tune a Store; zero values take the defaults.
type Options struct {
	MaxAge   time.Duration    // DefaultMaxAge
	MaxBytes int64            // DefaultMaxBytes
	Now      func() time.Time // time.Now
}

// Open opens the cache folder dir (creating it, owner-only, if missing)
// with keys derived from secret, checks that it can write there, and
// sweeps out entries older than the maximum age. A folder that others can
// write is refused (ErrInsecure): they could delete entries at will, or
// put a link in an entry's place. One they can only read is used: the
// entries are encrypted and their names opaque.
func Open(dir, secret string, opts Options) (*Store, error) {
	if secret == "" {
		return nil, errors.New("no client secret to derive the cache key from")
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := checkSafe(dir); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInsecure, err)
	}
	if err := checkWritable(dir); err != nil {
		return nil, err
	}
	encKey, err := hkdf.Key(sha256.New, []byte(secret), []byte(salt), "entry encryption", 32)
	if err != nil {
		return nil, err
	}
	nameKey, err := hkdf.Key(sha256.New, []byte(secret), []byte(salt), "entry names", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(encKey)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, aead: aead, nameKey: nameKey, maxAge: opts.MaxAge, maxBytes: opts.MaxBytes, now: opts.Now}
	s.sweep()
	return s, nil
}

// name is the file name of key's entry.
func (s *Store) name(key string) string {
	m := hmac.New(sha256.New, s.nameKey)
	m.Write([]byte(key))
	return hex.EncodeToString(m.Sum(nil)[:20]) + suffix
}

// Load returns key's entry and when it was written, or ErrNotFound,
// ErrExpired or ErrUnreadable.
func (s *Store) Load(key string) ([]byte, time.Time, error) {
	name := s.name(key)
	file, err := os.ReadFile(filepath.Join(s.dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, time.Time{}, ErrNotFound
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	plain, err := s.open(name, file)
	if err != nil {
		return nil, time.Time{}, err
	}
	// written (8 bytes, Unix ms) | key length (4) | key | data
	if len(plain) < 12 {
		return nil, time.Time{}, errUnreadable
	}
	written := time.UnixMilli(int64(binary.BigEndian.Uint64(plain)))
	n := int(binary.BigEndian.Uint32(plain[8:]))
	if n > len(plain)-12 || string(plain[12:12+n]) != key {
		return nil, time.Time{}, errUnreadable
	}
	// An entry from the future (a clock set back since) is as doubtful as
	// an old one.
	if age := s.now().Sub(written); age > s.maxAge || age < -time.Minute {
		return nil, written, errExpired
	}
	// Used now: the bound removes it after the entries used less recently.
	now := s.now()
	_ = os.Chtimes(filepath.Join(s.dir, name), now, now)
	return plain[12+n:], written, nil
}

func (s *Store) open(name string, file []byte) ([]byte, error) {
	ns := s.aead.NonceSize()
	if len(file) < len(magic)+ns || !bytes.HasPrefix(file, []byte(magic)) {
		return nil, errUnreadable
	}
	nonce := file[len(magic) : len(magic)+ns]
	plain, err := s.aead.Open(nil, nonce, file[len(magic)+ns:], []byte(name))
	if err != nil {
		return nil, errUnreadable
	}
	return plain, nil
}

// Save writes data as key's entry, replacing any, atomically, then
// removes the entries used least recently until the folder fits its
// bound. An entry that alone exceeds the bound is not written
// (ErrTooLarge), and any earlier entry for key is removed, being stale.
func (s *Store) Save(key string, data []byte) error {
	name := s.name(key)
	if size := int64(len(magic) + s.aead.NonceSize() + 12 + len(key) + len(data) + s.aead.Overhead()); size > s.maxBytes {
		_ = s.Remove(key)
		return fmt.Errorf("%w: %s against %s", ErrTooLarge, mib(size), mib(s.maxBytes))
	}
	plain := make([]byte, 12, 12+len(key)+len(data))
	binary.BigEndian.PutUint64(plain, uint64(s.now().UnixMilli()))
	binary.BigEndian.PutUint32(plain[8:], uint32(len(key)))
	plain = append(append(plain, key...), data...)

	ns := s.aead.NonceSize()
	file := make([]byte, len(magic)+ns, len(magic)+ns+len(plain)+s.aead.Overhead())
	copy(file, magic)
	if _, err := rand.Read(file[len(magic):]); err != nil {
		return err
	}
	file = s.aead.Seal(file, file[len(magic):len(magic)+ns], plain, []byte(name))
	clear(plain)
	if err := writeAtomic(s.dir, name, file); err != nil {
		return err
	}
	return s.evict(name)
}

// mib words a size in MiB for messages.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// Remove deletes key's entry, if any.
func (s *Store) Remove(key string) error {
	err := os.Remove(filepath.Join(s.dir, s.name(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// writeAtomic writes data to dir/name through a temporary file in dir.
func writeAtomic(dir, name string, data []byte) (err error) {
	tmp, err := os.CreateTemp(dir, tmpPrefix+"*") // 0600
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// sweep removes entries past the maximum age, by their files' times, and
// temporary files a crashed run left behind. Best effort: a file another
// run removes first is no error.
func (s *Store) sweep() {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	now := s.now()
	for _, e := range entries {
		name := e.Name()
		ours := strings.HasSuffix(name, suffix) || strings.HasPrefix(name, tmpPrefix)
		if e.IsDir() || !ours {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		limit := s.maxAge
		if strings.HasPrefix(name, tmpPrefix) {
			limit = time.Hour // no write takes that long
		}
		if now.Sub(info.ModTime()) > limit {
			_ = os.Remove(filepath.Join(s.dir, name))
		}
	}
}

// statFolder is dir's file info, or an error when it is not a folder.
func statFolder(dir string) (fs.FileInfo, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	return info, nil
}

// String describes the store for logs: its folder, never a key.
func (s *Store) String() string { return fmt.Sprintf("cache folder %s", s.dir) }
