package liststate

import (
	"fmt"
	"math/big"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Collector writes each record's msgpack as the listing hands it over, so
// that neither the typed records nor any value tree outlive it: records in
// the order the listing hands them over, the late ones in front.
type Collector[T commerce.Record] struct {
	enc                  Encoder[T]
	opts                 Options
	ids, records         chunkWriter
	lateIDs, lateRecords chunkWriter
	scratch              []byte
	jsonBytes            int // of the records written, their JSON's
}

// Options say what a Collector keeps.
type Options struct {
	// IncludeJSON keeps each record's raw JSON in its json attribute;
	// IncludeRecords the records at all (else the ids alone).
	IncludeJSON, IncludeRecords bool
	// MaxBytes is the most state the read may give Terraform; past it, a
	// record is refused with a TooLargeError.
	MaxBytes int
}

// NewCollector collects the state of records encoded by enc.
func NewCollector[T commerce.Record](enc Encoder[T], opts Options) *Collector[T] {
	return &Collector[T]{enc: enc, opts: opts}
}

// Add writes a record in result order.
func (c *Collector[T]) Add(rec T) error {
	c.write(&c.ids, &c.records, rec)
	return c.fits()
}

// AddLate writes a record that moved ahead of the others while the
// listing ran (listing.Reader.Late).
func (c *Collector[T]) AddLate(rec T) error {
	c.write(&c.lateIDs, &c.lateRecords, rec)
	return c.fits()
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
		return &TooLargeError{Listed: c.ids.items() + c.lateIDs.items(), Bytes: size, IDBytes: ids, JSONBytes: c.jsonBytes}
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
// the records (in the attribute records) filled in, at most maxResults of
// them (0: no limit).
func (c *Collector[T]) State(config tftypes.Value, records string, total, maxResults int) ([]byte, error) {
	return encodeState(config, map[string]encodedList{
		"ids":   {late: &c.lateIDs, main: &c.ids, limit: maxResults},
		records: {late: &c.lateRecords, main: &c.records, limit: maxResults, null: !c.opts.IncludeRecords},
	}, map[string]tftypes.Value{
		"total": tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(int64(total))),
	})
}
