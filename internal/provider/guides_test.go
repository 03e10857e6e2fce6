package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// The guides (templates/guides) show only HCL from examples/guides, which
// these tests run as the guides say it behaves. The root package's
// docs_test.go checks that no other HCL is shown.

// guideFailures are the guide examples that show an error: the error each
// must give.
var guideFailures = map[string]*regexp.Regexp{
	"look-up-ids/missing.tf":   regexp.MustCompile(`No account found[\s\S]*No account matches name = "Acme Inc."`),
	"look-up-ids/ambiguous.tf": regexp.MustCompile(`More than one account found[\s\S]*match the filter like\(name,Sterling Labs\*\)`),
}

// localModule finds a module block whose source is a folder beside it.
var localModule = regexp.MustCompile(`(?m)^\s*source\s*=\s*"\./`)

// TestAccGuides runs every configuration in examples/guides/*/ against the
// emulator's default data.
func TestAccGuides(t *testing.T) {
	files, err := filepath.Glob("../../examples/guides/*/*.tf")
	if err != nil || len(files) < 8 {
		t.Fatalf("want the guides' examples, found %v (%v)", files, err)
	}
	srv := emulatortest.Start(t, emulator.Options{Seed: 1})
	// check.tf's account must be missing, so that the check warns.
	for _, a := range srv.Accounts() {
		if a.Name == "Globex Partners" {
			t.Fatal("the emulator has the account check.tf expects to be missing")
		}
	}
	clearEnv(t)
	t.Setenv(envBaseURL, srv.URL())
	t.Setenv(envClientID, emulator.DefaultClientID)
	t.Setenv(envClientSecret, emulator.DefaultClientSecret)
	// right-store.tf stops the plan on any store but the one the pipeline names.
	t.Setenv("TF_VAR_store_id", srv.StoreID())
	var ran []string
	for _, file := range files {
		name := filepath.ToSlash(strings.TrimPrefix(file, "../../examples/guides/"))
		ran = append(ran, name)
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if localModule.Match(body) {
				// The test framework writes one file to a folder of its
				// own, where ./account is missing.
				t.Skip("calls a module folder beside it: TestAccGuidesPaste plans it there")
			}
			step := resource.TestStep{Config: "provider \"commerce\" {}\n" + string(body)}
			switch {
			case guideFailures[name] != nil:
				step.PlanOnly, step.ExpectError = true, guideFailures[name]
			case strings.Contains(step.Config, "for_each") || strings.Contains(step.Config, "check \""):
				// The testing framework cannot read for_each instances back
				// from state, and a check block's data source is read again
				// on every plan; a plan still reads every data source.
				step.PlanOnly, step.ExpectNonEmptyPlan = true, true
			}
			resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6Factories, Steps: []resource.TestStep{step}})
		})
	}
	for name := range guideFailures {
		if !slices.Contains(ran, name) {
			t.Errorf("%s is expected to fail, but there is no such example", name)
		}
	}
}

// TestAccGuideModuleTests runs the pipeline guide's module tests with the
// CLI under test, as the guide tells a user to: `test` with the mocked
// provider, then against the emulator, the provider built from this
// source and installed through dev_overrides.
func TestAccGuideModuleTests(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("an acceptance test: set TF_ACC=1")
	}
	cli := cliUnderTest(t)
	name, minor := cliVersion(t, cli)
	// terraform test came with Terraform 1.6 and mock_provider with 1.7;
	// OpenTofu has both since 1.8 (tofu test since 1.6).
	if name == "Terraform" && minor < 7 || name == "OpenTofu" && minor < 8 {
		t.Skipf("%s 1.%d has no mock_provider in its test command", name, minor)
	}
	dir := t.TempDir()
	rc := localBuild(t, dir)
	module := filepath.Join(dir, "module")
	if err := os.CopyFS(module, os.DirFS("../../examples/guides/validate-in-pipelines/module")); err != nil {
		t.Fatal(err)
	}
	srv := emulatortest.Start(t, emulator.Options{Seed: 1})
	clearEnv(t)
	for file, env := range map[string][]string{
		// No store: a plan that reached one would fail to configure.
		"tests/mocked.tftest.hcl": nil,
		"tests/emulator.tftest.hcl": {envBaseURL + "=" + srv.URL(), envClientID + "=" + emulator.DefaultClientID,
			envClientSecret + "=" + emulator.DefaultClientSecret},
	} {
		cmd := exec.Command(cli, "test", "-no-color", "-filter="+file)
		cmd.Dir = module
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "1 passed, 0 failed") {
			t.Errorf("%s test %s: %v\n%s", name, file, err, out)
		}
	}
}

// localBuild builds the provider from this source into dir/bin and writes
// dir/cli.rc, a CLI configuration whose dev_overrides take it from there,
// as README tells a user with a clone to; it returns the configuration's
// path.
func localBuild(t *testing.T, dir string) string {
	t.Helper()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "terraform-provider-commerce"), "../..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rc := filepath.Join(dir, "cli.rc")
	overrides := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"commerce-tf/commerce\" = %q\n  }\n  direct {}\n}\n", filepath.Join(dir, "bin"))
	if err := os.WriteFile(rc, []byte(overrides), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc
}

// cliUnderTest is the CLI the acceptance tests run (TF_ACC_TERRAFORM_PATH,
// else terraform on PATH).
func cliUnderTest(t *testing.T) string {
	t.Helper()
	if cli := os.Getenv("TF_ACC_TERRAFORM_PATH"); cli != "" {
		return cli
	}
	cli, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("no Terraform CLI: set TF_ACC_TERRAFORM_PATH (make test does)")
	}
	return cli
}

// cliVersion is cli's name (Terraform or OpenTofu) and minor version.
func cliVersion(t *testing.T, cli string) (string, int) {
	t.Helper()
	cmd := exec.Command(cli, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s version: %v", cli, err)
	}
	m := regexp.MustCompile(`(Terraform|OpenTofu) v1\.(\d+)\.`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("%s version says %q", cli, out)
	}
	minor, _ := strconv.Atoi(m[2])
	return m[1], minor
}

// TestAccGuideCloneScript runs the pipeline guide's path from a clone as
// the guide shows it: from-a-clone.sh, in the provider's folder, builds the
// provider and the emulator, starts the emulator and runs the module's
// emulator test with dev_overrides and no init.
func TestAccGuideCloneScript(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("an acceptance test: set TF_ACC=1")
	}
	cli := cliUnderTest(t)
	// The module's tests include its mock_provider one, which the test
	// command reads whatever the filter: Terraform 1.7, OpenTofu 1.8.
	if name, minor := cliVersion(t, cli); name == "Terraform" && minor < 7 || name == "OpenTofu" && minor < 8 {
		t.Skipf("%s 1.%d has no mock_provider in its test command", name, minor)
	}
	module := filepath.Join(t.TempDir(), "module")
	if err := os.CopyFS(module, os.DirFS("../../examples/guides/validate-in-pipelines/module")); err != nil {
		t.Fatal(err)
	}
	clearEnv(t)
	cmd := exec.Command("bash", "examples/guides/validate-in-pipelines/from-a-clone.sh")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "MODULE="+module, "EMULATOR_ADDR="+emulatortest.ClosedAddr(t), "TERRAFORM="+cli, "CHECKPOINT_DISABLE=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "1 passed, 0 failed") {
		t.Errorf("from-a-clone.sh: %v\n%s", err, out)
	}
}
