package emulator

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// tokenStore holds the issued access tokens, their expiry and use counts.
type tokenStore struct {
	mu     sync.Mutex
	tokens map[string]*tokenState
	issued int
	// maxUses is how many resource requests a token is accepted for; 0 is
	// unlimited. Read on every check, so that a change applies at once.
	maxUses atomic.Int64
}

type tokenState struct {
	expiry time.Time
	uses   int64
}

// issue creates a random opaque token valid for lifetime.
func (ts *tokenStore) issue(now time.Time, lifetime time.Duration) (string, time.Time) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		panic(err) // crypto/rand.Read does not fail on supported platforms
	}
	tok := base64.RawURLEncoding.EncodeToString(raw[:])
	exp := now.Add(lifetime)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.tokens == nil {
		ts.tokens = make(map[string]*tokenState)
	}
	// Forget tokens that expired long ago, so that many test runs against
	// one server do not grow the map without bound. A forgotten token is
	// reported as invalid rather than expired.
	if len(ts.tokens) >= 4096 {
		for t, st := range ts.tokens {
			if now.Sub(st.expiry) > time.Hour {
				delete(ts.tokens, t)
			}
		}
	}
	ts.tokens[tok] = &tokenState{expiry: exp}
	ts.issued++
	return tok, exp
}

// check counts one resource request with tok and reports whether tok is
// known, whether it has expired, and whether it is used up (revoked after
// maxUses requests).
func (ts *tokenStore) check(tok string, now time.Time) (known, expired, usedUp bool) {
	limit := ts.maxUses.Load()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	st, ok := ts.tokens[tok]
	if !ok {
		return false, false, false
	}
	st.uses++
	return true, !now.Before(st.expiry), limit > 0 && st.uses > limit
}

// issuedCount is the number of tokens issued since the server started.
func (ts *tokenStore) issuedCount() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.issued
}

// all returns every token the store remembers.
func (ts *tokenStore) all() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]string, 0, len(ts.tokens))
	for t := range ts.tokens {
		out = append(out, t)
	}
	return out
}

// expireAll makes every issued token expired.
func (ts *tokenStore) expireAll(now time.Time) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, st := range ts.tokens {
		if st.expiry.After(now) {
			st.expiry = now
		}
	}
}

const maxTokenBody = 64 << 10

// tokenFields reads grant_type, client_id and client_secret from the body:
// form data (application/x-www-form-urlencoded or multipart/form-data) as
// documented, or a JSON object when the content type is application/json.
// The documented example sends form data with a JSON content type, so a
// JSON-typed body that is not a JSON object is read as form data.
func tokenFields(r *http.Request) (map[string]string, *apiError) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxTokenBody))
	if err != nil {
		return nil, &apiError{status: http.StatusBadRequest, detail: "The request body could not be read or is larger than 64 KiB."}
	}
	fields := map[string]string{}
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	trimmed := strings.TrimSpace(string(body))
	switch {
	case mediaType == "application/json" && strings.HasPrefix(trimmed, "{"):
		var obj map[string]any
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, &apiError{status: http.StatusBadRequest, detail: "The request body is not valid JSON: " + err.Error() + "."}
		}
		for _, name := range []string{"grant_type", "client_id", "client_secret"} {
			v, ok := obj[name]
			if !ok {
				continue
			}
			str, ok := v.(string)
			if !ok {
				return nil, &apiError{status: http.StatusBadRequest, detail: "The parameter " + strconv.Quote(name) + " must be a string."}
			}
			fields[name] = str
		}
	case mediaType == "multipart/form-data":
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		r.Header.Set("Content-Type", mime.FormatMediaType(mediaType, params))
		if err := r.ParseMultipartForm(maxTokenBody); err != nil {
			return nil, &apiError{status: http.StatusBadRequest, detail: "The multipart form data could not be parsed: " + err.Error() + "."}
		}
		for name, vs := range r.MultipartForm.Value {
			if len(vs) > 0 {
				fields[name] = vs[0]
			}
		}
	default:
		values, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, &apiError{status: http.StatusBadRequest, detail: "The form data could not be parsed: " + err.Error() + "."}
		}
		for name, vs := range values {
			fields[name] = vs[0]
		}
	}
	return fields, nil
}

