// Package emulatortest starts the commerce emulator for the tests of other
// packages, so that each does not keep its own copy of the same helper.
package emulatortest

import (
	"net"
	"testing"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// Start runs an emulator on 127.0.0.1 at a free port for the rest of the
// test: it fails the test if the emulator cannot start, and closes it when
// the test and its subtests are done.
func Start(t testing.TB, opts emulator.Options) *emulator.Server {
	t.Helper()
	srv, err := emulator.Start(opts)
	if err != nil {
		t.Fatalf("starting emulator: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// ClosedAddr is a loopback host:port that nothing listens on (a listener's
// port, closed again), for tests of a service that cannot be reached.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
