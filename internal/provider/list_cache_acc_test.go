package provider

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
)

// Plans through the cache see every write made between them: accounts
// created, deleted and updated before the second step are listed exactly,
// by refreshes that ask only what changed.
func TestAccCacheBetweenPlans(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Accounts: 20000})
	dir := filepath.Join(t.TempDir(), "cache")
	config := providerConfig(t, srv, fmt.Sprintf("cache_dir = %q", dir)) + `
data "commerce_accounts" "all" {
  include_records = false
  sort            = "-updated_at"
}
`
	exact := func(s *terraform.State) error {
		want := expected(t, srv, "accounts", "", "-updated_at")
		got := s.RootModule().Resources["data.commerce_accounts.all"].Primary.Attributes
		if got["ids.#"] != strconv.Itoa(len(want)) {
			return fmt.Errorf("%s ids, want %d", got["ids.#"], len(want))
		}
		for i, id := range want {
			if got["ids."+strconv.Itoa(i)] != id {
				return fmt.Errorf("ids[%d] is %s, want %s", i, got["ids."+strconv.Itoa(i)], id)
			}
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: config, Check: exact},
			{
				PreConfig: func() {
					ids := expected(t, srv, "accounts", "", "created_at")
					for i := range 5 {
						if err := srv.Update("accounts", ids[100+i*3000]); err != nil {
							t.Fatal(err)
						}
					}
					for _, id := range ids[7000:7002] {
						if err := srv.Delete("accounts", id); err != nil {
							t.Fatal(err)
						}
					}
					for range 3 {
						if _, err := srv.Insert("accounts"); err != nil {
							t.Fatal(err)
						}
					}
					srv.ResetStats()
				},
				Config: config,
				Check:  exact,
			},
		},
	})
	// Each read of the second step was served through the cache: none of
	// them read a whole window of 10,000 accounts (the last page of one is
	// at offset 9,900), which a full read of 20,000 does twice.
	for _, r := range srv.Stats().Requests {
		if r.Path == "/v2/accounts" && strings.Contains(r.RawQuery, "page%5Boffset%5D=9900") {
			t.Fatalf("a read of the second step read in full: %s", r.RawQuery)
		}
	}
}
