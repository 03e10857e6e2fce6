//go:build unix

package cache

import (
	"fmt"
	"os"
	"syscall"
)

// checkSafe refuses a folder that belongs to another user or that
// others can write; one they can only read is fine (see Open).
func checkSafe(dir string) error {
	info, err := statFolder(dir)
	if err != nil {
		return err
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user (uid %d): use a folder of your own", dir, st.Uid)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s can be written by other users (mode %04o): run chmod go-w on it, or use a folder of your own", dir, perm)
	}
	return nil
}
