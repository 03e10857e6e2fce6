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
	// a 429 as the pace drops (adaptiveLimit, below).
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

// The store's window. The service counts a store's requests per second
// (its limits are documented per second), so the budget and the limit on
// requests in flight both look back over one second of this client's
// requests.

// budgetWindow is the span over which the service counts requests.
const budgetWindow = time.Second

// trimWindow drops the times older than one window before now.
func trimWindow(times []time.Time, now time.Time) []time.Time {
	cut := 0
	for cut < len(times) && now.Sub(times[cut]) >= budgetWindow {
		cut++
	}
	if cut == 0 {
		return times
	}
	return append(times[:0], times[cut:]...)
}

// adaptiveLimit caps the requests in flight. It starts at startInFlight
// (or the configured maximum, if lower) and, until the service first
// refuses a request for the client's pace, grows while the store answers
// faster for it (see grow): a store far away needs more requests in flight
// for the same rate, a near one does not. It halves when the budget says
// the service asked the client to slow down (at most once per cooldown, so
// that one burst of parallel refusals counts as one signal), then grows
// back by one slot per limit-many answers accepted, up to where it stood
// when refused: fast on a store that tolerates parallelism, and still
// finishing on one that does not.
//
// Until the service has first refused a request for the client's pace, the
// limit also holds a courteous start (see courteousInFlight).
type adaptiveLimit struct {
	max      int // the ceiling: max_parallel_requests
	cooldown time.Duration

	mu           sync.Mutex
	limit        float64
	inFlight     int
	waiters      []chan struct{}
	lastDecrease time.Time
	// throttled is set by the service's first 429: from then on the
	// budget knows the store's pace and the courteous start is over.
	throttled bool
	// started holds, oldest first, when the slots of the last
	// budgetWindow were handed out: the requests of this client the
	// store's window is counting.
	started []time.Time
	// peak is the highest limit before the first refusal: the limit
	// grows back to it, not beyond.
	peak   int
	growth growth
	// youngCap, while access tokens die young, caps the limit at what a
	// token served before the service revoked it (tokenDiedYoung); 0
	// while they do not. youngGen is the newest token that set it.
	youngCap float64
	youngGen int
	// rtt is the round trip of the answers so far, smoothed; 0 before
	// the first.
	rtt time.Duration
}

// growth is how the limit grows before the store refuses anything: from
// the moment the store has accepted more requests in one second than a
// development store allows (growAfter), once then, and again at the end
// of each epoch (the limit answered once over, and a whole budgetWindow),
// by growthStep, while the rate of answers of the epoch beats the last
// one's by growEnough. A rate that no longer grows (the store, or this machine's
// decoding, is the bound) stops it for good.
//
// One step per window, not per round trip: the store's window counts a
// second, and a store whose window fills while the rate grows refuses, for
// the round trip its 429 takes to come back, what the rate gained over the
// second before. Doubling each round trip, a production store (100
// requests/s) 150 ms away answered 17 to 28 of about 220 requests 429, all
// at its window's first fill; doubling each window, 12 of 215; by
// growthStep each window, 0 to 8 of 210, and a store of 50 requests/s
// there 2 to 6 of 105, where doubling cost it 9 to 15
// (TestStoresRefuseFewRequests).
type growth struct {
	accepted   []time.Time // answers of the last budgetWindow
	epochStart time.Time
	answers    int // in this epoch
	lastRate   float64
	stalled    bool
}

// The growth: a development store (25 requests/s) never lets the client
// see more than growAfter answers in a second, so there the limit stays
// where it starts, and the courteous start's figures hold. startInFlight
// is enough for a store up to about 100 ms away at 100 requests/s.
const (
	startInFlight = 8
	growAfter     = 25
	growEnough    = 1.15
	stepRTT       = 75 * time.Millisecond
)

