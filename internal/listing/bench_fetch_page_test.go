package listing

// The client's own cost of one page (see bench_test.go for how to run the
// benchmarks).

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// BenchmarkFetchPage measures the client's own cost of one page of 100
// orders (HTTP round trip on loopback, body read, JSON decode, contract
// checks) against a server that answers a canned body at once, so that the
// time is the client's turnaround between two requests of a worker.
func BenchmarkFetchPage(b *testing.B) {
	srv, err := emulator.Start(emulator.Options{Orders: 200, Files: -1, Accounts: -1})
	if err != nil {
		b.Fatal(err)
	}
	c := benchClient(b, srv, 8)
	var body []byte
	q := url.Values{"page[limit]": {"100"}, "page[offset]": {"0"}, "sort": {"created_at"}}
	if err := c.get.Get(context.Background(), commerce.Orders.Path, q, func(raw []byte) error {
		body = append([]byte(nil), raw...)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	srv.Close()
	canned := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == client.TokenPath {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"access_token":"t","token_type":"Bearer","expires_in":3600}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer canned.Close()
	transport, err := client.New(client.Config{BaseURL: canned.URL, ClientID: "x", ClientSecret: "y", MaxParallelRequests: 8})
	if err != nil {
		b.Fatal(err)
	}
	cc, err := New(transport, Options{MaxParallelRequests: 8})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sequential", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			p, err := fetchPage(context.Background(), cc, commerce.Orders, pageRequest{filter: "", sort: "created_at", offset: 0, limit: 100, includeJSON: false}, nil)
			if err != nil || len(p.Records) != 100 {
				b.Fatalf("%d records, %v", len(p.Records), err)
			}
		}
	})
	b.Run("parallel8", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		b.SetParallelism(4) // 4 x GOMAXPROCS(2) = 8 goroutines, like the workers
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := fetchPage(context.Background(), cc, commerce.Orders, pageRequest{filter: "", sort: "created_at", offset: 0, limit: 100, includeJSON: false}, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
