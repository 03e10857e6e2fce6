package cache

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// evict removes the entries used least recently (by their files' times)
// until the folder's entries fit the bound, sparing keep, the entry just
// written. Runs that share the folder may evict at once: each removes
// only what its own look at the folder finds over the bound, and an entry
// another run removed first counts as removed, so when the last of them
// is done the folder fits. Temporary files of writes in progress are not
// counted; they are entries a moment later, and the next write counts
// them.
func (s *Store) evict(keep string) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	type entry struct {
		name string
		size int64
		used time.Time
	}
	var others []entry
	var total int64
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since the listing
		}
		total += info.Size()
		if e.Name() != keep {
			others = append(others, entry{e.Name(), info.Size(), info.ModTime()})
		}
	}
	slices.SortFunc(others, func(a, b entry) int {
		return cmp.Or(a.used.Compare(b.used), strings.Compare(a.name, b.name))
	})
	for _, e := range others {
		if total <= s.maxBytes {
			return nil
		}
		err := os.Remove(filepath.Join(s.dir, e.name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the folder holds %s, over its bound of %s, and an old entry cannot be removed: %w", mib(total), mib(s.maxBytes), err)
		}
		total -= e.size
	}
	return nil
}

// checkWritable fails unless a file can be created in dir: a read-only
// folder, or a full or read-only file system, is found when the folder is
// opened rather than by every save.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, tmpPrefix+"probe-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}
