package client

// The fault matrix: every scenario lists against the emulator with faults
// injected and asserts the exact final result, either the complete and
// correct ids in order (compared with the emulator's own answer) or a
// precise error. Every listing runs under a deadline and the emulator's
// request counters are checked against a bound, so that a listing that
// loops fails the test instead of hanging it.
//
// The matrix is split by the kind of fault, one faults_*_test.go file
// each; this file holds what they share.

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// listDeadline bounds every listing of the matrix.
const listDeadline = 45 * time.Second

// listWithin lists like listIDs, under listDeadline.
func listWithin[T commerce.Record](t testing.TB, c *Client, kind commerce.Kind[T], q ListQuery) ([]string, ListStats, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), listDeadline)
	defer cancel()
	var ids []string
	stats, err := List(ctx, c, kind, q, func(r T) error {
		ids = append(ids, r.RecordID())
		return nil
	})
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the listing did not end within %v (listed %d): %v", listDeadline, len(ids), err)
	}
	return ids, stats, err
}

// mustList lists and compares with the emulator's answer for the same query,
// in order.
func mustList[T commerce.Record](t testing.TB, srv *emulator.Server, c *Client, kind commerce.Kind[T], q ListQuery) ListStats {
	t.Helper()
	got, stats, err := listWithin(t, c, kind, q)
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	want := emulatortest.WantIDs(t, srv, kind.Endpoint, q.Filter.Text(), q.Sort)
	if !slices.Equal(got, want) {
		t.Fatalf("listed %d ids, want %d; first difference at %d", len(got), len(want), emulatortest.FirstDiff(got, want))
	}
	if stats.Listed != len(want) {
		t.Fatalf("stats.Listed = %d, want %d", stats.Listed, len(want))
	}
	return stats
}

// clientRetries is how many resource requests the client itself sent again:
// attempts minus the pages the engine asked for.
func clientRetries(c *Client, stats ListStats) int { return int(c.Requests()) - stats.Pages }

func isOrdersList(r *http.Request) bool { return r.URL.Path == commerce.OrdersEndpoint.Path }
