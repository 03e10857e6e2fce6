package listing

// The engine's fault cases (the transport's are internal/client's
// faults_*_test.go): writes during the listing.

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

func TestFaultWritesDuringListingHeavy(t *testing.T) {
	longTest(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 12000, OrderTieGroups: []int{300, 300}})
	before := map[string]bool{}
	for _, o := range srv.Orders() {
		before[o.ID] = true
	}
	victims := srv.Orders()
	var mu sync.Mutex
	inserted := map[string]bool{}
	var n, writes atomic.Int64
	// Every other list request, synchronously before it is answered: two
	// inserts, three updates of old records, two deletes.
	srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
		i := n.Add(1)
		if !isOrdersList(r) || i%2 != 0 {
			return nil
		}
		for k := range int64(2) {
			o := srv.InsertOrder()
			mu.Lock()
			inserted[o.ID] = true
			mu.Unlock()
			_ = k
		}
		for k := range int64(3) {
			_, _ = srv.UpdateOrder(victims[int(i*37+k*1009)%len(victims)].ID)
		}
		for k := range int64(2) {
			_ = srv.DeleteOrder(victims[int(i*101+k*503+13)%len(victims)].ID)
		}
		writes.Add(7)
		return nil
	})
	c := newClient(t, srv)
	for _, sort := range []string{"created_at", "updated_at", "-created_at", "-updated_at"} {
		t.Run(sort, func(t *testing.T) {
			var got, late []string
			ctx, cancel := context.WithTimeout(context.Background(), listDeadline)
			defer cancel()
			_, err := readAlone(ctx, c, commerce.Orders, Query{Sort: sort}, alone[commerce.Order]{to: emitters[commerce.Order]{
				emit: func(r commerce.Order) error { got = append(got, r.RecordID()); return nil },
				late: func(r commerce.Order) error { late = append(late, r.RecordID()); return nil },
			}})
			if err != nil {
				t.Fatal(err)
			}
			got = append(late, got...)
			listed := map[string]bool{}
			for _, id := range got {
				if listed[id] {
					t.Fatalf("%s listed twice", id)
				}
				listed[id] = true
				mu.Lock()
				known := before[id] || inserted[id]
				mu.Unlock()
				if !known {
					t.Fatalf("%s was listed but never existed", id)
				}
			}
			after := map[string]bool{}
			for _, o := range srv.Orders() {
				after[o.ID] = true
			}
			missed := 0
			for id := range before {
				if after[id] && !listed[id] {
					missed++
				}
			}
			if missed > 0 {
				t.Fatalf("%d records existed before and after the listing but were not listed", missed)
			}
			t.Logf("%d listed (%d late), %d writes so far", len(got), len(late), writes.Load())
		})
	}
}
