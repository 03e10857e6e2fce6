package emulator

import (
	"math"
	"sync"
	"time"
)

// rateLimiter is a store's request budget as the real service keeps it: one
// budget per store, shared by every endpoint and the token endpoint, over a
// sliding window. It accepts at most capacity requests in any window; a
// rate of r requests per second is a window of one second holding floor(r)
// requests, or, below one request per second, a window of 1/r seconds
// holding one.
//
// By default only accepted requests count, as a lenient store does; with
// countRefused set, refused requests take a place in the window too, as a
// stricter store does, so that a client that keeps knocking while the
// window is full keeps it full.
type rateLimiter struct {
	mu           sync.Mutex
	rate         float64
	capacity     int
	window       time.Duration
	countRefused bool
	// counted holds the arrival times of the requests in the window, oldest
	// first.
	counted []time.Time
}

func (l *rateLimiter) set(rps float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rate = max(rps, 0)
	l.counted = l.counted[:0]
	switch {
	case l.rate == 0:
		l.capacity, l.window = 0, 0
	case l.rate < 1:
		l.capacity, l.window = 1, time.Duration(float64(time.Second)/l.rate)
	default:
		l.capacity, l.window = int(math.Floor(l.rate)), time.Second
	}
}

func (l *rateLimiter) setCountRefused(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.countRefused = on
}

func (l *rateLimiter) rps() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rate
}

// allow counts a request arriving at now; when the window is full it
// returns false and the whole seconds until a place frees up (at least 1).
func (l *rateLimiter) allow(now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.capacity == 0 {
		return true, 0
	}
	cut := 0
	for cut < len(l.counted) && now.Sub(l.counted[cut]) >= l.window {
		cut++
	}
	if cut > 0 {
		l.counted = append(l.counted[:0], l.counted[cut:]...)
	}
	if len(l.counted) < l.capacity {
		l.counted = append(l.counted, now)
		return true, 0
	}
	// The place of the request that leaves the window first: with refused
	// requests counted, as many must leave as there are over capacity.
	if l.countRefused {
		l.counted = append(l.counted, now)
	}
	free := l.counted[len(l.counted)-l.capacity].Add(l.window)
	return false, max(1, int(math.Ceil(free.Sub(now).Seconds())))
}
