package client

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// tokenShape hands the token endpoint's answer to the oauth2 package in the
// shape it reads. The vendor's guides and SDK show the token's fields at
// the top level of the body; its authentication OpenAPI spec shows the
// same fields inside a data object. A 2xx body with no access_token of its
// own but one inside data is passed on as that data object; every other
// answer is passed on as it came, and a body that has neither stays the
// error it is (oauth2: "server response missing access_token").
type tokenShape struct{ next http.RoundTripper }

// maxTokenBody bounds what the token endpoint's answer may make the client
// read: a token body is a few hundred bytes.
const maxTokenBody = 1 << 20

func (t tokenShape) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenBody))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if inner, ok := tokenInData(body); ok {
		body = inner
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// CloseIdleConnections passes http.Client.CloseIdleConnections on.
func (t tokenShape) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// tokenInData returns the data object of a token body that holds the
// access token there rather than at the top level.
func tokenInData(body []byte) ([]byte, bool) {
	var doc struct {
		AccessToken json.RawMessage `json:"access_token"`
		Data        json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &doc) != nil || doc.AccessToken != nil || len(doc.Data) == 0 || doc.Data[0] != '{' {
		return nil, false
	}
	var inner struct {
		AccessToken json.RawMessage `json:"access_token"`
	}
	if json.Unmarshal(doc.Data, &inner) != nil || inner.AccessToken == nil {
		return nil, false
	}
	return doc.Data, true
}
