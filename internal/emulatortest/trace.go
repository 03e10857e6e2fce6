package emulatortest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

// WriteTrace writes the emulator's request log of one run as CSV (start and
// end in ms since the run started, status, query), for timeline analysis:
// COMMERCE_BENCH_TRACE=/some/dir go test -bench ...
func WriteTrace(b testing.TB, path string, start time.Time, reqs []emulator.RequestLog) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, "start_ms,end_ms,status,path,query")
	for _, r := range reqs {
		s := float64(r.Time.Sub(start).Microseconds()) / 1000
		fmt.Fprintf(f, "%.3f,%.3f,%d,%s,%q\n", s, s+float64(r.Duration.Microseconds())/1000, r.Status, r.Path, r.RawQuery)
	}
}
