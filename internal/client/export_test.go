package client

// What the tests read of a Client and a Kind, which production code has no
// use for.

// MaxParallelRequests is the configured ceiling of requests in flight.
func (c *Client) MaxParallelRequests() int { return c.cfg.MaxParallelRequests }

// TokenFetches counts the access tokens obtained so far: the newest token's
// generation.
func (c *Client) TokenFetches() int { return c.tokens.Newest() }

// Requests counts the resource requests sent so far (retries included).
func (c *Client) Requests() int64 { return c.requests.Load() }

// decode decodes one record's JSON, leaving out the notes.
func (k Kind[T]) decode(raw []byte, keepRaw bool) (T, error) {
	return k.decodeRecord(raw, keepRaw, nil)
}
