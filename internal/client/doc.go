// Package client is the transport to the commerce service: OAuth2 client
// credentials and the access token, HTTP with retries, the request budget
// learned from the store's 429s, the requests in flight, and the service's
// JSON:API error bodies. Its one way in is Client.Get: a path and a query
// go out, the answer's body goes to a decode function.
//
// It knows nothing of records, windows or sorts (internal/commerce and
// internal/listing do), nor of Terraform: the provider maps its errors to
// diagnostics. Logging goes through the Logger interface so that the
// provider can route it to terraform-plugin-log.
package client
