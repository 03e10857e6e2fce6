package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccExamples runs every configuration in examples/ against the
// emulator's default data (what `commerce-emulator` serves with no flags),
// so that the documentation's examples are known to work as written.
func TestAccExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/data-sources/*/data-source.tf")
	if err != nil || len(files) != 9 {
		t.Fatalf("want the nine data source examples, found %v (%v)", files, err)
	}
	files = append(files, "../../examples/demo/main.tf")
	srv := emulatortest.Start(t, emulator.Options{Seed: 1})
	clearEnv(t)
	t.Setenv(envBaseURL, srv.URL())
	t.Setenv(envClientID, emulator.DefaultClientID)
	t.Setenv(envClientSecret, emulator.DefaultClientSecret)
	// The demo names the provider by its registry address.
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "commerce-tf")
	for _, file := range files {
		t.Run(filepath.Base(filepath.Dir(file)), func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			config := string(body)
			if filepath.Base(file) == "data-source.tf" {
				// Data source examples leave the provider block to the page
				// about the provider.
				config = "provider \"commerce\" {}\n" + config
			}
			step := resource.TestStep{Config: config}
			if strings.Contains(config, "for_each") {
				// The testing framework cannot read for_each instances back
				// from state; a plan still reads every data source.
				step.PlanOnly, step.ExpectNonEmptyPlan = true, true
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps:                    []resource.TestStep{step},
			})
		})
	}
}

// TestAccEphemeralExamples runs the access token's example as written, with
// curl calling the emulator, where the CLI has ephemeral resources and the
// machine has curl; the example that configures another provider cannot be
// planned without that provider, so it is parsed and its use of the token
// checked.
func TestAccEphemeralExamples(t *testing.T) {
	dir := "../../examples/ephemeral-resources/commerce_access_token/"
	other, err := os.ReadFile(dir + "another-provider.tf")
	if err != nil {
		t.Fatal(err)
	}
	if _, diags := hclparse.NewParser().ParseHCL(other, "another-provider.tf"); diags.HasErrors() {
		t.Fatalf("another-provider.tf: %s", diags.Error())
	}
	if !strings.Contains(string(other), `Authorization = "Bearer ${ephemeral.commerce_access_token.api.access_token}"`) {
		t.Error("another-provider.tf does not configure the provider with the token")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed: the example's script cannot run")
	}
	example, err := os.ReadFile(dir + "ephemeral-resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	srv := emulatortest.Start(t, emulator.Options{Seed: 1})
	clearEnv(t)
	t.Setenv(envBaseURL, srv.URL())
	t.Setenv(envClientID, emulator.DefaultClientID)
	t.Setenv(envClientSecret, emulator.DefaultClientSecret)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralCLI,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: "provider \"commerce\" {}\n" + string(example),
			Check: func(*terraform.State) error {
				if n := srv.Stats().ListRequests["customers"]; n != 1 {
					return fmt.Errorf("the script's request did not reach the service (%d customer list requests)", n)
				}
				return nil
			},
		}},
	})
}