// A near store. Its window fills within the first second of a read,
// before any request has left it, so the store refuses every request on
// the way until the first 429 is back: as many as are in flight. Up to
// nearRTT away (the round trip as measured, this machine's decoding
// included), until the store has refused anything, at most one request in
// nearShare of those started in the last second is in flight, and at least
// nearFloor (in place of the courteous start's 4). Without it, a store of
// 50 requests/s 0 or 20 ms away answered 14 and 16 of about 115 requests
// 429 (the limit had grown to 32), and one of 20 or 25/s 3 to 4 of 45 to
// 55; with it 1 to 2 of each (TestStoresRefuseFewRequests). Farther away,
// so few in flight could not raise the rate.
const (
	nearRTT   = 75 * time.Millisecond
	nearShare = 12
	nearFloor = 2
)

// The courteous start. A store's limit is counted per second, and the
// client learns it only from a 429, which comes back one round trip after
// the request that filled the store's window: every request sent in that
// round trip is refused too, as many as are in flight. So until the store
// has refused anything, while the requests this client started in the last
// second (the token request aside) number courteousFrom to courteousTo, at
// most courteousInFlight are in flight. That is where a development store
// (25 requests/s documented) fills when a storefront or another pipeline
// takes a few of them: one listing at a store of 20/s sees 2 to 5 of its
// 105 requests refused rather than 7 to 9. Below and above the span the
// limit alone holds, and a store that does not throttle loses less than a
// round trip to it. A near store (see nearRTT) has a rule of its own.
const (
	courteousFrom     = 16
	courteousTo       = 24
	courteousInFlight = 4
)

func newAdaptiveLimit(maxInFlight int) *adaptiveLimit {
	start := min(startInFlight, maxInFlight)
	return &adaptiveLimit{max: maxInFlight, limit: float64(start), peak: start, cooldown: time.Second}
}

// acquire blocks until a slot is free or ctx ends.
func (a *adaptiveLimit) acquire(ctx context.Context) error {
	a.mu.Lock()
	if now := time.Now(); len(a.waiters) == 0 && a.freeLocked(now) {
		a.grantLocked(now)
		a.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	a.waiters = append(a.waiters, ch)
	a.mu.Unlock()

	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		a.mu.Lock()
		defer a.mu.Unlock()
		for i, w := range a.waiters {
			if w == ch {
				a.waiters = append(a.waiters[:i], a.waiters[i+1:]...)
				return ctx.Err()
			}
		}
		// The slot was handed over just as ctx ended: give it back.
		a.inFlight--
		a.wakeLocked()
		return ctx.Err()
	}
}

// freeLocked reports whether a request may start now. Caller holds the lock.
func (a *adaptiveLimit) freeLocked(now time.Time) bool {
	if a.inFlight >= a.currentLocked() {
		return false
	}
	if a.throttled {
		return true
	}
	a.started = trimWindow(a.started, now)
	n := len(a.started)
	if a.rtt > 0 && a.rtt <= nearRTT {
		return a.inFlight < max(nearFloor, n/nearShare)
	}
	if n >= courteousFrom && n < courteousTo {
		return a.inFlight < courteousInFlight
	}
	return true
}

// grantLocked hands out a slot. Caller holds the lock.
func (a *adaptiveLimit) grantLocked(now time.Time) {
	a.inFlight++
	if !a.throttled {
		a.started = append(a.started, now)
	}
}

// release frees a slot.
func (a *adaptiveLimit) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inFlight--
	a.wakeLocked()
}

// observe feeds one answer into the limit: slowDown when the service
// refused it for the client's pace. The budget calls it (budget.observe).
func (a *adaptiveLimit) observe(slowDown bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case slowDown:
		a.throttled, a.started, a.growth = true, nil, growth{}
		if now := time.Now(); now.Sub(a.lastDecrease) >= a.cooldown {
			a.limit = max(1, a.limit/2)
			a.lastDecrease = now
		}
	case !a.throttled:
		a.grow(time.Now())
	case a.limit < float64(a.peak):
		a.limit = min(float64(a.peak), a.limit+1/a.limit)
	}
	a.wakeLocked()
}

