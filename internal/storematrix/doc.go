// Package storematrix holds the store matrix: one property test that
// draws stores combining every behaviour the emulator can show (sizes,
// counting methods, ties in a stable or varying order, writes during the
// read, tokens that die young, a token endpoint that fails, 429s (also
// from a limit that counts refused requests or says when to come back),
// 5xx and a proxy's HTML page, stalls, slow answers, cut bodies, latency,
// rate limits, endpoints that cannot sort or ignore sort=, an endpoint
// the capability table does not know (probed, as commerce_list does),
// file_size ties up to past the offset limit, the flat record form,
// errors' status as a string, and between plans another way of counting
// or of answering sort=) and reads of them (filters, in() lists long enough to be split,
// where items with values that need quoting, every sort, max_results,
// page sizes, a consistency buffer, max_parallel_requests and rate_limit,
// lookups, also of records deleted
// during the read, the cache across a history of plans, reads sharing a
// listing), and checks each read against the provider's promise: every
// record present from the read's start to its end is listed once (but
// those the buffer leaves out), nothing that never existed is, in the
// order asked, with the total as documented (the count past max_results
// where the store counts exactly when asked); or the read fails for a
// reason no client could overcome, which the test names.
//
// It sits above internal/reads, the layer the provider's data sources
// call, with a real transport to a real emulator: what it checks is what
// a data source hands Terraform. The package has no code but its tests.
package storematrix
