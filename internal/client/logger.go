package client

import "context"

// Logger receives the client's structured log lines. Fields never carry
// credentials or tokens: the client leaves them out before it calls a Logger.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
	Info(ctx context.Context, msg string, fields map[string]any)
	Warn(ctx context.Context, msg string, fields map[string]any)
}

type nopLogger struct{}

func (nopLogger) Debug(context.Context, string, map[string]any) {}
func (nopLogger) Info(context.Context, string, map[string]any)  {}
func (nopLogger) Warn(context.Context, string, map[string]any)  {}
