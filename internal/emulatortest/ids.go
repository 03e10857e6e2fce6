package emulatortest

import (
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// WantIDs is the emulator's answer for filter in the order sort (empty:
// the resource's default) promises: by value, ties by id, whether the
// service sorts (the provider orders the ties it gives) or the provider
// sorts the complete list itself.
func WantIDs(t testing.TB, srv *emulator.Server, r commerce.Endpoint, filter, sort string) []string {
	t.Helper()
	if sort == "" {
		sort = r.DefaultSort
	}
	return SortedIDs(t, srv, r.Name, filter, sort)
}

// SortedIDs is srv.SortedIDs (ids in the order the provider promises for
// sort: ties by id), failing t when the emulator cannot answer: a test
// that compares with the oracle never compares with nothing.
func SortedIDs(t testing.TB, srv *emulator.Server, resource, filter, sort string) []string {
	t.Helper()
	ids, err := srv.SortedIDs(resource, filter, sort)
	if err != nil {
		t.Fatalf("sorted ids of %s filter=%q sort=%q: %v", resource, filter, sort, err)
	}
	return ids
}

// ExpectedIDs is srv.ExpectedIDs (ids in the order the emulator answers
// a list with), failing t when the emulator cannot answer.
func ExpectedIDs(t testing.TB, srv *emulator.Server, resource, filter, sort string) []string {
	t.Helper()
	ids, err := srv.ExpectedIDs(resource, filter, sort)
	if err != nil {
		t.Fatalf("expected ids of %s filter=%q sort=%q: %v", resource, filter, sort, err)
	}
	return ids
}

// FirstDiff is the first index at which a and b differ (the shorter
// one's length when one is a prefix of the other).
func FirstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
