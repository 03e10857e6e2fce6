package coalesce

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// expect announces n reads to g and returns the context each of them reads
// on: a call of g gathers until all n have arrived, whatever the time that
// takes.
func expect[V any](t *testing.T, g *Group[int, V], n int) []context.Context {
	ahead := &Announced{Patience: time.Hour}
	g.Ahead = ahead
	ctxs := make([]context.Context, n)
	for i := range ctxs {
		key := strconv.Itoa(i)
		ahead.Announce(key)
		var arrival *Arrival
		ctxs[i], arrival = WithArrival(t.Context(), ahead, key)
		t.Cleanup(arrival.Arrive)
	}
	return ctxs
}

// waitJoined returns once n readers wait on the gathering call of key, or
// after ten seconds, when the test's own checks will say what went wrong.
func waitJoined[V any](g *Group[int, V], key string, n int) {
	for give := time.Now().Add(10 * time.Second); time.Now().Before(give); {
		g.mu.Lock()
		c := g.calls[key]
		joined := c != nil && c.readers >= n
		g.mu.Unlock()
		if joined {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Reads that arrive while a call gathers share its one run.
func TestReadsThatArriveTogetherShareOneRun(t *testing.T) {
	g := &Group[int, int]{}
	ctxs := expect(t, g, 6)
	var runs atomic.Int32
	var wg sync.WaitGroup
	results := make([]int, 6)
	sharedCount := atomic.Int32{}
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, how, err := g.Do(ctxs[i], "k", 0, func(context.Context, []int) int { return int(runs.Add(1)) * 10 })
			if err != nil {
				t.Error(err)
			}
			if how == Shared {
				sharedCount.Add(1)
			}
			results[i] = v
		}()
	}
	wg.Wait()
	if runs.Load() != 1 {
		t.Fatalf("runs = %d, want 1", runs.Load())
	}
	for i, v := range results {
		if v != 10 {
			t.Errorf("read %d got %d, want 10", i, v)
		}
	}
	if sharedCount.Load() != 5 {
		t.Errorf("shared = %d, want 5", sharedCount.Load())
	}
}

// A read that arrives once the call has handed something out must not be
// served by it: it may depend on a write the running call cannot have
// seen.
func TestReadAfterStartRunsAgain(t *testing.T) {
	g := &Group[int, int]{}
	started := make(chan struct{})
	release := make(chan struct{})
	var runs atomic.Int32
	first := make(chan int)
	go func() {
		v, _, _ := g.Do(t.Context(), "k", 0, func(ctx context.Context, _ []int) int {
			runs.Add(1)
			if !Commit(ctx) {
				t.Error("the first work was taken over before any other read came")
			}
			close(started)
			<-release
			return 1
		})
		first <- v
	}()
	<-started
	v, how, err := g.Do(t.Context(), "k", 0, func(context.Context, []int) int { runs.Add(1); return 2 })
	if err != nil || how != OpenedLate || v != 2 {
		t.Fatalf("late read: v=%d joined %v err=%v, want its own run (2), opened late", v, how, err)
	}
	close(release)
	if v := <-first; v != 1 {
		t.Fatalf("first read got %d", v)
	}
	if runs.Load() != 2 {
		t.Fatalf("runs = %d, want 2", runs.Load())
	}
}

// A finished call serves nobody.
func TestFinishedCallServesNobody(t *testing.T) {
	g := &Group[int, int]{}
	var runs atomic.Int32
	for range 3 {
		if _, how, _ := g.Do(t.Context(), "k", 0, func(context.Context, []int) int { return int(runs.Add(1)) }); how == Shared {
			t.Fatal("a sequential read was served by an earlier one")
		}
	}
	if runs.Load() != 3 {
		t.Fatalf("runs = %d, want 3", runs.Load())
	}
}

// Different keys never share.
func TestDifferentKeysRunApart(t *testing.T) {
	g := &Group[int, string]{}
	ctxs := expect(t, g, 2)
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i, k := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _, _ = g.Do(ctxs[i], k, 0, func(context.Context, []int) string { return k })
		}()
	}
	wg.Wait()
	if got[0] != "a" || got[1] != "b" {
		t.Fatalf("got %v", got)
	}
}

// A reader that gives up does not cancel the work the others wait for;
// the work is cancelled once the last reader has left.
func TestCancellingOneReaderLeavesTheOthers(t *testing.T) {
	g := &Group[int, error]{}
	ctxs := expect(t, g, 2)
	started := make(chan struct{})
	release := make(chan struct{})
	work := func(ctx context.Context, _ []int) error {
		close(started)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	quitter, quit := context.WithCancel(ctxs[0])
	quitErr := make(chan error, 1)
	go func() {
		_, _, err := g.Do(quitter, "k", 0, work)
		quitErr <- err
	}()
	waitJoined(g, "k", 1) // the quitter opened the call
	stayer := make(chan error, 1)
	go func() {
		v, how, err := g.Do(ctxs[1], "k", 0, work)
		if how != Shared {
			err = errors.New("second read did not join")
		}
		stayer <- errors.Join(v, err)
	}()
	<-started
	quit()
	if err := <-quitErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("quitter: %v", err)
	}
	close(release)
	if err := <-stayer; err != nil {
		t.Fatalf("the reader that stayed: %v", err)
	}
}

