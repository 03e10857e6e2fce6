package client

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/commerce-tf/terraform-provider-commerce/internal/logging"
)

// The rate budget. A store's rate limit is per store: its storefront, other
// pipelines and every data source of a plan draw on it. The service says
// how much of it is ours only by refusing requests with 429 (no Retry-After
// is documented), so the budget is learned from its answers, additive
// increase and multiplicative decrease:
//
//   - Until the first 429 there is no budget beyond rate_limit: a store that
//     does not throttle is listed as fast as max_parallel_requests allows.
//   - On a 429 the budget drops to a little below the rate the service
//     actually accepted from this client over the last second, and every
//     request holds back until the store's window has room again.
//   - While answers succeed it climbs back slowly, so that the client finds
//     room the storefront leaves and gives it back when the storefront
//     needs it.
//
// rate_limit stays a hard ceiling over all of it.
const (
	// budgetBackoff is the share of the accepted rate the budget drops to
	// on a 429.
	budgetBackoff = 0.9
	// minBudget is the floor of the learned budget in requests per second:
	// a store that refuses everything is asked at this pace (and after the
	// pauses of budget.refused), not hammered, and not abandoned.
	minBudget = 1.0
	// How fast the budget grows while answers succeed, in requests per
	// second per second, at least minBudgetClimb: budgetClimb of the budget
	// while it is below the rate the store accepted when it last refused
	// (probing gently where the limit was), then budgetProbe of it,
	// doubling with every window it stays above that rate without a 429
	// (the store has made room: after a passing storm, or when the
	// storefront quietens).
	budgetClimb    = 0.02
	budgetProbe    = 0.1
	minBudgetClimb = 0.5
	// DefaultThrottlePatience is how long the client goes on asking while
	// the service accepts none of its requests, answering every one 429,
	// before a request fails. The read's own timeout ends it sooner.
	DefaultThrottlePatience = 5 * time.Minute
)

// budget is a Client's request budget, in requests per second, shared by
// every request it sends: listings, lookups and the token endpoint (see
// budgetTransport).
type budget struct {
	ceiling  float64 // rate_limit; 0: none
	patience time.Duration
	backoff  func(refusedInRow int) time.Duration
	log      logging.Logger
	// inFlight is the Client's cap on requests in flight, which halves on
	// a 429 as the pace drops (adaptiveLimit, inflight.go).
	inFlight *adaptiveLimit

	// limiter paces requests at the learned budget, capped by the ceiling;
	// rate.Inf while there is neither.
	limiter *rate.Limiter

	mu sync.Mutex
	// sent and accepted hold, oldest first, the times of this client's
	// requests sent and answers accepted (anything but 429) in the last
	// budgetWindow: what the store's own window holds of this client.
	sent, accepted []time.Time
	learned        float64   // the learned budget; 0 until the first 429
	refusedAt      float64   // the rate the store accepted when it last refused, requests/s
	aboveSince     time.Time // since when learned is above refusedAt; zero if it is not
	logged         float64   // the budget last logged
	lastDecrease   time.Time // when the budget last dropped
	lastGrowth     time.Time
	pauseUntil     time.Time // no request leaves before it
	lastAccepted   time.Time // the newest accepted answer; zero before one
	refusedInRow   int       // 429s since the last accepted answer

	// askedFrom and askedUntil are the last wait the service asked for
	// with Retry-After: a window that holds it measures that wait, not
	// the pace the store accepts (see decrease).
	askedFrom, askedUntil time.Time
}

func newBudget(cfg Config, backoff func(int) time.Duration, inFlight *adaptiveLimit) *budget {
	limit := rate.Inf
	if cfg.RateLimit > 0 {
		limit = rate.Limit(cfg.RateLimit)
	}
	patience := cfg.budgetPatience
	if patience <= 0 {
		patience = DefaultThrottlePatience
	}
	return &budget{
		ceiling:  cfg.RateLimit,
		patience: patience,
		backoff:  backoff,
		log:      cfg.Logger,
		inFlight: inFlight,
		// Burst 1: neither the ceiling nor the learned budget may be
		// exceeded even for a moment; the store's window is short.
		limiter: rate.NewLimiter(limit, 1),
	}
}

// admit holds a request back until the budget lets it go, before the
// request is built: the caller starts the attempt's request_timeout on the
// context admit returns, so that the timeout counts the time on the wire,
// not the time spent waiting for the store's rate limit (the caller's own
// context bounds that wait). budgetTransport sends a request whose context
// carries an admission at once, and waits itself for any other (a
// redirect's).
func (b *budget) admit(ctx context.Context) (context.Context, error) {
	sent, err := b.wait(ctx)
	if err != nil {
		return nil, err
	}
	return context.WithValue(ctx, admissionKey{}, &admission{sent: sent}), nil
}

