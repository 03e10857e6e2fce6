package provider

import (
	"bytes"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// A lookup's state, which liststate writes as it writes each record of a
// list, is byte for byte the framework's encoding of the configuration
// with the record's attributes, with and without the JSON.
func TestLookupStateEqualsFramework(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 20, Files: 1, Accounts: 1})
	clearEnv(t)
	p := serveInProcess(t, srv)
	s, err := newConfiguredStore(client.Config{BaseURL: srv.URL(), ClientID: emulator.DefaultClientID, ClientSecret: emulator.DefaultClientSecret}, listing.Options{}, reads.Options{})
	if err != nil {
		t.Fatal(err)
	}
	typ := p.dataSourceType(t, "commerce_order")
	for _, o := range srv.Orders()[:5] {
		for _, withJSON := range []bool{false, true} {
			set := map[string]tftypes.Value{"id": str(o.ID), "include_json": tftypes.NewValue(tftypes.Bool, withJSON)}
			got := p.readState(t, "commerce_order", set)
			rec, err := listing.Lookup(t.Context(), s.engine, commerce.Orders, o.ID, withJSON)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := stateWith(nullObject(typ, set), orderType.tfValues(rec, withJSON))
			if err != nil {
				t.Fatal(err)
			}
			want, err := tfprotov6.NewDynamicValue(typ, ref)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.MsgPack) {
				t.Errorf("order %s (json %v): the lookup's state differs from the framework's encoding", o.ID, withJSON)
			}
		}
	}
}
