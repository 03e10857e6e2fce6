//go:build (linux || darwin || freebsd) && !commerce_heapchunks

package liststate

import "syscall"

// The system's anonymous memory maps, which newChunk (state.go) puts a
// state's chunks in, outside the Go heap.
var (
	mmap   = syscall.Mmap
	munmap = syscall.Munmap
)

const (
	mmapProt  = syscall.PROT_READ | syscall.PROT_WRITE
	mmapFlags = syscall.MAP_ANON | syscall.MAP_PRIVATE
)
