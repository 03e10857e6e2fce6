// Package client is the transport to the commerce service: OAuth2 client
// credentials and the access token, HTTP with retries, the request budget
// learned from the store's 429s, the requests in flight, and the service's
// JSON:API error bodies. Its one way in is Client.Get: a path and a query
// go out, the answer's body goes to a decode function.
//
// It knows nothing of records, windows or sorts (internal/commerce and
// internal/listing do), nor of Terraform: the provider maps its errors to
// diagnostics. Logging goes through internal/logging's Logger, which the
// provider routes to terraform-plugin-log.
//
// Each file uses names and methods of the files below it only
// (layering_test.go at the module's root holds it to that), so the package
// reads bottom up:
//
//   - errors.go, config.go: the errors a caller maps, and the Config;
//   - inflight.go: the line requests wait in for room, first come first
//     served, and the cap on requests in flight: halved by a 429, and
//     lowered while tokens die young;
//   - budget.go: when a request may go: the probe of a store's limit
//     before its first 429, the rate budget learned from its 429s, and the
//     waits;
//   - retry.go: the one retry loop every request goes through, what it
//     needs of the access tokens (tokenLedger), and what a read's requests
//     cost (tally, ReadCost);
//   - auth.go: the access token, fetched through the retry loop;
//   - client.go: the Client, its one way in (Get), a read's Meter, and the
//     RoundTrippers every request passes.
package client
