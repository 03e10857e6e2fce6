package refresh

import (
	"slices"
	"testing"
	"time"
)

func TestSnapshotRoundTrip(t *testing.T) {
	s := &Snapshot{Records: [][]byte{[]byte(`{"id":"a"}`), nil, []byte(`{}`)}, HighWater: "2026-01-02T03:04:05.678Z", CreatedBefore: "x", Took: 3 * time.Second}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Snapshot
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if got.HighWater != s.HighWater || got.CreatedBefore != s.CreatedBefore || got.Took != s.Took || len(got.Records) != 3 || string(got.Records[0]) != `{"id":"a"}` || len(got.Records[1]) != 0 {
		t.Fatalf("round trip: %+v", got)
	}
	for _, bad := range [][]byte{nil, {2}, b[:len(b)-1], append(slices.Clone(b), 0)} {
		if err := new(Snapshot).UnmarshalBinary(bad); err == nil {
			t.Errorf("%d bytes decoded", len(bad))
		}
	}
}
