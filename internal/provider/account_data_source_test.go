package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

func TestAccLookups(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 60, Orders: 200, Files: 50})
	acc := srv.Accounts()[15] // All,the:(hard)'bits"\*
	ord := srv.Orders()[7]
	file := srv.Files()[3]
	id := func(addr, want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(want))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
data "commerce_account" "by_name"  { name = ` + hcl(acc.Name) + ` }
data "commerce_account" "by_legal" { legal_name = ` + hcl(acc.LegalName) + ` }
data "commerce_account" "by_reg"   { registration_id = ` + hcl(acc.RegistrationID) + ` }
data "commerce_account" "by_id"    {
  id           = data.commerce_account.by_name.id
  include_json = true
}
data "commerce_order" "by_number"  { order_number = ` + hcl(ord.OrderNumber) + ` }
data "commerce_order" "by_ref"     { external_ref = ` + hcl(ord.ExternalRef) + ` }
data "commerce_order" "by_filter"  { filter = ` + hcl("eq(order_number,"+ord.OrderNumber+")") + ` }
data "commerce_file" "by_name"     { file_name = ` + hcl(file.FileName) + ` }
data "commerce_file" "by_id"       { id = ` + hcl(file.ID) + ` }`,
			ConfigStateChecks: []statecheck.StateCheck{
				id("data.commerce_account.by_name", acc.ID),
				id("data.commerce_account.by_legal", acc.ID),
				id("data.commerce_account.by_reg", acc.ID),
				id("data.commerce_account.by_id", acc.ID),
				statecheck.ExpectKnownValue("data.commerce_account.by_id", tfjsonpath.New("name"), knownvalue.StringExact(acc.Name)),
				statecheck.ExpectKnownValue("data.commerce_account.by_id", tfjsonpath.New("json"), knownvalue.NotNull()),
				id("data.commerce_order.by_number", ord.ID),
				id("data.commerce_order.by_ref", ord.ID),
				id("data.commerce_order.by_filter", ord.ID),
				statecheck.ExpectKnownValue("data.commerce_order.by_number", tfjsonpath.New("customer_email"), knownvalue.StringExact(ord.CustomerEmail)),
				statecheck.ExpectKnownValue("data.commerce_order.by_number", tfjsonpath.New("amount_with_tax"), knownvalue.Int64Exact(ord.WithTax)),
				id("data.commerce_file.by_name", file.ID),
				id("data.commerce_file.by_id", file.ID),
				statecheck.ExpectKnownValue("data.commerce_file.by_id", tfjsonpath.New("file_size"), knownvalue.Int64Exact(file.FileSize)),
				statecheck.ExpectKnownValue("data.commerce_file.by_id", tfjsonpath.New("public"), knownvalue.Bool(file.Public)),
			},
		}},
	})
}

func TestAccLookupErrors(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 60, Orders: 200})
	cases := map[string]struct{ config, want string }{
		"no match":        {`data "commerce_account" "x" { name = "No Such Account, Ltd." }`, `(?s)No account found.*No account matches name = "No Such Account, Ltd\."`},
		"several matches": {`data "commerce_order" "x" { filter = "eq(currency,USD)" }`, `(?s)More than one order found.*\d+ orders match the filter eq\(currency,USD\).*by id`},
		"unknown id":      {`data "commerce_file" "x" { id = "00000000-0000-0000-0000-000000000000" }`, `(?s)File not found.*No file has id "00000000-0000-0000-0000-000000000000".*404`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config:      providerConfig(t, srv) + tc.config,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
