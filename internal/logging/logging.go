// Package logging holds the one Logger that the transport
// (internal/client), the listing engine (internal/listing) and reads
// (internal/reads) write their structured lines to. None of them knows
// Terraform: the provider hands them a Logger that routes the lines to
// terraform-plugin-log. Fields never carry credentials or tokens: a
// package leaves them out before it calls a Logger.
package logging

import "context"

// Logger receives structured log lines.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
	Info(ctx context.Context, msg string, fields map[string]any)
	Warn(ctx context.Context, msg string, fields map[string]any)
}

// Discard drops every line: the Logger of a caller that gives none.
type Discard struct{}

func (Discard) Debug(context.Context, string, map[string]any) {}
func (Discard) Info(context.Context, string, map[string]any)  {}
func (Discard) Warn(context.Context, string, map[string]any)  {}
