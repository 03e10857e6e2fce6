//go:build (linux || darwin || freebsd) && !commerce_heapchunks

package liststate

import "syscall"

// newChunk is a chunk of a state's msgpack outside the Go heap: memory
// mapped anonymously from the operating system, which freeChunk hands
// back at once. A listing's state is then in the process's memory once,
// not twice (the chunks, and the response they are copied into) until the
// garbage collector gets round to them, and the collector neither scans
// it nor counts it towards its next goal. Where the system refuses, the
// chunk is an ordinary slice.
//
// Hand-written for the figure it holds: a million ids read with the
// provider in 122 MB (PERFORMANCE.md, "A million ids"). With ordinary
// slices (build with -tags commerce_heapchunks, which takes chunk_heap.go
// on every system) the same read of BenchmarkReadIDs peaked at 191 MiB of
// RSS against 126 MiB, 1.51 times, measured alternately three runs each:
// the live heap then outgrows the state, so the collection before the
// state is written (state.go) does not run either.
func newChunk() chunk {
	b, err := syscall.Mmap(-1, 0, chunkSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return chunk{b: make([]byte, 0, chunkSize)}
	}
	return chunk{b: b[:0], mapped: true}
}

// freeChunk gives a mapped chunk's memory back to the system; nothing may
// use it afterwards.
func freeChunk(c chunk) {
	if c.mapped {
		_ = syscall.Munmap(c.b[:cap(c.b)])
	}
}
