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

// patient is the Patience of these tests: long enough that a call which
// waited it out would be plain to see, were the announcements not what
// ends its gathering.
const patient = time.Minute

// announcedRead is one announced read of key "k" on g: it arrives when
// arrive is closed, and reports how many readers its call's work saw.
func announcedRead(t *testing.T, g *Group[int, int], ahead *Announced, name string, arrive <-chan struct{}, saw chan<- int) {
	ctx, arrival := WithArrival(t.Context(), ahead, name)
	defer arrival.Arrive()
	<-arrive
	v, _, err := g.Do(ctx, "k", 0, func(_ context.Context, js []int) int { return len(js) })
	if err != nil {
		t.Error(err)
	}
	saw <- v
}

// A read that nobody else announced starts at once, however patient its
// Announced, its own announcement taken back as it opens the call.
func TestAnAnnouncedReadAloneStartsAtOnce(t *testing.T) {
	ahead := &Announced{Patience: patient}
	g := &Group[int, int]{Ahead: ahead}
	ahead.Announce("a")
	ctx, arrival := WithArrival(t.Context(), ahead, "a")
	defer arrival.Arrive()
	start := time.Now()
	v, how, err := g.Do(ctx, "k", 0, func(context.Context, []int) int { return 7 })
	if err != nil || v != 7 || how != opened {
		t.Fatalf("Do = %d, joined %v, %v", v, how, err)
	}
	if took := time.Since(start); took > patient/2 {
		t.Fatalf("a read announced alone waited %v", took)
	}
}

// Reads announced together share one call, which starts once the last of
// them has joined: the work sees every one, in whatever order their reads
// were scheduled, and nobody waits out the patience.
func TestReadsAnnouncedTogetherShareOneCall(t *testing.T) {
	for round := range 20 {
		ahead := &Announced{Patience: patient}
		g := &Group[int, int]{Ahead: ahead}
		const n = 6
		for i := range n {
			ahead.Announce(strconv.Itoa(i))
		}
		var runs atomic.Int32
		joined := make([]int, n)
		var wg sync.WaitGroup
		start := time.Now()
		for i := range n {
			wg.Go(func() {
				ctx, arrival := WithArrival(t.Context(), ahead, strconv.Itoa(i))
				defer arrival.Arrive()
				v, _, err := g.Do(ctx, "k", i, func(_ context.Context, js []int) int {
					runs.Add(1)
					return len(js)
				})
				if err != nil {
					t.Error(err)
				}
				joined[i] = v
			})
		}
		wg.Wait()
		if runs.Load() != 1 {
			t.Fatalf("round %d: %d runs, want 1", round, runs.Load())
		}
		for i, v := range joined {
			if v != n {
				t.Fatalf("round %d: read %d saw a call of %d readers, want %d", round, i, v, n)
			}
		}
		if took := time.Since(start); took > patient/2 {
			t.Fatalf("round %d: the reads waited %v", round, took)
		}
	}
}

// The rule, step by step as a loaded machine may run it: four reads are
// validated; three arrive and join; the fourth is sent only after them,
// and whatever the time it takes, the call waits for it. A read validated
// while the call gathers (after its opener arrived, Terraform's walk being
// slow to reach it) is waited for too. Each step waits for the one before,
// not for a clock.
func TestTheCallWaitsForEveryValidatedRead(t *testing.T) {
	ahead := &Announced{Patience: patient}
	g := &Group[int, int]{Ahead: ahead}
	for _, name := range []string{"records", "json", "ids", "first"} {
		ahead.Announce(name)
	}
	saw := make(chan int, 5)
	now, last, late := make(chan struct{}), make(chan struct{}), make(chan struct{})
	close(now)
	for _, name := range []string{"records", "json", "ids"} {
		go announcedRead(t, g, ahead, name, now, saw)
	}
	go announcedRead(t, g, ahead, "first", last, saw)
	waitJoined(g, "k", 3)
	// Validated while the call gathers, sent after the fourth.
	ahead.Announce("late")
	go announcedRead(t, g, ahead, "late", late, saw)
	close(last)
	waitJoined(g, "k", 4)
	close(late)
	for range 5 {
		if n := <-saw; n != 5 {
			t.Fatalf("a read's call had %d readers, want all 5: it started before every validated read had arrived", n)
		}
	}
}

// An announcement whose read never comes holds a call back for the
// patience, the backstop for a validation that no read follows.
func TestAnAnnouncementWithoutItsReadIsForgotten(t *testing.T) {
	ahead := &Announced{Patience: 50 * time.Millisecond}
	g := &Group[int, int]{Ahead: ahead}
	ahead.Announce("never")
	ahead.Announce("a")
	ctx, arrival := WithArrival(t.Context(), ahead, "a")
	defer arrival.Arrive()
	start := time.Now()
	if _, _, err := g.Do(ctx, "k", 0, func(context.Context, []int) int { return 0 }); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 50*time.Millisecond || took > patient/2 {
		t.Fatalf("the call started after %v: want the patience, 50ms", took)
	}
}

