package client

import (
	"context"
	"math"
	"net/http"
	"slices"
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
//   - Until the first 429 the client probes (see probe): the requests it
//     sends in a second grow from what the store has shown it accepts by a
//     few at a time, so that the store's first 429 costs few refusals.
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
	// pauses a 429 sets, budget.pause), not hammered, and not abandoned.
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

// budgetWindow is the span over which the service counts a store's
// requests: its limits are documented per second.
const budgetWindow = time.Second

// trimWindow drops the times, oldest first, that are span or older at now.
func trimWindow(times []time.Time, now time.Time, span time.Duration) []time.Time {
	cut := 0
	for cut < len(times) && now.Sub(times[cut]) >= span {
		cut++
	}
	if cut == 0 {
		return times
	}
	return append(times[:0], times[cut:]...)
}

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
	// rate.Inf while there is neither. turn is held by the one request
	// waiting for the limiter (pace).
	limiter *rate.Limiter
	turn    chan struct{}

	mu sync.Mutex
	// probe holds the requests of each second back until the store's
	// first 429; probing is set until then.
	probe   probe
	probing bool
	// line holds the resource requests waiting for room in the store's
	// window (awaitWindow); timerArmed is set while a timer will grant
	// room when the oldest request in it leaves.
	line       line
	timerArmed bool
	// recent holds, oldest first, when this client's requests of the
	// last budgetWindow (and windowMargin) were sent, token requests' too:
	// what the store's window may still hold of them (windowRoom).
	recent []time.Time
	// sent and accepted hold, oldest first, the times of this client's
	// requests sent and answers accepted (anything but 429) in the last
	// budgetWindow: what the store's own window holds of this client.
	sent, accepted []time.Time
	learned        float64   // the learned budget; 0 until the first 429
	refusedAt      float64   // the rate the store accepted when it last refused, requests/s
	aboveSince     time.Time // since when learned is above refusedAt; zero if it is not
	logged         float64   // the budget last logged
	lastDecrease   time.Time // when the budget last dropped
	refusedSent    time.Time // when the 429 that last dropped it was sent
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
		turn:    make(chan struct{}, 1),
		probe:   probe{floor: max(probeFloor, int(cfg.RateLimit))},
		probing: true,
	}
}

// expect adds requests to those the client's reads expect to send (see
// probe.risk).
func (b *budget) expect(requests int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probe.expected += requests
}

// admit holds a request back until the budget lets it go, before the
// request is built: the caller starts the attempt's request_timeout on the
// context admit returns, so that the timeout counts the time on the wire,
// not the time spent waiting for the store's rate limit (the caller's own
// context bounds that wait). budgetTransport sends a request whose context
// carries an admission at once, and waits itself for any other (a
// redirect's).
func (b *budget) admit(ctx context.Context) (context.Context, error) {
	sent, err := b.wait(ctx, true)
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
// sent then. It returns the time it was let go. probed says whether the
// room in the store's window (windowRoom) may hold it back too: a resource
// request's. A token request only counts in that window: it comes before
// any other request (and again once an hour), and a retry of one that got
// no answer would otherwise wait for that answer's place in the window.
func (b *budget) wait(ctx context.Context, probed bool) (time.Time, error) {
	for {
		held, err := b.awaitWindow(ctx, probed)
		if err != nil {
			return time.Time{}, err
		}
		b.mu.Lock()
		pause := time.Until(b.pauseUntil)
		b.mu.Unlock()
		if err := sleep(ctx, pause); err != nil {
			b.release(held)
			return time.Time{}, err
		}
		if err := b.pace(ctx); err != nil {
			b.release(held)
			return time.Time{}, err
		}
		b.mu.Lock()
		now := time.Now()
		// A 429 may have paused the client while this request waited for
		// its turn: it waits for the pause too, at the back of the queue.
		if !now.Before(b.pauseUntil) {
			b.sent = append(trimWindow(b.sent, now, budgetWindow), now)
			b.removeRecent(held)
			b.recent = append(b.recent, now)
			b.probe.sentAll++
			b.mu.Unlock()
			return now, nil
		}
		b.mu.Unlock()
		b.release(held)
	}
}

// pace waits for the request's turn at the learned budget (limiter). One
// request at a time holds a turn: a turn is reserved at the budget of the
// moment and is not moved when the budget changes, so requests that all
// reserved one at a low pace (after an early 429, 2.7 requests/s) kept
// turns seconds ahead while the budget climbed to thousands a second, and
// a listing of 3,000 orders ran out of its time in 4 runs of 10. Held one
// at a time, a turn is at most one request's interval at the budget (a
// second at minBudget) behind a rise.
func (b *budget) pace(ctx context.Context) error {
	select {
	case b.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-b.turn }()
	r := b.limiter.Reserve()
	if err := sleep(ctx, r.Delay()); err != nil {
		r.Cancel()
		return err
	}
	return nil
}

// awaitWindow waits, a resource request (probed) in line behind those that
// came before it, until the store's window has room for one more request
// (windowRoom), and holds that room for it: it returns when it did, for
// wait to replace with when the request is let go, or to release. A
// token request (not probed) holds no room.
func (b *budget) awaitWindow(ctx context.Context, probed bool) (time.Time, error) {
	if !probed {
		return time.Time{}, nil
	}
	b.mu.Lock()
	return b.line.wait(ctx, &b.mu, b.takeRoomLocked, func(held time.Time) {
		b.removeRecent(held)
		b.grantLocked(time.Now())
	})
}

// takeRoomLocked holds room in the store's window for a request, if it
// has some; if not, it arms a timer to hand out the room its oldest request
// leaves. Caller holds the lock.
func (b *budget) takeRoomLocked(now time.Time) bool {
	if !b.windowRoom(now) {
		b.armLocked(now)
		return false
	}
	b.recent = append(b.recent, now)
	return true
}

// grantLocked hands the room the store's window has to the requests
// waiting for it, oldest first. Caller holds the lock.
func (b *budget) grantLocked(now time.Time) { b.line.grant(now, b.takeRoomLocked) }

// armLocked sets a timer to grant room when the oldest request in the
// window leaves it. Caller holds the lock.
func (b *budget) armLocked(now time.Time) {
	if len(b.recent) == 0 || b.timerArmed {
		return
	}
	b.timerArmed = true
	time.AfterFunc(b.recent[0].Add(budgetWindow+windowMargin).Sub(now), func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.timerArmed = false
		b.grantLocked(time.Now())
	})
}

