package coalesce

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// patient is the Gather of these tests: long enough that a call which
// waited it out would be plain to see, were the announcements not what
// ends its gathering.
const patient = time.Minute

// A read that nobody else announced starts at once, however long its
// Group would gather, its own announcement taken back as it opens the call.
func TestAnAnnouncedReadAloneStartsAtOnce(t *testing.T) {
	ahead := &Announced{Life: patient}
	g := &Group[int, int]{Ahead: ahead, Gather: patient}
	ahead.Announce("a")
	ctx, arrival := WithArrival(t.Context(), ahead, "a")
	defer arrival.Arrive()
	start := time.Now()
	v, shared, err := g.Do(ctx, "k", 0, func(context.Context, []int) int { return 7 })
	if err != nil || v != 7 || shared {
		t.Fatalf("Do = %d, shared %v, %v", v, shared, err)
	}
	if took := time.Since(start); took > patient/2 {
		t.Fatalf("a read announced alone waited %v", took)
	}
}

// Reads announced together share one call, which starts once the last of
// them has joined: the work sees every one, in whatever order their reads
// were scheduled, and nobody waits out Gather.
func TestReadsAnnouncedTogetherShareOneCall(t *testing.T) {
	for round := range 20 {
		ahead := &Announced{Life: patient}
		g := &Group[int, int]{Ahead: ahead, Gather: patient}
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

// An announcement whose read never comes holds a call back for its Life,
// not for the Group's Gather: a validation without a read (Terraform's
// validate step) must not stall the reads after it.
func TestAnAnnouncementWithoutItsReadIsForgotten(t *testing.T) {
	ahead := &Announced{Life: 50 * time.Millisecond}
	g := &Group[int, int]{Ahead: ahead, Gather: patient}
	ahead.Announce("never")
	ahead.Announce("a")
	ctx, arrival := WithArrival(t.Context(), ahead, "a")
	defer arrival.Arrive()
	start := time.Now()
	if _, _, err := g.Do(ctx, "k", 0, func(context.Context, []int) int { return 0 }); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 50*time.Millisecond || took > patient/2 {
		t.Fatalf("the call started after %v: want the announcement's life, 50ms, not the Gather", took)
	}
}

// A read that arrives once the call has started gets a call of its own,
// announced or not: it may depend on a write the started call cannot have
// seen.
func TestAnAnnouncedReadAfterTheStartRunsAgain(t *testing.T) {
	ahead := &Announced{Life: patient}
	g := &Group[int, int]{Ahead: ahead, Gather: patient}
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	go func() {
		_, _, _ = g.Do(t.Context(), "k", 0, func(context.Context, []int) int {
			runs.Add(1)
			close(started)
			<-release
			return 0
		})
	}()
	<-started
	ahead.Announce("late")
	ctx, arrival := WithArrival(t.Context(), ahead, "late")
	defer arrival.Arrive()
	_, shared, err := g.Do(ctx, "k", 1, func(context.Context, []int) int { runs.Add(1); return 1 })
	close(release)
	if err != nil || shared || runs.Load() != 2 {
		t.Fatalf("late read: shared %v, %d runs, %v; want a run of its own", shared, runs.Load(), err)
	}
}
