//go:build !(linux || darwin || freebsd) || commerce_heapchunks

package liststate

// No memory maps on this system (or with -tags commerce_heapchunks, to
// compare): newChunk (state.go) makes every chunk an ordinary slice, which
// the garbage collector reclaims.
var (
	mmap   func(fd int, offset int64, length, prot, flags int) ([]byte, error)
	munmap func([]byte) error
)

const (
	mmapProt  = 0
	mmapFlags = 0
)
