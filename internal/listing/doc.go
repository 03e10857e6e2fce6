// Package listing is the listing engine: it lists the whole result set of
// a list endpoint, also past the service's 10,000-record offset limit, in
// the order asked, each record once, and looks single records up.
//
// It knows windows, sorts and ties, not HTTP: it reaches the service
// through a Getter (internal/client's Client in the provider, fakes in its
// tests) and reads bodies with internal/commerce. A list ends where a page
// comes back short, never where the service's count says: a count
// (commerce.Count) may be exact, a lower bound, an estimate or absent, and
// only sizes the requests.
//
// Each file uses names and methods of the files below it only
// (layering_test.go at the module's root holds it to that), so the package
// reads bottom up:
//
//   - query.go, engine.go: the values a read passes around (what it
//     asks, the Listing Plan makes of it, which a run reads); the Engine,
//     its errors, the room the service's limits leave in a filter, and the
//     sort key (its keyset filters, and the provider's own sort by it);
//   - requests.go: one page request, the workers that send the page
//     requests (the scheduler: first and last pages before the rest), and
//     a request sent again beside itself where it stalls (hedged);
//   - windowcheck.go: the checks that a window held still and that its
//     records are in the order asked;
//   - pager.go: the pager, which reads windows and nothing else: which
//     pages to request and when, how many go out ahead, which goroutine
//     runs what, and what is handed out;
//   - listing.go: one listing as its strategies share it, where a
//     strategy's records go (each once), and a strategy's pass over it
//     (walk);
//   - the strategies, one file each, each using only those above it in
//     this list: idcut.go (ranges of id, each held by one answer, where no
//     range attribute cuts a listing or a tie group the service cannot
//     sort), rangecut.go (offset pages in
//     the service's own order, cut into ranges above the offset limit),
//     keyset.go (keyset windows, and the tie groups they cannot split,
//     listed by id or by the cuts), providersort.go (every record, then
//     sorted here), catchup.go (the records sort -updated_at moved behind
//     the position read);
//   - plan.go: one read planned once (Plan: the sort, a long in() in
//     parts), what its readers need of it together, the listing read in
//     full (Listing.Read), and the choice of the strategy that lists it;
//   - source.go: what the cache's refresh asks of a listing besides:
//     a count, a first page, ranges read whole (refresh.Source);
//   - probe.go, lookup.go: endpoints the capability table does not know,
//     and one record by id.
//
// Sharing a listing between reads and serving it from the cache are
// around the engine, in internal/reads: the engine knows neither.
//
// One Engine serves every data source of a provider configuration and
// remembers what it learned of the endpoints while it lives.
package listing
