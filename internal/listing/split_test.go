package listing

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

func sizedFiles(sizes ...int64) []commerce.File {
	out := make([]commerce.File, len(sizes))
	for i, s := range sizes {
		out[i] = commerce.File{Common: commerce.Common{ID: fmt.Sprintf("f%05d", i)}, FileSize: &s}
	}
	return out
}

func ptr64(v int64) *int64 { return &v }

// checkPartition asserts that subs cut sp into contiguous, non-empty,
// half-open spans in ascending order.
func checkPartition(t *testing.T, sp rangeSpan, subs []rangeSpan) {
	t.Helper()
	if len(subs) < 2 {
		t.Fatalf("split %s into %d spans, want at least 2", sp.rangeText(), len(subs))
	}
	if (subs[0].lo == nil) != (sp.lo == nil) || (sp.lo != nil && *subs[0].lo != *sp.lo) {
		t.Errorf("first span %s does not start where %s does", subs[0].rangeText(), sp.rangeText())
	}
	last := subs[len(subs)-1]
	if (last.hi == nil) != (sp.hi == nil) || (sp.hi != nil && *last.hi != *sp.hi) {
		t.Errorf("last span %s does not end where %s does", last.rangeText(), sp.rangeText())
	}
	for i, s := range subs {
		if s.lo != nil && s.hi != nil && *s.hi <= *s.lo {
			t.Errorf("span %d %s is empty", i, s.rangeText())
		}
		if i > 0 && (subs[i-1].hi == nil || s.lo == nil || *subs[i-1].hi != *s.lo) {
			t.Errorf("spans %d %s and %d %s are not contiguous", i-1, subs[i-1].rangeText(), i, s.rangeText())
		}
	}
}

func TestSplitSpans(t *testing.T) {
	r := &windowReader[commerce.File]{kind: commerce.Files}
	spread := make([]int64, 100)
	for i := range spread {
		spread[i] = int64(1000 + 37*i)
	}
	heavy := make([]int64, 100)
	for i := range heavy {
		heavy[i] = int64(5000 + i)
		if i%10 != 0 {
			heavy[i] = 7777 // 90 % of the sample on one value
		}
	}
	same := make([]int64, 100)
	for i := range same {
		same[i] = 4096
	}
	cases := []struct {
		name  string
		sp    rangeSpan
		total int
		sizes []int64
		// isolated, if set, is a value that must get a span of its own.
		isolated *int64
	}{
		{"unbounded, spread", rangeSpan{}, 25000, spread, nil},
		{"bounded, spread", rangeSpan{lo: ptr64(1000), hi: ptr64(5000)}, 12000, spread, nil},
		{"heavy value", rangeSpan{}, 30000, heavy, ptr64(7777)},
		{"one value sampled, unbounded", rangeSpan{}, 15000, same, ptr64(4096)},
		{"one value sampled, at the lower end", rangeSpan{lo: ptr64(4096), hi: ptr64(9000)}, 15000, same, ptr64(4096)},
		{"one value sampled, at the upper end", rangeSpan{lo: ptr64(10), hi: ptr64(4097)}, 15000, same, ptr64(4096)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			subs, err := r.splitSpan(filter.Parsed{}, tc.sp, commerce.Page[commerce.File]{Records: sizedFiles(tc.sizes...), Count: commerce.Count{N: tc.total}}, tc.total, "file_size", 7000)
			if err != nil {
				t.Fatal(err)
			}
			checkPartition(t, tc.sp, subs)
			if want := tc.total / 7000; tc.isolated == nil && len(subs) < want {
				t.Errorf("%d spans for %d records; want at least %d to fit under the offset limit", len(subs), tc.total, want)
			}
			if v := tc.isolated; v != nil {
				found := false
				for _, s := range subs {
					found = found || (s.single() && *s.lo == *v)
				}
				if !found {
					t.Errorf("value %d has no span of its own in %v", *v, subs)
				}
			}
		})
	}
}

