package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Get reads one record by id.
func Get[T Record](ctx context.Context, c *Client, kind Kind[T], id string, includeJSON bool) (T, error) {
	var out T
	if strings.TrimSpace(id) == "" {
		return out, fmt.Errorf("%s id must not be empty", kind.Singular)
	}
	path := kind.Path + "/" + url.PathEscape(id)
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
		rec, err := kind.decode(doc.Data, includeJSON)
		if err != nil {
			return contractBroken(path, "%v", err)
		}
		out = rec
		return nil
	})
	return out, err
}
