package refresh

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// Snapshot is what is kept of a listing so that a later listing of the
// same query can ask the service only what changed since (Run).
// internal/reads keeps it, as bytes it marshals to, in the cache.
type Snapshot struct {
	// Records are the records' JSON as the service sent them.
	Records [][]byte
	// HighWater is the newest updated_at among the records, normalised
	// as filters take it: the service's own clock, never the machine's.
	HighWater string
	// CreatedBefore is the query's created_at cut, normalised; empty for
	// none.
	CreatedBefore string
	// Took is how long the listing ran: an update made while it ran may
	// carry an updated_at up to that much older than HighWater.
	Took time.Duration
}

const snapshotVersion = 1

// MarshalBinary encodes s: a version byte, the high-water mark, the cut,
// the duration, then each record's JSON, each with its length.
func (s *Snapshot) MarshalBinary() ([]byte, error) {
	size := 32 + len(s.HighWater) + len(s.CreatedBefore)
	for _, r := range s.Records {
		size += len(r) + binary.MaxVarintLen32
	}
	b := make([]byte, 0, size)
	b = append(b, snapshotVersion)
	b = appendBytes(b, []byte(s.HighWater))
	b = appendBytes(b, []byte(s.CreatedBefore))
	b = binary.AppendVarint(b, int64(s.Took))
	b = binary.AppendUvarint(b, uint64(len(s.Records)))
	for _, r := range s.Records {
		b = appendBytes(b, r)
	}
	return b, nil
}

func appendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

var errSnapshotFormat = errors.New("not a snapshot of this provider version")

// UnmarshalBinary decodes what MarshalBinary wrote. The records' JSON
// shares data's memory.
func (s *Snapshot) UnmarshalBinary(data []byte) error {
	if len(data) == 0 || data[0] != snapshotVersion {
		return errSnapshotFormat
	}
	d := decoder{b: data[1:]}
	s.HighWater = string(d.bytes())
	s.CreatedBefore = string(d.bytes())
	took, n := binary.Varint(d.b)
	if n <= 0 {
		return errSnapshotFormat
	}
	d.b = d.b[n:]
	s.Took = time.Duration(took)
	count := d.uvarint()
	if d.err != nil || count > uint64(len(d.b)) {
		return errSnapshotFormat
	}
	s.Records = make([][]byte, count)
	for i := range s.Records {
		s.Records[i] = d.bytes()
	}
	if d.err != nil || len(d.b) != 0 {
		return errSnapshotFormat
	}
	return nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errSnapshotFormat
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errSnapshotFormat
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// Recorder collects the snapshot of a listing as its records go by.
type Recorder struct {
	snap Snapshot
	mark mark
}

// Add keeps rec's JSON and moves the high-water mark.
func (s *Recorder) Add(rec commerce.Record) {
	if s.mark.unusable == "" && rec.Base().JSON == "" {
		s.mark.unusable = fmt.Sprintf("record %s has no JSON to keep", rec.RecordID())
	}
	if s.mark.add(rec) {
		s.snap.Records = append(s.snap.Records, []byte(rec.Base().JSON))
	}
}

// mark follows the high-water mark of a listing's records: the
// Recorder's as they go by, SnapshotOf's for records kept in memory.
type mark struct {
	highWater string
	// unusable says why no snapshot can be kept (a record without
	// updated_at); the listing goes on regardless.
	unusable string
}

// add moves the mark to rec's updated_at; false once a record lacked what
// a refresh needs.
func (m *mark) add(rec commerce.Record) bool {
	if m.unusable != "" {
		return false
	}
	updated, ok := rec.SortValue("updated_at")
	if !ok || updated == "" {
		m.unusable = fmt.Sprintf("record %s has no updated_at to refresh it by", rec.RecordID())
		return false
	}
	key, err := timestampKey(updated)
	if err != nil {
		m.unusable = fmt.Sprintf("record %s: %v", rec.RecordID(), err)
		return false
	}
	m.highWater = max(m.highWater, key)
	return true
}

// SnapshotOf is the snapshot of a listing whose records a process kept in
// memory (Request.Known takes them), without their bytes: its mark, its
// cut createdBefore (normalised; empty for none) and took; or nil and why,
// when a record lacked what a refresh needs.
func SnapshotOf[T commerce.Record](records []T, createdBefore string, took time.Duration) (*Snapshot, string) {
	var m mark
	for _, rec := range records {
		if !m.add(rec) {
			break
		}
	}
	return m.finish(createdBefore, took)
}

// finish is the snapshot of a listing that took took, cut at
// createdBefore (normalised; empty for none), without its records; or nil
// and why, when a record lacked what a refresh needs.
func (m *mark) finish(createdBefore string, took time.Duration) (*Snapshot, string) {
	if m.unusable != "" {
		return nil, m.unusable
	}
	return &Snapshot{HighWater: m.highWater, CreatedBefore: createdBefore, Took: took}, ""
}

// Finish is the snapshot of a listing that took took, cut at
// createdBefore (normalised; empty for none); or nil and why, when a
// record lacked what a refresh needs.
func (s *Recorder) Finish(createdBefore string, took time.Duration) (*Snapshot, string) {
	snap, why := s.mark.finish(createdBefore, took)
	if snap != nil {
		snap.Records = s.snap.Records
	}
	return snap, why
}

// timestampKey is an ISO 8601 timestamp as filters take it, to the
// millisecond, as the listing engine compares them.
func timestampKey(v string) (string, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return "", fmt.Errorf("%q is not an ISO 8601 timestamp", v)
	}
	return t.UTC().Truncate(time.Millisecond).Format(filter.TimestampLayout), nil
}
