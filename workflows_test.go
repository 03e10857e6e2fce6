package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The GitHub workflows run on GitHub only, after a push: these tests hold
// them, with no network and no CLI, to what can be checked here. Every make
// target they run exists, every action is pinned by commit SHA, the test
// workflow runs what .ci/run runs, and the versions they name are the ones
// tools/ pins. tools/actionlint.sh checks their syntax and expressions.

type workflow struct {
	file        string
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]workflowJob
}

type workflowJob struct {
	Permissions    map[string]string `yaml:"permissions"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Strategy       struct {
		Matrix map[string]any `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []workflowStep
}

type workflowStep struct {
	Name string
	Uses string
	Run  string
	If   string
	With map[string]string
	Env  map[string]string
}

// compositeAction is a local action (.github/actions/*/action.yml).
type compositeAction struct {
	Runs struct {
		Steps []workflowStep
	}
}

func readWorkflows(t *testing.T) []workflow {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(".github", "workflows", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no .github/workflows/*.yml")
	}
	var wfs []workflow
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		wf := workflow{file: f}
		if err := yaml.Unmarshal(body, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		wfs = append(wfs, wf)
	}
	return wfs
}

func readWorkflow(t *testing.T, name string) workflow {
	t.Helper()
	for _, wf := range readWorkflows(t) {
		if filepath.Base(wf.file) == name {
			return wf
		}
	}
	t.Fatalf(".github/workflows/%s is missing", name)
	return workflow{}
}

// makeCall is one make invocation: its targets and its variable
// assignments (make fuzz FUZZTIME=200000x).
type makeCall struct {
	targets []string
	vars    []string
}

// shellCommands splits a script into its simple commands, roughly as the
// shell would: lines joined at a trailing backslash, comments dropped, split
// at ;, &&, || and |, leading VAR=value assignments removed.
func shellCommands(script string) []string {
	script = strings.ReplaceAll(script, "\\\n", " ")
	comment := regexp.MustCompile(`(^|\s)#.*$`)
	assignment := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=\S*\s+`)
	// Where a command's output goes, and whether it runs in the
	// background, are not what it runs.
	redirect := regexp.MustCompile(`(^|\s)\d*(>>?|<)&?\S*|\s&$`)
	var cmds []string
	for line := range strings.SplitSeq(script, "\n") {
		line = comment.ReplaceAllString(line, "")
		for _, cmd := range regexp.MustCompile(`&&|\|\||[;|]`).Split(line, -1) {
			cmd = strings.TrimSpace(redirect.ReplaceAllString(cmd, ""))
			for assignment.MatchString(cmd) {
				cmd = assignment.ReplaceAllString(cmd, "")
			}
			if cmd != "" {
				cmds = append(cmds, strings.Join(strings.Fields(cmd), " "))
			}
		}
	}
	return cmds
}

var matrixRef = regexp.MustCompile(`\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}`)

// expandMatrix returns cmd once for each value its ${{ matrix.KEY }}
// references take, from the matrix's include entries and its lists.
func expandMatrix(cmd string, matrix map[string]any) ([]string, error) {
	m := matrixRef.FindStringSubmatch(cmd)
	if m == nil {
		return []string{cmd}, nil
	}
	var values []string
	if list, ok := matrix[m[1]].([]any); ok {
		for _, v := range list {
			values = append(values, fmt.Sprint(v))
		}
	}
	include, _ := matrix["include"].([]any)
	for _, entry := range include {
		if e, ok := entry.(map[string]any); ok && e[m[1]] != nil {
			values = append(values, fmt.Sprint(e[m[1]]))
		}
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("%q reads matrix.%s, which the job's matrix does not set", cmd, m[1])
	}
	var out []string
	for _, v := range values {
		expanded, err := expandMatrix(strings.Replace(cmd, m[0], v, 1), matrix)
		if err != nil {
			return nil, err
		}
		out = append(out, expanded...)
	}
	return out, nil
}

// parseMake reads a command that runs make; ok is false for any other.
func parseMake(cmd string) (call makeCall, ok bool) {
	fields := strings.Fields(cmd)
	if len(fields) == 0 || fields[0] != "make" {
		return makeCall{}, false
	}
	for _, f := range fields[1:] {
		switch {
		case strings.HasPrefix(f, "-"):
		case strings.Contains(f, "="):
			call.vars = append(call.vars, f)
		default:
			call.targets = append(call.targets, f)
		}
	}
	if len(call.targets) == 0 {
		call.targets = []string{"default"} // GNUmakefile's first target
	}
	slices.Sort(call.vars)
	return call, true
}

// stepCommands lists the commands of a job's run steps, its matrix
// expanded, each with where it is for messages.
func stepCommands(t *testing.T, where string, steps []workflowStep, matrix map[string]any) (cmds, wheres []string) {
	t.Helper()
	for i, s := range steps {
		for _, cmd := range shellCommands(s.Run) {
			expanded, err := expandMatrix(cmd, matrix)
			if err != nil {
				t.Errorf("%s step %d: %v", where, i+1, err)
				continue
			}
			for _, c := range expanded {
				cmds = append(cmds, c)
				wheres = append(wheres, fmt.Sprintf("%s step %d", where, i+1))
			}
		}
	}
	return cmds, wheres
}

// allCommands lists every command of every workflow and local action.
func allCommands(t *testing.T) (cmds, wheres []string) {
	t.Helper()
	for _, wf := range readWorkflows(t) {
		for name, job := range wf.Jobs {
			c, w := stepCommands(t, wf.file+": job "+name, job.Steps, job.Strategy.Matrix)
			cmds, wheres = append(cmds, c...), append(wheres, w...)
		}
	}
	actions, err := filepath.Glob(filepath.Join(".github", "actions", "*", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range actions {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var a compositeAction
		if err := yaml.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c, w := stepCommands(t, f, a.Runs.Steps, nil)
		cmds, wheres = append(cmds, c...), append(wheres, w...)
	}
	return cmds, wheres
}

// makeTargets reads the targets GNUmakefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	body, err := os.ReadFile("GNUmakefile")
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`^([A-Za-z0-9_.-]+(?:[ \t]+[A-Za-z0-9_.-]+)*)[ \t]*:(?:[^=]|$)`)
	targets := map[string]bool{}
	for line := range strings.SplitSeq(string(body), "\n") {
		if m := rule.FindStringSubmatch(line); m != nil {
			for _, name := range strings.Fields(m[1]) {
				if !strings.HasPrefix(name, ".") {
					targets[name] = true
				}
			}
		}
	}
	if !targets["test"] || !targets["testacc-oldest"] {
		t.Fatalf("read no test or testacc-oldest target in GNUmakefile: %v", targets)
	}
	return targets
}

func TestWorkflowMakeTargetsExist(t *testing.T) {
	targets := makeTargets(t)
	cmds, wheres := allCommands(t)
	calls := 0
	for i, cmd := range cmds {
		call, ok := parseMake(cmd)
		if !ok {
			continue
		}
		calls++
		if strings.Contains(cmd, "${{") {
			t.Errorf("%s: %q: a make target from an expression this test cannot resolve (only ${{ matrix.KEY }})", wheres[i], cmd)
			continue
		}
		for _, target := range call.targets {
			if !targets[target] {
				t.Errorf("%s runs %q: GNUmakefile has no target %q", wheres[i], cmd, target)
			}
		}
	}
	if calls == 0 {
		t.Error("found no make invocation in the workflows: is this test still reading their run steps?")
	}
}

// Every `uses:` names a local action or an action at a full commit SHA
// followed by its version (`# v4.2.2`): a tag can be moved to other code, a
// SHA cannot. An action has one SHA and version across the files.
func TestWorkflowActionsPinnedBySHA(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(".github", "workflows", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	actions, err := filepath.Glob(filepath.Join(".github", "actions", "*", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	uses := regexp.MustCompile(`^\s*(?:-\s+)?uses:\s*(.*)$`)
	pinned := regexp.MustCompile(`^([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)@([0-9a-f]{40}) # (v\d+(?:\.\d+){0,2})$`)
	seen := map[string]string{} // action: "sha # version"
	count := 0
	for _, f := range append(files, actions...) {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(body), "\n") {
			m := uses.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			count++
			ref := strings.TrimSpace(m[1])
			if strings.HasPrefix(ref, "./") {
				continue
			}
			p := pinned.FindStringSubmatch(ref)
			if p == nil {
				t.Errorf("%s:%d: uses: %s; want owner/repo@<40-hex commit SHA> # vX.Y.Z", f, n+1, ref)
				continue
			}
			pin := p[2] + " # " + p[3]
			if prev, ok := seen[p[1]]; ok && prev != pin {
				t.Errorf("%s:%d: %s is pinned at %s here and at %s elsewhere", f, n+1, p[1], pin, prev)
			}
			seen[p[1]] = pin
		}
	}
	// The YAML's own count of uses, so that a form the line scan misses
	// (a quoted key, a flow mapping) cannot escape the check.
	want := 0
	for _, wf := range readWorkflows(t) {
		for _, job := range wf.Jobs {
			for _, s := range job.Steps {
				if s.Uses != "" {
					want++
				}
			}
		}
	}
	for _, f := range actions {
		body, _ := os.ReadFile(f)
		var a compositeAction
		if err := yaml.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		for _, s := range a.Runs.Steps {
			if s.Uses != "" {
				want++
			}
		}
	}
	if count != want || count == 0 {
		t.Errorf("read %d uses: lines, the YAML has %d steps with uses", count, want)
	}
}

// The test workflow is .ci/run on GitHub: every make invocation and tools/
// script .ci/run runs, it runs too, with the same arguments, and it builds
// pinned CLIs as .ci/run does.
func TestTestWorkflowRunsWhatCIRuns(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	wf := readWorkflow(t, "test.yml")
	var cmds []string
	for name, job := range wf.Jobs {
		c, _ := stepCommands(t, "test.yml: job "+name, job.Steps, job.Strategy.Matrix)
		cmds = append(cmds, c...)
	}
	hasMake := func(want makeCall, target string) bool {
		for _, cmd := range cmds {
			if call, ok := parseMake(cmd); ok && slices.Contains(call.targets, target) && slices.Equal(call.vars, want.vars) {
				return true
			}
		}
		return false
	}
	checked := 0
	for _, cmd := range shellCommands(string(ci)) {
		if call, ok := parseMake(cmd); ok {
			for _, target := range call.targets {
				checked++
				if !hasMake(call, target) {
					t.Errorf(".ci/run runs %q; .github/workflows/test.yml runs no make %s with the same variables", cmd, target)
				}
			}
			continue
		}
		if strings.HasPrefix(cmd, "tools/") {
			checked++
			if buildsOnly(cmd) {
				continue
			}
			if !slices.Contains(cmds, cmd) {
				t.Errorf(".ci/run runs %q; .github/workflows/test.yml does not", cmd)
			}
		}
	}
	if checked < 5 {
		t.Errorf("read only %d commands from .ci/run: is this test still reading it?", checked)
	}
	if !regexp.MustCompile(`(?m)^export COMMERCE_BUILD_CLI=1$`).Match(ci) || wf.Env["COMMERCE_BUILD_CLI"] != "1" {
		t.Errorf(".ci/run and test.yml must both set COMMERCE_BUILD_CLI=1 (test.yml has %q)", wf.Env["COMMERCE_BUILD_CLI"])
	}
}

// buildsOnly reports whether a tools/ command of .ci/run only builds a
// pinned tool ahead of the step that runs it (tools/tf-cli.sh, or a script's
// install): each job of the test workflow builds its tools where it runs
// them, from the same scripts.
func buildsOnly(cmd string) bool {
	return strings.HasPrefix(cmd, "tools/tf-cli.sh ") || strings.HasSuffix(cmd, ".sh install")
}

// toolPins reads the NAME="${NAME:-VALUE}" defaults of the tools/ scripts.
func toolPins(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("tools", "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	def := regexp.MustCompile(`(?m)^([A-Z_]+_VERSION)="\$\{([A-Z_]+):-([^}]+)\}"$`)
	pins := map[string]string{}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range def.FindAllStringSubmatch(string(body), -1) {
			if m[1] == m[2] {
				pins[m[1]] = m[3]
			}
		}
	}
	for _, name := range []string{"TERRAFORM_VERSION", "OPENTOFU_VERSION", "OPENTOFU_EPHEMERAL_VERSION", "GORELEASER_VERSION"} {
		if pins[name] == "" {
			t.Fatalf("no %s default in tools/*.sh (read %v)", name, pins)
		}
	}
	return pins
}

// The versions the workflows name are the ones the tools/ scripts pin: the
// acceptance matrix's label is the CLI its make target runs in CI, and the
// release's goreleaser is the one tools/release-check.sh checks the
// configuration with.
func TestWorkflowVersionsMatchTools(t *testing.T) {
	pins := toolPins(t)
	makefile, err := os.ReadFile("GNUmakefile")
	if err != nil {
		t.Fatal(err)
	}
	switch m := regexp.MustCompile(`TERRAFORM_VERSION=(\S+) tools/tf-cli.sh`).FindSubmatch(makefile); {
	case m == nil:
		t.Error("GNUmakefile names no TERRAFORM_VERSION=... tools/tf-cli.sh for testacc-oldest")
	case string(m[1]) != pins["TERRAFORM_VERSION"]:
		t.Errorf("GNUmakefile's testacc-oldest builds Terraform %s, tools/tf-cli.sh pins %s", m[1], pins["TERRAFORM_VERSION"])
	}

	// The CLI each target runs on with COMMERCE_BUILD_CLI=1 (GNUmakefile,
	// tools/tf-cli.sh): test and testacc take `newest`, OpenTofu 1.12.6.
	builtCLI := map[string]string{
		"testacc-oldest":    "Terraform " + pins["TERRAFORM_VERSION"],
		"testacc-tofu":      "OpenTofu " + pins["OPENTOFU_VERSION"],
		"testacc-ephemeral": "OpenTofu " + pins["OPENTOFU_EPHEMERAL_VERSION"],
		"test":              "OpenTofu " + pins["OPENTOFU_EPHEMERAL_VERSION"],
		"testacc":           "OpenTofu " + pins["OPENTOFU_EPHEMERAL_VERSION"],
	}
	wf := readWorkflow(t, "test.yml")
	job, ok := wf.Jobs["acceptance"]
	if !ok {
		t.Fatal("test.yml has no acceptance job")
	}
	var newest string
	include, _ := job.Strategy.Matrix["include"].([]any)
	for _, entry := range include {
		e, _ := entry.(map[string]any)
		cli, version, targets := fmt.Sprint(e["cli"]), fmt.Sprint(e["version"]), strings.Fields(fmt.Sprint(e["make"]))
		if e["cli-from-path"] == true {
			// Installed by setup-terraform at this version, taken from PATH
			// by the targets that take one.
			newest = version
			for _, target := range targets {
				if target != "test" && target != "testacc" {
					t.Errorf("the %s %s entry runs make %s, which takes no CLI from PATH", cli, version, target)
				}
			}
			continue
		}
		for _, target := range targets {
			if want, known := builtCLI[target]; !known {
				t.Errorf("the %s %s entry runs make %s: which CLI does it use? Add it to this test", cli, version, target)
			} else if want != cli+" "+version {
				t.Errorf("the matrix entry %s %s runs make %s, which runs on %s in CI", cli, version, target, want)
			}
		}
	}
	if newest == "" {
		t.Fatal("the acceptance matrix has no entry with cli-from-path: true (the newest Terraform release)")
	}
	setup := false
	for _, s := range job.Steps {
		if strings.HasPrefix(s.Uses, "hashicorp/setup-terraform@") {
			setup = true
			if s.With["terraform_version"] != "${{ matrix.version }}" || s.With["terraform_wrapper"] != "false" || s.If != "matrix.cli-from-path" {
				t.Errorf("setup-terraform must install ${{ matrix.version }} without its wrapper, if matrix.cli-from-path; it has if %q, with %v", s.If, s.With)
			}
		}
	}
	if !setup {
		t.Error("the acceptance job does not install the newest Terraform (hashicorp/setup-terraform)")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if row := "| Terraform | " + newest + ", the newest release |"; !strings.Contains(string(readme), row) {
		t.Errorf("README.md's Compatibility table has no row %q: the workflow tests Terraform %s", row, newest)
	}

	release := readWorkflow(t, "release.yml")
	found := false
	for _, job := range release.Jobs {
		for _, s := range job.Steps {
			if !strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@") {
				continue
			}
			found = true
			if s.With["version"] != pins["GORELEASER_VERSION"] {
				t.Errorf("release.yml runs goreleaser %q, tools/release-check.sh checks with %s", s.With["version"], pins["GORELEASER_VERSION"])
			}
			if !strings.Contains(s.With["args"], "--release-notes") {
				t.Errorf("release.yml runs goreleaser %q, without the changelog's notes", s.With["args"])
			}
		}
	}
	if !found {
		t.Error("release.yml does not run goreleaser/goreleaser-action")
	}
	// changelog.disable skips the goreleaser step that loads --release-notes.
	goreleaser, err := os.ReadFile(".goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	var grc struct {
		Changelog struct {
			Disable any `yaml:"disable"`
		} `yaml:"changelog"`
	}
	if err := yaml.Unmarshal(goreleaser, &grc); err != nil {
		t.Fatal(err)
	}
	if grc.Changelog.Disable != nil {
		t.Errorf(".goreleaser.yml sets changelog.disable (%v): goreleaser would drop the --release-notes too", grc.Changelog.Disable)
	}
}

// The workflows' token reads contents and nothing more, but for the release
// job, which creates the release; and every job has a timeout.
func TestWorkflowPermissionsAndTimeouts(t *testing.T) {
	for _, wf := range readWorkflows(t) {
		if len(wf.Permissions) != 1 || wf.Permissions["contents"] != "read" {
			t.Errorf("%s: top-level permissions %v; want contents: read only", wf.file, wf.Permissions)
		}
		for name, job := range wf.Jobs {
			if job.TimeoutMinutes <= 0 {
				t.Errorf("%s: job %s has no timeout-minutes", wf.file, name)
			}
			for scope, level := range job.Permissions {
				release := filepath.Base(wf.file) == "release.yml" && name == "release" && scope == "contents"
				if level != "read" && level != "none" && !release {
					t.Errorf("%s: job %s asks for %s: %s", wf.file, name, scope, level)
				}
			}
		}
	}
}

// The live workflow runs the live suite every night and on demand, and
// skips with a notice where the repository has no store's keys (a fork).
// The keys reach only the steps that read them: no action, which is
// someone else's code, and no workflow or job env, which every step
// inherits; nor are they written into a script, where a value is code.
func TestWorkflowLiveKeepsTheKeysToItsSteps(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(".github", "workflows", "live.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On   map[string]any    `yaml:"on"`
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Env   map[string]string `yaml:"env"`
			Steps []workflowStep
		}
	}
	if err := yaml.Unmarshal(body, &wf); err != nil {
		t.Fatal(err)
	}
	for _, trigger := range []string{"schedule", "workflow_dispatch"} {
		if _, ok := wf.On[trigger]; !ok {
			t.Errorf("live.yml does not run on %s", trigger)
		}
	}
	hasSecret := func(values map[string]string) bool {
		for _, v := range values {
			if strings.Contains(v, "secrets.") {
				return true
			}
		}
		return false
	}
	if hasSecret(wf.Env) {
		t.Error("live.yml's workflow env reads secrets: every step would get them")
	}
	suites, notices := 0, 0
	for name, job := range wf.Jobs {
		if hasSecret(job.Env) {
			t.Errorf("live.yml: job %s's env reads secrets: every step would get them", name)
		}
		for i, s := range job.Steps {
			where := fmt.Sprintf("live.yml: job %s step %d", name, i+1)
			if s.Uses != "" && (hasSecret(s.With) || hasSecret(s.Env)) {
				t.Errorf("%s hands secrets to %s", where, s.Uses)
			}
			if strings.Contains(s.Run, "secrets.") {
				t.Errorf("%s writes a secret into its script: pass it in env", where)
			}
			if strings.Contains(s.Run, "::notice") {
				notices++
			}
			if !slices.Contains(shellCommands(s.Run), "make testacc-live") {
				continue
			}
			suites++
			for _, v := range []string{"COMMERCE_BASE_URL", "COMMERCE_AUTH_URL", "COMMERCE_CLIENT_ID", "COMMERCE_CLIENT_SECRET"} {
				if s.Env[v] != "${{ secrets."+v+" }}" {
					t.Errorf("%s runs make testacc-live with %s = %q, want the secret of that name", where, v, s.Env[v])
				}
			}
			if s.If == "" {
				t.Errorf("%s runs make testacc-live whether or not a store is configured", where)
			}
		}
	}
	if suites != 1 || notices == 0 {
		t.Errorf("live.yml runs make testacc-live %d times (want once) and has %d ::notice for a repository without keys (want one)", suites, notices)
	}
}