// release gives back room held (or taken) at held in the store's window
// by a request that was not let go (or got no answer: unanswered).
func (b *budget) release(held time.Time) {
	if held.IsZero() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.removeRecent(held)
	b.grantLocked(time.Now())
}

// removeRecent takes one request sent (or held) at t out of recent.
// Caller holds the lock.
func (b *budget) removeRecent(t time.Time) {
	if i := slices.Index(b.recent, t); i >= 0 {
		b.recent = slices.Delete(b.recent, i, i+1)
	}
}

// windowRoom reports whether a resource request may leave now, by this
// client's requests the store's window may still hold: while the client
// probes, fewer than the probe allows; after the store's first 429, fewer
// than the learned budget allows over that span, so that requests sent at
// once before the 429 still count against it (the limiter spaces the
// requests it lets go, not those already out). Caller holds the lock.
func (b *budget) windowRoom(now time.Time) bool {
	b.recent = trimWindow(b.recent, now, budgetWindow+windowMargin)
	if b.probing {
		return len(b.recent) < b.probe.allowed()
	}
	return len(b.recent) < max(1, int(b.learned*(budgetWindow+windowMargin).Seconds()))
}

// The probe. Until the store first refuses a request, the client knows
// neither its limit (documented per second, and per store: 100 requests/s
// for a production store, 25 for a development one) nor how much of it the
// storefront and other pipelines take. It learns that only from a 429,
// which comes back a round trip after the request that found the store's
// window full, and every request sent in that round trip is refused too.
// So the probe lets a request leave only while this client's requests of
// the last window number fewer than probeFloor, or than shown + risk:
//
//   - shown is the most of this client's requests sent within one window
//     that the store has answered, and so accepted: a rate the store has
//     shown it takes;
//   - risk is what a full window may refuse: probeRisk of the requests the
//     client's reads expect to send (the count of a listing's first page
//     says how many pages it will read; Meter.Expect), and at least one.
//
// The requests of a window then grow by risk each round trip, and the
// store whose window fills refuses at most risk of them before its first
// 429 ends the probe and the learned budget takes over. That holds the
// promise of at most 5% of a read's requests answered 429 at any store,
// near or far. Before it (requests in flight from 8, growing once a
// window), a store of 25 requests/s 150 ms away answered 6 of 58 requests
// 429, and a production store 300 ms away took 15.6 s to read 205 pages,
// 7.6 times its pace (TestStoresRefuseFewRequests).
//
// probeFloor is the room the probe assumes every store has for this
// client: a development store (25 requests/s documented) whose storefront
// takes 5 of them. Up to it nothing is held back, so a read starts with
// that many requests at once at any store, and a small one far away is
// not held to a few at a time (without it, a read of 92 pages, whose
// first page counted at least 1,000 records, had at most 3 in flight).
//
// With rate_limit set, the user says how much of the store is theirs: up
// to it nothing is probed either.
//
// The price is the growth of a read past the floor, with at most risk
// more requests in flight than the store has shown it takes: a read of 100
// pages from a store 20 ms away with no limit took 640 ms, where 8 in
// flight took 365 (BenchmarkList), and a read of 94 pages from a
// production store 150 ms away 2.45 s, where 8 growing took 1.88. Under
// the promise it cannot be less: a store of 20 requests/s would refuse
// every request beyond the risk.
const (
	probeRisk  = 0.04
	probeFloor = 20
)

