package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Get reads one record by id. The record the service answers with must be
// the one asked for (ids compare without regard to case, as UUIDs do);
// display attributes of an unexpected type are logged, one WARN each (see
// lenient.go).
func Get[T Record](ctx context.Context, c *Client, kind Kind[T], id string, includeJSON bool) (T, error) {
	var out T
	if strings.TrimSpace(id) == "" {
		return out, fmt.Errorf("%s id must not be empty", kind.Singular)
	}
	what := kind.Singular
	if what == "" {
		what = "record"
	}
	path := kind.Path + "/" + url.PathEscape(id)
	var issues []decodeIssue
	err := c.get(ctx, path, nil, func(body []byte) error {
		var doc struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			return err
		}
		if len(doc.Data) == 0 || string(doc.Data) == "null" {
			return contractBroken(path, "the response has no data object")
		}
		var notes decodeNotes
		rec, err := kind.decodeRecord(doc.Data, includeJSON, &notes)
		if err != nil {
			return contractBroken(path, "%v", err)
		}
		if got := rec.RecordID(); !strings.EqualFold(got, id) {
			return contractBroken(path, "asked for %s %s but the service answered with %s %s", what, id, what, got)
		}
		out, issues = rec, notes.issues
		return nil
	})
	if err == nil {
		c.warnLookup(ctx, what, out.RecordID(), issues)
	}
	return out, err
}
