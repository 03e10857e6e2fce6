package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccGuidesPaste does what a new user does with a guide: copies its
// HCL blocks, in the order the guide shows them, into an empty folder,
// and runs validate and plan with the provider built from this source
// (dev_overrides, no init) against the emulator. Validate must pass; the
// plan must fail, or warn, with exactly the messages the guide prints
// after a block (each paragraph of them, as the CLI wraps it), and with no
// other error.
func TestAccGuidesPaste(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("an acceptance test: set TF_ACC=1")
	}
	cli := cliUnderTest(t)
	rc := localBuild(t, t.TempDir())
	srv := emulatortest.Start(t, emulator.Options{Seed: 1})
	guides, err := filepath.Glob("../../templates/guides/*.md.tmpl")
	if err != nil || len(guides) < 4 {
		t.Fatalf("want the guides, found %v (%v)", guides, err)
	}
	for _, guide := range guides {
		body, err := os.ReadFile(guide)
		if err != nil {
			t.Fatal(err)
		}
		blocks := pastedBlocks(string(body))
		if len(blocks) == 0 {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(guide), ".md.tmpl"), func(t *testing.T) {
			folder := t.TempDir()
			var shown []string
			for _, b := range blocks {
				pasteBlock(t, folder, b.file)
				shown = append(shown, b.output...)
			}
			env := cliEnv(rc, srv, "TF_VAR_store_id="+srv.StoreID())
			// As the guides say: `get` installs module folders, where
			// init would also look the local build up in the registry.
			if out, err := run(folder, env, cli, "get", "-no-color"); err != nil {
				t.Fatalf("get: %v\n%s", err, out)
			}
			if out, err := run(folder, env, cli, "validate", "-no-color"); err != nil {
				t.Fatalf("validate: %v\n%s", err, out)
			}
			out, _ := run(folder, env, cli, "plan", "-no-color", "-input=false")
			flat := oneLine(out)
			errors := 0
			for _, para := range shown {
				if strings.HasPrefix(para, "Error:") {
					errors++
				}
				if !strings.Contains(flat, para) {
					t.Errorf("the plan does not print what the guide shows:\n%s\n\nThe plan printed:\n%s", para, out)
				}
			}
			if n := len(regexp.MustCompile(`(?m)^Error: `).FindAllString(out, -1)); n != errors {
				t.Errorf("the plan printed %d errors, the guide shows %d:\n%s", n, errors, out)
			}
		})
	}
}

// pasted is one HCL block of a guide: its file, and the paragraphs of the
// CLI output the guide prints right after it.
type pasted struct {
	file   string
	output []string
}

var (
	tffileRef = regexp.MustCompile(`\{\{ tffile "([^"]+)" \}\}`)
	textBlock = regexp.MustCompile("(?s)^\\s*```text\\n(.*?)\\n```")
)

// pastedBlocks are the tffile blocks of a guide template, in order, with
// the text block that follows each, if any.
func pastedBlocks(tmpl string) []pasted {
	var out []pasted
	locs := tffileRef.FindAllStringSubmatchIndex(tmpl, -1)
	for _, loc := range locs {
		b := pasted{file: tmpl[loc[2]:loc[3]]}
		if m := textBlock.FindStringSubmatch(tmpl[loc[1]:]); m != nil {
			for _, para := range strings.Split(m[1], "\n\n") {
				var kept []string
				for _, line := range strings.Split(para, "\n") {
					// A value's details (├ │) are the CLI's own wording.
					if t := strings.TrimSpace(line); !strings.HasPrefix(t, "├") && !strings.HasPrefix(t, "│") {
						kept = append(kept, line)
					}
				}
				if p := oneLine(strings.Join(kept, "\n")); p != "" {
					b.output = append(b.output, p)
				}
			}
		}
		out = append(out, b)
	}
	return out
}

// pasteBlock copies the example file into folder, where the guide puts
// it: a file in a folder of the guide's examples (examples/guides/<guide>/
// module/main.tf) in that folder, everything else at the top.
func pasteBlock(t *testing.T, folder, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Base(file)
	if parts := strings.Split(file, "/"); len(parts) > 4 && parts[0] == "examples" && parts[1] == "guides" {
		rel = filepath.Join(parts[3:]...)
	}
	dst := filepath.Join(folder, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Fatalf("%s: two blocks of the guide would be pasted as %s", file, rel)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// cliEnv is the environment of a CLI run by hand against srv: the CLI
// configuration rc, no checkpoint, the store's variables naming srv, and
// extra.
func cliEnv(rc string, srv *emulator.Server, extra ...string) []string {
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		envBaseURL+"="+srv.URL(), envAuthURL+"=", envClientID+"="+emulator.DefaultClientID, envClientSecret+"="+emulator.DefaultClientSecret)
	return append(env, extra...)
}

func run(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// oneLine is text with every run of white space one space, as a paragraph
// reads whatever its width.
func oneLine(text string) string { return strings.Join(strings.Fields(text), " ") }

// TestAccReadmeExamplePastes: the README's Example, alone in an empty
// folder, validates and plans against the emulator as it stands (without
// its required_providers block Terraform looked for hashicorp/commerce).
func TestAccReadmeExamplePastes(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("an acceptance test: set TF_ACC=1")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)## Example\n\n```hcl\n(.*?)\n```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("README.md has no Example with an hcl block")
	}
	cli := cliUnderTest(t)
	rc := localBuild(t, t.TempDir())
	srv := emulatortest.Start(t, emulator.Options{Seed: 1})
	folder := t.TempDir()
	if err := os.WriteFile(filepath.Join(folder, "main.tf"), block[1], 0o600); err != nil {
		t.Fatal(err)
	}
	env := cliEnv(rc, srv)
	for _, args := range [][]string{{"validate", "-no-color"}, {"plan", "-no-color", "-input=false"}} {
		if out, err := run(folder, env, cli, args...); err != nil {
			t.Fatalf("%s: %v\n%s", args[0], err, out)
		}
	}
}
