package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// make test runs each package's tests once: under the race detector when
// the package is in RACE_PKGS, with a Terraform CLI when in ACC_PKGS, and
// the store matrix (MATRIX_PKGS) without either. A new package in none
// would have its tests run by no one but `make unit`.
func TestMakeTestRunsEveryPackage(t *testing.T) {
	makefile, err := os.ReadFile("GNUmakefile")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, name := range []string{"RACE_PKGS", "ACC_PKGS", "MATRIX_PKGS"} {
		m := regexp.MustCompile(`(?m)^` + name + `\s*=\s*(.+)$`).FindSubmatch(makefile)
		if m == nil {
			t.Fatalf("GNUmakefile sets no %s", name)
		}
		patterns = append(patterns, strings.Fields(string(m[1]))...)
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{len .TestGoFiles}} {{len .XTestGoFiles}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	module := "github.com/commerce-tf/terraform-provider-commerce"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if f[1] == "0" && f[2] == "0" {
			continue // no tests
		}
		rel := "." + strings.TrimPrefix(f[0], module)
		if covered(rel, patterns) {
			continue
		}
		t.Errorf("%s has tests, but make test runs it in none of RACE_PKGS, ACC_PKGS and MATRIX_PKGS (GNUmakefile)", rel)
	}
}

// covered reports whether a go test pattern in patterns matches rel.
func covered(rel string, patterns []string) bool {
	for _, p := range patterns {
		if p == rel || (strings.HasSuffix(p, "/...") && (rel == strings.TrimSuffix(p, "/...") || strings.HasPrefix(rel, strings.TrimSuffix(p, "...")))) {
			return true
		}
	}
	return false
}

// The other CLIs' skip list names tests that exist: a renamed test would
// otherwise run on every CLI again, unseen.
func TestOtherCLISkipNamesTests(t *testing.T) {
	makefile, err := os.ReadFile("GNUmakefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^OTHER_CLI_SKIP = '\^TestAcc\(([^)]*)\)\$\$'$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("GNUmakefile sets no OTHER_CLI_SKIP of the form '^TestAcc(A|B)$$'")
	}
	sources, err := exec.Command("sh", "-c", "cat internal/provider/*_test.go").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Split(string(m[1]), "|") {
		if !strings.Contains(string(sources), "func TestAcc"+name+"(t *testing.T)") {
			t.Errorf("OTHER_CLI_SKIP names TestAcc%s, which internal/provider does not define", name)
		}
	}
}
