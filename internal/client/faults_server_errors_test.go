package client

// The fault matrix (see faults_helpers_test.go): server errors.

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

func TestFaultServerErrorBursts(t *testing.T) {
	statuses := []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
	t.Run("every_4th_rotating", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
		var n atomic.Int64
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if !isOrdersList(r) {
				return nil
			}
			if i := n.Add(1); i%4 == 0 {
				return &emulator.Fault{Status: statuses[(i/4)%4]}
			}
			return nil
		})
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 10 })
		stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
		st := srv.Stats()
		for _, s := range statuses {
			if st.StatusCounts[s] == 0 {
				t.Errorf("no %d was injected", s)
			}
		}
		if got := clientRetries(c, stats); got != st.Faults {
			t.Errorf("client retries = %d, want one per fault (%d)", got, st.Faults)
		}
	})
	t.Run("burst", func(t *testing.T) {
		// Twenty resource requests in a row fail: every page in flight
		// fails two or three times over.
		srv := emulatortest.Start(t, emulator.Options{Orders: 12000})
		var n atomic.Int64
		srv.SetFaults(func(r *http.Request, _ int64) *emulator.Fault {
			if i := n.Add(1); isOrdersList(r) && i > 10 && i <= 30 {
				return &emulator.Fault{Status: statuses[i%4]}
			}
			return nil
		})
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 10 })
		stats := mustList(t, srv, c, commerce.Orders, ListQuery{})
		if st := srv.Stats(); st.Faults != 20 || clientRetries(c, stats) != 20 {
			t.Errorf("faults = %d, client retries = %d; want 20 and 20", st.Faults, clientRetries(c, stats))
		}
	})
	t.Run("random_seeded", func(t *testing.T) {
		// 20% of all requests fail, token requests included.
		srv := emulatortest.Start(t, emulator.Options{Orders: 5000})
		srv.SetFaults(emulator.FailRandomly(0.2, 42, emulator.Fault{Status: http.StatusServiceUnavailable}))
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 10 })
		mustList(t, srv, c, commerce.Orders, ListQuery{})
		if st := srv.Stats(); st.Faults == 0 {
			t.Error("no fault was injected")
		}
	})
	t.Run("permanent_503", func(t *testing.T) {
		srv := emulatortest.Start(t, emulator.Options{Orders: 500})
		srv.SetFaults(emulator.FailFirst(1<<30, emulator.Fault{Status: http.StatusServiceUnavailable}))
		c := newClient(t, srv, func(c *testConfig) { c.MaxRetries = 3 })
		ids, _, err := listWithin(t, c, commerce.Orders, ListQuery{})
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("error = %v, want *APIError 503", err)
		}
		if apiErr.Attempts != 4 || !strings.Contains(err.Error(), "gave up after 4 attempts") {
			t.Errorf("error = %q (attempts %d), want 4 attempts", err, apiErr.Attempts)
		}
		if len(ids) != 0 {
			t.Errorf("listed %d records before the first page succeeded", len(ids))
		}
		if st := srv.Stats(); st.Faults != 4 || c.Requests() != 4 {
			t.Errorf("faults = %d, client requests = %d; want exactly 4", st.Faults, c.Requests())
		}
	})
}
