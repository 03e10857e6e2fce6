package provider

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/commerce-tf/terraform-provider-commerce/internal/listing"
	"github.com/commerce-tf/terraform-provider-commerce/internal/liststate"
	"github.com/commerce-tf/terraform-provider-commerce/internal/reads"
)

// errorDiagnostic turns a client error into a diagnostic that carries the
// service's own words (status, title, detail, request id) and, where one
// exists, the fix. what names the operation, e.g. "list orders".
func errorDiagnostic(ctx context.Context, what string, err error) diag.Diagnostic {
	var (
		authErr   *client.AuthError
		limitErr  *listing.OffsetLimitError
		unlisted  *listing.UnlistableError
		rejected  *client.TokenRejectedError
		apiErr    *client.APIError
		protoErr  *commerce.ProtocolError
		transport *client.TransportError
		throttled *client.ThrottledError
		tooLarge  *listing.FilterLimitError
	)
	switch {
	case errors.As(err, &throttled): // before the deadline: it says why time ran out
		return throttledDiagnostic(what, throttled)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return diag.NewErrorDiagnostic("Timed out",
			fmt.Sprintf("Could not %s before the read timeout ran out: %v\n\nRaise timeouts.read on the data source, or narrow its filter.", what, err))
	case errors.Is(err, context.Canceled):
		return diag.NewErrorDiagnostic("Cancelled", fmt.Sprintf("Stopped before it could %s: %v", what, err))
	case errors.As(err, &authErr) && !authErr.Unreachable():
		return authDiagnostic(authErr)
	case errors.As(err, &limitErr):
		return offsetLimitDiagnostic(limitErr)
	case errors.As(err, &tooLarge):
		return diag.NewErrorDiagnostic("Filter too large for the service",
			fmt.Sprintf("Could not %s: %v\n\nNothing was sent that the service would refuse; the provider does not return a partial list.", what, tooLarge))
	case errors.As(err, &unlisted):
		return diag.NewErrorDiagnostic("Cannot list every "+strings.TrimSuffix(unlisted.Endpoint, "s"),
			fmt.Sprintf("Could not %s completely: %s. The provider does not return a truncated list.\n\nTo fix it, %s.",
				what, unlisted.Reason, unlisted.Fix))
	case errors.As(err, &authErr): // the token endpoint never answered
		return unreachableDiagnostic(what, err, "auth_url (or the "+envAuthURL+" environment variable; it defaults to base_url, "+envBaseURL+
			"): the access token is requested from "+authErr.TokenURL)
	case errors.As(err, &rejected):
		return diag.NewErrorDiagnostic(fmt.Sprintf("Could not %s: the service refuses the access tokens", what),
			serviceWords(rejected.Err)+fmt.Sprintf("\n\nThe token endpoint accepts client_id and client_secret, but the API answered 401 Unauthorized to every access token the request was sent with (%d in a row, each the newest issued). "+
				"Check that the application key behind client_id has access to this store, and that base_url is the store's API address.", rejected.Tokens))
	case errors.As(err, &apiErr):
		return apiDiagnostic(what, apiErr)
	case errors.As(err, &protoErr):
		return diag.NewErrorDiagnostic("Unexpected response from the service",
			fmt.Sprintf("Could not %s, because the provider cannot vouch for a complete and correct result: %v", what, err))
	case errors.As(err, &transport):
		return unreachableDiagnostic(what, err, "base_url (or the "+envBaseURL+" environment variable): the records are requested below it")
	default:
		return diag.NewErrorDiagnostic("Could not "+what, err.Error())
	}
}

