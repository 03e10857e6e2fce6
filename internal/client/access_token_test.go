package client

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// One token request serves the listings and the access token handed out,
// while the cached token has the lifetime asked for; a token with less
// left is replaced, and the listings go on with the new one.
func TestAccessTokenSharesTheCache(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 50})
	c := newClient(t, srv)
	ctx := context.Background()
	if _, _, err := listIDs(t, c, commerce.Accounts, ListQuery{}); err != nil {
		t.Fatal(err)
	}
	tok, err := c.AccessToken(ctx, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if c.TokenFetches() != 1 {
		t.Fatalf("%d token requests, want the listing's one", c.TokenFetches())
	}
	issued := srv.IssuedTokens()
	if tok.Value == "" || !slices.Contains(issued, tok.Value) || tok.Type != "Bearer" {
		t.Fatalf("token %q of type %q is not one the service issued", tok.Value[:min(len(tok.Value), 6)], tok.Type)
	}
	if left := time.Until(tok.Expiry); left < 59*time.Minute || left > time.Hour {
		t.Errorf("expires in %s, want about an hour", left)
	}
	// The emulator's tokens live an hour: asking for 59m30s of a token
	// that has had some seconds of use replaces it.
	time.Sleep(time.Second)
	fresh, err := c.AccessToken(ctx, time.Hour-500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Value == tok.Value || c.TokenFetches() != 2 {
		t.Fatalf("a token with less than the lifetime asked for was handed out again (%d token requests)", c.TokenFetches())
	}
	if _, _, err := listIDs(t, c, commerce.Accounts, ListQuery{}); err != nil || c.TokenFetches() != 2 {
		t.Fatalf("the listing after it fetched its own token (%d requests): %v", c.TokenFetches(), err)
	}
}

func TestAccessTokenLongerThanTheServiceGives(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5, TokenLifetime: 5 * time.Minute})
	c := newClient(t, srv)
	_, err := c.AccessToken(context.Background(), 10*time.Minute)
	var short *TokenLifetimeError
	if !errors.As(err, &short) || short.Asked != 10*time.Minute || short.Lifetime > 5*time.Minute || short.Lifetime < 4*time.Minute {
		t.Fatalf("err = %v, want a TokenLifetimeError", err)
	}
	if c.TokenFetches() != 1 {
		t.Errorf("%d token requests, want 1", c.TokenFetches())
	}
}

func TestAccessTokenRefused(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5})
	c := newClient(t, srv, func(cfg *testConfig) { cfg.ClientSecret = "wrong" })
	_, err := c.AccessToken(context.Background(), time.Minute)
	var authErr *AuthError
	if !errors.As(err, &authErr) || !authErr.CredentialsRefused() {
		t.Fatalf("err = %v, want the credentials refused", err)
	}
}
