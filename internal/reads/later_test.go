package reads

import (
	"context"
	"slices"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// readOnce is one read of q on r, what it kept, and the list requests it
// sent.
func readOnce(t *testing.T, srv *emulator.Server, r *Reads, q listing.Query) (kept, int) {
	t.Helper()
	srv.ResetStats()
	var k kept
	k.res, k.err = Read(context.Background(), r, commerce.Accounts, q, keeper[commerce.Account](&k, 0))
	if k.err != nil {
		t.Fatalf("read %+v: %v", q, k.err)
	}
	return k, srv.Stats().ListRequests["accounts"]
}

// A read that comes once a listing of its list has ended (Terraform
// validated it only then) is served by that listing's records, for the
// two requests that show nothing changed since: exactly what a listing of
// its own hands out, its own max_results applied.
func TestALaterReadIsServedByAnUnchangedListing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1})
	r := newReads(t, srv)
	if _, sent := readOnce(t, srv, r, listing.Query{}); sent != 11 {
		t.Fatalf("the first read sent %d list requests, want 11", sent)
	}
	for _, q := range []listing.Query{{}, {MaxResults: 7}, {Sort: "created_at"}, {MaxResults: 7, CountMatches: true}} {
		alone, _ := readOnce(t, srv, newReads(t, srv), q)
		again, sent := readOnce(t, srv, r, q)
		if !slices.Equal(again.ids, alone.ids) || again.res.Total != alone.res.Total || again.res.TotalKnown != alone.res.TotalKnown {
			t.Errorf("later read %+v: %d ids, total %d (%v); alone %d ids, total %d (%v)", q, len(again.ids), again.res.Total, again.res.TotalKnown, len(alone.ids), alone.res.Total, alone.res.TotalKnown)
		}
		if sent != 2 {
			t.Errorf("later read %+v sent %d list requests, want 2: a count and the changes", q, sent)
		}
	}
	// Another configuration (Terraform's next walk) keeps nothing.
	if _, sent := readOnce(t, srv, newReads(t, srv), listing.Query{}); sent != 11 {
		t.Errorf("a read on a new configuration sent %d list requests, want a listing's 11", sent)
	}
}

// A later read that may depend on a write sees it: a create, a delete, an
// update, a delete and a create together (the count is unchanged), each
// makes the check fail and the read list on its own, as it did before the
// check existed, for at most two requests more.
func TestALaterReadSeesWhatChanged(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1})
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, ids []string)
	}{
		{"a create", func(t *testing.T, _ []string) {
			mustWrite(t, func() error { _, err := srv.Insert("accounts"); return err })
		}},
		{"a delete", func(t *testing.T, ids []string) {
			mustWrite(t, func() error { return srv.Delete("accounts", ids[500]) })
		}},
		{"an update", func(t *testing.T, ids []string) { mustWrite(t, func() error { return srv.Update("accounts", ids[0]) }) }},
		{"a delete and a create", func(t *testing.T, ids []string) {
			mustWrite(t, func() error { return srv.Delete("accounts", ids[10]) })
			mustWrite(t, func() error { _, err := srv.Insert("accounts"); return err })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReads(t, srv)
			first, _ := readOnce(t, srv, r, listing.Query{IncludeJSON: true})
			tc.write(t, first.ids)
			want, _ := readOnce(t, srv, newReads(t, srv), listing.Query{IncludeJSON: true})
			again, sent := readOnce(t, srv, r, listing.Query{IncludeJSON: true})
			if !slices.Equal(again.ids, want.ids) || again.res.Total != want.res.Total {
				t.Errorf("the later read got %d ids (total %d), a new listing %d (total %d)", len(again.ids), again.res.Total, len(want.ids), want.res.Total)
			}
			if sent <= 2 || sent > 11+2 {
				t.Errorf("the later read sent %d list requests, want a listing's and at most 2: the check must fail", sent)
			}
			if again.withJSON != want.withJSON {
				t.Errorf("the later read got %d records with JSON, a new listing %d", again.withJSON, want.withJSON)
			}
		})
	}
}

func mustWrite(t *testing.T, write func() error) {
	t.Helper()
	if err := write(); err != nil {
		t.Fatal(err)
	}
}

// What a later read cannot be served from lists on its own: a listing
// without JSON for a read that keeps it, and a listing longer than
// keptRecords, which keeps nothing.
func TestALaterReadListsWhatWasNotKept(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: keptRecords + 1, Orders: -1, Files: -1})
	r := newReads(t, srv)
	one, _ := readOnce(t, srv, r, listing.Query{})
	if _, sent := readOnce(t, srv, r, listing.Query{}); sent < 20 {
		t.Errorf("a later read of %d accounts sent %d list requests: a listing past keptRecords was kept", len(one.ids), sent)
	}

	small := emulatortest.Start(t, emulator.Options{Accounts: 1000, Orders: -1, Files: -1})
	r = newReads(t, small)
	readOnce(t, small, r, listing.Query{})
	if _, sent := readOnce(t, small, r, listing.Query{IncludeJSON: true}); sent <= 2 {
		t.Errorf("a later read that keeps JSON sent %d list requests: it was served by a listing without JSON", sent)
	}
	if _, sent := readOnce(t, small, r, listing.Query{}); sent != 2 {
		t.Errorf("a later read without JSON sent %d list requests, want 2: the listing with JSON serves it", sent)
	}
}
