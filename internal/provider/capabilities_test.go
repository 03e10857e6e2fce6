package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 10000: "10,000", 100000: "100,000",
		999999: "999,999", 1000000: "1,000,000", 1234567890: "1,234,567,890",
	} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestBackticks(t *testing.T) {
	if got := backticks([]string{"id", "-created_at"}); got != "`id`, `-created_at`" {
		t.Errorf("backticks = %q", got)
	}
	if got := backticks(nil); got != "" {
		t.Errorf("backticks(nil) = %q", got)
	}
}

func TestConsistencyBuffer(t *testing.T) {
	for _, buffer := range []string{"", "60", "soon", "0s", "-5m"} {
		if got := consistencyBuffer(buffer); got != 0 {
			t.Errorf("consistencyBuffer(%q) = %v, want none", buffer, got)
		}
	}
	if got := consistencyBuffer("90s"); got != 90*time.Second {
		t.Errorf("consistencyBuffer(90s) = %v", got)
	}
}

func TestFilterTable(t *testing.T) {
	want := "`active` (eq), `label` (eq, like), `seen_at` (ge, lt), `weight` (gt, in)"
	if got := filterTable(things); got != want {
		t.Errorf("filterTable(things) =\n%s\nwant\n%s", got, want)
	}
	want = "`file_name` (eq, like), `file_size` (gt, ge, lt, le), `height` (gt, ge, lt, le), `width` (gt, ge, lt, le)"
	if got := filterTable(commerce.FilesEndpoint); got != want {
		t.Errorf("filterTable(files) =\n%s\nwant\n%s", got, want)
	}
}

func TestSortNote(t *testing.T) {
	cases := []struct {
		r    commerce.Endpoint
		want string
	}{
		{commerce.AccountsEndpoint, "The service sorts by `created_at`, `updated_at`, `id` itself; records with equal values come by `id`, whatever order the service gives them in, so that the same store gives the same list on every read (with `max_results`, the provider reads past the cut until the values change). " +
			"The service cannot list accounts by `name` past its offset limit: for those the provider lists every matching record and sorts them itself, text bytewise, " +
			"ties by `id`, records without a value last (with `max_results`, after sorting the complete list)."},
		{commerce.FilesEndpoint, "The service cannot list files by `created_at`, `file_size`, `id` past its offset limit: for those the provider lists every matching record and sorts them itself, text bytewise, " +
			"ties by `id`, records without a value last (with `max_results`, after sorting the complete list)."},
		{commerce.OrdersEndpoint, "The service sorts by `created_at` itself; records with equal values come by `id`, whatever order the service gives them in, so that the same store gives the same list on every read (with `max_results`, the provider reads past the cut until the values change). " +
			"The service cannot list orders by `updated_at`, `id` past its offset limit: for those the provider lists every matching record and sorts them itself, text bytewise, " +
			"ties by `id`, records without a value last (with `max_results`, after sorting the complete list)."},
	}
	for _, tc := range cases {
		if got := sortNote(tc.r); got != tc.want {
			t.Errorf("sortNote(%s) =\n%s\nwant\n%s", tc.r.Name, got, tc.want)
		}
	}
}

func TestHowListed(t *testing.T) {
	cases := []struct {
		r       commerce.Endpoint
		phrases []string
	}{
		// No service sort: offset pages, then ranges of the range attribute.
		{commerce.FilesEndpoint, []string{
			"The service cannot sort files and filters them only on `file_name`, `file_size`, `height`, `width`.",
			"Up to 10,000 matches", "cuts the listing into ranges of `file_size`", "If more than 10,000 files share one `file_size`",
		}},
		// Sorted by one attribute, with a range attribute for tie groups.
		{commerce.OrdersEndpoint, []string{
			"The service sorts orders by `created_at` and filters `created_at` by range",
			"offset pages in parallel up to 10,000 records, then the next window from the last `created_at` seen",
			"Orders it cannot get from the service (`updated_at`, `id`) it sorts itself after listing by `created_at`.",
			"More than 10,000 records with one `created_at` are cut into windows of `with_tax`.",
			"switches to offset pages and windows of `with_tax`",
		}},
		// Sorted by several, no range attribute.
		{commerce.AccountsEndpoint, []string{
			"The service sorts accounts by `created_at`, `updated_at`, `id` and filters them by range",
			"more than 10,000 records with one sort value are listed by `id`",
			"The service cannot filter `name` by range, so the provider sorts by them itself after listing by `created_at`.",
			"or fails saying why when more match",
		}},
	}
	for _, tc := range cases {
		got := howListed(tc.r)
		if !strings.HasPrefix(got, "**How it lists.** ") {
			t.Errorf("howListed(%s) does not start with its heading: %s", tc.r.Name, got)
		}
		for _, p := range tc.phrases {
			if !strings.Contains(got, p) {
				t.Errorf("howListed(%s) lacks %q:\n%s", tc.r.Name, p, got)
			}
		}
	}
}
