package provider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// What a pipeline meets with its cache folder: a folder restored by a CI
// cache step, one that cannot be written, and one that would grow without
// end.

// configureCache configures the provider for srv with the cache folder dir
// and more attributes, returning it and Configure's diagnostics.
func configureCache(t *testing.T, srv *emulator.Server, dir string, more map[string]tftypes.Value) (*inProcess, []*tfprotov6.Diagnostic) {
	t.Helper()
	server, err := NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]tftypes.Value{
		"base_url":      tftypes.NewValue(tftypes.String, srv.URL()),
		"client_id":     tftypes.NewValue(tftypes.String, emulator.DefaultClientID),
		"client_secret": tftypes.NewValue(tftypes.String, emulator.DefaultClientSecret),
		"cache_dir":     tftypes.NewValue(tftypes.String, dir),
	}
	maps.Copy(set, more)
	cfg := dynamicValue(t, nullObject(schemas.Provider.ValueType(), set))
	resp, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "test", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return &inProcess{server: server, schemas: schemas}, resp.Diagnostics
}

// summaries are the diagnostics' severities and summaries, for messages.
func summaries(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		out = append(out, fmt.Sprintf("%s %q: %s", d.Severity, d.Summary, d.Detail))
	}
	return strings.Join(out, "; ")
}

// A folder others can only read (a plain mkdir, a CI cache step's restore)
// is used; one they can write is refused, naming the fix.
func TestCacheFolderModes(t *testing.T) {
	clearEnv(t)
	srv := emulatortest.Start(t, emulator.Options{Accounts: 300})
	readable := t.TempDir()
	writable := t.TempDir()
	for dir, mode := range map[string]os.FileMode{readable: 0o755, writable: 0o775} {
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
	p, diags := configureCache(t, srv, readable, nil)
	if len(diags) != 0 {
		t.Fatalf("a 0755 folder: %s, want it used", summaries(diags))
	}
	p.readState(t, "commerce_accounts", nil)
	if files, err := os.ReadDir(readable); err != nil || len(files) != 1 {
		t.Errorf("%d files in the 0755 folder after a read (%v), want its entry", len(files), err)
	}
	_, diags = configureCache(t, srv, writable, nil)
	if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError || diags[0].Summary != "Unsafe cache_dir" ||
		!strings.Contains(diags[0].Detail, "chmod go-w") {
		t.Fatalf("a 0775 folder: %s, want one error naming chmod go-w", summaries(diags))
	}
}

// A folder that cannot be used is one warning, at configuration, and the
// reads succeed without a cache.
func TestCacheFolderThatCannotBeUsed(t *testing.T) {
	clearEnv(t)
	srv := emulatortest.Start(t, emulator.Options{Accounts: 300})
	file := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, diags := configureCache(t, srv, file, nil)
	if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityWarning || diags[0].Summary != "Cache not used" ||
		!strings.Contains(diags[0].Detail, file) {
		t.Fatalf("a file as cache_dir: %s, want one warning naming it", summaries(diags))
	}
	if resp := p.readResponse(t, "commerce_accounts", nil); len(resp.Diagnostics) != 0 || resp.State == nil {
		t.Fatalf("the read: %s, want a state and no diagnostic", summaries(resp.Diagnostics))
	}
}

// When entries cannot be saved, the plan says so once, whatever the
// number of reads, naming the folder and the reason; every read succeeds.
func TestCacheThatCannotSaveWarnsOncePerPlan(t *testing.T) {
	clearEnv(t)
	srv := emulatortest.Start(t, emulator.Options{Accounts: 300, Orders: 300})
	dir := filepath.Join(t.TempDir(), "cache")
	p, diags := configureCache(t, srv, dir, nil)
	if len(diags) != 0 {
		t.Fatal(summaries(diags))
	}
	// The folder goes away under the provider, and a file takes its place.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var warnings []*tfprotov6.Diagnostic
	for _, ds := range []string{"commerce_accounts", "commerce_orders", "commerce_accounts"} {
		resp := p.readResponse(t, ds, nil)
		if resp.State == nil {
			t.Fatalf("%s: no state: %s", ds, summaries(resp.Diagnostics))
		}
		for _, d := range resp.Diagnostics {
			if d.Severity != tfprotov6.DiagnosticSeverityWarning {
				t.Fatalf("%s: %s", ds, summaries(resp.Diagnostics))
			}
			warnings = append(warnings, d)
		}
	}
	if len(warnings) != 1 || warnings[0].Summary != "Cache not kept" || !strings.Contains(warnings[0].Detail, dir) ||
		!strings.Contains(warnings[0].Detail, "not a directory") {
		t.Fatalf("three reads: %s, want one warning naming the folder and the reason", summaries(warnings))
	}
}

// A filter that changes every plan writes a new entry every plan: the
// folder stays within cache_max_mb, the entries used least recently
// going first, and a list larger than the bound is read, not cached.
func TestCacheBoundWithAFilterThatChangesEveryPlan(t *testing.T) {
	clearEnv(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 6000})
	dir := filepath.Join(t.TempDir(), "cache")
	bound := map[string]tftypes.Value{"cache_max_mb": tftypes.NewValue(tftypes.Number, 1)}
	total := func() (size int64, entries int) {
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			info, _ := f.Info()
			size += info.Size()
			entries++
		}
		return size, entries
	}
	var created []time.Time
	for _, o := range srv.Orders() {
		created = append(created, o.CreatedAt)
	}
	slices.SortFunc(created, time.Time.Compare)
	at := func(i int) string { return created[i].UTC().Format("2006-01-02T15:04:05.000Z") }
	for plan := range 12 {
		p, diags := configureCache(t, srv, dir, bound)
		if len(diags) != 0 {
			t.Fatal(summaries(diags))
		}
		// About 150 orders (200 KB) a plan, a window that moves every plan.
		filter := fmt.Sprintf("ge(created_at,%s):lt(created_at,%s)", at(plan*120), at(plan*120+150))
		p.readState(t, "commerce_orders", map[string]tftypes.Value{"filter": tftypes.NewValue(tftypes.String, filter)})
		size, entries := total()
		if size > 1<<20 {
			t.Fatalf("plan %d: the folder holds %d bytes in %d entries, over cache_max_mb = 1", plan+1, size, entries)
		}
		if plan == 11 {
			t.Logf("after 12 plans: %d entries, %d bytes", entries, size)
			if entries < 2 {
				t.Errorf("%d entries: the bound should keep the most recent few", entries)
			}
		}
	}
	// All 6,000 orders take more than 1 MiB: read, not cached.
	p, _ := configureCache(t, srv, dir, bound)
	before, _ := total()
	p.readState(t, "commerce_orders", nil)
	if after, _ := total(); after > before {
		t.Errorf("a list larger than the bound grew the folder from %d to %d bytes", before, after)
	}
}

