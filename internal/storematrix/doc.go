// Package storematrix holds the store matrix: one property test that draws
// stores combining every behaviour the emulator can show, and reads of
// them, and holds each read to the provider's promise.
//
// The stores: sizes; counting methods, exact honoured or not; ties in a
// stable or varying order, file_size ties up to past the offset limit;
// writes during the read; tokens that die young and a token endpoint that
// fails; 429s (also from a limit that counts refused requests or says when
// to come back), 5xx and a proxy's HTML page, stalls, slow answers, cut
// bodies; latency and rate limits; endpoints that cannot sort or ignore
// sort=, and one the capability table does not know (probed, as
// commerce_list does); the flat record form and errors' status as a
// string; and between plans another way of counting or of answering
// sort=.
//
// The reads: filters, in() lists long enough to be split, where items with
// values that need quoting, every sort, max_results, page sizes, a
// consistency buffer, max_parallel_requests and rate_limit, lookups (also
// of records deleted during the read), the cache across a history of
// plans, and reads sharing a listing, beside reads of the same filter in
// another order that share another.
//
// The promise: every record present from the read's start to its end is
// listed once (but those the buffer leaves out), nothing that never existed
// is, in the order asked, with the total as documented (the count past
// max_results where the store counts exactly when asked); or the read
// fails for a reason no client could overcome, which the test names.
//
// It sits above internal/reads, the layer the provider's data sources
// call, with a real transport to a real emulator: what it checks is what
// a data source hands Terraform. The package has no code but its tests.
package storematrix
