package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// releaseNotes runs tools/release-notes.sh as the release workflow does and
// returns its stdout, its stderr and whether it succeeded.
func releaseNotes(t *testing.T, args ...string) (stdout, stderr string, ok bool) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("tools/release-notes.sh needs bash:", err)
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command("bash", append([]string{"tools/release-notes.sh"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil {
		if _, exited := err.(*exec.ExitError); !exited {
			t.Fatal(err)
		}
	}
	return out.String(), errOut.String(), err == nil
}

const changelogFixture = `# Changelog

## Unreleased

FEATURES:

* Something not released yet.

## 1.2.30 (2026-10-01)

BUG FIXES:

* Another version whose number starts with the same digits.

## 1.2.3 (2026-09-01)

BUG FIXES:

* ` + "`commerce_orders`" + `: the fix.
  Wrapped.

FEATURES:

* The feature.

## 1.2.3-rc.1 (2026-08-20)

* The release candidate.

## 1.2.2 (2026-08-01)

## 1.2.1 (2026-07-01)

* Once.

## 1.2.1 (2026-07-02)

* Twice.

## 1.0.0

* First, with no date.
`

// The notes are the tag's section exactly, and every tag the release
// workflow could be given that does not name one section with something in
// it fails before anything is released, saying why.
func TestReleaseNotes(t *testing.T) {
	changelog := filepath.Join(t.TempDir(), "CHANGELOG.md")
	if err := os.WriteFile(changelog, []byte(changelogFixture), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tag, want, wantErr string
	}{
		{tag: "v1.2.3", want: "BUG FIXES:\n\n* `commerce_orders`: the fix.\n  Wrapped.\n\nFEATURES:\n\n* The feature.\n"},
		{tag: "v1.2.30", want: "BUG FIXES:\n\n* Another version whose number starts with the same digits.\n"},
		{tag: "v1.2.3-rc.1", want: "* The release candidate.\n"},
		{tag: "v1.0.0", want: "* First, with no date.\n"},
		{tag: "v1.2.4", wantErr: `has no "## 1.2.4 (date)" heading for tag v1.2.4`},
		{tag: "v1.2", wantErr: `has no "## 1.2 (date)" heading`},
		{tag: "vUnreleased", wantErr: "is not v<version>"},
		{tag: "1.2.3", wantErr: "is not v<version>"},
		{tag: "v1.2.2", wantErr: `the "## 1.2.2" section of ` + changelog + " is empty"},
		{tag: "v1.2.1", wantErr: `has 2 "## 1.2.1" headings`},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			out, errOut, ok := releaseNotes(t, tc.tag, changelog)
			if tc.wantErr == "" {
				if !ok || out != tc.want || errOut != "" {
					t.Errorf("release notes for %s: ok %v\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", tc.tag, ok, out, tc.want, errOut)
				}
				return
			}
			if ok || out != "" || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("release notes for %s: ok %v, stdout %q, stderr %q; want a failure saying %q", tc.tag, ok, out, errOut, tc.wantErr)
			}
		})
	}
	if _, errOut, ok := releaseNotes(t, "v1.2.3", filepath.Join(t.TempDir(), "missing.md")); ok || !strings.Contains(errOut, "cannot read") {
		t.Errorf("a missing changelog: ok %v, stderr %q", ok, errOut)
	}
}

// Every released section of the real CHANGELOG.md gives notes, so that
// re-releasing an old tag works, and its heading has the form the script
// reads: a heading it would skip releases nothing under that tag.
func TestChangelogHeadingsGiveReleaseNotes(t *testing.T) {
	body, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^## Unreleased$`).Match(body) {
		t.Error(`CHANGELOG.md has no "## Unreleased" section for the next release's entries`)
	}
	heading := regexp.MustCompile(`^## (\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?: \(\d{4}-\d{2}-\d{2}\))?$`)
	for line := range strings.SplitSeq(string(body), "\n") {
		if !strings.HasPrefix(line, "## ") || line == "## Unreleased" {
			continue
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("CHANGELOG.md heading %q is neither \"## Unreleased\" nor \"## X.Y.Z (YYYY-MM-DD)\"", line)
			continue
		}
		if out, errOut, ok := releaseNotes(t, "v"+m[1]); !ok || out == "" {
			t.Errorf("tools/release-notes.sh v%s: %s", m[1], errOut)
		}
	}
}
