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
// Each file uses names of the files below it only (layering_test.go at
// the module's root holds it to that), so the package reads bottom up:
//
//   - query.go, engine.go, errors.go, sortkey.go, filterlimits.go: the
//     values a read passes around, the Engine, the errors, the sort key
//     (and the provider's own sort by it), the service's filter limits;
//   - pager.go: the pager, which reads windows and nothing else: page
//     requests, how many go out ahead, which goroutine runs what, and the
//     checks that a window held still;
//   - sink.go: where one strategy's records go, each once;
//   - listing.go: one listing as its strategies share it, and a strategy's
//     pass over it (walk);
//   - the strategies, one file each: rangecut.go (offset pages in the
//     service's own order, cut into ranges above the offset limit),
//     keyset.go (keyset windows and the tie groups they cannot split),
//     providersort.go (every record, then sorted here), catchup.go (the
//     records sort -updated_at moved behind the position read);
//   - list.go: the planner, which picks the strategy of one listing;
//   - split.go, plan.go: a long in() in parts, and one read planned once;
//   - cached.go, share.go, read.go: the cache between runs, reads that
//     share one listing, and Read, the one call a data source's read makes;
//   - probe.go, lookup.go: endpoints the capability table does not know,
//     and one record by id.
//
// One Engine serves every data source of a provider configuration and
// remembers what it learned of the endpoints while it lives.
package listing
