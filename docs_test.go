package main

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/commerce-tf/terraform-provider-commerce/internal/provider"
)

// TestDocsCoverEverySchema holds docs/ to the schema the provider serves,
// with no CLI: a page per data source and ephemeral resource, titled with
// its type, and no page with "<no value>", which is what tfplugindocs
// renders when the CLI it asked knew no schema of that kind (Terraform 1.5.7
// knows no ephemeral resources). tools/docs.sh checks the same of what it
// generates; this catches docs committed from such a run.
func TestDocsCoverEverySchema(t *testing.T) {
	server, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range schemas.Diagnostics {
		t.Fatalf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	kinds := []struct {
		dir, title string
		types      []string
	}{
		{"data-sources", "Data Source", typeNames(schemas.DataSourceSchemas)},
		{"resources", "Resource", typeNames(schemas.ResourceSchemas)},
		{"ephemeral-resources", "Ephemeral Resource", typeNames(schemas.EphemeralResourceSchemas)},
	}
	want := map[string]bool{filepath.Join("docs", "index.md"): true}
	for _, k := range kinds {
		for _, name := range k.types {
			page := filepath.Join("docs", k.dir, strings.TrimPrefix(name, "commerce_")+".md")
			want[page] = true
			body, err := os.ReadFile(page)
			if err != nil {
				t.Errorf("%s is served but has no page: %v; run make docs", name, err)
				continue
			}
			title := `page_title: "` + name + " " + k.title + ` - commerce"`
			if !strings.Contains(string(body), title) {
				t.Errorf("%s does not have the title %s; run make docs", page, title)
			}
		}
	}
	err = filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(body), "<no value>") {
			t.Errorf("%s holds <no value>: it was rendered without its schema; run make docs", path)
		}
		if !want[path] && !isGuide(path) {
			t.Errorf("%s documents nothing the provider serves; remove it, or its template", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func typeNames[S any](m map[string]S) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// isGuide reports whether page is a guide rendered from templates/guides.
func isGuide(page string) bool {
	name, ok := strings.CutPrefix(filepath.ToSlash(page), "docs/guides/")
	if !ok {
		return false
	}
	_, err := os.Stat(filepath.Join("templates", "guides", name+".tmpl"))
	return err == nil
}

// The provider's page is what the Registry shows first, and the README
// what a visitor reads first: both stay a short read, with the rest in the
// guides, each linked from both.
const (
	maxIndexLines  = 150
	maxReadmeLines = 160
)

func TestDocsStayShortAndLinkTheGuides(t *testing.T) {
	index := readLines(t, filepath.Join("docs", "index.md"))
	readme := readLines(t, "README.md")
	if len(index) > maxIndexLines {
		t.Errorf("docs/index.md has %d lines, more than %d: move topics into a guide (templates/guides)", len(index), maxIndexLines)
	}
	if len(readme) > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: link to the guides instead", len(readme), maxReadmeLines)
	}
	guides, err := filepath.Glob(filepath.Join("docs", "guides", "*.md"))
	if err != nil || len(guides) == 0 {
		t.Fatalf("no guides in docs/guides (%v)", err)
	}
	for _, g := range guides {
		name := strings.TrimSuffix(filepath.Base(g), ".md")
		if !slices.ContainsFunc(index, func(l string) bool { return strings.Contains(l, "(guides/"+name+")") }) {
			t.Errorf("docs/index.md does not link the guide %s as (guides/%s)", name, name)
		}
		if !slices.ContainsFunc(readme, func(l string) bool { return strings.Contains(l, "(docs/guides/"+name+".md)") }) {
			t.Errorf("README.md does not link the guide %s as (docs/guides/%s.md)", name, name)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
}

// TestGuidesShowOnlyTestedCode holds every code block of a guide in
// Terraform, HCL or YAML to a file in examples/guides, which the provider's
// acceptance tests run (TestAccGuides, TestAccGuidesPaste,
// TestAccGuideModuleTests, TestAccGuideCloneScript) or the workflow linter
// checks; and every such file to a guide that shows it.
func TestGuidesShowOnlyTestedCode(t *testing.T) {
	examples := map[string]string{} // content -> file
	shown := map[string]bool{}
	err := filepath.WalkDir(filepath.Join("examples", "guides"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := os.ReadFile(path)
		examples[strings.TrimSpace(string(body))] = path
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	guides, _ := filepath.Glob(filepath.Join("docs", "guides", "*.md"))
	for _, g := range guides {
		for _, block := range codeBlocks(t, g, "terraform", "hcl", "yaml") {
			file, ok := examples[strings.TrimSpace(block)]
			if !ok {
				t.Errorf("%s shows code that is no file in examples/guides, so no test runs it:\n%s", g, block)
				continue
			}
			shown[file] = true
		}
		// Shell blocks may be commands to type; one that is a file is a
		// script a test runs (TestAccGuideCloneScript).
		for _, block := range codeBlocks(t, g, "shell") {
			if file, ok := examples[strings.TrimSpace(block)]; ok {
				shown[file] = true
			}
		}
	}
	for _, file := range examples {
		if !shown[file] {
			t.Errorf("%s is in no guide: show it with tffile or codefile in templates/guides, or remove it", file)
		}
	}
}

// codeBlocks are the bodies of page's fenced code blocks in the given
// languages.
func codeBlocks(t *testing.T, page string, langs ...string) []string {
	t.Helper()
	var blocks []string
	var block []string
	in := false
	for _, line := range readLines(t, page) {
		switch {
		case !in && strings.HasPrefix(line, "```") && slices.Contains(langs, strings.TrimPrefix(line, "```")):
			in, block = true, nil
		case in && line == "```":
			in = false
			blocks = append(blocks, strings.Join(block, "\n"))
		case in:
			block = append(block, line)
		}
	}
	return blocks
}

// TestExamplesFeedForEachAMap keeps every example in a form of for_each
// that Terraform plans fast: toset(ids) sorts the whole set again for each
// instance (tools/bench.sh feed, 1,000 ids into terraform_data: 38–62 s to
// plan, against 3.1–3.3 s for a map keyed by id in a local).
func TestExamplesFeedForEachAMap(t *testing.T) {
	slow := regexp.MustCompile(`for_each\s*=\s*toset\(`)
	err := filepath.WalkDir("examples", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".tf") {
			return err
		}
		for i, line := range readLines(t, path) {
			if slow.MatchString(line) {
				t.Errorf("%s:%d: for_each = toset(…): key a map by id instead, { for id in ids : id => id }, in a local", path, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoBulletRunsIntoText: a list item whose "* **Title.**" was joined to
// the end of the line before renders as one paragraph with stray stars
// (how-listing-works.md had one).
func TestNoBulletRunsIntoText(t *testing.T) {
	glued := regexp.MustCompile(`[^\s*]\* \*\*\S`)
	pages, _ := filepath.Glob(filepath.Join("docs", "*", "*.md"))
	index, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	for _, page := range append(pages, index...) {
		for i, line := range readLines(t, page) {
			if glued.MatchString(line) {
				t.Errorf("%s:%d: a bullet runs into the text before it: %s", page, i+1, line)
			}
		}
	}
}

// TestGuideBlocksNameTheirFile: the sentence before each file a guide shows
// names the file it goes in, as the guides' paste test places it (its path
// below examples/guides/<guide>/, or its name), so that a reader pasting
// the guide in order into one folder makes the same files.
func TestGuideBlocksNameTheirFile(t *testing.T) {
	ref := regexp.MustCompile(`\{\{ (?:tffile|codefile "terraform") "(examples/guides/[^"]+)" \}\}`)
	templates, _ := filepath.Glob(filepath.Join("templates", "guides", "*.md.tmpl"))
	for _, tmpl := range templates {
		body, err := os.ReadFile(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		text := string(body)
		for _, m := range ref.FindAllStringSubmatchIndex(text, -1) {
			file := text[m[2]:m[3]]
			name := path.Base(file)
			if parts := strings.Split(file, "/"); len(parts) > 3 {
				name = strings.Join(parts[3:], "/")
			}
			// The paragraph before the block: back to the blank line
			// before it, skipping the blank line right above the block.
			before := strings.TrimRight(text[:m[0]], "\n")
			para := before[strings.LastIndex(before, "\n\n")+1:]
			if !strings.Contains(para, "`"+name+"`") {
				line := strings.Count(text[:m[0]], "\n") + 1
				t.Errorf("%s:%d: the paragraph before %s does not name its file `%s`:\n%s", tmpl, line, file, name, para)
			}
		}
	}
}
