// Package client is the commerce service's API client: OAuth2 client
// credentials, HTTP with retries and rate limiting, the service's JSON:API
// error bodies, and one pagination engine that lists whole result sets, also
// past the service's 10,000-record offset limit.
//
// It knows nothing about Terraform: the provider maps its types to schemas
// and its errors to diagnostics. Logging goes through the Logger interface so
// that the provider can route it to terraform-plugin-log.
package client
