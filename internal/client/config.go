package client

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/logging"
)

// Defaults and bounds of the client's settings. The provider documents them.
const (
	// DefaultMaxParallelRequests is the ceiling of requests in flight,
	// where the client starts (the budget's probe spares a store whose
	// limit it has not met). 32 holds a store of 100 requests/s 300 ms
	// away.
	DefaultMaxParallelRequests = 32
	DefaultMaxRetries          = 5
	DefaultRequestTimeout      = 60 * time.Second
	// TokenPath is the token endpoint below auth_url.
	TokenPath = "/oauth/access_token"
	// apiPrefix is the versioned prefix the service's resource paths carry
	// below base_url, which a base_url must therefore not end in.
	apiPrefix = "/v2"
)

// Config configures a Client. Zero values take the defaults above.
type Config struct {
	BaseURL      string // service address; resources live under BaseURL + /v2
	AuthURL      string // authorization address; empty means BaseURL
	ClientID     string
	ClientSecret string

	MaxParallelRequests int           // most requests in flight at once (see adaptiveLimit)
	RateLimit           float64       // requests per second ceiling; 0 = none
	MaxRetries          int           // retries after the first attempt; 0 = none (the provider defaults it)
	RequestTimeout      time.Duration // per attempt
	UserAgent           string
	Logger              logging.Logger

	// RetryWaitMin and RetryWaitMax bound the back-off between attempts;
	// zero takes 250ms and 30s. The provider leaves them at that; tests
	// shorten them.
	RetryWaitMin time.Duration
	RetryWaitMax time.Duration

	// budgetPatience is the budget's patience (budget.go); zero takes
	// DefaultThrottlePatience. Fixed for the provider; tests in this
	// package shorten it.
	budgetPatience time.Duration
}

// urlError describes why a configured URL is unusable; the provider turns
// it into a diagnostic on the attribute.
type urlError struct {
	Value  string
	Reason string
}

func (p *urlError) Error() string { return fmt.Sprintf("%q %s", p.Value, p.Reason) }

// NormalizeServiceURL checks a base_url or auth_url and returns it without a
// trailing slash. It must be absolute, carry no query, fragment or
// credentials, and use https unless its host is a loopback address (the local
// emulator): the client secret must never cross a network in clear text.
func NormalizeServiceURL(raw string) (string, error) {
	if strings.TrimSpace(raw) != raw {
		return "", &urlError{raw, "has leading or trailing white space"}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", &urlError{raw, "is not a valid URL: " + err.Error()}
	}
	if u.Scheme == "" || u.Host == "" {
		return "", &urlError{raw, `is not an absolute URL; write it with its scheme and host, e.g. "https://api.example.com"`}
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return "", &urlError{raw, "uses plain http to a host that is not loopback; use https so that credentials and tokens are encrypted (http is accepted only for 127.0.0.1, ::1 and localhost, e.g. the local emulator)"}
		}
	default:
		return "", &urlError{raw, fmt.Sprintf("has scheme %q; use https", u.Scheme)}
	}
	if u.User != nil {
		return "", &urlError{raw, "carries user information; put credentials in client_id and client_secret instead"}
	}
	if u.RawQuery != "" || u.ForceQuery {
		return "", &urlError{raw, "has a query string; remove everything from \"?\" on"}
	}
	if u.Fragment != "" {
		return "", &urlError{raw, "has a fragment; remove everything from \"#\" on"}
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	if strings.HasSuffix(path, apiPrefix) {
		return "", &urlError{raw, fmt.Sprintf("ends in %s; give the service address without it, the provider adds %s itself", apiPrefix, apiPrefix)}
	}
	if strings.HasSuffix(path, TokenPath) {
		return "", &urlError{raw, fmt.Sprintf("ends in %s; give the address without it, the provider adds %s itself", TokenPath, TokenPath)}
	}
	return u.Scheme + "://" + u.Host + path, nil
}

// IsLoopback reports whether a service URL (as NormalizeServiceURL
// returns it) names this machine only: the emulator's address, not a
// store's.
func IsLoopback(serviceURL string) bool {
	u, err := url.Parse(serviceURL)
	return err == nil && isLoopbackHost(u.Hostname())
}

// isLoopbackHost reports whether host names this machine only.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c Config) withDefaults() (Config, error) {
	base, err := NormalizeServiceURL(c.BaseURL)
	if err != nil {
		return c, fmt.Errorf("base_url: %w", err)
	}
	c.BaseURL = base
	if c.AuthURL == "" {
		c.AuthURL = base
	} else if c.AuthURL, err = NormalizeServiceURL(c.AuthURL); err != nil {
		return c, fmt.Errorf("auth_url: %w", err)
	}
	if c.ClientID == "" || c.ClientSecret == "" {
		return c, fmt.Errorf("client_id and client_secret are both required")
	}
	if c.MaxParallelRequests == 0 {
		c.MaxParallelRequests = DefaultMaxParallelRequests
	} else if c.MaxParallelRequests < 1 {
		return c, fmt.Errorf("max_parallel_requests %d must be at least 1", c.MaxParallelRequests)
	}
	if c.RateLimit < 0 {
		return c, fmt.Errorf("rate_limit %v must not be negative", c.RateLimit)
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.RetryWaitMin == 0 {
		c.RetryWaitMin = 250 * time.Millisecond
	}
	if c.RetryWaitMax == 0 {
		c.RetryWaitMax = 30 * time.Second
	}
	if c.UserAgent == "" {
		c.UserAgent = "terraform-provider-commerce/dev"
	}
	if c.Logger == nil {
		c.Logger = logging.Discard{}
	}
	return c, nil
}