// admission is one request let go by the budget; used once.
type admission struct {
	sent time.Time
	used atomic.Bool
}

type admissionKey struct{}

// admitted returns when the budget let ctx's request go, if admit did and
// no request has used its admission yet.
func admitted(ctx context.Context) (time.Time, bool) {
	a, _ := ctx.Value(admissionKey{}).(*admission)
	if a == nil || !a.used.CompareAndSwap(false, true) {
		return time.Time{}, false
	}
	return a.sent, true
}

// wait holds a request back until the budget lets it go, and counts it as
// sent then. It returns the time it was let go.
func (b *budget) wait(ctx context.Context) (time.Time, error) {
	for {
		b.mu.Lock()
		pause := time.Until(b.pauseUntil)
		b.mu.Unlock()
		if err := sleep(ctx, pause); err != nil {
			return time.Time{}, err
		}
		r := b.limiter.Reserve()
		if err := sleep(ctx, r.Delay()); err != nil {
			r.Cancel()
			return time.Time{}, err
		}
		b.mu.Lock()
		now := time.Now()
		// A 429 may have paused the client while this request waited for
		// its turn: it waits for the pause too.
		if !now.Before(b.pauseUntil) {
			b.sent = append(trimWindow(b.sent, now), now)
			b.mu.Unlock()
			return now, nil
		}
		b.mu.Unlock()
	}
}

// observe feeds one answer into the budget: status is the HTTP status of a
// request that wait let go at sent.
func (b *budget) observe(ctx context.Context, sent time.Time, status int, retryAfter string) {
	if b.inFlight != nil {
		b.inFlight.roundTrip(time.Since(sent))
		b.inFlight.observe(status == http.StatusTooManyRequests)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.sent = trimWindow(b.sent, now)
	b.accepted = trimWindow(b.accepted, now)
	if status != http.StatusTooManyRequests {
		b.accepted = append(b.accepted, now)
		b.lastAccepted = now
		b.refusedInRow = 0
		if b.learned > 0 && sent.Before(b.lastDecrease) && now.Sub(b.lastDecrease) < budgetWindow {
			b.countLate(ctx)
			return
		}
		b.grow(ctx, now)
		return
	}
	b.refusedInRow++
	// One refusal per pace: the 429s of requests sent before the budget
	// last dropped say nothing about the new budget. Only a 429 that
	// lowers it says the store's window is full of this client's
	// requests; one at a pace the store has accepted before is someone
	// else's doing, or chance, and is simply asked again at that pace.
	lowered := sent.After(b.lastDecrease) && b.decrease(ctx, now)
	b.pause(now, retryAfter, lowered)
}

// decrease drops the budget to a little below what the service accepted of
// this client over the last window, or halves it when it accepted nothing.
// It reports whether the budget dropped.
func (b *budget) decrease(ctx context.Context, now time.Time) bool {
	// The accepted answers count over the part of the window in which
	// the client was free to send: a store that answers a share of its
	// requests 429 with Retry-After (a gateway, a storefront's surge)
	// would otherwise see its budget set, right after each wait it asked
	// for, from the few answers since, and a listing of 25,483 files with
	// one answer in 20 so refused crawled at under 2 requests/s and did
	// not finish in two minutes (store matrix, seed 10450). A window
	// mostly spent waiting as asked says nothing of the pace.
	span := budgetWindow - overlap(now.Add(-budgetWindow), now, b.askedFrom, b.askedUntil)
	if span < budgetWindow/4 {
		return false
	}
	perSecond := float64(len(b.accepted)) / span.Seconds()
	target := budgetBackoff * perSecond
	if len(b.accepted) == 0 {
		current := b.learned
		if current == 0 {
			current = float64(len(b.sent)) / budgetWindow.Seconds()
		}
		target = current / 2
	}
	target = max(minBudget, target)
	if b.ceiling > 0 {
		target = min(target, b.ceiling)
	}
	if b.learned != 0 && target >= b.learned {
		return false
	}
	b.learned, b.refusedAt, b.aboveSince = target, perSecond, time.Time{}
	b.lastDecrease, b.lastGrowth = now, now
	b.limiter.SetLimit(rate.Limit(b.learned))
	b.logged = b.learned
	b.log.Debug(ctx, "request budget lowered after 429 Too Many Requests", map[string]any{
		"budget_per_s": round1(b.learned), "accepted_last_s": len(b.accepted), "sent_last_s": len(b.sent),
		"rate_limit": b.ceiling,
	})
	return true
}

// countLate counts an answer accepted after the budget dropped, to a
// request sent before: the store accepted it in the window the drop
// measured, but its answer was still on its way then. Without it, a drop
// that comes while few requests are in flight (the courteous start, see
// adaptiveLimit) sets the budget by what happened to be answered first.
func (b *budget) countLate(ctx context.Context) {
	b.refusedAt += 1 / budgetWindow.Seconds()
	if target := budgetBackoff * b.refusedAt; target > b.learned {
		b.raise(ctx, target)
	}
}

// pause holds every request back after a 429. When the store accepted
// nothing of this client in the last window, for a back-off that grows with
// each refusal in a row. When the 429 lowered the budget (full says so), the
// store's window is full of this client's requests: until as many of them
// have left it as it holds beyond what the store accepted (a stricter store
// counts refused requests too). A Retry-After, where a gateway sends one, is
// honoured on top.
func (b *budget) pause(now time.Time, retryAfter string, full bool) {
	var until time.Time
	switch s, a := len(b.sent), len(b.accepted); {
	case a == 0:
		until = now.Add(b.backoff(b.refusedInRow))
	case !full:
	case s >= a:
		until = b.sent[s-a].Add(budgetWindow)
	default:
		until = b.accepted[0].Add(budgetWindow)
	}
	if d, ok := parseRetryAfter(retryAfter, now); ok {
		b.askedFrom, b.askedUntil = now, now.Add(min(d, b.patience))
		until = maxTime(until, b.askedUntil)
	}
	b.pauseUntil = maxTime(b.pauseUntil, until)
}

// grow raises a learned budget while answers succeed, once a window has
// passed since it last dropped.
func (b *budget) grow(ctx context.Context, now time.Time) {
	if b.learned == 0 || now.Sub(b.lastDecrease) < budgetWindow {
		return
	}
	if b.ceiling > 0 && b.learned >= b.ceiling {
		return
	}
	share := budgetClimb
	if b.learned >= b.refusedAt {
		if b.aboveSince.IsZero() {
			b.aboveSince = now
		}
		share = min(1, budgetProbe*math.Pow(2, now.Sub(b.aboveSince).Seconds()/budgetWindow.Seconds()))
	}
	perSecond := max(minBudgetClimb, share*b.learned)
	elapsed := now.Sub(b.lastGrowth).Seconds()
	b.lastGrowth = now
	b.raise(ctx, b.learned+perSecond*min(elapsed, budgetWindow.Seconds()))
}

// raise sets the learned budget to target, within the ceiling, and logs
// it once it is a tenth above the budget last logged.
func (b *budget) raise(ctx context.Context, target float64) {
	if b.ceiling > 0 {
		target = min(target, b.ceiling)
	}
	b.learned = target
	b.limiter.SetLimit(rate.Limit(b.learned))
	if b.learned >= 1.1*b.logged {
		b.logged = b.learned
		b.log.Debug(ctx, "request budget raised", map[string]any{"budget_per_s": round1(b.learned), "rate_limit": b.ceiling})
	}
}

// rate is the learned budget in requests per second, 0 before the service
// first throttled the client.
func (b *budget) rate() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.learned
}

