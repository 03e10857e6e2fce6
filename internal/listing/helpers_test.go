package listing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// testConfig is what a test tweaks: the transport's configuration and the
// engine's page size.
type testConfig struct {
	client.Config
	PageSize int
}

// newClient builds an Engine on a transport to srv, as the provider does,
// with short back-offs; tweak edits the configuration first.
func newClient(t testing.TB, srv *emulator.Server, tweak ...func(*testConfig)) *Engine {
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
	e, err := New(c, Options{PageSize: cfg.PageSize, MaxParallelRequests: cfg.MaxParallelRequests, Logger: cfg.Logger})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

// List plans q and reads it in full, as one read alone does (no other
// read shares it, no cache): the strategies' tests list this way.
func List[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, emit func(T) error) (Stats, error) {
	return readAlone(ctx, e, kind, q, alone[T]{to: emitters[T]{emit: emit}})
}

// alone is what a test sets of a read besides its Query: where the late
// records go, and an exact consistency cut (a ConsistencyBuffer moves with
// the clock).
type alone[T commerce.Record] struct {
	to  emitters[T]
	cut time.Time
}

// readAlone is List with a late emitter or a cut.
func readAlone[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, a alone[T]) (Stats, error) {
	p, err := Plan(e, kind, q)
	if err != nil {
		return Stats{}, err
	}
	need := p.Need([]Query{q})
	if !a.cut.IsZero() {
		need.CreatedBefore = a.cut
	}
	return p.readFull(ctx, need, a.to)
}

func listIDs[T commerce.Record](t testing.TB, c *Engine, kind commerce.Kind[T], q Query) ([]string, Stats, error) {
	t.Helper()
	var ids []string
	stats, err := List(context.Background(), c, kind, q, func(r T) error {
		ids = append(ids, r.RecordID())
		return nil
	})
	return ids, stats, err
}

// listDeadline bounds every listing of the fault tests.
const listDeadline = 45 * time.Second

// listWithin lists like listIDs, under listDeadline, so that a listing
// that loops fails the test instead of hanging it.
func listWithin[T commerce.Record](t testing.TB, c *Engine, kind commerce.Kind[T], q Query) ([]string, Stats, error) {
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

// wantIDs is the emulator's answer for the query, in the order it promises.
func wantIDs(t testing.TB, srv *emulator.Server, r commerce.Endpoint, filter, sort string) []string {
	t.Helper()
	return emulatortest.WantIDs(t, srv, r, filter, sort)
}

func firstDiff(a, b []string) int { return emulatortest.FirstDiff(a, b) }

func isOrdersList(r *http.Request) bool { return r.URL.Path == commerce.OrdersEndpoint.Path }

// longTest skips a test that lists tens of thousands of records or waits on
// real clocks when `go test -short` (make unit) asks for the fast loop;
// make test and CI run it.
func longTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("long: runs in make test, not in make unit (-short)")
	}
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
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

// readOnce is one read on the engine alone, as internal/reads serves a
// read that shares its listing with no other and has no cache: planned
// once, read in full, with the total its reader reports (Stats.TotalFor).
func readOnce[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], q Query, to Reader[T]) (Stats, error) {
	l, err := Plan(e, kind, q)
	if err != nil {
		return Stats{}, err
	}
	listed := 0
	counted := func(emit func(T) error) func(T) error {
		if emit == nil {
			return nil
		}
		return func(r T) error { listed++; return emit(r) }
	}
	st, err := l.Read(ctx, l.Need([]Query{q}), Reader[T]{Emit: counted(to.Emit), Late: counted(to.Late)})
	st.Total, st.TotalKnown = st.TotalFor(q, listed)
	return st, err
}
