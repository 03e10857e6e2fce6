package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// durationValidator accepts a positive Go duration such as "30s".
type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return "a positive duration such as \"30s\" or \"2m\""
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%s must be a positive duration with a unit, such as \"30s\" or \"2m\"; got %q.", req.Path, raw))
	}
}
