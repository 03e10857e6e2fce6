package storematrix

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// BenchmarkReadWithWrites reads 20,000 accounts by created_at, 2 ms away,
// on a quiet store and on one where an account is created and another
// deleted every 3 list requests (PERFORMANCE.md, "A read while the store
// changes"), side by side in one run. It reports the list requests per
// read and the untouched records listed out of place (always 0, or the
// read is wrong):
//
//	go test ./internal/storematrix -run '^$' -bench '^BenchmarkReadWithWrites$' -benchtime 5x
func BenchmarkReadWithWrites(b *testing.B) {
	for _, every := range []int{0, 3} {
		name := "quiet"
		if every > 0 {
			name = "a create and a delete every 3 list requests"
		}
		b.Run(name, func(b *testing.B) {
			srv := emulatortest.Start(b, emulator.Options{Accounts: 20000, Latency: 2 * time.Millisecond})
			var mu sync.Mutex
			n := 0
			srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
				if every == 0 || r.URL.Path != commerce.AccountsEndpoint.Path {
					return nil
				}
				mu.Lock()
				defer mu.Unlock()
				if n++; n%every == 0 {
					_ = srv.InsertAccount()
					if all := srv.Accounts(); len(all) > 0 {
						_ = srv.DeleteAccount(all[(n*7919)%len(all)].ID)
					}
				}
				return nil
			})
			e, err := listing.New(newMatrixClient(b, srv), listing.Options{})
			if err != nil {
				b.Fatal(err)
			}
			r := reads.New(e, reads.Options{})
			var requests, misplaced int
			for b.Loop() {
				before := snapshot(b, srv, "accounts", "", "created_at", nil)
				var ids []string
				res, err := reads.Read(context.Background(), r, commerce.Accounts, listing.Query{Sort: "created_at"},
					listing.Reader[commerce.Account]{Emit: func(a commerce.Account) error { ids = append(ids, a.ID); return nil }})
				if err != nil {
					b.Fatal(err)
				}
				requests += res.Pages
				prev := -1
				for _, id := range ids {
					if at, ok := before.at[id]; ok {
						if at < prev {
							misplaced++
						}
						prev = max(prev, at)
					}
				}
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/read")
			b.ReportMetric(float64(misplaced)/float64(b.N), "misplaced/read")
		})
	}
}
