// Command commerce-emulator serves a local emulation of the commerce
// service, so that the provider can be tried without credentials:
//
//	go run ./cmd/commerce-emulator -addr 127.0.0.1:8080 -orders 2500
//
// It prints the base URL and the (public) emulator credentials, with export
// lines for the shell, and serves until interrupted. It only listens on
// loopback addresses.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/commerce-tf/terraform-provider-commerce/internal/emulator"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "commerce-emulator:", err)
		os.Exit(2)
	}
}

// config holds the parsed command line.
type config struct {
	addr      string
	readyFile string
	// requestLog prints each request to stderr (Options.RequestLines).
	requestLog bool
	failRate   float64
	opts       emulator.Options
	resources  []string // names, in the order the banner counts them
}

// resourceFlag is the flags of one resource: its record count and the
// sizes of its created_at tie groups.
type resourceFlag struct {
	name      string // of the resource and its count flag: "orders"
	ties      string // of the tie groups flag: "order-ties"
	tiesUsage string
	def       int
	count     *int // the Options fields the flags set
	groups    *[]int
	n         int
	tiesRaw   string
}

// resourceFlags lists the resources the command generates, with the Options
// fields of each, in the order they are checked.
func resourceFlags(o *emulator.Options) []*resourceFlag {
	return []*resourceFlag{
		{name: "orders", ties: "order-ties", def: emulator.DefaultOrders, count: &o.Orders, groups: &o.OrderTieGroups,
			tiesUsage: "comma-separated sizes of groups of orders sharing one created_at (\"\" = default, \"none\")"},
		{name: "files", ties: "file-ties", def: emulator.DefaultFiles, count: &o.Files, groups: &o.FileTieGroups,
			tiesUsage: "comma-separated tie group sizes for files (\"\" = default, \"none\")"},
		{name: "accounts", ties: "account-ties", def: emulator.DefaultAccounts, count: &o.Accounts, groups: &o.AccountTieGroups,
			tiesUsage: "comma-separated tie group sizes for accounts (\"\" = default, \"none\")"},
		{name: "customers", ties: "customer-ties", def: emulator.DefaultCustomers, count: &o.Customers, groups: &o.CustomerTieGroups,
			tiesUsage: "comma-separated tie group sizes for customers (\"\" = default, \"none\")"},
		{name: "hierarchies", ties: "hierarchy-ties", def: emulator.DefaultHierarchies, count: &o.Hierarchies, groups: &o.HierarchyTieGroups,
			tiesUsage: "comma-separated tie group sizes for hierarchies (/pcm/hierarchies; \"\" = default, \"none\")"},
	}
}

// flags holds the values of the flags that are checked after parsing.
type flags struct {
	resources                    []*resourceFlag
	fileSizeTies, ignoreSort     string
	aliases                      string
	baseTime                     string
	lenientSoftOffset            bool
	pageLimit                    int
	latency, tokenLifetime       time.Duration
	rateLimit                    float64
	rateLimitStrict, retryAfter  bool
	clientID, clientSecret       string
	seed                         int64
	flatTimestamps, stringStatus bool
	counting                     string
	countingFor                  []string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("commerce-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	f := defineFlags(fs, c)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := emulator.CheckLoopback(c.addr); err != nil {
		return nil, err
	}
	if err := f.setResources(); err != nil {
		return nil, err
	}
	if err := f.setOptions(c); err != nil {
		return nil, err
	}
	return c, nil
}

