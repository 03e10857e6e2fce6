package client

// What the tests read of a Client, which production code has no use for.

// TokenFetches counts the access tokens obtained so far: the newest token's
// generation.
func (c *Client) TokenFetches() int { return c.tokens.Newest() }

// Requests counts the resource requests sent so far (retries included).
func (c *Client) Requests() int64 { return c.requests.Load() }
