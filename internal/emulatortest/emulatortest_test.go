package emulatortest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

func TestStartServesUntilCleanup(t *testing.T) {
	var url string
	t.Run("test", func(t *testing.T) {
		srv := Start(t, emulator.Options{Orders: 1, Files: -1, Accounts: -1})
		url = srv.URL()
		if !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("URL() = %q, want a 127.0.0.1 address", url)
		}
		resp, err := http.Get(url + "/v2/orders")
		if err != nil {
			t.Fatalf("emulator not serving: %v", err)
		}
		_ = resp.Body.Close()
		// Without a token the emulator answers 401: an answer at all is
		// what this checks.
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET /v2/orders without a token: status %d, want 401", resp.StatusCode)
		}
	})
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := hc.Get(url + "/v2/orders"); err == nil {
		_ = resp.Body.Close()
		t.Errorf("emulator still serving after the test that started it ended (status %d)", resp.StatusCode)
	}
}
