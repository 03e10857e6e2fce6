package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/filter"
)

// commerce_list's plan-time checks: each mistake one diagnostic, on the
// attribute at fault, with zero requests.
func TestValidateList(t *testing.T) {
	server, err := NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(p string, extra map[string]tftypes.Value) map[string]tftypes.Value {
		set := map[string]tftypes.Value{"path": str(p)}
		for k, v := range extra {
			set[k] = v
		}
		return set
	}
	cases := []struct {
		name     string
		set      map[string]tftypes.Value
		severity tfprotov6.DiagnosticSeverity
		path     string
		detail   string // "" for no diagnostic
	}{
		{"known path", at("/v2/customers", map[string]tftypes.Value{"filter": str("like(email,*@example.org)"), "sort": str("-updated_at")}), 0, "", ""},
		{"unknown path, no filter", at("/v2/promotions", map[string]tftypes.Value{"sort": str("id")}), 0, "", ""},
		{"a URL", at("https://api.example.com/v2/customers", nil), tfprotov6.DiagnosticSeverityError, "path", `give only the path on the configured service, such as "/v2/customers"`},
		{"a host", at("//evil.example/v2/customers", nil), tfprotov6.DiagnosticSeverityError, "path", "names a host"},
		{"relative", at("v2/customers", nil), tfprotov6.DiagnosticSeverityError, "path", `must start with /, as in "/v2/customers"`},
		{"a query string", at("/v2/customers?page[limit]=1", nil), tfprotov6.DiagnosticSeverityError, "path", "query string"},
		{"dot-dot", at("/v2/../oauth/access_token", nil), tfprotov6.DiagnosticSeverityError, "path", `".." segment`},
		{"encoded dot-dot", at("/v2/%2e%2e/oauth", nil), tfprotov6.DiagnosticSeverityError, "path", `".." segment`},
		{"unknown attribute on a known path", at("/v2/customers", map[string]tftypes.Value{"filter": str("eq(emial,a@b.c)")}), tfprotov6.DiagnosticSeverityError, "filter", `did you mean "email"?`},
		{"operator a known path refuses", at("/v2/customers", map[string]tftypes.Value{"filter": str("gt(email,a)")}), tfprotov6.DiagnosticSeverityError, "filter", "with eq, like only"},
		{"a filter on an endpoint that takes none", at("/pcm/hierarchies", map[string]tftypes.Value{"filter": str("eq(name,Shoes)")}), tfprotov6.DiagnosticSeverityError, "filter", "does not filter hierarchies at all"},
		{"sort a known path does not offer", at("/v2/customers", map[string]tftypes.Value{"sort": str("-phone")}), tfprotov6.DiagnosticSeverityError, "sort", "/v2/customers can be listed by `created_at`, `updated_at`, `id`, `email`, `name`"},
		{"sort an unknown path cannot get", at("/v2/promotions", map[string]tftypes.Value{"sort": str("updatedat")}), tfprotov6.DiagnosticSeverityError, "sort", `did you mean "updated_at"?`},
		{"bad grammar on an unknown path", at("/v2/promotions", map[string]tftypes.Value{"filter": str("eq(name")}), tfprotov6.DiagnosticSeverityError, "filter", "unbalanced parentheses"},
		{"attributes an unknown path filters on are not checked", at("/v2/promotions", map[string]tftypes.Value{"filter": str("eq(enabled,true)")}), tfprotov6.DiagnosticSeverityWarning, "filter", "does not know which attributes /v2/promotions filters on"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			diags := validateConfig(t, server, schemas, "commerce_list", tc.set)
			if tc.detail == "" {
				for _, d := range diags {
					t.Errorf("unexpected %v %s at %s: %s", d.Severity, d.Summary, protoPath(d.Attribute), d.Detail)
				}
				return
			}
			if len(diags) != 1 {
				for _, d := range diags {
					t.Logf("%v %s at %s: %s", d.Severity, d.Summary, protoPath(d.Attribute), d.Detail)
				}
				t.Fatalf("%d diagnostics, want exactly 1", len(diags))
			}
			d := diags[0]
			if d.Severity != tc.severity || protoPath(d.Attribute) != tc.path || !strings.Contains(d.Detail, tc.detail) {
				t.Errorf("%v at %q: %s: %s\nwant %v at %q saying %q", d.Severity, protoPath(d.Attribute), d.Summary, d.Detail, tc.severity, tc.path, tc.detail)
			}
		})
	}
}