// grow counts one accepted answer before any refusal, and grows the limit
// at the end of an epoch whose rate beat the last one's (see growth).
// Caller holds the lock.
func (a *adaptiveLimit) grow(now time.Time) {
	g := &a.growth
	if g.stalled || int(a.limit) >= a.max {
		return
	}
	g.accepted = append(trimWindow(g.accepted, now), now)
	if len(g.accepted) <= growAfter {
		return
	}
	if !g.epochStart.IsZero() {
		// The gate open, an epoch at a time.
		if g.answers++; g.answers < int(a.limit) || now.Sub(g.epochStart) < budgetWindow {
			return
		}
		rate := float64(g.answers) / now.Sub(g.epochStart).Seconds()
		if g.lastRate > 0 && rate < g.lastRate*growEnough {
			g.stalled = true
			return
		}
		g.lastRate = rate
	}
	if g.epochStart.IsZero() {
		// The gate's opening is reason enough for the first step: the
		// store accepts more than a development store would. The rate
		// so far is the one the next epoch has to beat.
		g.lastRate = float64(len(g.accepted)-1) / max(now.Sub(g.accepted[0]).Seconds(), 1e-3)
	}
	g.epochStart, g.answers = now, 0
	a.limit = min(float64(a.max), math.Ceil(a.growthStep()*a.limit))
	a.peak = int(a.limit)
}

// growthStep is the factor the limit grows by in a step: 2 up to stepRTT
// away, less beyond (1.5 at 150 ms, 1.25 at 300 ms), so
// that what the rate gains in a step times the round trip, the requests a
// store refuses when its window fills in that step, stays about the same
// share of its rate. Caller holds the lock.
func (a *adaptiveLimit) growthStep() float64 {
	if a.rtt <= stepRTT {
		return 2
	}
	return 1 + stepRTT.Seconds()/a.rtt.Seconds()
}

// roundTrip feeds the round trip of one answer into rtt.
func (a *adaptiveLimit) roundTrip(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rtt == 0 {
		a.rtt = d
		return
	}
	a.rtt += (d - a.rtt) / 8
}

func (a *adaptiveLimit) wakeLocked() {
	now := time.Now()
	for len(a.waiters) > 0 && a.freeLocked(now) {
		ch := a.waiters[0]
		a.waiters = a.waiters[1:]
		a.grantLocked(now)
		close(ch)
	}
}

// current reports the present limit, for logs and tests.
func (a *adaptiveLimit) current() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.currentLocked()
}

// currentLocked is the limit, within youngCap. Caller holds the lock.
func (a *adaptiveLimit) currentLocked() int {
	if a.youngCap > 0 && a.youngCap < a.limit {
		return int(a.youngCap)
	}
	return int(a.limit)
}

// tokenDiedYoung caps the requests in flight at uses, what the token of
// generation gen served before the service refused it, once per token:
// with more in flight than a token serves, the requests already out spend
// each new token at once and are refused with it, and a read with 32 in
// flight and tokens good for 7 requests ended in 7 runs of 9.
func (a *adaptiveLimit) tokenDiedYoung(gen, uses int) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if gen <= a.youngGen {
		return
	}
	a.youngGen = gen
	a.youngCap = max(1, min(float64(uses), float64(a.currentLocked())))
}

// tokenServed lets the cap of tokenDiedYoung grow back by one slot per
// cap-many requests an access token served, as the limit does after a
// 429, until it no longer caps anything: tokens that live again get the
// requests in flight back.
func (a *adaptiveLimit) tokenServed() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.youngCap == 0 {
		return
	}
	if a.youngCap += 1 / a.youngCap; a.youngCap >= a.limit {
		a.youngCap = 0
	}
	a.wakeLocked()
}