// The validations of an earlier walk (Terraform's validate walk, in the
// same process when the provider is served in process) are forgotten when
// Terraform configures the provider for the walk that reads: they hold no
// read of it back. Forget also ends a gathering under way (StopProvider).
func TestForgottenAnnouncementsHoldNothingBack(t *testing.T) {
	ahead := &Announced{Patience: patient}
	g := &Group[int, int]{Ahead: ahead}
	for _, name := range []string{"records", "json", "ids"} {
		ahead.Announce(name)
	}
	ahead.Forget()
	ahead.Announce("a")
	ctx, arrival := WithArrival(t.Context(), ahead, "a")
	defer arrival.Arrive()
	start := time.Now()
	if _, _, err := g.Do(ctx, "k", 0, func(context.Context, []int) int { return 0 }); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > patient/2 {
		t.Fatalf("a read after Forget waited %v for announcements made before it", took)
	}

	ahead.Announce("never")
	done := make(chan error, 1)
	go func() {
		_, _, err := g.Do(t.Context(), "k", 0, func(context.Context, []int) int { return 0 })
		done <- err
	}()
	waitJoined(g, "k", 1)
	ahead.Forget()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A call whose readers all leave while it gathers stops gathering, and its
// work is cancelled before it starts.
func TestAnAbandonedGatheringStops(t *testing.T) {
	ahead := &Announced{Patience: patient}
	g := &Group[int, error]{Ahead: ahead}
	ahead.Announce("never")
	ctx, cancel := context.WithCancel(t.Context())
	workErr := make(chan error, 1)
	left := make(chan error, 1)
	go func() {
		_, _, err := g.Do(ctx, "k", 0, func(ctx context.Context, _ []int) error {
			workErr <- ctx.Err()
			return nil
		})
		left <- err
	}()
	waitJoined(g, "k", 1)
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("the reader left with %v", err)
	}
	select {
	case err := <-workErr:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the work ran on a context that is %v, want cancelled", err)
		}
	case <-time.After(patient / 2):
		t.Fatal("the call went on gathering with no reader left")
	}
}

// A read that arrives once the call has handed something out gets a call
// of its own, announced or not: it may depend on a write the started call
// cannot have seen.
func TestAnAnnouncedReadAfterTheStartRunsAgain(t *testing.T) {
	ahead := &Announced{Patience: patient}
	g := &Group[int, int]{Ahead: ahead}
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	go func() {
		_, _, _ = g.Do(t.Context(), "k", 0, func(ctx context.Context, _ []int) int {
			runs.Add(1)
			Commit(ctx)
			close(started)
			<-release
			return 0
		})
	}()
	<-started
	ahead.Announce("late")
	ctx, arrival := WithArrival(t.Context(), ahead, "late")
	defer arrival.Arrive()
	_, how, err := g.Do(ctx, "k", 1, func(context.Context, []int) int { runs.Add(1); return 1 })
	close(release)
	if err != nil || how != OpenedLate || runs.Load() != 2 {
		t.Fatalf("late read: joined %v, %d runs, %v; want a run of its own, opened late", how, runs.Load(), err)
	}
}

// A read that arrives once the call has started, but before its work has
// handed anything out, takes the call over: the work stops (Commit says
// false, its context is cancelled) and a new call serves the first read
// and this one together. That is safe: the new work starts after both
// arrived, and the old one gave nobody anything.
func TestAReadTakesOverWorkThatHandedNothingOut(t *testing.T) {
	ahead := &Announced{Patience: patient}
	g := &Group[int, int]{Ahead: ahead}
	started := make(chan struct{})
	var runs atomic.Int32
	type result struct {
		v   int
		how Joined
	}
	// Every read of a key brings the same work; the call that runs is
	// the one whose reader opened it, or took it over.
	work := func(ctx context.Context, js []int) int {
		if runs.Add(1) == 1 {
			close(started)
			<-ctx.Done() // the first request is on its way
			if Commit(ctx) {
				t.Error("the work that was taken over could still hand out")
			}
			return -1
		}
		if !Commit(ctx) {
			t.Error("the new work was taken over")
		}
		return len(js)
	}
	first := make(chan result, 1)
	go func() {
		v, how, err := g.Do(t.Context(), "k", 1, work)
		if err != nil {
			t.Error(err)
		}
		first <- result{v, how}
	}()
	<-started
	ahead.Announce("late")
	ctx, arrival := WithArrival(t.Context(), ahead, "late")
	defer arrival.Arrive()
	v, how, err := g.Do(ctx, "k", 2, work)
	if err != nil || how != Shared || v != 2 {
		t.Fatalf("late read: %d readers, joined %v, %v; want the new call of both", v, how, err)
	}
	if got := <-first; got.v != 2 || got.how != opened {
		t.Fatalf("first read: %d readers, joined %v; want the new call of both", got.v, got.how)
	}
	if runs.Load() != 2 {
		t.Fatalf("%d runs, want 2: the one taken over and the new one", runs.Load())
	}
}
