package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccStore: commerce_store names the store behind the credentials and
// its limits, and a check on its id stops a plan against another store.
func TestAccStore(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Seed: 3, Accounts: 5, Orders: 5, Files: 5, StoreName: "Acme EU", MaxFilterTerms: 8})
	other := emulatortest.Start(t, emulator.Options{Seed: 4, Accounts: 5, Orders: 5, Files: 5})
	attr := func(name string, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.commerce_store.this", tfjsonpath.New(name), v)
	}
	// The guard a pipeline writes: the plan stops unless the credentials
	// reach the expected store.
	guarded := `
data "commerce_store" "this" {
  lifecycle {
    postcondition {
      condition     = self.id == ` + hcl(srv.StoreID()) + `
      error_message = "These credentials reach store ${self.id} (${coalesce(self.name, "name not known")}), not the production store."
    }
  }
}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + guarded,
			ConfigStateChecks: []statecheck.StateCheck{
				attr("id", knownvalue.StringExact(srv.StoreID())),
				attr("name", knownvalue.StringExact("Acme EU")),
				attr("page_length", knownvalue.Int64Exact(emulator.DefaultPageLimit)),
				attr("page_offset_limit", knownvalue.Int64Exact(emulator.OffsetLimit)),
				attr("filter_limit", knownvalue.Int64Exact(8)),
			},
		}, {
			Config:      providerConfig(t, other) + guarded,
			ExpectError: regexp.MustCompile(`(?s)Resource postcondition failed.*These credentials reach store\s+` + other.StoreID() + `\s+\(Emulator\s+store\),\s+not\s+the\s+production\s+store`),
		}},
	})
}

// TestStoreNameRefused: a key without access to the store endpoint still
// gets the id; the name is null and a warning says why and what to do.
func TestStoreNameRefused(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 5, Orders: 5, Files: 5, StoreNameForbidden: true})
	clearEnv(t)
	p := serveInProcess(t, srv)
	resp := p.readResponse(t, "commerce_store", nil)
	got := warnings(resp)["Store name not known"]
	for _, want := range []string{"The store's id is " + srv.StoreID(), "403", "Compare id instead of name"} {
		if !strings.Contains(got, want) {
			t.Errorf("the warning lacks %q:\n%s", want, got)
		}
	}
	attrs := p.readAttributes(t, "commerce_store", nil)
	if id, name := attrs["id"], attrs["name"]; !id.Equal(tftypes.NewValue(tftypes.String, srv.StoreID())) || !name.IsNull() {
		t.Errorf("id %v, name %v; want %s and null", id, name, srv.StoreID())
	}
}
