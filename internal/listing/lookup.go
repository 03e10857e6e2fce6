package listing

// One record by id, and the store behind the credentials.

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
)

// Lookup reads one record by id. The record the service answers with must
// be the one asked for (commerce.DecodeRecordBody); display attributes of
// an unexpected type are logged, one WARN each (see commerce's lenient.go).
func Lookup[T commerce.Record](ctx context.Context, e *Engine, kind commerce.Kind[T], id string, includeJSON bool) (T, error) {
	var out T
	if strings.TrimSpace(id) == "" {
		return out, fmt.Errorf("%s id must not be empty", kind.Singular)
	}
	path := kind.Path + "/" + url.PathEscape(id)
	var issues commerce.Issues
	err := e.get.Get(ctx, path, nil, func(body []byte) error {
		rec, is, err := commerce.DecodeRecordBody(body, kind, id, includeJSON, path)
		out, issues = rec, is
		return err
	})
	if err == nil {
		for _, w := range issues.LookupWarnings(kind.RecordNoun(), out.RecordID()) {
			e.log.Warn(ctx, w.Message, w.Fields)
		}
	}
	return out, err
}

// LookupSettings reads the settings of the store behind the credentials:
// its id and its limits on lists (commerce.DecodeSettingsBody).
func LookupSettings(ctx context.Context, e *Engine) (commerce.StoreSettings, error) {
	var out commerce.StoreSettings
	err := e.get.Get(ctx, commerce.SettingsPath, nil, func(body []byte) error {
		s, err := commerce.DecodeSettingsBody(body)
		out = s
		return err
	})
	return out, err
}

// LookupStoreName reads the name of the store with id, as the settings
// give it.
func LookupStoreName(ctx context.Context, e *Engine, id string) (string, error) {
	var out string
	err := e.get.Get(ctx, commerce.StorePath(id), nil, func(body []byte) error {
		name, err := commerce.DecodeStoreBody(body, id)
		out = name
		return err
	})
	return out, err
}
