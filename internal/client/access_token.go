package client

import (
	"context"
	"fmt"
	"time"
)

// AccessToken is the client's access token, handed out for use outside the
// client: by tools that call the service beside the provider.
type AccessToken struct {
	Value  string
	Type   string    // as the service names it: "Bearer"
	Expiry time.Time // zero: the service gave no lifetime
}

// TokenLifetimeError says that the service issues tokens with less
// lifetime than a caller asked for, so no new token would do either.
type TokenLifetimeError struct {
	Asked    time.Duration // the lifetime asked for
	Lifetime time.Duration // what a token the service just issued had left
}

func (e *TokenLifetimeError) Error() string {
	return fmt.Sprintf("the service issued an access token valid for %s, less than the %s asked for; ask for at most %s",
		e.Lifetime.Round(time.Second), e.Asked, e.Lifetime.Truncate(time.Minute))
}

// AccessToken returns the client's cached access token if it stays valid
// for at least minLifetime, else a new one, which the client's own
// requests then use too: one token request serves both while the token is
// fresh. Its errors are those of every token request (*AuthError), or a
// *TokenLifetimeError.
func (c *Client) AccessToken(ctx context.Context, minLifetime time.Duration) (AccessToken, error) {
	t, _, err := c.tokens.tokenFor(ctx, minLifetime)
	if err != nil {
		return AccessToken{}, err
	}
	// A token just fetched is handed out whatever its lifetime; one with
	// less than asked for says the service issues no longer ones.
	if left := time.Until(t.Expiry); !t.Expiry.IsZero() && left < minLifetime {
		return AccessToken{}, &TokenLifetimeError{Asked: minLifetime, Lifetime: left}
	}
	return t, nil
}
