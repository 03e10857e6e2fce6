//go:build !(linux || darwin || freebsd)

package liststate

// newChunk is a chunk of a state's msgpack: on this system, an ordinary
// slice, which the garbage collector reclaims (chunk_mmap.go says what the
// others do instead).
func newChunk() chunk { return chunk{b: make([]byte, 0, chunkSize)} }

// freeChunk leaves the chunk to the garbage collector.
func freeChunk(chunk) {}
