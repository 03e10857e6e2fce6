package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// TestAccPlanTimeValidation proves that bad input fails at plan with the
// attribute named and the offending part quoted, before any request
// reaches the service.
func TestAccPlanTimeValidation(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 10, Accounts: 10, Files: 10})
	cases := map[string]struct{ config, want string }{
		"unknown operator": {`data "commerce_orders" "x" { filter = "gte(created_at,2026-01-01T00:00:00.000Z)" }`,
			`(?s)Invalid filter expression.*filter:\s+unknown\s+operator\s+"gte"\s+\(did\s+you\s+mean\s+"ge"\?\);\s+use\s+one\s+of.*Example:\s+ge\(created_at`},
		"misspelt attribute": {`data "commerce_orders" "x" { filter = "eq(stauts,complete)" }`,
			`(?s)Unknown filter attribute.*filter:\s+"eq\(stauts,complete\)":\s+orders\s+cannot\s+be\s+filtered\s+on\s+"stauts";\s+did\s+you\s+mean\s+"status"\?\s+The\s+service\s+filters\s+orders\s+on:\s+account_id,`},
		"unknown attribute in a lookup": {`data "commerce_account" "x" { filter = "eq(colour,red)" }`,
			`(?s)Unknown filter attribute.*accounts\s+cannot\s+be\s+filtered\s+on\s+"colour"\.\s+The\s+service\s+filters\s+accounts\s+on:`},
		"misspelt where attribute": {`data "commerce_orders" "x" {
  where = [{ attribute = "currency", op = "eq", value = "USD" }, { attribute = "stauts", op = "eq", value = "complete" }]
}`, `(?s)Unknown filter attribute.*where\[1\]\.attribute:\s+\{ attribute = "stauts", op = "eq", value = "complete" \}:\s+orders\s+cannot\s+be\s+filtered\s+on\s+"stauts";\s+did\s+you\s+mean\s+"status"\?`},
		"unbalanced parentheses": {`data "commerce_orders" "x" { filter = "eq(status,complete" }`,
			`(?s)Invalid filter expression.*filter:.*Example:`},
		"missing value": {`data "commerce_accounts" "x" { filter = "eq(name,)" }`,
			`(?s)Invalid filter expression.*missing value`},
		"wrong arity": {`data "commerce_orders" "x" { filter = "eq(status,a,b)" }`,
			`(?s)Invalid filter expression.*eq`},
		"eleven terms in a lookup": {`data "commerce_account" "x" { filter = "` + strings.TrimSuffix(strings.Repeat("like(name,*):", 11), ":") + `" }`,
			`(?s)Too many filter terms.*filter:\s+filter\s+has\s+11\s+terms;\s+the\s+service\s+takes\s+at\s+most\s+10`},
		"malformed timestamp": {`data "commerce_orders" "x" { filter = "ge(created_at,2026-1-01)" }`,
			`(?s)Invalid filter value.*"ge\(created_at,2026-1-01\)".*use\s+a\s+date\s+\(2026-01-02,\s+midnight\s+UTC\),\s+milliseconds`},
		"where typo, at its item": {`data "commerce_orders" "x" {
  where = [
    { attribute = "status", op = "eq", value = "complete" },
    { attribute = "stauts", op = "eq", value = "complete" },
  ]
}`, `(?s)Unknown filter attribute.*\d+:\s+\{ attribute = "stauts", op = "eq", value = "complete" \},\s+where\[1\]\.attribute: \{ attribute = "stauts".*did you\s+mean\s+"status"\?.*Example: where = \[`},
		"timestamp in where": {`data "commerce_orders" "x" {
  where = [{ attribute = "updated_at", op = "lt", value = "yesterday" }]
}`, `(?s)Invalid filter value.*where\[0\].*"yesterday" is not a timestamp`},
		"in without values": {`data "commerce_files" "x" {
  where = [{ attribute = "mime_type", op = "in", value = "image/png" }]
}`, `(?s)Use values with in.*where\[0\]`},
		"bad where attribute": {`data "commerce_files" "x" {
  where = [{ attribute = "file name", op = "eq", value = "a" }]
}`, `(?s)Invalid where attribute.*"file name"`},
		"bad where operator": {`data "commerce_files" "x" {
  where = [{ attribute = "file_name", op = "contains", value = "a" }]
}`, `(?s)Invalid where operator.*where\[0\]\.op\s+is\s+"contains",\s+which\s+is\s+not\s+an\s+operator\.\s+Use\s+one\s+of`},
		"misspelt where operator": {`data "commerce_files" "x" {
  where = [{ attribute = "file_name", op = "eq", value = "a" }, { attribute = "file_size", op = "gte", value = "1" }]
}`, `(?s)Invalid where operator.*where\[1\]\.op\s+is\s+"gte",\s+which\s+is\s+not\s+an\s+operator;\s+did\s+you\s+mean\s+"ge"\?\s+Use\s+one\s+of`},
		"number compared with like": {`data "commerce_files" "x" { filter = "like(file_size,1*)" }`,
			`(?s)Operator not supported on this attribute.*"like\(file_size,1\*\)".*files\s+file_size\s+with\s+gt,\s+ge,\s+lt,\s+le\s+only,\s+not\s+with\s+like`},
		"range on a text attribute": {`data "commerce_accounts" "x" { filter = "gt(name,M)" }`,
			`(?s)Operator not supported on this attribute.*accounts\s+name\s+with\s+eq,\s+like\s+only,\s+not\s+with\s+gt`},
		"in on orders": {`data "commerce_orders" "x" {
  where = [{ attribute = "status", op = "in", values = ["complete", "processing"] }]
}`, `(?s)Operator not supported on this attribute.*where\[0\].*orders\s+status\s+with\s+eq\s+only,\s+not\s+with\s+in`},
		"valid terms pass, one operator fails": {`data "commerce_files" "x" { filter = "ge(file_size,1):lt(width,9):eq(file_name,a):le(file_size,9):gt(height,1)" }
data "commerce_file" "y" { filter = "like(file_name,a*):ge(created_at,2026-01-01T00:00:00.000Z)" }
data "commerce_accounts" "z" { filter = "le(id,abc):like(external_ref,crm-*)" }
data "commerce_orders" "w" { filter = "lt(with_tax,1):eq(updated_at,2026-01-01T00:00:00.000Z)" }
data "commerce_file" "v" { filter = "eq(width,100)" }`,
			`(?s)Operator not supported on this attribute.*commerce_file.v.*files\s+width\s+with\s+gt,\s+ge,\s+lt,\s+le\s+only,\s+not\s+with\s+eq`},
		"bad consistency_buffer": {`data "commerce_orders" "x" { consistency_buffer = "60" }`,
			`(?s)consistency_buffer must be a positive duration`},
		"sort not supported": {`data "commerce_orders" "x" { sort = "name" }`,
			`(?s)sort.*value must be one of`},
		"max_results zero": {`data "commerce_orders" "x" { max_results = 0 }`,
			`(?s)max_results.*at least 1`},
		"conflicting lookup keys": {`data "commerce_account" "x" {
  name            = "Acme, Inc."
  registration_id = "RC01048274"
}`, `(?s)Invalid Attribute Combination.*name.*registration_id`},
		"no lookup key": {`data "commerce_order" "x" {}`,
			`(?s)Missing Attribute Configuration.*Exactly one of these attributes must be configured.*\[id,order_number,external_ref,filter\]`},
		"bad lookup filter": {`data "commerce_file" "x" { filter = "eq(file_name,a):" }`,
			`(?s)Invalid filter expression.*filter:`},
		"filter too long": {`data "commerce_orders" "x" { filter = "eq(order_number,${join(",", [for i in range(2000) : "ORD-${i}"])})" }`,
			`(?s)filter`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv.ResetStats()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config:      providerConfig(t, srv) + tc.config,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
			if st := srv.Stats(); st.TotalRequests != 0 {
				t.Errorf("%d requests reached the service; validation must fail before any", st.TotalRequests)
			}
		})
	}
}