// throttledDiagnostic reports a read the store's rate limit kept from
// finishing: what the provider saw, and how to leave the store room.
func throttledDiagnostic(what string, err *client.ThrottledError) diag.Diagnostic {
	detail := err.Error()
	if err.Err != nil {
		detail += "\n\nThe service's last answer:\n" + serviceWords(err.Err)
	}
	detail += "\n\nThe store's rate limit (25 requests/s on a development store, 100 on a production one, unless the vendor set another) is shared by its storefront, " +
		"other pipelines and every data source of this plan. A 429 makes the provider slow down and ask again, without using up max_retries; " +
		"it gives up only when the store accepts none of its requests for " + client.DefaultThrottlePatience.String() + ", or the read's time (timeouts.read) runs out. " +
		"Run the plan when the store is less busy, set rate_limit well below the store's limit to leave room for the storefront (e.g. rate_limit = 10 on a development store), " +
		"lower max_parallel_requests, narrow the filters or set max_results so that fewer requests are needed, raise timeouts.read, or ask the vendor for a higher limit."
	return diag.NewErrorDiagnostic(fmt.Sprintf("Could not %s: the store kept answering 429 Too Many Requests", what), detail)
}

// unreachableDiagnostic reports a request that got no usable answer, and
// points at the address setting to check (check), not at the credentials.
func unreachableDiagnostic(what string, err error, check string) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Could not reach the service",
		fmt.Sprintf("Could not %s: %v\n\nCheck %s. Is the service running at that address, and is the network path to it open (proxy, firewall, DNS, TLS)? "+
			"If the service is only slow to answer, raise request_timeout or max_retries.", what, err, check))
}

// authDiagnostic reports a token endpoint that answered but issued no
// token. Only a refusal of the credentials (400, 401) points at them.
func authDiagnostic(err *client.AuthError) diag.Diagnostic {
	detail := "The service did not issue an access token.\n\n" + serviceWords(err.Err)
	if err.CredentialsRefused() {
		detail += "\n\nCheck client_id and client_secret (or the " + envClientID + " and " + envClientSecret +
			" environment variables), and that auth_url (" + envAuthURL + ", default base_url) points at the service's authorization address; the token is requested from " +
			err.TokenURL + "."
	} else {
		detail += "\n\nCheck that auth_url (or the " + envAuthURL + " environment variable; it defaults to base_url, " + envBaseURL +
			") points at the service's authorization address: the token is requested from " + err.TokenURL +
			". If the service is failing or busy, try again later, or raise max_retries."
	}
	return diag.NewErrorDiagnostic("Authentication failed", detail)
}

func offsetLimitDiagnostic(err *listing.OffsetLimitError) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Cannot list past the service's offset limit",
		fmt.Sprintf("%s %s match, but the service serves at most %d of them by page offset, and it refused the sorted keyset filter the provider uses to read past that limit "+
			"(%d were listed before it stopped). The provider does not return a truncated list.\n\nThe service said: %s\n\n"+
			"Narrow the filter so that at most %d records match, for example by adding a time range such as ge(created_at,2026-01-01T00:00:00.000Z):lt(created_at,2026-02-01T00:00:00.000Z), "+
			"or set max_results to the number of records you need.",
			err.Matches(), err.Endpoint, err.OffsetLimit, err.Listed, serviceWords(err.Err), err.OffsetLimit))
}

// apiDiagnostic adds the fix to the service's answer where the status
// points at one.
func apiDiagnostic(what string, err *client.APIError) diag.Diagnostic {
	summary := fmt.Sprintf("Could not %s: %d %s", what, err.StatusCode, err.Title())
	detail := serviceWords(err)
	switch {
	case err.Refused():
		detail += "\n\nThe access token was refused even after a new one was fetched: check that the application key behind client_id may read this resource."
	case err.Throttled():
		detail += "\n\nThe service kept rate-limiting the provider. Set rate_limit below the store's limit to leave room for its storefront, or lower max_parallel_requests."
	}
	return diag.NewErrorDiagnostic(summary, detail)
}

