package liststate

import (
	"errors"
	"fmt"
	"math/big"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Collector writes each record's msgpack as the listing hands it over, so
// that neither the typed records nor any value tree outlive it: records in
// the order the listing hands them over, the late ones in front. Its
// chunks may be outside the Go heap (chunk_mmap.go): State gives them back
// as it copies them into the state, and Release, which the reader defers,
// gives back what is left when no state is made. The listing (which may
// be another read's, still going) and the reader may call it from two
// goroutines; a lock keeps the chunks from going while a record is
// written.
type Collector[T commerce.Record] struct {
	mu                   sync.Mutex
	enc                  Encoder[T]
	opts                 Options
	ids, records         chunkWriter
	lateIDs, lateRecords chunkWriter
	scratch              []byte
	jsonBytes            int // of the records written, their JSON's
	released             bool
}

// largeState is the size from which a state is written after the
// process's garbage is handed back to the system (State).
const largeState = 16 << 20

// liveHeap is the Go heap the last collection found in use.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// errReleased refuses a record after Release or State: the reader is gone.
var errReleased = errors.New("the read's state was already written or given up")

// Options say what a Collector keeps.
type Options struct {
	// IncludeJSON keeps each record's raw JSON in its json attribute;
	// IncludeRecords the records at all (else the ids alone).
	IncludeJSON, IncludeRecords bool
	// MaxBytes is the most state the read may give Terraform; past it, a
	// record is refused with a TooLargeError.
	MaxBytes int
	// MaxResults is how many records the state keeps, late ones first (0:
	// all of them).
	MaxResults int
}

// NewCollector collects the state of records encoded by enc.
func NewCollector[T commerce.Record](enc Encoder[T], opts Options) *Collector[T] {
	c := &Collector[T]{enc: enc, opts: opts}
	for _, w := range []*chunkWriter{&c.ids, &c.records, &c.lateIDs, &c.lateRecords} {
		w.keepEnds = opts.MaxResults
	}
	return c
}

// Add writes a record in result order.
func (c *Collector[T]) Add(rec T) error { return c.add(&c.ids, &c.records, rec) }

// AddLate writes a record that moved ahead of the others while the
// listing ran (listing.Reader.Late).
func (c *Collector[T]) AddLate(rec T) error { return c.add(&c.lateIDs, &c.lateRecords, rec) }

func (c *Collector[T]) add(ids, records *chunkWriter, rec T) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return errReleased
	}
	c.write(ids, records, rec)
	return c.fits()
}

// Release gives back the memory of whatever State has not made into a
// state; the Collector takes no record afterwards. Safe to call more than
// once, and after State.
func (c *Collector[T]) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.released = true
	for _, w := range []*chunkWriter{&c.ids, &c.records, &c.lateIDs, &c.lateRecords} {
		w.free()
	}
}

// TooLargeError stops a listing whose state has passed Options.MaxBytes:
// no further record can make it fit.
type TooLargeError struct {
	Listed    int // records written to the state so far
	Bytes     int // the state's size so far
	IDBytes   int // of which the ids list
	JSONBytes int // of which the records' JSON (include_json)
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the state passed %.1f MiB after %d records", float64(e.Bytes)/(1<<20), e.Listed)
}

// fits fails, and so ends the listing, once the state has passed what
// Terraform can take: from then on no record can make it fit.
func (c *Collector[T]) fits() error {
	ids := c.ids.n + c.lateIDs.n
	if size := ids + c.records.n + c.lateRecords.n; size > c.opts.MaxBytes {
		return &TooLargeError{Listed: c.ids.items + c.lateIDs.items, Bytes: size, IDBytes: ids, JSONBytes: c.jsonBytes}
	}
	return nil
}

func (c *Collector[T]) write(ids, records *chunkWriter, rec T) {
	c.scratch = appendString(c.scratch[:0], rec.RecordID())
	ids.add(c.scratch)
	if c.opts.IncludeRecords {
		c.scratch = c.enc.appendRecord(c.scratch[:0], rec, c.opts.IncludeJSON)
		records.add(c.scratch)
		if c.opts.IncludeJSON {
			c.jsonBytes += len(rec.Base().JSON)
		}
	}
}

// State is the data source's msgpack state: config with ids, total and
// the records (in the attribute records) filled in, at most MaxResults of
// them; total is null unless known. It gives the chunks back as it copies
// them, and can be made once.
func (c *Collector[T]) State(config tftypes.Value, records string, total int, known bool) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return nil, errReleased
	}
	if size := c.ids.n + c.records.n + c.lateIDs.n + c.lateRecords.n; size >= largeState && liveHeap() <= uint64(size) {
		// The listing is over: what it left behind (decoded pages, the
		// set of ids it handed out) goes back to the system before the
		// state and the response's copy of it take their room. The
		// collection costs in proportion to the live heap, which after a
		// full read is small next to the state (the records went into
		// the chunks as they came); after a refresh from the cache, which
		// decoded the snapshot whole, it is not, and the garbage stays.
		debug.FreeOSMemory()
	}
	totalValue := tftypes.NewValue(tftypes.Number, nil)
	if known {
		totalValue = tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(int64(total)))
	}
	state, err := encodeState(config, map[string]encodedList{
		"ids":   {late: &c.lateIDs, main: &c.ids, limit: c.opts.MaxResults},
		records: {late: &c.lateRecords, main: &c.records, limit: c.opts.MaxResults, null: !c.opts.IncludeRecords},
	}, map[string]tftypes.Value{
		"total": totalValue,
	})
	if err == nil {
		c.released = true
	}
	return state, err
}
