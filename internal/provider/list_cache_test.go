package provider

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/cache"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// plan reads dataSource as one plan does: a new provider process, with
// the cache folder dir ("" for none). It returns the state and the list
// requests the store received.
func plan(t *testing.T, srv *emulator.Server, dir, resource, dataSource string, set map[string]tftypes.Value) ([]byte, int) {
	t.Helper()
	var extra map[string]tftypes.Value
	if dir != "" {
		extra = map[string]tftypes.Value{"cache_dir": tftypes.NewValue(tftypes.String, dir)}
	}
	p := serveConfigured(t, srv, NewServer("test"), extra)
	before := srv.Stats().ListRequests[resource]
	state := p.readState(t, dataSource, set)
	return state, srv.Stats().ListRequests[resource] - before
}

// checkCachedPlan plans through the cache, then without it, and fails
// unless both give the same state byte for byte (ids, order, every
// attribute, total). It returns the cached plan's list requests.
func checkCachedPlan(t *testing.T, srv *emulator.Server, dir, resource, dataSource string, set map[string]tftypes.Value) int {
	t.Helper()
	cached, requests := plan(t, srv, dir, resource, dataSource, set)
	full, _ := plan(t, srv, "", resource, dataSource, set)
	if !bytes.Equal(cached, full) {
		t.Fatalf("the plan through the cache gave another state than a full read (%d and %d bytes)", len(cached), len(full))
	}
	return requests
}

func TestCacheSecondPlanOfAnUnchangedStore(t *testing.T) {
	n := 60000
	if testing.Short() {
		n = 6000
	}
	srv := emulatortest.Start(t, emulator.Options{Orders: n})
	dir := filepath.Join(t.TempDir(), "cache")
	_, first := plan(t, srv, dir, "orders", "commerce_orders", nil)
	second := checkCachedPlan(t, srv, dir, "orders", "commerce_orders", nil)
	t.Logf("%d orders: first plan %d list requests, second %d", n, first, second)
	if second > 5 {
		t.Errorf("the second plan of an unchanged store sent %d list requests, want at most 5", second)
	}
}

func TestCachePlanAfterCreatesAndUpdates(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	srv := emulatortest.Start(t, emulator.Options{Accounts: n})
	dir := filepath.Join(t.TempDir(), "cache")
	_, first := plan(t, srv, dir, "accounts", "commerce_accounts", nil)
	ids := expected(t, srv, "accounts", "", "created_at")
	for i := range 30 {
		if err := srv.Update("accounts", ids[i*(len(ids)/30)]); err != nil {
			t.Fatal(err)
		}
	}
	for range 25 {
		if _, err := srv.Insert("accounts"); err != nil {
			t.Fatal(err)
		}
	}
	second := checkCachedPlan(t, srv, dir, "accounts", "commerce_accounts", nil)
	t.Logf("%d accounts: first plan %d list requests; after 25 creates and 30 updates, %d", n, first, second)
	if second > 8 {
		t.Errorf("%d list requests after 25 creates and 30 updates, want at most 8", second)
	}
}

// The cache folder holds no record's id or value in clear text, nor the
// store's address or the client's id.
func TestCacheFolderHoldsNothingInClearText(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 400, Orders: 400})
	dir := filepath.Join(t.TempDir(), "cache")
	plan(t, srv, dir, "accounts", "commerce_accounts", nil)
	plan(t, srv, dir, "orders", "commerce_orders", map[string]tftypes.Value{"include_json": tftypes.NewValue(tftypes.Bool, true)})
	plan(t, srv, dir, "accounts", "commerce_accounts", nil) // a refresh writes the entry again
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 2 {
		t.Fatalf("%d files in the cache folder (%v), want 2", len(files), err)
	}
	var needles []string
	for _, a := range srv.Accounts() {
		needles = append(needles, a.ID, a.Name, a.ExternalRef)
	}
	for _, o := range srv.Orders() {
		needles = append(needles, o.ID, o.CustomerEmail)
	}
	needles = append(needles, strings.TrimPrefix(srv.URL(), "http://"), emulator.DefaultClientID, "accounts", "orders", "created_at")
	for _, f := range files {
		body, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, needle := range needles {
			if len(needle) < 4 {
				continue
			}
			if bytes.Contains(body, []byte(needle)) || strings.Contains(f.Name(), needle) {
				t.Fatalf("%q appears in clear text in the cache folder (%s)", needle, f.Name())
			}
		}
	}
}

// A damaged entry, or one another secret wrote, is not used: the plan
// reads in full, and its state is exact.
func TestCacheDamagedEntriesReadInFull(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 2000})
	other, err := cache.Open(filepath.Join(t.TempDir(), "other"), "another secret", cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save("any", bytes.Repeat([]byte("x"), 4096)); err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func(entry []byte) []byte{
		"truncated":           func(b []byte) []byte { return b[:len(b)/3] },
		"tampered":            func(b []byte) []byte { c := bytes.Clone(b); c[len(c)-40] ^= 0x20; return c },
		"from another secret": func([]byte) []byte { return fileOf(t, other) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			_, full := plan(t, srv, dir, "accounts", "commerce_accounts", nil)
			entry := onlyFile(t, dir)
			body, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(entry, damage(body), 0o600); err != nil {
				t.Fatal(err)
			}
			requests := checkCachedPlan(t, srv, dir, "accounts", "commerce_accounts", nil)
			if requests != full {
				t.Errorf("%d list requests, want a full read's %d", requests, full)
			}
		})
	}
}

func onlyFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("%d files in %s (%v), want 1", len(files), dir, err)
	}
	return filepath.Join(dir, files[0].Name())
}

// fileOf is the one entry file of the store s wrote (see cache.Store's
// String for its folder).
func fileOf(t *testing.T, s *cache.Store) []byte {
	t.Helper()
	body, err := os.ReadFile(onlyFile(t, strings.TrimPrefix(s.String(), "cache folder ")))
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// Every way a read is served is in the log at INFO: why it read in full,
// and on the end-of-listing line how it was served and what it cost.
func TestCacheSaysHowEachReadWasServed(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 500})
	dir := filepath.Join(t.TempDir(), "cache")
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	provider := map[string]tftypes.Value{
		"base_url": str(srv.URL()), "client_id": str(emulator.DefaultClientID),
		"client_secret": str(emulator.DefaultClientSecret), "cache_dir": str(dir),
	}
	steps := []struct {
		before func()
		want   []string
	}{
		{nil, []string{`"@level":"info","@message":"cache: reading in full"`, `"reason":"no cache entry for this query"`, `"cache":"full read"`}},
		{nil, []string{`"cache":"refreshed"`, `"changed":`, `"removed":0`, `"requests":2`}},
		{func() {
			entry := onlyFile(t, dir)
			if err := os.WriteFile(entry, []byte("CPCE1 not an entry"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{`"@message":"cache: entry not used, reading in full"`, `does not decrypt with this client secret's key`, `"cache":"full read"`,
			// The end-of-listing line names the real reason, not a missing entry.
			`"cache_reason":"cache entry not usable: the entry does not decrypt`}},
	}
	for i, step := range steps {
		if step.before != nil {
			step.before()
		}
		diags, logs := readWith(t, provider)
		for _, d := range diags {
			t.Fatalf("read %d: %s: %s", i+1, d.Summary, d.Detail)
		}
		for _, want := range step.want {
			if !strings.Contains(logs, want) {
				t.Errorf("read %d: the log lacks %s:\n%s", i+1, want, grepLines(logs, "cache"))
			}
		}
	}
}

// grepLines are the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
