package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// defaultReadTimeout bounds a whole listing when timeouts.read is not set:
// generous, since 100,000 records at a slow store take minutes.
const defaultReadTimeout = 20 * time.Minute

// attributeGetter is the one method of tfsdk.Config the input helpers use,
// so that they do not care where the values come from.
type attributeGetter interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}

// withReadTimeout bounds ctx by the data source's timeouts.read.
func withReadTimeout(ctx context.Context, cfg tfsdk.Config) (context.Context, context.CancelFunc, diag.Diagnostics) {
	var to timeouts.Value
	diags := cfg.GetAttribute(ctx, path.Root("timeouts"), &to)
	readTimeout, more := to.Read(ctx, defaultReadTimeout)
	diags.Append(more...)
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	return ctx, cancel, diags
}

// readTimeoutBlock is the timeouts block of every data source, described
// for the generated documentation.
func readTimeoutBlock(ctx context.Context) schema.Block {
	b := timeouts.BlockWithOpts(ctx, timeouts.Opts{
		ReadDescription: fmt.Sprintf("How long the whole read may take, as a duration such as `30m`. Defaults to `%dm`. Each request attempt is bounded by the provider's `request_timeout` as well.", int(defaultReadTimeout.Minutes())),
	})
	if nested, ok := b.(schema.SingleNestedBlock); ok {
		nested.MarkdownDescription = "Time limits of the data source."
		return nested
	}
	return b
}

// thousands renders n with comma separators, for progress lines.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func backticks(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

// configureClient takes the provider's client from the ProviderData of a
// data source's or an ephemeral resource's ConfigureRequest. It is nil
// before the provider is configured (e.g. during validation).
func configureClient(providerData any, dst **configuredStore) diag.Diagnostics {
	var diags diag.Diagnostics
	if providerData == nil {
		return diags
	}
	c, ok := providerData.(*configuredStore)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *configuredStore, got %T; this is a bug in the provider, please report it", providerData))
		return diags
	}
	*dst = c
	return diags
}
