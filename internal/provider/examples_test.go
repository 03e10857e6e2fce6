package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccExamples runs every configuration in examples/ against the
// emulator's default data (what `commerce-emulator` serves with no flags),
// so that the documentation's examples are known to work as written.
func TestAccExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/data-sources/*/data-source.tf")
	if err != nil || len(files) != 8 {
		t.Fatalf("want the eight data source examples, found %v (%v)", files, err)
	}
	files = append(files, "../../examples/demo/main.tf")
	srv := emulatortest.Start(t, emulator.Options{Seed: 1})
	clearEnv(t)
	t.Setenv(EnvBaseURL, srv.URL())
	t.Setenv(EnvClientID, emulator.DefaultClientID)
	t.Setenv(EnvClientSecret, emulator.DefaultClientSecret)
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