// cache_max_mb's variable is checked as the attribute is.
func TestCacheMaxMBFromTheEnvironment(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 10})
	dir := filepath.Join(t.TempDir(), "cache")
	clearEnv(t)
	t.Setenv(envCacheMaxMB, "lots")
	_, diags := configureCache(t, srv, dir, nil)
	if len(diags) != 1 || diags[0].Summary != "Invalid cache_max_mb" || !strings.Contains(diags[0].Detail, envCacheMaxMB+`="lots"`) {
		t.Fatalf("%s=lots: %s, want one error naming the variable", envCacheMaxMB, summaries(diags))
	}
}

// A list larger than cache_max_mb is read and not cached, and the log
// says so at INFO.
func TestCacheListLargerThanTheBoundIsSaid(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 3000})
	dir := filepath.Join(t.TempDir(), "cache")
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	diags, logs := readWith(t, map[string]tftypes.Value{
		"base_url": str(srv.URL()), "client_id": str(emulator.DefaultClientID), "client_secret": str(emulator.DefaultClientSecret),
		"cache_dir": str(dir), "cache_max_mb": tftypes.NewValue(tftypes.Number, 1),
	})
	if len(diags) != 0 {
		t.Fatal(summaries(diags))
	}
	line := grepLines(logs, `"@message":"cache: not kept"`)
	if !strings.Contains(line, `"@level":"info"`) || !strings.Contains(line, "larger than the cache's size bound") || !strings.Contains(line, "cache_max_mb") {
		t.Errorf("the log lacks an INFO line naming the bound:\n%s", grepLines(logs, "cache"))
	}
	if files, err := os.ReadDir(dir); err != nil || len(files) != 0 {
		t.Errorf("%d files in the cache folder (%v), want none", len(files), err)
	}
}

// cache_dir = "~/…" is the home folder, as a shell reads it: no folder
// named "~" appears where Terraform runs. Another user's ~name is refused
// with the fix.
func TestCacheFolderUnderHome(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 1, Files: 1, Accounts: 5})
	clearEnv(t)
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Chdir(work)
	p, diags := configureCache(t, srv, "~/.cache/commerce", nil)
	if len(diags) != 0 {
		t.Fatalf("configure: %s", summaries(diags))
	}
	p.readState(t, "commerce_accounts", nil)
	if _, err := os.Stat(filepath.Join(work, "~")); !os.IsNotExist(err) {
		t.Errorf("a folder named ~ in the working folder: %v", err)
	}
	entries, err := os.ReadDir(filepath.Join(home, ".cache", "commerce"))
	if err != nil || len(entries) == 0 {
		t.Errorf("the cache folder under HOME holds %d entries (%v), want the listing's", len(entries), err)
	}
	_, diags = configureCache(t, srv, "~someone/cache", nil)
	if len(diags) != 1 || diags[0].Summary != "Invalid cache_dir" || !strings.Contains(diags[0].Detail, "write the folder's full path") {
		t.Errorf("~someone: %s; want an Invalid cache_dir that says to write the full path", summaries(diags))
	}
}
