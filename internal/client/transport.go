package client

import "net/http"

// The RoundTrippers every request of a Client goes through, outermost
// first: userAgent names the provider; budgetTransport (budget.go) holds
// the request back until the store's rate budget lets it go and feeds the
// answer back into the budget; then the connection.

type userAgent struct {
	value string
	next  http.RoundTripper
}

func (u userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.value)
	return u.next.RoundTrip(r)
}

// CloseIdleConnections passes http.Client.CloseIdleConnections on to the
// transport, which the wrapper would otherwise hide.
func (u userAgent) CloseIdleConnections() {
	if c, ok := u.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// budgetTransport puts every request of a Client, the token request
// included, under its budget, and feeds every answer back into it.
type budgetTransport struct {
	budget *budget
	next   http.RoundTripper
}

func (t budgetTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	sent, err := t.budget.wait(r.Context())
	if err != nil {
		if r.Body != nil {
			r.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, err
	}
	resp, err := t.next.RoundTrip(r)
	if err == nil {
		t.budget.observe(r.Context(), sent, resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	return resp, err
}

// CloseIdleConnections passes http.Client.CloseIdleConnections on.
func (t budgetTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
