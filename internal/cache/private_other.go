//go:build !unix

package cache

import (
	"fmt"
	"os"
)

// checkPrivate checks that dir is a folder. Elsewhere than on Unix, file
// modes do not say who may read a folder (Windows keeps that in access
// control lists, which a user's profile folder sets to the user alone):
// the entries' encryption is what protects them.
func checkPrivate(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}
