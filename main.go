// Command terraform-provider-commerce is the Terraform provider for the
// commerce service.
package main

import (
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

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

	// The framework's server, with the list data sources' state written
	// directly (see provider.NewServer).
	server, err := provider.NewServer(version)()
	if err != nil {
		log.Fatal(err.Error())
	}
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	err = tf6server.Serve(registryAddress, func() tfprotov6.ProviderServer { return server }, opts...)
	if err != nil {
		log.Fatal(err.Error())
	}
}
