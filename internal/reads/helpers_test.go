package reads

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
)

// testConfig is what a test tweaks: the transport's configuration and the
// engine's page size.
type testConfig struct {
	client.Config
	PageSize int
}

// newReads serves reads on an engine and a transport to srv, as the
// provider does, with short back-offs and no cache; tweak edits the
// configuration first.
func newReads(t testing.TB, srv *emulator.Server, tweak ...func(*testConfig)) *Reads {
	t.Helper()
	cfg := testConfig{Config: client.Config{
		BaseURL:      srv.URL(),
		ClientID:     emulator.DefaultClientID,
		ClientSecret: emulator.DefaultClientSecret,
		MaxRetries:   client.DefaultMaxRetries,
		RetryWaitMin: time.Millisecond,
		RetryWaitMax: 20 * time.Millisecond,
	}}
	for _, f := range tweak {
		f(&cfg)
	}
	c, err := client.New(cfg.Config)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	e, err := listing.New(c, listing.Options{PageSize: cfg.PageSize, MaxParallelRequests: cfg.MaxParallelRequests, Logger: cfg.Logger})
	if err != nil {
		t.Fatalf("listing.New: %v", err)
	}
	return New(e, Options{Logger: cfg.Logger})
}

// newRun makes r serve a new run, as a provider configured afresh for a
// new walk: no listing of the last run serves a read that comes late.
func newRun(r *Reads) {
	r.shared = &coalesce.Group[any, sharedRun]{Ahead: r.shared.Ahead}
	r.keptBytes.Store(0)
}

// holdListRequest holds the store's answer to the nth accounts list
// request once the store has evaluated it: held is closed then, and the
// answer goes out on unhold (at the latest when the test ends).
func holdListRequest(t *testing.T, srv *emulator.Server, n int32) (held <-chan struct{}, unhold func()) {
	var lists atomic.Int32
	evaluated, release := make(chan struct{}), make(chan struct{})
	srv.SetFaults(func(req *http.Request, _ int64) *emulator.Fault {
		if req.URL.Path != "/v2/accounts" || lists.Add(1) != n {
			return nil
		}
		return &emulator.Fault{Mutate: func(body []byte) []byte {
			close(evaluated)
			<-release
			return body
		}}
	})
	unhold = sync.OnceFunc(func() { close(release) })
	t.Cleanup(unhold)
	return evaluated, unhold
}

// longTest skips a test that lists thousands of records when `go test
// -short` (make unit) asks for the fast loop; make test and CI run it.
func longTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("long: runs in make test, not in make unit (-short)")
	}
}

// mustFilter is text parsed, as the provider hands a read's filter over;
// "" is no filter.
func mustFilter(text string) filter.Parsed {
	if text == "" {
		return filter.Parsed{}
	}
	p, err := filter.ParseText(text)
	if err != nil {
		panic(fmt.Sprintf("filter %q: %v", text, err))
	}
	return p
}

// wantIDs is the emulator's answer for the query, in the order it promises.
func wantIDs(t testing.TB, srv *emulator.Server, r commerce.Endpoint, filter, sort string) []string {
	t.Helper()
	return emulatortest.WantIDs(t, srv, r, filter, sort)
}

func firstDiff(a, b []string) int { return emulatortest.FirstDiff(a, b) }
