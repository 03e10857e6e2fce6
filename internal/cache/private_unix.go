//go:build unix

package cache

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a folder that is not the current user's alone.
func checkPrivate(dir string) error {
	info, err := statFolder(dir)
	if err != nil {
		return err
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user (uid %d): use a folder of your own", dir, st.Uid)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s can be read or written by other users (mode %04o): run chmod 700 on it, or use a folder of your own", dir, perm)
	}
	return nil
}