// handleToken serves POST /oauth/access_token.
func (s *Server) handleToken(r *http.Request) *response {
	if r.Method != http.MethodPost {
		return s.errorResponse(&apiError{status: http.StatusMethodNotAllowed,
			detail: "The token endpoint only accepts POST.", header: [][2]string{{"Allow", "POST"}}})
	}
	s.stats.countToken()
	fields, aerr := tokenFields(r)
	if aerr != nil {
		return s.errorResponse(aerr)
	}
	for _, name := range []string{"grant_type", "client_id", "client_secret"} {
		if fields[name] == "" {
			return s.errorResponse(&apiError{status: http.StatusBadRequest,
				detail: "The request is missing the required parameter " + strconv.Quote(name) + ": send grant_type=client_credentials, client_id and client_secret as form data."})
		}
	}
	if gt := fields["grant_type"]; gt != "client_credentials" {
		return s.errorResponse(&apiError{status: http.StatusUnprocessableEntity,
			detail: "Unsupported grant_type " + strconv.Quote(gt) + ": only client_credentials is supported."})
	}
	idOK := subtle.ConstantTimeCompare([]byte(fields["client_id"]), []byte(s.opts.ClientID)) == 1
	secretOK := subtle.ConstantTimeCompare([]byte(fields["client_secret"]), []byte(s.opts.ClientSecret)) == 1
	if !idOK || !secretOK {
		return s.errorResponse(&apiError{status: http.StatusUnauthorized, detail: "The client credentials are invalid."})
	}
	lifetime := time.Duration(s.tokenLifetime.Load())
	now := time.Now()
	tok, exp := s.tokens.issue(now, lifetime)
	bp := getBuf()
	b := append(*bp, `{"access_token":`...)
	b = appendString(b, tok)
	b = append(b, `,"token_type":"Bearer","identifier":"client_credentials","expires_in":`...)
	b = strconv.AppendInt(b, int64(lifetime/time.Second), 10)
	b = append(b, `,"expires":`...)
	b = strconv.AppendInt(b, exp.Unix(), 10)
	b = append(b, '}')
	*bp = b
	return &response{status: http.StatusOK, buf: bp, header: [][2]string{{"Cache-Control", "no-store"}}}
}

// authenticate checks the bearer token of a resource request.
func (s *Server) authenticate(r *http.Request) *apiError {
	h := r.Header.Get("Authorization")
	scheme, tok, _ := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	unauthorized := func(detail, code string) *apiError {
		return &apiError{status: http.StatusUnauthorized, detail: detail,
			header: [][2]string{{"WWW-Authenticate", `Bearer realm="commerce-emulator", error="` + code + `"`}}}
	}
	switch {
	case h == "":
		return unauthorized("The request has no Authorization header: send Authorization: Bearer <access_token>, with a token from POST /oauth/access_token.", "invalid_request")
	case !strings.EqualFold(scheme, "Bearer") || tok == "":
		return unauthorized("The Authorization header must have the form Bearer <access_token>.", "invalid_request")
	}
	known, expired, usedUp := s.tokens.check(tok, time.Now())
	switch {
	case !known:
		return unauthorized("The access token is invalid: it was not issued by this service. Request a new token.", "invalid_token")
	case expired:
		return unauthorized("The access token has expired. Request a new token.", "invalid_token")
	case usedUp:
		return unauthorized("The access token has been revoked. Request a new token.", "invalid_token")
	}
	return nil
}

// TokensIssued returns the number of access tokens issued since the server
// started (Stats.TokenRequests also counts refused token requests).
func (s *Server) TokensIssued() int { return s.tokens.issuedCount() }
