package commerce

import (
	"net/url"
	"strconv"
)

// The service's limits on list requests, from the vendor's pagination and
// filtering guides.
const (
	// MaxPageSize is the largest page[limit] the service takes.
	MaxPageSize     = 100
	DefaultPageSize = 100
	// OffsetLimit is the largest page[offset] the service serves: a hard
	// limit for orders and files, a soft one (behaviour undocumented) for
	// everything else, so the engine treats it as hard everywhere.
	OffsetLimit = 10000
	// MaxRequestBytes is the longest request target (path and query string,
	// as sent) of a request with a filter that the service takes: the
	// vendor's filtering guide limits such requests to 8 KB, which is about
	// 200 ids in an in().
	MaxRequestBytes = 8192
	// apiPrefix is the versioned prefix of resource paths below base_url.
	apiPrefix = "/v2"
)

// ListParams are the query parameters of a list request.
func ListParams(expr, sort string, offset, limit int) url.Values {
	q := url.Values{}
	q.Set("page[limit]", strconv.Itoa(limit))
	q.Set("page[offset]", strconv.Itoa(offset))
	if sort != "" {
		q.Set("sort", sort)
	}
	if expr != "" {
		q.Set("filter", expr)
	}
	return q
}

// ListRequestLength is the length of the request target of a list request
// of path, as ListParams builds it and with an exact count asked for (the
// longest a listing sends): what the service's MaxRequestBytes counts.
func ListRequestLength(path, expr, sort string, offset, limit int) int {
	q := ListParams(expr, sort, offset, limit)
	q.Set(TotalMethodParam, string(CountExact))
	return len(path) + 1 + len(q.Encode())
}
