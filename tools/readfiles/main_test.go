package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFilesPerRead bounds how many of the provider's source files one
// filtered commerce_orders read runs code in, its retries included: a
// newcomer follows one read through at most this many files. It was 25,
// the count once fragments cut where a line cap ran out stood with their
// ideas again; 27 since the pager's 1,086 lines, four ideas on two
// goroutines, became three files by meaning (the windows, their checks,
// the page request and its workers). A file more is a file by meaning,
// never a fragment.
const maxFilesPerRead = 27

// One filtered, sorted commerce_orders read, a 429 and a 503 retried
// included, runs code in at most maxFilesPerRead of the module's files (the
// emulator's and this command's not counted).
func TestOneReadRunsInFewFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the provider with coverage: about a minute")
	}
	dir := t.TempDir()
	bin, counters, profile := filepath.Join(dir, "readfiles"), filepath.Join(dir, "counters"), filepath.Join(dir, "profile.txt")
	if err := os.Mkdir(counters, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"go", "build", "-cover", "-covermode=atomic", "-coverpkg=github.com/commerce-tf/terraform-provider-commerce/...", "-o", bin, "."},
		{bin, "-out", counters},
		{"go", "tool", "covdata", "textfmt", "-i=" + counters, "-o=" + profile},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	files := filesRun(t, profile)
	t.Logf("one read ran code in %d files:\n  %s", len(files), strings.Join(files, "\n  "))
	if len(files) > maxFilesPerRead {
		t.Errorf("one filtered commerce_orders read runs code in %d files, more than %d: a newcomer follows the read through "+
			"every one of them. Keep what one read needs together, by meaning, in fewer files", len(files), maxFilesPerRead)
	}
}

// filesRun are the module's source files, the emulator's and this
// command's left out, in which the profile saw code run.
func filesRun(t *testing.T, profile string) []string {
	t.Helper()
	f, err := os.Open(profile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		// .../internal/client/auth.go:12.3,14.5 2 1: two statements that ran once.
		line := lines.Text()
		file, _, ok := strings.Cut(line, ":")
		fields := strings.Fields(line)
		if !ok || len(fields) != 3 || fields[2] == "0" {
			continue
		}
		_, file, ok = strings.Cut(file, "/terraform-provider-commerce/")
		if !ok || strings.HasPrefix(file, "internal/emulator/") || strings.HasPrefix(file, "tools/") {
			continue
		}
		seen[file] = true
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	files := make([]string, 0, len(seen))
	for f := range seen {
		files = append(files, f)
	}
	slices.Sort(files)
	if len(files) == 0 {
		t.Fatal("the profile shows no code of the provider run: is the module path still github.com/commerce-tf/terraform-provider-commerce?")
	}
	return files
}
