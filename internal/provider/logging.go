package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// tfLogger routes the client's log lines to terraform-plugin-log, so that
// TF_LOG and TF_LOG_PROVIDER control them. The client never hands it
// credentials or tokens.
type tfLogger struct{}

func (tfLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

func (tfLogger) Info(ctx context.Context, msg string, fields map[string]any) {
	tflog.Info(ctx, msg, fields)
}

func (tfLogger) Warn(ctx context.Context, msg string, fields map[string]any) {
	tflog.Warn(ctx, msg, fields)
}
