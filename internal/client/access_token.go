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
	return c.tokens.lasting(ctx, minLifetime)
}

// lasting is AccessToken: the cached token if it has minLifetime left, else
// a new one.
func (m *tokenManager) lasting(ctx context.Context, minLifetime time.Duration) (AccessToken, error) {
	if t, ok := m.cachedFor(time.Now(), minLifetime); ok {
		return t, nil
	}
	failedBefore := m.failureCount()
	select {
	case m.fetching <- struct{}{}:
	case <-ctx.Done():
		return AccessToken{}, ctx.Err()
	}
	defer func() { <-m.fetching }()
	// Another request may have fetched one while this one waited, or failed
	// to for good.
	if t, ok := m.cachedFor(time.Now(), minLifetime); ok {
		return t, nil
	}
	if err := m.failureSince(failedBefore); err != nil {
		return AccessToken{}, err
	}
	if _, _, err := m.fetch(ctx); err != nil {
		return AccessToken{}, err
	}
	now := time.Now()
	t, ok := m.cachedFor(now, 0)
	switch {
	case !ok:
		return AccessToken{}, fmt.Errorf("the service issued an access token that expires at once (%s)", t.Expiry.Format(time.RFC3339))
	case !t.Expiry.IsZero() && t.Expiry.Sub(now) < minLifetime:
		return AccessToken{}, &TokenLifetimeError{Asked: minLifetime, Lifetime: t.Expiry.Sub(now)}
	}
	return t, nil
}

// cachedFor returns the cached token if it is not due for refresh and
// stays valid for at least minLifetime after now.
func (m *tokenManager) cachedFor(now time.Time, minLifetime time.Duration) (AccessToken, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := AccessToken{Value: m.token, Type: m.tokenType, Expiry: m.expiry}
	switch {
	case m.token == "", !m.refresh.IsZero() && !now.Before(m.refresh):
		return t, false
	case !m.expiry.IsZero() && m.expiry.Sub(now) < minLifetime:
		return t, false
	}
	return t, true
}
