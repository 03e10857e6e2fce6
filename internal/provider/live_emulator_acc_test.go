package provider

import (
	"flag"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccLiveSuiteOnEmulator runs the live suite as make testacc-live runs
// it, from the four variables, against the emulator, and holds it to
// reading only: every request that reached the emulator is a GET below the
// API, or the token endpoint's POST. It runs in make test, where the live
// suite itself has no store and skips, so that a change to the suite that
// would write to a store fails here first.
func TestAccLiveSuiteOnEmulator(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{
		Seed:           1,
		Aliases:        map[string]string{liveUncheckedPath: "customers"},
		RequestLogSize: 100000,
	})
	clearEnv(t)
	t.Setenv(envBaseURL, srv.URL())
	t.Setenv(envAuthURL, srv.URL())
	t.Setenv(envClientID, emulator.DefaultClientID)
	t.Setenv(envClientSecret, emulator.DefaultClientSecret)
	t.Setenv(envLiveRateLimit, "")
	runLiveSuite(t, liveStoreFromEnv(t))

	st := srv.Stats()
	if len(st.Requests) != st.TotalRequests {
		t.Fatalf("the emulator logged %d of %d requests: raise RequestLogSize, or some went unchecked", len(st.Requests), st.TotalRequests)
	}
	for _, r := range requestsBeyondReads(st.Requests) {
		t.Errorf("the live suite sent %s: it may send only GET requests to the API and POST %s", r, client.TokenPath)
	}
	// The suite reached every part of the emulator it is meant to: were
	// one of its steps to skip here, this test would prove less than it
	// says. A run of some of its subtests (-run 'TestAccLiveSuiteOnEmulator/lists')
	// reaches only their parts.
	if run := flag.Lookup("test.run"); run != nil && strings.Contains(run.Value.String(), "/") {
		t.Logf("-run %s picks subtests: not checking that every step reached the emulator", run.Value)
		return
	}
	for _, name := range []string{"orders", "files", "accounts", "customers", "hierarchies"} {
		if st.ListRequests[name] == 0 {
			t.Errorf("the live suite listed no %s", name)
		}
	}
	if st.GetRequests < 4 {
		t.Errorf("the live suite read %d records by id, want the four lookups", st.GetRequests)
	}
	if st.StatusCounts[http.StatusBadRequest] == 0 {
		t.Error("the service rejected no filter of the live suite")
	}
	if st.TokenRequests == 0 {
		t.Error("the live suite requested no token")
	}
}

// requestsBeyondReads lists the requests of log that are neither a GET
// below the API nor the token endpoint's POST, as "METHOD path".
func requestsBeyondReads(log []emulator.RequestLog) []string {
	var beyond []string
	for _, r := range log {
		api := strings.HasPrefix(r.Path, "/v2/") || strings.HasPrefix(r.Path, "/pcm/")
		read := r.Method == http.MethodGet && api
		token := r.Method == http.MethodPost && r.Path == client.TokenPath
		if !read && !token {
			beyond = append(beyond, fmt.Sprintf("%s %s", r.Method, r.Path))
		}
	}
	return beyond
}

func TestRequestsBeyondReads(t *testing.T) {
	log := []emulator.RequestLog{
		{Method: http.MethodGet, Path: "/v2/orders"},
		{Method: http.MethodGet, Path: "/pcm/hierarchies/h-1"},
		{Method: http.MethodPost, Path: client.TokenPath},
		{Method: http.MethodPost, Path: "/v2/orders"},
		{Method: http.MethodDelete, Path: "/v2/files/f-1"},
		{Method: http.MethodPut, Path: "/v2/accounts/a-1"},
		{Method: http.MethodPatch, Path: "/pcm/hierarchies/h-1"},
		{Method: http.MethodGet, Path: client.TokenPath},
		{Method: http.MethodGet, Path: "/v2"},
	}
	got := requestsBeyondReads(log)
	want := []string{"POST /v2/orders", "DELETE /v2/files/f-1", "PUT /v2/accounts/a-1", "PATCH /pcm/hierarchies/h-1", "GET " + client.TokenPath, "GET /v2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requestsBeyondReads:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The suite's checks before it reads anything: it skips naming what is
// missing, refuses plain http to another machine, and takes its rate
// from the environment.
func TestReadLiveStore(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	complete := map[string]string{envBaseURL: "https://api.example.com", envClientID: "id", envClientSecret: "secret"}
	with := func(name, value string) map[string]string {
		vars := map[string]string{}
		for k, v := range complete {
			vars[k] = v
		}
		vars[name] = value
		return vars
	}
	cases := []struct {
		name    string
		vars    map[string]string
		missing string
		err     string
		rate    float64
	}{
		{name: "nothing set", vars: nil, missing: "COMMERCE_BASE_URL COMMERCE_CLIENT_ID COMMERCE_CLIENT_SECRET"},
		{name: "secret unset", vars: with(envClientSecret, ""), missing: "COMMERCE_CLIENT_SECRET"},
		{name: "complete", vars: complete, rate: defaultLiveRateLimit},
		{name: "auth_url given", vars: with(envAuthURL, "https://auth.example.com"), rate: defaultLiveRateLimit},
		{name: "plain http to a store", vars: with(envBaseURL, "http://api.example.com"), err: `COMMERCE_BASE_URL: "http://api.example.com" uses plain http`},
		{name: "plain http to the token endpoint", vars: with(envAuthURL, "http://auth.example.com"), err: `COMMERCE_AUTH_URL: "http://auth.example.com" uses plain http`},
		{name: "plain http to loopback", vars: with(envBaseURL, "http://127.0.0.1:8080"), rate: defaultLiveRateLimit},
		{name: "rate overridden", vars: with(envLiveRateLimit, "2.5"), rate: 2.5},
		{name: "rate not a number", vars: with(envLiveRateLimit, "fast"), err: `COMMERCE_LIVE_RATE_LIMIT="fast"`},
		{name: "rate zero", vars: with(envLiveRateLimit, "0"), err: "at least 0.01"},
		{name: "rate infinite", vars: with(envLiveRateLimit, "Inf"), err: "at least 0.01"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store, missing, err := readLiveStore(env(tc.vars))
			if got := strings.Join(missing, " "); got != tc.missing {
				t.Errorf("missing %q, want %q", got, tc.missing)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one saying %q", err, tc.err)
			}
			if store.rateLimit != tc.rate {
				t.Errorf("rate limit %g, want %g", store.rateLimit, tc.rate)
			}
		})
	}
}
