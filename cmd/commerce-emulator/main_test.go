package main

import (
	"io"
	"net"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"-addr", "127.0.0.1:0", "-orders", "0", "-files", "7", "-latency", "5ms",
		"-order-ties", "100,20", "-account-ties", "none", "-fail-rate", "0.1", "-seed", "9",
		"-customers", "15000", "-customer-ties", "40", "-hierarchies", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o := c.opts
	if o.Orders != -1 || o.Files != 7 || o.Accounts != 250 || o.Latency != 5*time.Millisecond || o.Seed != 9 ||
		len(o.OrderTieGroups) != 2 || o.AccountTieGroups == nil || len(o.AccountTieGroups) != 0 || o.FileTieGroups != nil ||
		o.Faults == nil || o.ClientID != "emulator-client-id" || o.FileSizeTieGroups != nil || o.IgnoreSort != nil ||
		o.Customers != 15000 || !slices.Equal(o.CustomerTieGroups, []int{40}) || o.Hierarchies != -1 || o.HierarchyTieGroups != nil {
		t.Errorf("options %+v", o)
	}
	c, err = parseFlags([]string{"-file-size-ties", "10001,40", "-ignore-sort", "files, orders,customers", "-alias", "/v2/members=customers, /pcm/trees=hierarchies"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o := c.opts; !slices.Equal(o.FileSizeTieGroups, []int{10001, 40}) || !slices.Equal(o.IgnoreSort, []string{"files", "orders", "customers"}) ||
		len(o.Aliases) != 2 || o.Aliases["/v2/members"] != "customers" || o.Aliases["/pcm/trees"] != "hierarchies" ||
		o.Customers != emulator.DefaultCustomers || o.Hierarchies != emulator.DefaultHierarchies {
		t.Errorf("options %+v", o)
	}
	c, err = parseFlags([]string{"-counting", "lower_bound:10000,unlabelled", "-counting-for", "orders=observed", "-counting-for", "files=none"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o := c.opts; o.Counting != (emulator.Counting{Method: "lower_bound", Cap: 10000, Unlabelled: true}) ||
		len(o.CountingFor) != 2 || o.CountingFor["orders"].Method != "observed" || o.CountingFor["files"].Method != "none" {
		t.Errorf("counting options %+v, %+v", o.Counting, o.CountingFor)
	}
	if !slices.Equal(c.resources, []string{"orders", "files", "accounts", "customers", "hierarchies"}) {
		t.Errorf("banner resources %v", c.resources)
	}
	for _, args := range [][]string{
		{"-addr", "0.0.0.0:8080"},
		{"-addr", ":8080"},
		{"-addr", "192.168.1.1:80"},
		{"-addr", "example.com:80"},
		{"-orders", "-1"},
		{"-fail-rate", "2"},
		{"-page-limit", "101"},
		{"-order-ties", "1"},
		{"-file-size-ties", "x"},
		{"-ignore-sort", "promotions"},
		{"-alias", "/v2/members"},
		{"-alias", "/v2/members=members"},
		{"-alias", "/elsewhere/members=customers"},
		{"-alias", "/v2=customers"},
		{"-customers", "-1"},
		{"-hierarchy-ties", "1"},
		{"-base-time", "yesterday"},
		{"-counting", "precise"},
		{"-counting-for", "orders"},
		{"-counting-for", "promotions=exact"},
		{"-counting-for", "orders=lower_bound:0"},
		{"extra"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:8080", "127.0.0.2:80"} {
		if _, err := parseFlags([]string{"-addr", addr}, io.Discard); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080": "http://127.0.0.1:8080",
		"emulator-client-id":    "emulator-client-id",
		"it's $x":               `'it'\''s $x'`,
		"":                      "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if strings.Contains(shellQuote("a b"), " ") && !strings.HasPrefix(shellQuote("a b"), "'") {
		t.Error("space not quoted")
	}
}

// TestBusyPortSaysWhy: a second emulator on a taken port names the likely
// cause, the first one still running.
func TestBusyPortSaysWhy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = run([]string{"-addr", ln.Addr().String(), "-orders", "1"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "an emulator may already run there") || !strings.Contains(err.Error(), "port 0 picks a free one") {
		t.Fatalf("err = %v", err)
	}
}

// TestRequestLogPrintsEachRequest: -request-log gives one line a request,
// with its target as written and its status.
func TestRequestLogPrintsEachRequest(t *testing.T) {
	c, err := parseFlags([]string{"-addr", "127.0.0.1:0", "-request-log"}, io.Discard)
	if err != nil || !c.requestLog {
		t.Fatalf("-request-log: %v %+v", err, c)
	}
	var lines strings.Builder
	s := emulator.New(emulator.Options{Orders: 3, RequestLines: &lines})
	for _, target := range []string{"/v2/orders?page[limit]=2", "/v2/orders?filter=eq(status,nope"} {
		s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", target, nil))
	}
	got := strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3} #1 GET /v2/orders\?page\[limit\]=2 401 \S+$`),
		regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3} #2 GET /v2/orders\?filter=eq\(status,nope 401 \S+$`),
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), lines.String())
	}
	for i, re := range want {
		if !re.MatchString(got[i]) {
			t.Errorf("line %d = %q, want %s", i+1, got[i], re)
		}
	}
}
