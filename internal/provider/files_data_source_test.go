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

// TestAccFilesComplete lists every file of stores that cannot sort files:
// one offset window for 50 and 3,000, file_size ranges for 25,000. The
// provider sorts them by created_at (ties by id) itself.
func TestAccFilesComplete(t *testing.T) {
	largeStore(t)
	for _, n := range []int{50, 3000, 25000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			srv := emulatortest.Start(t, emulator.Options{Files: n})
			want := sortedHere(t, srv, "files", "", "created_at")
			if len(want) != n {
				t.Fatalf("emulator has %d files", len(want))
			}
			first := srv.Files()[0]
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: providerBlock(srv) + `
data "commerce_files" "all" {}
data "commerce_files" "ids_only" { include_records = false }`,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("data.commerce_files.all", tfjsonpath.New("total"), knownvalue.Int64Exact(int64(n))),
						statecheck.ExpectKnownValue("data.commerce_files.all", tfjsonpath.New("ids"), idsExact(want)),
						statecheck.ExpectKnownValue("data.commerce_files.ids_only", tfjsonpath.New("ids"), idsExact(want)),
						statecheck.ExpectKnownValue("data.commerce_files.ids_only", tfjsonpath.New("files"), knownvalue.Null()),
						statecheck.ExpectKnownValue("data.commerce_files.all", tfjsonpath.New("files").AtSliceIndex(0).AtMapKey("file_name"), knownvalue.StringExact(first.FileName)),
					},
				}},
			})
		})
	}
}

func TestAccFilesSortFilterAndShape(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Files: 400})
	const f = "ge(file_size,1048576)"
	var image emulator.File
	for _, fl := range srv.Files() {
		if fl.Width > 0 {
			image = fl
			break
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: providerConfig(t, srv) + `
data "commerce_files" "largest" {
  filter      = "` + f + `"
  sort        = "-file_size"
  max_results = 7
}
data "commerce_files" "pngs" {
  where = [{ attribute = "file_name", op = "like", value = "*.png" }]
  sort  = "id"
}
data "commerce_file" "image" { id = "` + image.ID + `" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.commerce_files.largest", tfjsonpath.New("ids"), idsExact(sortedHere(t, srv, "files", f, "-file_size")[:7])),
				statecheck.ExpectKnownValue("data.commerce_files.largest", tfjsonpath.New("total"), knownvalue.Int64Exact(int64(len(sortedHere(t, srv, "files", f, "id"))))),
				statecheck.ExpectKnownValue("data.commerce_files.pngs", tfjsonpath.New("ids"), idsExact(sortedHere(t, srv, "files", "like(file_name,*.png)", "id"))),
				statecheck.ExpectKnownValue("data.commerce_file.image", tfjsonpath.New("width"), knownvalue.Int64Exact(image.Width)),
				statecheck.ExpectKnownValue("data.commerce_file.image", tfjsonpath.New("height"), knownvalue.Int64Exact(image.Height)),
			},
		}},
	})
}

// TestAccFilesTieGroupOverTheLimit: 10,001 files of one exact size cannot
// be told apart by any filter the service offers, so the read fails naming
// the count and how to narrow it, instead of returning 10,000 of them.
func TestAccFilesTieGroupOverTheLimit(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Files: 10400, FileSizeTieGroups: []int{10001}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config:      providerConfig(t, srv) + `data "commerce_files" "all" {}`,
			ExpectError: regexp.MustCompile(`(?s)Cannot list every file.*10001 files have file_size = \d+.*10000.*narrow the\s+filter`),
		}},
	})
}
