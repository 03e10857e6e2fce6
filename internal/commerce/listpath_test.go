package commerce

import (
	"strings"
	"testing"
)

func TestValidateListPath(t *testing.T) {
	for _, p := range []string{
		"/v2/customers", "/pcm/hierarchies", "/v2/flows/my-flow/entries", "/pcm/catalogs/1b9b/releases/latest/hierarchies",
		"/v2/accounts/a1/account-memberships", "/v2/x:y", "/v2/caf%C3%A9", "/v2/integrations/logs",
	} {
		if err := ValidateListPath(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	for _, tc := range []struct{ path, says string }{
		{"", "empty"},
		{"v2/customers", `must start with /, as in "/v2/customers"`},
		{"https://api.example.test/v2/customers", `is a URL; give only the path on the configured service, such as "/v2/customers"`},
		{"http:/v2/customers", "is a URL"},
		{"mailto:x", "is a URL"},
		{"//api.example.test/v2/customers", "names a host"},
		{"/v2/customers?page[limit]=5", "query string or fragment"},
		{"/v2/customers#top", "query string or fragment"},
		{"/v2/../oauth/access_token", `".." segment`},
		{"/v2/./customers", `"." segment`},
		{"/v2/%2e%2e/x", `".." segment`},
		{"/v2//customers", "empty segment (segment 2"},
		{"/v2/customers/", "empty segment"},
		{"/", "empty segment"},
		{"/v2/cus tomers", "space or control character at byte 7"},
		{"/v2/customers\n", "space or control character"},
		{"/v2/\tx", "space or control character"},
		{"/v2/a%2Fb", "encodes a separator"},
		{"/v2/a%20b", "encodes a separator, space"},
		{"/v2/a%zz", "malformed percent escape"},
		{`/v2\customers`, "backslash"},
	} {
		err := ValidateListPath(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: %v; want an error saying %q", tc.path, err, tc.says)
		}
	}
}
