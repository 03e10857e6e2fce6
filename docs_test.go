package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
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
		if !want[path] {
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