// The generic records in state: what every record has, and the JSON.
func TestReadListInProcess(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 10, Files: 10, Accounts: 10, Customers: 120, Hierarchies: 30,
		Aliases: map[string]string{"/v2/members": "customers"}})
	clearEnv(t)
	direct := serveInProcess(t, srv)
	framework := serveWith(t, srv, frameworkServer)
	for _, set := range []map[string]tftypes.Value{
		{"path": str("/v2/customers"), "sort": str("-created_at")},
		{"path": str("/v2/members"), "filter": str("like(email,*1*)"), "max_results": num(7)},
		{"path": str("/pcm/hierarchies"), "sort": str("name"), "include_records": tftypes.NewValue(tftypes.Bool, false)},
		{"path": str("/v2/orders"), "sort": str("updated_at")},
		{"path": str("/v2/nothing-here")},
	} {
		t.Run(fmt.Sprint(set["path"]), func(t *testing.T) {
			sameResponse(t, direct.dataSourceType(t, "commerce_list"), direct.readResponse(t, "commerce_list", set), framework.readResponse(t, "commerce_list", set))
		})
	}
	got := direct.readAttributes(t, "commerce_list", map[string]tftypes.Value{"path": str("/v2/customers"), "max_results": num(2)})
	first := objects(t, got[recordsAttribute])[0]
	c := srv.Customers()[0]
	for name, want := range map[string]tftypes.Value{"id": str(c.ID), "type": str("customer"), "created_at": str(c.CreatedAt.UTC().Format(filter.TimestampLayout))} {
		if !first[name].Equal(want) {
			t.Errorf("records[0].%s = %s, want %s", name, first[name], want)
		}
	}
	var js string
	if err := first[jsonField].As(&js); err != nil || !strings.Contains(js, `"email":"`+c.Email+`"`) {
		t.Errorf("records[0].json = %q, want the customer's JSON with its email", js)
	}
	if !got["total"].Equal(num(120)) {
		t.Errorf("total = %s, want 120", got["total"])
	}
}

func TestAccListCustomersPastOffsetLimit(t *testing.T) {
	largeStore(t)
	srv := emulatortest.Start(t, emulator.Options{Orders: 10, Files: 10, Accounts: 10, Customers: 15000,
		Aliases: map[string]string{"/v2/members": "customers"}})
	want := expected(t, srv, "customers", "", "created_at")
	newest := expected(t, srv, "customers", "", "-created_at")[:25]
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerBlock(srv) + `
data "commerce_list" "customers" {
  path = "/v2/customers"
}

# The same endpoint at a path the provider does not know: it asks the
# service what it can do, then lists past the offset limit the same way.
data "commerce_list" "members" {
  path            = "/v2/members"
  include_records = false
}

data "commerce_list" "newest" {
  path        = "/v2/customers"
  sort        = "-created_at"
  max_results = 25
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_list.customers", tfjsonpath.New("total"), knownvalue.Int64Exact(15000)),
				statecheck.ExpectKnownValue("data.commerce_list.customers", tfjsonpath.New("ids"), idsExact(want)),
				statecheck.ExpectKnownValue("data.commerce_list.customers", tfjsonpath.New("records").AtSliceIndex(14999).AtMapKey("type"), knownvalue.StringExact("customer")),
				statecheck.ExpectKnownValue("data.commerce_list.members", tfjsonpath.New("ids"), idsExact(want)),
				statecheck.ExpectKnownValue("data.commerce_list.members", tfjsonpath.New("records"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.commerce_list.newest", tfjsonpath.New("ids"), idsExact(newest)),
				statecheck.ExpectKnownValue("data.commerce_list.newest", tfjsonpath.New("total"), knownvalue.Int64Exact(15000)),
			},
		}},
	})
}

// An endpoint that cannot sort: complete and sorted by the provider below
// the offset limit, a loud error above it.
func TestAccListWithoutSort(t *testing.T) {
	small := emulatortest.Start(t, emulator.Options{Orders: 10, Files: 10, Accounts: 10, Hierarchies: 3000})
	large := emulatortest.Start(t, emulator.Options{Orders: 10, Files: 10, Accounts: 10, Hierarchies: 10500})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, small) + `
data "commerce_list" "hierarchies" {
  path = "/pcm/hierarchies"
  sort = "-updated_at"
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_list.hierarchies", tfjsonpath.New("ids"), idsExact(sortedHere(t, small, "hierarchies", "", "-updated_at"))),
			},
		}, {
			Config: providerConfig(t, large) + `
data "commerce_list" "hierarchies" {
  path = "/pcm/hierarchies"
}`,
			ExpectError: regexp.MustCompile(`(?s)10500 .*at most 10000`),
		}},
	})
}

// Path mistakes fail terraform validate and plan, before any request.
func TestAccListPathValidation(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 10, Files: 10, Accounts: 10})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
data "commerce_list" "url" {
  path = "https://elsewhere.example/v2/customers"
}
data "commerce_list" "climb" {
  path = "/v2/../oauth/access_token"
}`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Invalid path.*is a URL.*Invalid path.*".." segment|(?s)Invalid path.*".." segment.*Invalid path.*is a URL`),
		}},
	})
	for resource, n := range srv.Stats().ListRequests {
		if n > 0 {
			t.Errorf("%d list requests of %s for an invalid path", n, resource)
		}
	}
}