// TestAccUnknownAttributeIsAnError checks that a filter attribute the
// capability table does not know fails terraform validate with one error
// per mistake, the closest attribute suggested when one is close, and that
// no request reaches the service.
func TestAccUnknownAttributeIsAnError(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 10})
	want := []*regexp.Regexp{
		regexp.MustCompile(`(?s)filter:\s+"eq\(colour,red\)":\s+orders\s+cannot\s+be\s+filtered\s+on\s+"colour"\.\s+The\s+service\s+filters\s+orders\s+on:\s+account_id,`),
		regexp.MustCompile(`(?s)filter:\s+"eq\(stauts,complete\)":\s+orders\s+cannot\s+be\s+filtered\s+on\s+"stauts";\s+did\s+you\s+mean\s+"status"\?`),
	}
	failed := false
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `data "commerce_orders" "x" { filter = "eq(colour,red)" }
data "commerce_orders" "y" { filter = "eq(stauts,complete)" }`,
		}},
		// Not ExpectError, which cannot count: each mistake is one error.
		ErrorCheck: func(err error) error {
			failed = true
			out := err.Error()
			if n := len(regexp.MustCompile(`Error:\s+Unknown\s+filter\s+attribute`).FindAllString(out, -1)); n != 2 {
				return fmt.Errorf("%d Unknown filter attribute errors, want 2 (one per data source): %w", n, err)
			}
			for _, re := range want {
				if !re.MatchString(out) {
					return fmt.Errorf("no match for %s: %w", re, err)
				}
			}
			return nil
		},
	})
	if !failed {
		t.Error("the configuration did not fail")
	}
	if st := srv.Stats(); st.TotalRequests != 0 {
		t.Errorf("%d requests reached the service; validation must fail before any", st.TotalRequests)
	}
}