// exhausted reports whether the service has accepted none of the client's
// requests for the patience since began (a request's start) or the last
// accepted answer, whichever is later, and how long that has been.
func (b *budget) exhausted(began time.Time) (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	since := time.Since(maxTime(began, b.lastAccepted))
	return since >= b.patience, since
}

// throttled decides what a 429 answer to a request means, the refused-th
// it got since it began: nil to ask again (the budget holds the next attempt
// back; throttling uses up no retry), or the error that ends the request
// because the service has accepted nothing of this client for the patience,
// or asks for a longer wait than that. last is the 429.
func (b *budget) throttled(method, path string, began time.Time, refused int, retryAfter string, last *APIError) *ThrottledError {
	e := b.throttledError(method, path, refused, last)
	if d, ok := parseRetryAfter(retryAfter, time.Now()); ok && d > b.patience {
		e.RetryAfter = d
		return e
	}
	if out, since := b.exhausted(began); out {
		e.Waited = since
		return e
	}
	return nil
}

// throttledError describes a request (or a listing's requests) the service
// has refused refused times; the caller says why it ends. It is the one
// place a ThrottledError is built.
func (b *budget) throttledError(method, path string, refused int, last *APIError) *ThrottledError {
	_, since := b.exhausted(time.Time{})
	if last != nil {
		last.Attempts = refused
	}
	return &ThrottledError{Method: method, Path: path, Refused: refused, Waited: since, Budget: b.rate(), RateLimit: b.ceiling, Err: last}
}

// overlap is how much of [from, to) lies within [a, b).
func overlap(from, to, a, b time.Time) time.Duration {
	end := b
	if to.Before(b) {
		end = to
	}
	return max(0, end.Sub(maxTime(from, a)))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