func TestSplitSingleValueIsATieError(t *testing.T) {
	r := &windowReader[commerce.File]{kind: commerce.Files}
	same := make([]int64, 100)
	for i := range same {
		same[i] = 4096
	}
	_, err := r.splitSpan(mustFilter("like(file_name,*.png)"), rangeSpan{lo: ptr64(4096), hi: ptr64(4097)}, commerce.Page[commerce.File]{Records: sizedFiles(same...), Count: commerce.Count{N: 10001}}, 10001, "file_size", 7000)
	var ue *UnlistableError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v, want an UnlistableError", err)
	}
	for _, want := range []string{"10001 files", "file_size = 4096", "like(file_name,*.png)", "10000"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestSplitRejectsUnusableSamples(t *testing.T) {
	r := &windowReader[commerce.File]{kind: commerce.Files}
	if _, err := r.splitSpan(filter.Parsed{}, rangeSpan{}, commerce.Page[commerce.File]{Count: commerce.Count{N: 20000}}, 20000, "file_size", 7000); err == nil {
		t.Error("an empty first page with a total of 20,000 was accepted")
	}
	noSize := []commerce.File{{Common: commerce.Common{ID: "a"}}}
	var pe *commerce.ProtocolError
	if _, err := r.splitSpan(filter.Parsed{}, rangeSpan{}, commerce.Page[commerce.File]{Records: noSize, Count: commerce.Count{N: 20000}}, 20000, "file_size", 7000); !errors.As(err, &pe) {
		t.Errorf("a record without file_size: got %v, want a ProtocolError", err)
	}
}

func TestSortRecords(t *testing.T) {
	recs := []commerce.File{
		{Common: commerce.Common{ID: "c", CreatedAt: "2024-01-01T00:00:00.5Z"}, FileSize: ptr64(30)},
		{Common: commerce.Common{ID: "a", CreatedAt: "2024-01-01T00:00:00.500Z"}, FileSize: ptr64(10)},
		{Common: commerce.Common{ID: "b", CreatedAt: "2023-12-31T23:59:59Z"}},
		{Common: commerce.Common{ID: "d"}, FileSize: ptr64(10)},
	}
	ids := func() string {
		var out []string
		for _, r := range recs {
			out = append(out, r.ID)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct{ sort, want string }{
		// Equal to the millisecond: by id. Without a value: last.
		{"created_at", "b,a,c,d"},
		{"-created_at", "a,c,b,d"},
		{"file_size", "a,d,c,b"},
		{"-file_size", "c,a,d,b"},
		{"-id", "d,c,b,a"},
	} {
		if err := sortRecords(recs, keyFor(commerce.FilesEndpoint, tc.sort)); err != nil {
			t.Fatal(err)
		}
		if got := ids(); got != tc.want {
			t.Errorf("sort %s: %s, want %s", tc.sort, got, tc.want)
		}
	}
}

// Parts of a split in() that both listed a record (two values the service
// compares as one) hand it out once and count it once.
func TestMergedPartsCountASharedRecordOnce(t *testing.T) {
	l := &Listing[commerce.Account]{kind: commerce.Accounts, key: keyFor(commerce.AccountsEndpoint, "id")}
	rec := func(id string) commerce.Account { return commerce.Account{Common: commerce.Common{ID: id}} }
	st := Stats{Total: 5, TotalKnown: true, Count: commerce.Count{Method: commerce.CountExact, N: 5}}
	var got []string
	to := emitters[commerce.Account]{emit: func(a commerce.Account) error { got = append(got, a.ID); return nil }}
	parts := []commerce.Account{rec("b"), rec("a"), rec("d"), rec("b"), rec("c")}
	if err := l.emitMerged(parts, nil, 0, to, &st); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "a,b,c,d" || st.Total != 4 || st.Count.N != 4 || st.Listed != 4 {
		t.Errorf("handed out %v, total %d, count %d, listed %d; want a,b,c,d and 4 of each", got, st.Total, st.Count.N, st.Listed)
	}
}
