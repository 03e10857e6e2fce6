package liststate

import (
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// chunkSize is the unit a chunkWriter grows by: large enough that the
// chunk list stays short, small enough that the last chunk's slack does not
// matter.
const chunkSize = 1 << 20

// chunk is one chunk of a chunkWriter; mapped says it is outside the Go
// heap, and must be freed (chunk_mmap.go).
type chunk struct {
	b      []byte
	mapped bool
}

// chunkWriter collects msgpack in fixed-size chunks, so that growing it
// never copies what it holds (a doubling buffer would hold up to three
// times the state at its peak), and remembers where each of the first
// keepEnds items ends, so that a list can be cut after any of them
// (max_results; none when keepEnds is 0).
type chunkWriter struct {
	chunks   []chunk
	n        int
	items    int
	ends     []int // the offset after each of the first keepEnds items
	keepEnds int
}

// add appends one list item's msgpack.
func (w *chunkWriter) add(item []byte) {
	for len(item) > 0 {
		if len(w.chunks) == 0 || len(w.chunks[len(w.chunks)-1].b) == chunkSize {
			w.chunks = append(w.chunks, newChunk())
		}
		last := &w.chunks[len(w.chunks)-1].b
		k := copy((*last)[len(*last):cap(*last)], item)
		*last = (*last)[:len(*last)+k]
		item = item[k:]
		w.n += k
	}
	w.items++
	if len(w.ends) < w.keepEnds {
		w.ends = append(w.ends, w.n)
	}
}

// sizeOf is the byte length of the first k items: all of them, or as many
// as keepEnds.
func (w *chunkWriter) sizeOf(k int) int {
	switch k {
	case w.items:
		return w.n
	case 0:
		return 0
	}
	return w.ends[k-1]
}

// appendItems appends the msgpack of the first k items to dst, and frees
// every chunk: the writer is done.
func (w *chunkWriter) appendItems(dst []byte, k int) []byte {
	rest := w.sizeOf(k)
	for i, c := range w.chunks {
		b := c.b[:min(len(c.b), rest)]
		dst = append(dst, b...)
		rest -= len(b)
		// Each chunk goes as soon as it is copied: the state is in memory
		// about once while it moves into dst.
		freeChunk(c)
		w.chunks[i] = chunk{}
	}
	w.chunks = nil
	return dst
}

// free gives every chunk back; the writer holds nothing afterwards.
func (w *chunkWriter) free() {
	for _, c := range w.chunks {
		freeChunk(c)
	}
	w.chunks = nil
}

// encodedList is one list attribute of the state, written as it was
// listed: the late items first (see listing.Reader.Late), then the others,
// at most limit in all (0: no limit). null makes it a null list.
type encodedList struct {
	late, main *chunkWriter
	limit      int
	null       bool
}

// counts are how many late and main items the list keeps.
func (l encodedList) counts() (late, main int) {
	late, main = l.late.items, l.main.items
	if l.limit > 0 && late+main > l.limit {
		late = min(late, l.limit)
		main = l.limit - late
	}
	return late, main
}

func (l encodedList) size() int {
	if l.null {
		return 1
	}
	late, main := l.counts()
	return 5 + l.late.sizeOf(late) + l.main.sizeOf(main) // 5: the largest array header
}

func (l encodedList) appendTo(dst []byte) []byte {
	if l.null {
		return append(dst, msgpackNil)
	}
	late, main := l.counts()
	dst = appendArrayLen(dst, late+main)
	dst = l.late.appendItems(dst, late)
	return l.main.appendItems(dst, main)
}

// encodeState is the msgpack of a list data source's state: the
// configuration's values, with the computed attributes given as encoded
// lists (ids, the records) or values (total) in their place. Allocates the
// state once, at its exact size.
func encodeState(config tftypes.Value, lists map[string]encodedList, values map[string]tftypes.Value) ([]byte, error) {
	typ, ok := config.Type().(tftypes.Object)
	if !ok {
		return nil, fmt.Errorf("configuration of type %s, not an object", config.Type())
	}
	var configured map[string]tftypes.Value
	if err := config.As(&configured); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(typ.AttributeTypes))
	for name := range typ.AttributeTypes {
		names = append(names, name)
	}
	sort.Strings(names)
	// Everything but the lists is small: encode it on its own, then splice.
	small := make(map[string][]byte, len(names))
	size := 5
	for _, name := range names {
		size += 5 + len(name)
		if l, ok := lists[name]; ok {
			size += l.size()
			continue
		}
		v, ok := values[name]
		if !ok {
			v = configured[name]
		}
		dv, err := tfprotov6.NewDynamicValue(typ.AttributeTypes[name], v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		small[name] = dv.MsgPack
		size += len(dv.MsgPack)
	}
	out := make([]byte, 0, size)
	out = appendMapLen(out, len(names))
	for _, name := range names {
		out = appendString(out, name)
		if l, ok := lists[name]; ok {
			out = l.appendTo(out)
		} else {
			out = append(out, small[name]...)
		}
	}
	return out, nil
}
