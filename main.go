// Command terraform-provider-commerce is the Terraform provider for the
// commerce service.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/commerce-tf/terraform-provider-commerce/internal/provider"
)

// version is set by the release build (goreleaser's ldflags).
var version = "dev"

// registryAddress is where Terraform finds the provider; dev_overrides
// configurations name it too.
const registryAddress = "registry.terraform.io/commerce-tf/commerce"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: registryAddress,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
