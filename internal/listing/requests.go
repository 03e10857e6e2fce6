package listing

// One page request (fetchPage), and who runs the page requests: a fixed
// set of workers (the scheduler), which take the first and last page of a
// window before the pages in between. Workers hand their results back
// over channels, which the traversal goroutine reads with await. A
// request a read waits on alone goes out again where it stalls (hedged).
// The pager (pager.go) decides what to request; nothing here knows
// windows.

import (
	"context"
	"sync"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// pageRequest is one list request: a filter, a sort (empty: the
// service's own order), which records, whether to keep their JSON, and
// whether to ask for an exact count.
type pageRequest struct {
	filter, sort  string
	offset, limit int
	includeJSON   bool
	exactCount    bool
}

// fetchPage requests one page of kind and checks it against the contract
// (commerce.DecodeListBody); a page that breaks it is a
// commerce.ProtocolError, which the transport does not retry. The display
// attributes of an unexpected type its records held go to notes.
func fetchPage[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], req pageRequest, notes *commerce.DecodeLog) (commerce.Page[T], error) {
	q := commerce.ListParams(req.filter, req.sort, req.offset, req.limit)
	if req.exactCount {
		q.Set(commerce.TotalMethodParam, string(commerce.CountExact))
	}
	path := kind.Path + "?" + q.Encode()
	if req.filter != "" && len(path) > commerce.MaxRequestBytes {
		// The listing checks its requests before it builds them; this
		// guards every other path to the service.
		return commerce.Page[T]{}, &FilterLimitError{Endpoint: kind.Name, Filter: req.filter, Terms: -1, Bytes: len(path),
			Fix: "Use fewer or shorter values (an in() of about 200 ids fills a request)."}
	}
	var out commerce.Page[T]
	err := e.get.Get(ctx, kind.Path, q, func(body []byte) error {
		p, err := commerce.DecodeListBody(body, kind, req.limit, req.offset, req.includeJSON, path)
		out = p
		return err
	})
	if err == nil && notes != nil {
		// The worker that decoded the page adds its issues; the listing
		// warns of them when it ends.
		notes.Add(out.Issues)
	}
	return out, err
}

// warnDecoded logs, at the end of a listing, one WARN per attribute that
// held values of an unexpected type. Traversal goroutine.
func (e *Engine) warnDecoded(ctx context.Context, resource string, notes *commerce.DecodeLog) {
	for _, w := range notes.Warnings(resource) {
		e.log.Warn(ctx, w.Message, w.Fields)
	}
}

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
// first, so the tasks return at once. listAll calls it as the listing
// ends. Traversal goroutine.
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

// hedgeFloor is the least time a request that a read waits on alone may
// go unanswered before the same request goes out beside it (hedged).
// Answers of this service take a round trip and some milliseconds of
// work; a second is many times either.
const hedgeFloor = time.Second

// hedgeAfter is how long to wait for an answer before hedging, given the
// typical answer so far (0: none yet): four times that, and at least
// hedgeFloor, so that a store that is merely far or slow is not asked
// twice.
func hedgeAfter(typical time.Duration) time.Duration { return max(hedgeFloor, 4*typical) }

// typicalAnswer moves typical an eighth of the way toward took.
func typicalAnswer(typical, took time.Duration) time.Duration {
	if typical == 0 {
		return took
	}
	return typical + (took-typical)/8
}

// hedged runs fetch, and where it has not answered within after, the same
// fetch once more beside it. It returns the first answer that is not an
// error, or else the first error, and cancels the request still out.
// It is for requests a read waits on alone, one after another (keyset
// pages): an answer that stalls until the request timeout would hold the
// whole read for that long each time. Nightly seed 4000435 (25,782
// accounts with a write every other request, read by keyset pages, 5% of
// answers stalled for 5 s) ran past the five-minute deadline so. The
// second request waits its turn in the same request budget as the
// first; one still waiting there when the first answers is never sent.
func hedged[V any](ctx context.Context, after time.Duration, fetch func(context.Context) (V, error)) (V, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		v   V
		err error
	}
	answers := make(chan answer, 2)
	send := func() {
		go func() {
			v, err := fetch(ctx)
			answers <- answer{v, err}
		}()
	}
	send()
	out := 1
	timer := time.NewTimer(after)
	defer timer.Stop()
	var failed *answer
	for {
		select {
		case a := <-answers:
			out--
			if a.err == nil {
				return a.v, nil
			}
			if failed == nil {
				failed = &a
			}
			if out == 0 {
				return failed.v, failed.err
			}
		case <-timer.C:
			send()
			out++
		}
	}
}
