// Package commerce is the service's model, as its API reference documents
// it: the list endpoints and what each can sort and filter by (the
// capability table, the service's limits on list requests, and how two
// filter terms on one attribute merge: endpoints.go), the records and
// their wire forms (records.go), decoding with care (lenient.go), records
// of any endpoint (generic.go), and list and record bodies checked against
// the contract (listbody.go, recordbody.go).
//
// It sends nothing: the transport (internal/client) does, and the listing
// engine (internal/listing) decides what to ask for.
package commerce
