package listing

// The Engine: what it needs of the transport (Getter), its options, and
// what it remembers of the endpoints while it lives.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/commerce-tf/terraform-provider-commerce/internal/coalesce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// Getter is what the engine needs of the transport: GET path?query (path
// below the service's base address, query possibly nil) and hand the
// answer's body to decode; a decode error whose Final method returns true
// (a commerce.ProtocolError) ends the request, any other is retried.
// internal/client's Client is one; tests use fakes.
type Getter interface {
	Get(ctx context.Context, path string, query url.Values, decode func([]byte) error) error
}

// Logger receives the engine's structured log lines; internal/client's
// Logger is the same interface, so that one value serves both.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
	Info(ctx context.Context, msg string, fields map[string]any)
	Warn(ctx context.Context, msg string, fields map[string]any)
}

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	// PageSize is the records per page, 1..commerce.MaxPageSize; 0 takes
	// commerce.DefaultPageSize.
	PageSize int
	// MaxParallelRequests is how many requests the transport lets be in
	// flight at once; a listing keeps two more page requests queued, so
	// that a worker decoding a page never leaves a request slot idle.
	// 0 takes 8.
	MaxParallelRequests int
	Logger              Logger
	// Snapshots, if set, keeps each listing's snapshot between runs, so
	// that a later read of the same listing asks only what changed
	// (cached.go).
	Snapshots Snapshots
}

// Snapshots keeps listings' snapshots between runs, by name; where and
// how is the caller's business (the provider's cache_dir).
type Snapshots interface {
	// Load returns what Save kept under name: nil and no error when there
	// is nothing, an error when what is there cannot be used.
	Load(name string) ([]byte, error)
	// Save keeps data under name. An error wrapping ErrNotKept is a
	// snapshot the store chose not to keep (larger than its bound), which
	// the engine says at INFO; any other error is a store that failed.
	Save(name string, data []byte) error
}

// ErrNotKept is how Snapshots.Save declines a snapshot it could keep no
// room for.
var ErrNotKept = errors.New("snapshot not kept")

// Engine lists and looks up records through a Getter. One Engine serves
// every data source of a provider configuration, and remembers what it
// learned of the service's endpoints for as long as it lives: which ones
// refused or ignored a sort, and what a probe found out about endpoints
// the capability table does not know. It is safe for concurrent use.
type Engine struct {
	get       Getter
	pageSize  int
	workers   int
	log       Logger
	snapshots Snapshots

	// reads lets the reads that need one listing share it (share.go).
	reads coalesce.Group[any, sharedRun]
	// plans counts the reads planned, for the tests that hold a read to
	// one plan.
	plans atomic.Int64

	// unsortable holds the endpoints (by path) that refused or ignored a
	// sort the capability table promised: listed without sort from then on.
	unsortable sync.Map
	// probes holds, by path, what Probe found out about endpoints the
	// capability table does not know (*probeCall).
	probes sync.Map
}

// New checks opts and builds an Engine on get.
func New(get Getter, opts Options) (*Engine, error) {
	switch {
	case opts.PageSize == 0:
		opts.PageSize = commerce.DefaultPageSize
	case opts.PageSize < 1 || opts.PageSize > commerce.MaxPageSize:
		return nil, fmt.Errorf("page_size %d is outside 1..%d", opts.PageSize, commerce.MaxPageSize)
	}
	if opts.MaxParallelRequests == 0 {
		opts.MaxParallelRequests = 8
	} else if opts.MaxParallelRequests < 1 {
		return nil, fmt.Errorf("max_parallel_requests %d must be at least 1", opts.MaxParallelRequests)
	}
	if opts.Logger == nil {
		opts.Logger = nopLogger{}
	}
	return &Engine{get: get, pageSize: opts.PageSize, workers: opts.MaxParallelRequests + 2, log: opts.Logger,
		snapshots: opts.Snapshots}, nil
}

// sortUnusable reports whether path refused or ignored sort= earlier.
func (e *Engine) sortUnusable(path string) bool {
	_, ok := e.unsortable.Load(path)
	return ok
}

// markSortUnusable records that path cannot sort, once, and says so.
func (e *Engine) markSortUnusable(ctx context.Context, path, sort, cause string) {
	if _, loaded := e.unsortable.LoadOrStore(path, cause); !loaded {
		e.log.Info(ctx, "the service does not sort this endpoint as documented; listing it in the service's own order from now on", map[string]any{
			"path": path, "sort": sort, "cause": cause,
		})
	}
}

// logProgress says, every progressInterval records, how far a listing got,
// and what the service's count said there are.
func (e *Engine) logProgress(ctx context.Context, resource string, listed int, count commerce.Count) {
	e.log.Info(ctx, "listed "+strconv.Itoa(listed)+" "+resource+" (the service counts "+count.String()+")",
		map[string]any{"resource": resource, "listed": listed, "count": count.N, "count_method": countMethodName(count)})
}

// countMethodName is how log lines name a count's method.
func countMethodName(c commerce.Count) string {
	if c.Method == commerce.CountUnlabelled {
		return "unlabelled"
	}
	return string(c.Method)
}

type nopLogger struct{}

func (nopLogger) Debug(context.Context, string, map[string]any) {}
func (nopLogger) Info(context.Context, string, map[string]any)  {}
func (nopLogger) Warn(context.Context, string, map[string]any)  {}

// progressInterval is how often (in records) a listing logs its progress.
const progressInterval = 5000
