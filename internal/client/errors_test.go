package client

import "testing"

// RefusedParameter names the parameter at fault whether the request's
// query was sent escaped (page%5Boffset%5D=) or not, and only where the
// request carried it.
func TestRefusedParameter(t *testing.T) {
	bad := func(path, param, detail string) *APIError {
		return &APIError{StatusCode: 400, Method: "GET", Path: path,
			Errors: []ErrorObject{{Status: 400, Title: "Bad Request", Detail: detail, Parameter: param}}}
	}
	for _, tc := range []struct {
		err  *APIError
		name string
		want bool
	}{
		{bad("/v2/accounts?page%5Blimit%5D=100&page%5Boffset%5D=1287", "page[offset]", "offsets up to 1,234"), "page[offset]", true},
		{bad("/v2/accounts?page[offset]=1287", "", "Invalid page[offset]"), "page[offset]", true},
		{bad("/v2/accounts?page%5Boffset%5D=1287", "page[offset]", ""), "sort", false},
		{bad("/v2/accounts?sort=name", "sort", "cannot sort"), "sort", true},
		{bad("/v2/accounts", "", "Invalid page[offset]"), "page[offset]", false},
		{&APIError{StatusCode: 429, Path: "/v2/accounts?page%5Boffset%5D=1"}, "page[offset]", false},
	} {
		if _, got := tc.err.RefusedParameter(tc.name); got != tc.want {
			t.Errorf("%s refusing %s: %v, want %v", tc.err.Path, tc.name, got, tc.want)
		}
	}
}