// serviceWords renders an error with the service's status, title, detail
// and request id on separate lines, or the error text when the service did
// not answer.
func serviceWords(err error) string {
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Request: %s %s\nStatus:  %s", apiErr.Method, apiErr.Path, apiErr.StatusLine())
	for _, e := range apiErr.Errors {
		if e.Title != "" {
			fmt.Fprintf(&b, "\nTitle:   %s", e.Title)
		}
		if e.Detail != "" {
			fmt.Fprintf(&b, "\nDetail:  %s", e.Detail)
		}
	}
	if len(apiErr.Errors) == 0 && apiErr.BodyExcerpt != "" {
		fmt.Fprintf(&b, "\nBody (not a JSON:API error document): %s", apiErr.BodyExcerpt)
	}
	if id := apiErr.FirstRequestID(); id != "" {
		fmt.Fprintf(&b, "\nRequest id: %s", id)
	}
	if apiErr.Attempts > 1 {
		fmt.Fprintf(&b, "\nAttempts: %d (retries exhausted)", apiErr.Attempts)
	}
	return b.String()
}

// matchCount says how many records match, for messages: the read's total
// where it knows it, else the service's count where it is meant to be
// exact (labelled so, or unlabelled as the documented API sends it), else
// at least those found (and at least a lower bound).
func matchCount(res reads.Result, found int) string {
	switch c := res.Count; {
	case res.TotalKnown:
		return strconv.Itoa(res.Total)
	case c.Steady() && c.N >= found:
		return strconv.Itoa(c.N)
	case c.Method == commerce.CountLowerBound && c.N > found:
		return "at least " + strconv.Itoa(c.N)
	}
	return "at least " + strconv.Itoa(found)
}

// maxStateBytes is the most state one read may give Terraform: its plugin
// protocol carries at most 256 MiB in one message (terraform-plugin-go's
// gRPC limit), and the state travels in the ReadDataSource response beside
// the diagnostics and the message's own framing, for which 64 KiB is left.
// A variable, so that tests can lower it.
var maxStateBytes = 256<<20 - 64<<10

// stateTooLargeDiagnostic says how large the read got, against what limit,
// and the changes that shrink it, largest effect first.
// A state past it is a liststate.TooLargeError: no further request can
// make it fit, so the collector ends the listing at once, and the read
// fails saying what to change.
func stateTooLargeDiagnostic(dataSource, noun string, e *liststate.TooLargeError, res reads.Result, in listInputs) diag.Diagnostic {
	total := max(res.Count.Hint(), e.Listed)
	matches := matchCount(res, e.Listed)
	var fixes []string
	perRecord := float64(e.Bytes) / float64(max(e.Listed, 1))
	if in.IncludeJSON.ValueBool() && e.JSONBytes > 0 {
		fixes = append(fixes, fmt.Sprintf("`include_json = false`: the records' JSON is %d%% of the state so far", 100*e.JSONBytes/e.Bytes))
	}
	if in.includeRecords() {
		ids := float64(e.IDBytes) / float64(max(e.Listed, 1)) * float64(max(total, e.Listed))
		fixes = append(fixes, fmt.Sprintf("`include_records = false`: the ids alone of all %s %s take about %s", matches, noun, mib(int(ids))))
	}
	fits := int(float64(maxStateBytes) / perRecord * 0.95)
	fixes = append(fixes, fmt.Sprintf("`max_results = %d` or less (about %s per record in this state)", fits, kib(perRecord)),
		"a narrower `filter`, or several data sources that split the list (for example by `created_at` ranges)")
	var b strings.Builder
	fmt.Fprintf(&b, "%s would hold more state than Terraform can take: its plugin protocol carries at most 256 MiB in one message. "+
		"%s %s match; after %d of them the state had reached %s (%s bytes, over the limit of %s), so the provider stopped listing and sent no further request.\n\nTo fix it, one of:",
		dataSource, matches, noun, e.Listed, mib(e.Bytes), thousands(e.Bytes), thousands(maxStateBytes))
	for i, f := range fixes {
		fmt.Fprintf(&b, "\n%d. %s", i+1, f)
	}
	return diag.NewErrorDiagnostic("Too large for Terraform", b.String())
}
