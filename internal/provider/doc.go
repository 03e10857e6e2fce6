// Package provider maps the commerce service onto Terraform: schemas,
// plan-time validation, one call into the listing engine per read, and
// diagnostics.
//
// Every data source that reads records, lists and lookups alike, is read
// by the protocol server, not by its Read: NewServer (server.go) answers
// ReadDataSource itself, with the state internal/liststate writes as
// msgpack while the engine hands the records over (list_read.go). Their
// Read methods are an adapter over the same path (readThroughDirect), for
// whoever serves the provider through providerserver alone. Everything
// else (schemas, validation, configuration, commerce_store, which reads
// one small object and sets its state with the framework, and the
// ephemeral commerce_access_token) is the framework's.
//
// A list read, from the top:
//
//	server.go         ReadDataSource of a list data source
//	list_read.go      its inputs and timeout (openListRead), what it lists
//	                  (the data source's target), then readList: the query
//	                  handed to reads.Read once, and the state written by a
//	                  liststate.Collector, within its ceiling
//	list_inputs.go    the inputs' model, the filter and where items checked
//	                  against the endpoint, and the query they make
//	configured_store.go  the store a read lists from: the transport, the
//	                  engine and the reads around it, and the cache
//	diagnostics.go    the engine's and the transport's errors, in the
//	                  service's words and with a fix, and a state too large
//	cost_warnings.go  what a read cost that its configuration does not
//	                  show (a long in() split over several requests,
//	                  max_results that could not stop it early, a large
//	                  include_json state)
//	text.go           numbers and names as messages write them
//
// configured_store.go builds the transport (internal/client), the engine
// (internal/listing) on it and the reads around the engine
// (internal/reads), which it gives the cache folder (internal/cache);
// config.go is the provider block's model
// and its environment variables. The package knows no HTTP: depguard keeps it
// from net/http, and it maps the typed errors of the layers below.
package provider
