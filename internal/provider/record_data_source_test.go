package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

func TestAccRecord(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 10, Files: 10, Accounts: 10, Customers: 50, Hierarchies: 20,
		Aliases: map[string]string{"/v2/members": "customers"}})
	c := srv.Customers()[7]
	h := expected(t, srv, "hierarchies", "", "")[3]
	cfg := providerConfig(t, srv)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: cfg + fmt.Sprintf(`
data "commerce_record" "by_id" {
  path = "/v2/customers"
  id   = %[1]q
}

data "commerce_record" "by_email" {
  path   = "/v2/customers"
  filter = "eq(email,%[2]s)"
}

# A path the provider does not know: by id, no probe is needed.
data "commerce_record" "member" {
  path = "/v2/members"
  id   = %[1]q
}

data "commerce_record" "hierarchy" {
  path = "/pcm/hierarchies"
  id   = %[3]q
}

output "name" {
  value = jsondecode(data.commerce_record.by_email.json).name
}`, c.ID, c.Email, h),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_record.by_id", tfjsonpath.New("type"), knownvalue.StringExact("customer")),
				statecheck.ExpectKnownValue("data.commerce_record.by_email", tfjsonpath.New("id"), knownvalue.StringExact(c.ID)),
				statecheck.ExpectKnownValue("data.commerce_record.member", tfjsonpath.New("created_at"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.commerce_record.hierarchy", tfjsonpath.New("type"), knownvalue.StringExact("hierarchy")),
				statecheck.ExpectKnownOutputValue("name", knownvalue.StringExact(c.Name)),
			},
		}, {
			Config: cfg + `data "commerce_record" "x" {
  path = "/v2/customers"
}`,
			ExpectError: regexp.MustCompile(`(?s)one of these attributes must be configured: \[id,filter\]|Exactly one of these attributes must be configured`),
		}, {
			Config: cfg + `data "commerce_record" "x" {
  path = "/v2/customers"
  filter = "eq(phone,1)"
}`,
			ExpectError: regexp.MustCompile(`(?s)Unknown filter attribute.*customers cannot be filtered on\s+"phone"`),
		}, {
			Config: cfg + `data "commerce_record" "x" {
  path = "/v2/customers"
  id = "no-such-id"
}`,
			ExpectError: regexp.MustCompile(`Record not found`),
		}, {
			Config: cfg + `data "commerce_record" "x" {
  path = "/v2/customers"
  filter = "like(email,*)"
}`,
			ExpectError: regexp.MustCompile(`(?s)50 customers match the filter.*commerce_list\s+with\s+path\s+=\s+"/v2/customers"`),
		}, {
			Config: cfg + `data "commerce_record" "x" {
  path = "/v2/customers"
  filter = "eq(email,nobody@nowhere.example)"
}`,
			ExpectError: regexp.MustCompile(`No record found`),
		}},
	})
}