// defineFlags defines the flags on fs: those that need no checking set c
// directly, the others the returned flags.
func defineFlags(fs *flag.FlagSet, c *config) *flags {
	f := &flags{resources: resourceFlags(&c.opts)}
	c.resources = f.names()
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "loopback `host:port` to listen on (port 0 picks a free one)")
	for _, r := range f.resources {
		fs.IntVar(&r.n, r.name, r.def, "number of "+r.name)
		fs.StringVar(&r.tiesRaw, r.ties, "", r.tiesUsage)
	}
	fs.StringVar(&f.fileSizeTies, "file-size-ties", "", "comma-separated sizes of groups of files sharing one exact file_size (default none)")
	fs.StringVar(&f.ignoreSort, "ignore-sort", "", "comma-separated resources ("+strings.Join(c.resources, ", ")+") whose lists accept and ignore any sort instead of answering 400")
	fs.StringVar(&f.counting, "counting", "exact-unlabelled", "how the store counts a list's matches when a request does not ask: exact-unlabelled, exact, lower_bound[:N] (default N 1000), observed, estimate[:P] (default P 10) or none, then ,unlabelled (no total_method) and ,ignore-exact (page[total_method]=exact not honoured)")
	fs.Func("counting-for", "`resource=counting` for one resource, as -counting spells it (repeat the flag for more)", func(v string) error {
		f.countingFor = append(f.countingFor, v)
		return nil
	})
	fs.BoolVar(&c.opts.ShuffleTies, "shuffle-ties", false, "give the records of a sorted list that share the sort value in another order on every request, as a store that sorts on a non-unique key may")
	fs.StringVar(&f.aliases, "alias", "", "comma-separated `path=resource` pairs that serve a resource at another list path too (e.g. /v2/members=customers), to try commerce_list on an endpoint the provider does not know")
	fs.Int64Var(&f.seed, "seed", 1, "seed of the generated data")
	fs.StringVar(&f.baseTime, "base-time", emulator.DefaultBaseTime.Format(time.RFC3339), "created_at of the first records (RFC 3339)")
	fs.DurationVar(&f.latency, "latency", 0, "delay added to every request")
	fs.DurationVar(&f.tokenLifetime, "token-lifetime", emulator.DefaultTokenLifetime, "lifetime of access tokens")
	fs.Float64Var(&f.rateLimit, "rate-limit", 0, "the store's budget: requests per second (sliding one-second window, shared by all endpoints and the token endpoint) accepted before answering 429 (0 = unlimited)")
	fs.BoolVar(&f.rateLimitStrict, "rate-limit-counts-refused", false, "count refused requests in the rate limit's window too, as a stricter store does")
	fs.BoolVar(&f.retryAfter, "rate-limit-retry-after", false, "send Retry-After with the rate limit's 429s (the real service documents none)")
	fs.Float64Var(&c.failRate, "fail-rate", 0, "fraction of requests (0..1) answered with a random 503")
	fs.IntVar(&f.pageLimit, "page-limit", emulator.DefaultPageLimit, "page size when page[limit] is absent (1..100)")
	fs.BoolVar(&f.lenientSoftOffset, "lenient-soft-offset", false, "serve offsets above 10,000 on accounts, customers and hierarchies (the soft limit) instead of answering 400")
	fs.BoolVar(&f.flatTimestamps, "flat-timestamps", false, "put created_at/updated_at and page/results at the top level instead of under meta")
	fs.BoolVar(&f.stringStatus, "string-status", false, `send JSON:API error statuses as strings ("400")`)
	fs.IntVar(&c.opts.MaxFilterTerms, "max-filter-terms", emulator.DefaultMaxFilterTerms, "most terms a request's filter may have before the answer is 400 (negative: no limit)")
	fs.IntVar(&c.opts.MaxFilterRequestBytes, "max-filter-request-bytes", emulator.DefaultMaxFilterRequestBytes, "longest request target (path and query) of a request with a filter before the answer is 400 (negative: no limit)")
	fs.StringVar(&f.clientID, "client-id", emulator.DefaultClientID, "accepted client_id")
	fs.StringVar(&f.clientSecret, "client-secret", emulator.DefaultClientSecret, "accepted client_secret")
	fs.StringVar(&c.opts.StoreName, "store-name", emulator.DefaultStoreName, "name of the store behind the credentials (GET /v2/stores/{id}); its id comes from -seed")
	fs.StringVar(&c.readyFile, "ready-file", "", "write the base URL to this `file` once listening")
	fs.BoolVar(&c.requestLog, "request-log", false, "print one line per request to stderr: time, number, method, target, status, duration")
	return f
}

func (f *flags) names() []string {
	names := make([]string, len(f.resources))
	for i, r := range f.resources {
		names[i] = r.name
	}
	return names
}

// setResources checks and sets the record counts, then the tie groups.
func (f *flags) setResources() error {
	for _, r := range f.resources {
		switch {
		case r.n < 0:
			return fmt.Errorf("-%s must be 0 or more", r.name)
		case r.n == 0:
			*r.count = -1 // Options: negative means none, 0 the default
		default:
			*r.count = r.n
		}
	}
	for _, r := range f.resources {
		groups, err := parseTies(r.ties, r.tiesRaw)
		if err != nil {
			return err
		}
		*r.groups = groups
	}
	return nil
}

// setOptions checks the other flags and sets the options.
func (f *flags) setOptions(c *config) error {
	var err error
	o := &c.opts
	if o.FileSizeTieGroups, err = parseTies("file-size-ties", f.fileSizeTies); err != nil {
		return err
	}
	if o.IgnoreSort, err = f.parseResources("ignore-sort", f.ignoreSort); err != nil {
		return err
	}
	if o.Aliases, err = parseAliases(f.aliases); err != nil {
		return err
	}
	if err := f.setCounting(o); err != nil {
		return err
	}
	if o.BaseTime, err = time.Parse(time.RFC3339, f.baseTime); err != nil {
		return fmt.Errorf("-base-time: %w", err)
	}
	switch {
	case f.latency < 0:
		return errors.New("-latency must not be negative")
	case f.tokenLifetime < time.Second:
		return errors.New("-token-lifetime must be at least 1s")
	case f.rateLimit < 0:
		return errors.New("-rate-limit must not be negative")
	case c.failRate < 0 || c.failRate > 1:
		return errors.New("-fail-rate must be between 0 and 1")
	case f.pageLimit < 1 || f.pageLimit > emulator.MaxPageLimit:
		return fmt.Errorf("-page-limit must be between 1 and %d", emulator.MaxPageLimit)
	case f.clientID == "" || f.clientSecret == "":
		return errors.New("-client-id and -client-secret must not be empty")
	}
	o.Seed, o.Latency, o.TokenLifetime, o.RateLimit = f.seed, f.latency, f.tokenLifetime, f.rateLimit
	o.RateLimitCountsRefused, o.RateLimitRetryAfter = f.rateLimitStrict, f.retryAfter
	o.DefaultPageLimit, o.LenientSoftOffsetLimit = f.pageLimit, f.lenientSoftOffset
	o.FlatTimestamps, o.StringStatus = f.flatTimestamps, f.stringStatus
	o.ClientID, o.ClientSecret = f.clientID, f.clientSecret
	if c.failRate > 0 {
		o.Faults = emulator.FailRandomly(c.failRate, f.seed, emulator.Fault{Status: 503})
	}
	return nil
}

