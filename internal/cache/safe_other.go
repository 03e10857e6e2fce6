//go:build !unix

package cache

// checkSafe checks that dir is a folder. Elsewhere than on Unix, file
// modes do not say who may read a folder (Windows keeps that in access
// control lists, which a user's profile folder sets to the user alone):
// the entries' encryption is what protects them.
func checkSafe(dir string) error {
	_, err := statFolder(dir)
	return err
}
