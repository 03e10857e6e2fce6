//go:build !(linux || darwin || freebsd) || commerce_heapchunks

package liststate

// newChunk is a chunk of a state's msgpack: on this system (or with
// -tags commerce_heapchunks, to compare), an ordinary slice, which the
// garbage collector reclaims (chunk_mmap.go says what the others do
// instead, and what it holds).
func newChunk() chunk { return chunk{b: make([]byte, 0, chunkSize)} }

// freeChunk leaves the chunk to the garbage collector.
func freeChunk(chunk) {}