func TestWorkIsCancelledWhenEveryReaderLeft(t *testing.T) {
	g := &Group[int, error]{}
	ctx, cancel := context.WithCancel(t.Context())
	workErr := make(chan error, 1)
	go func() {
		_, _, _ = g.Do(ctx, "k", 0, func(ctx context.Context, _ []int) error {
			<-ctx.Done()
			workErr <- ctx.Err()
			return nil
		})
	}()
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case err := <-workErr:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("work ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the work went on with no reader left")
	}
}

// The work's deadline is the latest of its readers'.
func TestWorkDeadlineIsTheLatestReaders(t *testing.T) {
	g := &Group[int, time.Time]{}
	ctxs := expect(t, g, 2)
	soon, c1 := context.WithTimeout(ctxs[0], time.Minute)
	defer c1()
	later, c2 := context.WithTimeout(ctxs[1], time.Hour)
	defer c2()
	var wg sync.WaitGroup
	var got time.Time
	fn := func(ctx context.Context, _ []int) time.Time { d, _ := ctx.Deadline(); return d }
	wg.Add(2)
	go func() { defer wg.Done(); got, _, _ = g.Do(soon, "k", 0, fn) }()
	go func() { defer wg.Done(); _, _, _ = g.Do(later, "k", 0, fn) }()
	wg.Wait()
	want, _ := later.Deadline()
	if !got.Equal(want) {
		t.Fatalf("work deadline %v, want the later reader's %v", got, want)
	}
}

// The work sees every reader's joiner, in the order they came, the
// opener's first.
func TestWorkSeesEveryJoiner(t *testing.T) {
	g := &Group[int, []int]{}
	ctxs := expect(t, g, 3)
	var wg sync.WaitGroup
	got := make([][]int, 3)
	for i := range got {
		wg.Go(func() {
			got[i], _, _ = g.Do(ctxs[i], "k", i+1, func(_ context.Context, joiners []int) []int { return joiners })
		})
		if i == 0 {
			waitJoined(g, "k", 1) // the first opens the call
		}
	}
	wg.Wait()
	for i, joiners := range got {
		if len(joiners) != 3 || joiners[0] != 1 {
			t.Errorf("read %d: the work saw joiners %v, want 1 first and all three", i, joiners)
		}
	}
}

// The last reader to leave a running call waits for the work to stop and
// gets its word: the work knows why it stopped, the reader's context only
// that time ran out.
func TestLastReaderToLeaveGetsTheWorksWord(t *testing.T) {
	g := &Group[int, string]{}
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	go func() {
		<-started
		cancel()
	}()
	v, _, err := g.Do(ctx, "k", 0, func(ctx context.Context, _ []int) string {
		close(started)
		<-ctx.Done()
		return "stopped: the store throttled every request"
	})
	if err != nil || v != "stopped: the store throttled every request" {
		t.Fatalf("got %q, %v; want the work's own word", v, err)
	}
}

// A reader that leaves at its deadline, the work's too, leaves the work to
// end by that deadline: the work's context says the deadline passed, not
// that it was cancelled, as it would for a read alone.
func TestWorkEndsByItsDeadlineWithTheLastReaders(t *testing.T) {
	g := &Group[int, error]{}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	v, _, err := g.Do(ctx, "k", 0, func(ctx context.Context, _ []int) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if err != nil || !errors.Is(v, context.DeadlineExceeded) {
		t.Fatalf("got %v, %v; want the work's context to have passed its deadline", v, err)
	}
}

// A read that comes once a call's work has handed something out opens a
// call of its own, whose work gets the earlier call's value through
// Previous only once that call has ended: the value is set only then, so
// a Previous that did not wait would see none. The first call of a key,
// and work run outside a Group, have no previous.
func TestPreviousWaitsForTheEarlierCall(t *testing.T) {
	g := &Group[int, string]{}
	committed, release := make(chan struct{}), make(chan struct{})
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		v, _, err := g.Do(t.Context(), "k", 1, func(ctx context.Context, _ []int) string {
			if _, ok := Previous[string](ctx); ok {
				t.Error("the first call of a key has a previous")
			}
			if !Commit(ctx) {
				t.Error("the first call was taken over")
			}
			close(committed)
			<-release
			return "first"
		})
		if v != "first" || err != nil {
			t.Errorf("the first read got %q, %v", v, err)
		}
	}()
	<-committed
	in := make(chan struct{})
	var v string
	var how Joined
	var err error
	lateDone := make(chan struct{})
	go func() {
		defer close(lateDone)
		v, how, err = g.Do(t.Context(), "k", 2, func(ctx context.Context, _ []int) string {
			close(in)
			prev, ok := Previous[string](ctx)
			if !ok {
				return "no previous"
			}
			return "after " + prev
		})
	}()
	<-in // the late work asks for its previous while the first still runs
	close(release)
	<-firstDone
	<-lateDone
	if v != "after first" || how != OpenedLate || err != nil {
		t.Errorf("the late read got %q (joined %v, %v), want the first call's value, opened late", v, how, err)
	}
	if _, ok := Previous[string](context.Background()); ok {
		t.Error("work outside a Group has a previous")
	}
}
