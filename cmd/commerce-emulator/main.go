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
	failRate  float64
	opts      emulator.Options
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("commerce-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		c                                config
		orders, files, accounts          int
		orderTies, fileTies, accountTies string
		fileSizeTies, ignoreSort         string
		baseTime                         string
		lenientSoftOffset                bool
		pageLimit                        int
		latency, tokenLifetime           time.Duration
		rateLimit                        float64
		clientID, clientSecret           string
		seed                             int64
		flatTimestamps, stringStatus     bool
	)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "loopback `host:port` to listen on (port 0 picks a free one)")
	fs.IntVar(&orders, "orders", emulator.DefaultOrders, "number of orders")
	fs.IntVar(&files, "files", emulator.DefaultFiles, "number of files")
	fs.IntVar(&accounts, "accounts", emulator.DefaultAccounts, "number of accounts")
	fs.StringVar(&orderTies, "order-ties", "", "comma-separated sizes of groups of orders sharing one created_at (\"\" = default, \"none\")")
	fs.StringVar(&fileTies, "file-ties", "", "comma-separated tie group sizes for files (\"\" = default, \"none\")")
	fs.StringVar(&accountTies, "account-ties", "", "comma-separated tie group sizes for accounts (\"\" = default, \"none\")")
	fs.StringVar(&fileSizeTies, "file-size-ties", "", "comma-separated sizes of groups of files sharing one exact file_size (default none)")
	fs.StringVar(&ignoreSort, "ignore-sort", "", "comma-separated resources (orders, files, accounts) whose lists accept and ignore any sort instead of answering 400")
	fs.Int64Var(&seed, "seed", 1, "seed of the generated data")
	fs.StringVar(&baseTime, "base-time", emulator.DefaultBaseTime.Format(time.RFC3339), "created_at of the first records (RFC 3339)")
	fs.DurationVar(&latency, "latency", 0, "delay added to every request")
	fs.DurationVar(&tokenLifetime, "token-lifetime", emulator.DefaultTokenLifetime, "lifetime of access tokens")
	fs.Float64Var(&rateLimit, "rate-limit", 0, "requests per second accepted before answering 429 (0 = unlimited)")
	fs.Float64Var(&c.failRate, "fail-rate", 0, "fraction of requests (0..1) answered with a random 503")
	fs.IntVar(&pageLimit, "page-limit", emulator.DefaultPageLimit, "page size when page[limit] is absent (1..100)")
	fs.BoolVar(&lenientSoftOffset, "lenient-soft-offset", false, "serve offsets above 10,000 on accounts (the soft limit) instead of answering 400")
	fs.BoolVar(&flatTimestamps, "flat-timestamps", false, "put created_at/updated_at and page/results at the top level instead of under meta")
	fs.BoolVar(&stringStatus, "string-status", false, `send JSON:API error statuses as strings ("400")`)
	fs.StringVar(&clientID, "client-id", emulator.DefaultClientID, "accepted client_id")
	fs.StringVar(&clientSecret, "client-secret", emulator.DefaultClientSecret, "accepted client_secret")
	fs.StringVar(&c.readyFile, "ready-file", "", "write the base URL to this `file` once listening")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := emulator.CheckLoopback(c.addr); err != nil {
		return nil, err
	}
	count := func(name string, n int) (int, error) {
		switch {
		case n < 0:
			return 0, fmt.Errorf("-%s must be 0 or more", name)
		case n == 0:
			return -1, nil // Options: negative means none, 0 the default
		}
		return n, nil
	}
	var err error
	o := &c.opts
	if o.Orders, err = count("orders", orders); err != nil {
		return nil, err
	}
	if o.Files, err = count("files", files); err != nil {
		return nil, err
	}
	if o.Accounts, err = count("accounts", accounts); err != nil {
		return nil, err
	}
	if o.OrderTieGroups, err = parseTies("order-ties", orderTies); err != nil {
		return nil, err
	}
	if o.FileTieGroups, err = parseTies("file-ties", fileTies); err != nil {
		return nil, err
	}
	if o.AccountTieGroups, err = parseTies("account-ties", accountTies); err != nil {
		return nil, err
	}
	if o.FileSizeTieGroups, err = parseTies("file-size-ties", fileSizeTies); err != nil {
		return nil, err
	}
	if o.IgnoreSort, err = parseResources("ignore-sort", ignoreSort); err != nil {
		return nil, err
	}
	if o.BaseTime, err = time.Parse(time.RFC3339, baseTime); err != nil {
		return nil, fmt.Errorf("-base-time: %w", err)
	}
	switch {
	case latency < 0:
		return nil, errors.New("-latency must not be negative")
	case tokenLifetime < time.Second:
		return nil, errors.New("-token-lifetime must be at least 1s")
	case rateLimit < 0:
		return nil, errors.New("-rate-limit must not be negative")
	case c.failRate < 0 || c.failRate > 1:
		return nil, errors.New("-fail-rate must be between 0 and 1")
	case pageLimit < 1 || pageLimit > emulator.MaxPageLimit:
		return nil, fmt.Errorf("-page-limit must be between 1 and %d", emulator.MaxPageLimit)
	case clientID == "" || clientSecret == "":
		return nil, errors.New("-client-id and -client-secret must not be empty")
	}
	o.Seed, o.Latency, o.TokenLifetime, o.RateLimit = seed, latency, tokenLifetime, rateLimit
	o.DefaultPageLimit, o.LenientSoftOffsetLimit = pageLimit, lenientSoftOffset
	o.FlatTimestamps, o.StringStatus = flatTimestamps, stringStatus
	o.ClientID, o.ClientSecret = clientID, clientSecret
	if c.failRate > 0 {
		o.Faults = emulator.FailRandomly(c.failRate, seed, emulator.Fault{Status: 503})
	}
	return &c, nil
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
func parseResources(name, s string) ([]string, error) {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		switch part = strings.TrimSpace(part); part {
		case "":
		case "orders", "files", "accounts":
			out = append(out, part)
		default:
			return nil, fmt.Errorf("-%s: unknown resource %q; use orders, files or accounts", name, part)
		}
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

	s, err := emulator.StartOn(c.addr, c.opts)
	if err != nil {
		return err
	}
	defer s.Close()
	url := s.URL()
	fmt.Fprintf(stdout, "commerce-emulator listening on %s with client_id=%s client_secret=%s (%d orders, %d files, %d accounts; these credentials are not secret)\n",
		url, c.opts.ClientID, c.opts.ClientSecret, s.Count("orders"), s.Count("files"), s.Count("accounts"))
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
