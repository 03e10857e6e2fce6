// Package listing is the listing engine: it lists the whole result set of
// a list endpoint, also past the service's 10,000-record offset limit, in
// the order asked, each record once, and looks single records up.
//
// It knows windows, sorts and ties, not HTTP: it reaches the service
// through a Getter (internal/client's Client in the provider, fakes in its
// tests) and reads bodies with internal/commerce. Reading order, in the
// order a read goes:
//
//   - read.go: Read, the one call a data source's read makes: a Query
//     (what to list, and what the reader keeps) and a Reader (where the
//     records go);
//   - plan.go: the read planned once: the sort key, the filter within the
//     service's limits, a long in() split over several requests
//     (split.go);
//   - share.go: the reads that need one listing share it, whatever each
//     keeps, and each record goes to every reader that wants it;
//   - cached.go: through the cache, where the provider has one: a
//     snapshot refreshed by internal/refresh, or a full read that keeps
//     one;
//   - list.go: one filter's listing, and how it picks a strategy (and
//     switches once when the service does not sort as its capability row
//     says);
//   - walk.go and sink.go: a strategy's pass, and where its records go,
//     each once, up to the limit;
//   - window.go: one window read by offset pages in parallel, and who runs
//     what (the traversal goroutine and the scheduler's workers);
//   - keyset.go, tiegroup.go, rangecut.go, providersort.go, catchup.go:
//     the strategies, one file each;
//   - filterlimits.go: the service's limits on a request's filter, met
//     before a request is sent;
//   - probe.go: what an endpoint the capability table does not know can do.
//
// One Engine serves every data source of a provider configuration and
// remembers what it learned of the endpoints while it lives.
package listing
