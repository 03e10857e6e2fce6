package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
	"github.com/commerce-tf/terraform-provider-commerce/internal/emulatortest"
	"github.com/commerce-tf/terraform-provider-commerce/internal/provider"
)

// The floor serves exactly the state the real provider read, and nothing
// else.
func TestRecordThenServe(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{Orders: 250, Files: -1, Accounts: -1})
	out := filepath.Join(t.TempDir(), "state.msgpack")
	if err := record([]string{"-base-url", srv.URL(), "-client-id", emulator.DefaultClientID,
		"-client-secret", emulator.DefaultClientSecret, "-out", out}); err != nil {
		t.Fatal(err)
	}
	state, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	full, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	f := &floor{ProviderServer: full, state: state}
	resp, err := f.ReadDataSource(t.Context(), &tfprotov6.ReadDataSourceRequest{TypeName: dataSource})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resp.State.MsgPack, state) {
		t.Error("the floor does not serve the recorded state")
	}
	schemas, err := f.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := resp.State.Unmarshal(schemas.DataSourceSchemas[dataSource].ValueType())
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	var ids []tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if err := attrs["ids"].As(&ids); err != nil || len(ids) != 250 {
		t.Errorf("recorded state has %d ids (%v), want 250", len(ids), err)
	}
	if _, err := f.ReadDataSource(t.Context(), &tfprotov6.ReadDataSourceRequest{TypeName: "commerce_files"}); err == nil {
		t.Error("the floor read commerce_files")
	}
}