// windowMargin widens the window the budget counts the client's requests
// in (budget.recent) beyond the store's. The store counts a request when
// it arrives, which varies by some milliseconds against when it was sent:
// a burst of requests that leaves the client's window at once leaves the
// store's a little later, and without the margin the next burst, sent into
// the room the first left, met its tail (a store of 25 requests/s 300 ms
// away refused 18 of 70 requests).
const windowMargin = 25 * time.Millisecond

// probe is the budget's state before the store's first 429. The budget's
// lock guards it.
type probe struct {
	// floor is probeFloor, or rate_limit where it is higher: a store the
	// user says has room for that many requests a second is not probed
	// below it.
	floor int
	// answered holds, in order, when the requests answered in the last
	// two windows were sent; shown is the most of them a window held.
	answered []time.Time
	shown    int
	// expected is the requests the reads expect (budget.expect); sentAll
	// the requests sent so far.
	expected, sentAll int
}

// allowed is how many of this client's requests the store's window may
// hold.
func (p *probe) allowed() int { return max(p.floor, p.shown+p.risk()) }

// risk is how many requests beyond shown a window may hold.
func (p *probe) risk() int {
	return max(1, int(probeRisk*float64(max(p.expected, p.sentAll))))
}

// accepted counts an accepted answer to a request sent at sent, and
// reports whether it raised shown (so made room).
func (p *probe) accepted(sent, now time.Time) bool {
	p.answered = trimWindow(p.answered, now, 2*budgetWindow)
	i := len(p.answered)
	for i > 0 && p.answered[i-1].After(sent) {
		i--
	}
	p.answered = slices.Insert(p.answered, i, sent)
	most := 0
	for from, to := 0, 0; to < len(p.answered); to++ {
		for p.answered[to].Sub(p.answered[from]) >= budgetWindow {
			from++
		}
		most = max(most, to-from+1)
	}
	if most <= p.shown {
		return false
	}
	p.shown = most
	return true
}

// unanswered counts a request let go at sent that got no answer (a
// transport error, a timeout): it leaves the requests the store's window
// may hold (recent). Most such requests never reached it, and kept, one
// lost request at the start held every other back for a second.
func (b *budget) unanswered(sent time.Time) { b.release(sent) }

// observe feeds one answer into the budget: status is the HTTP status of a
// request that wait let go at sent.
func (b *budget) observe(ctx context.Context, sent time.Time, status int, retryAfter string) {
	if b.inFlight != nil {
		b.inFlight.observe(status == http.StatusTooManyRequests)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.sent = trimWindow(b.sent, now, budgetWindow)
	b.accepted = trimWindow(b.accepted, now, budgetWindow)
	switch {
	case b.probing && status == http.StatusTooManyRequests:
		b.probing = false
		defer b.grantLocked(now)
	case b.probing && b.probe.accepted(sent, now):
		b.grantLocked(now)
	}
	if status != http.StatusTooManyRequests {
		b.accepted = append(b.accepted, now)
		b.lastAccepted = now
		b.refusedInRow = 0
		if b.learned > 0 && sent.Before(b.refusedSent) && now.Sub(b.lastDecrease) < budgetWindow {
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
	if lowered {
		b.refusedSent = sent
	}
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
// request sent before the one whose 429 dropped it: it reached the store
// first, so the store accepted it in the window the drop measured, but its
// answer was still on its way then. Without it, a drop sets the budget by
// what happened to be answered first. A request sent after the refused one
// reached the store after it, in a later window: counted too, 18 answers
// of a burst sent in the round trip before a 429 300 ms away raised the
// budget of a store of 25 requests/s to 38/s, and 4 of the next requests
// were refused.
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
