package listing

import (
	"context"
	"sync"
)

// priority is the queue a scheduler task waits in.
type priority int

const (
	// bulk: the pages in the middle of a window.
	bulk priority = iota
	// urgent: the first and last page of a window, which decide what comes
	// next.
	urgent
)

// scheduler runs page requests on a fixed set of workers. Urgent tasks go
// before the bulk, so the next window starts while this one is still being
// read.
type scheduler struct {
	mu          sync.Mutex
	cond        *sync.Cond
	urgentTasks []func()
	bulkTasks   []func()
	closed      bool
	wg          sync.WaitGroup
}

func newScheduler(workers int) *scheduler {
	s := &scheduler{}
	s.cond = sync.NewCond(&s.mu)
	s.wg.Add(workers)
	for range workers {
		go s.work()
	}
	return s
}

// submit queues task; either goroutine may call it.
func (s *scheduler) submit(p priority, task func()) {
	s.mu.Lock()
	if p == urgent {
		s.urgentTasks = append(s.urgentTasks, task)
	} else {
		s.bulkTasks = append(s.bulkTasks, task)
	}
	s.mu.Unlock()
	s.cond.Signal()
}

// work is one worker's loop.
func (s *scheduler) work() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		for !s.closed && len(s.urgentTasks) == 0 && len(s.bulkTasks) == 0 {
			s.cond.Wait()
		}
		var task func()
		switch {
		case len(s.urgentTasks) > 0:
			task, s.urgentTasks = s.urgentTasks[0], s.urgentTasks[1:]
		case len(s.bulkTasks) > 0:
			task, s.bulkTasks = s.bulkTasks[0], s.bulkTasks[1:]
		}
		s.mu.Unlock()
		if task == nil {
			return // closed and drained
		}
		task()
	}
}

// close waits for queued tasks to finish; callers cancel their contexts
// first, so the tasks return at once. List calls it as the listing ends.
func (s *scheduler) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cond.Broadcast()
	s.wg.Wait()
}

// await receives what a worker sent on ch, or ctx's error. A value with a
// failure method (a pageResult) reports its own error too. Traversal
// goroutine.
func await[V any](ctx context.Context, ch chan V) (V, error) {
	if err := ctx.Err(); err != nil {
		// select picks at random among ready cases: without this, pages
		// already fetched would keep reaching emit after cancellation.
		var zero V
		return zero, err
	}
	select {
	case v := <-ch:
		if r, ok := any(v).(interface{ failure() error }); ok {
			return v, r.failure()
		}
		return v, nil
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}