// setCounting checks -counting and -counting-for and sets the options.
func (f *flags) setCounting(o *emulator.Options) error {
	var err error
	if o.Counting, err = emulator.ParseCounting(f.counting); err != nil {
		return fmt.Errorf("-counting: %w", err)
	}
	for _, v := range f.countingFor {
		name, spelled, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("-counting-for: %q is not resource=counting", v)
		}
		names, err := f.parseResources("counting-for", name)
		if err != nil || len(names) != 1 {
			return fmt.Errorf("-counting-for: %q names no one resource: %v", v, err)
		}
		c, err := emulator.ParseCounting(spelled)
		if err != nil {
			return fmt.Errorf("-counting-for: %w", err)
		}
		if o.CountingFor == nil {
			o.CountingFor = map[string]emulator.Counting{}
		}
		o.CountingFor[name] = c
	}
	return nil
}

// parseAliases parses "/v2/members=customers,/v2/staff=accounts".
func parseAliases(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		path, resource, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			return nil, fmt.Errorf("-alias: %q is not path=resource", pair)
		}
		if err := emulator.CheckAlias(path, resource); err != nil {
			return nil, fmt.Errorf("-alias: %w", err)
		}
		out[path] = resource
	}
	return out, nil
}

// parseTies parses "350,100", "" (nil: the default) or "none" (no groups).
func parseTies(name, s string) ([]int, error) {
	switch s = strings.TrimSpace(s); s {
	case "":
		return nil, nil
	case "none":
		return []int{}, nil
	}
	var sizes []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("-%s: %q is not a group size of 2 or more", name, part)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// parseResources parses "files,orders" into resource names.
func (f *flags) parseResources(name, s string) ([]string, error) {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if names := f.names(); !slices.Contains(names, part) {
			return nil, fmt.Errorf("-%s: unknown resource %q; use %s or %s", name, part,
				strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
		}
		out = append(out, part)
	}
	return out, nil
}

// shellQuote quotes s for a POSIX shell when needed.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("-_./:@%+=,", r)
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeReadyFile writes the URL atomically, so a script polling for the file
// never reads it half written.
func writeReadyFile(path, url string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".commerce-emulator-ready-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(url + "\n"); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if c.requestLog {
		c.opts.RequestLines = stderr
	}
	s, err := emulator.StartOn(c.addr, c.opts)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w\n%s is taken: an emulator may already run there (one started with `go run … &` keeps running after `kill $!`, which stops only go run; "+
			"find it with `pgrep -a commerce-emulator`), or pass another -addr (port 0 picks a free one)", err, c.addr)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	url := s.URL()
	counts := make([]string, len(c.resources))
	for i, name := range c.resources {
		counts[i] = strconv.Itoa(s.Count(name)) + " " + name
	}
	fmt.Fprintf(stdout, "commerce-emulator listening on %s with client_id=%s client_secret=%s (%s; these credentials are not secret)\n",
		url, c.opts.ClientID, c.opts.ClientSecret, strings.Join(counts, ", "))
	fmt.Fprintf(stdout, "export COMMERCE_BASE_URL=%s\n", shellQuote(url))
	fmt.Fprintf(stdout, "export COMMERCE_AUTH_URL=%s\n", shellQuote(url))
	fmt.Fprintf(stdout, "export COMMERCE_CLIENT_ID=%s\n", shellQuote(c.opts.ClientID))
	fmt.Fprintf(stdout, "export COMMERCE_CLIENT_SECRET=%s\n", shellQuote(c.opts.ClientSecret))
	if c.readyFile != "" {
		if err := writeReadyFile(c.readyFile, url); err != nil {
			return fmt.Errorf("-ready-file: %w", err)
		}
	}
	<-ctx.Done()
	st := s.Stats()
	fmt.Fprintf(stderr, "commerce-emulator: shutting down after %d requests\n", st.TotalRequests)
	return nil
}
