package commerce

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// ValidateListPath checks a list endpoint's path as a configuration gives
// it ("/v2/customers", "/pcm/hierarchies"), before anything is sent: the
// client appends it to base_url as it stands, so it must be a plain path on
// the configured service. The message says what to change.
func ValidateListPath(p string) error {
	if p == "" {
		return errors.New(`the path is empty; give a list endpoint's path such as "/v2/customers"`)
	}
	if i := strings.IndexFunc(p, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return fmt.Errorf("the path %q has a space or control character at byte %d; remove it", p, i)
	}
	if scheme, rest, ok := strings.Cut(p, ":"); ok && scheme != "" && !strings.Contains(scheme, "/") {
		return fmt.Errorf("the path %q is a URL; give only the path on the configured service, such as %q (base_url says where the service is)", p, "/"+pathAfterHost(rest))
	}
	if strings.HasPrefix(p, "//") {
		return fmt.Errorf("the path %q names a host (it starts with //); give only the path on the configured service", p)
	}
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("the path %q must start with /, as in %q", p, "/"+p)
	}
	if strings.ContainsAny(p, "?#") {
		return fmt.Errorf("the path %q has a query string or fragment; put filters in filter and the order in sort, and leave ? and # out of the path", p)
	}
	if strings.Contains(p, `\`) {
		return fmt.Errorf(`the path %q has a backslash; separate segments with /`, p)
	}
	for i, seg := range strings.Split(p[1:], "/") {
		if err := checkSegment(p, i+1, seg); err != nil {
			return err
		}
	}
	return nil
}

// checkSegment checks the n-th segment of path p, also in its decoded
// form, since the service decodes percent escapes before routing.
func checkSegment(p string, n int, seg string) error {
	if seg == "" {
		return fmt.Errorf("the path %q has an empty segment (segment %d: a doubled or trailing /); remove it", p, n)
	}
	dec, err := url.PathUnescape(seg)
	if err != nil {
		return fmt.Errorf("the path %q has a malformed percent escape in segment %d (%q)", p, n, seg)
	}
	if dec == "." || dec == ".." {
		return fmt.Errorf("the path %q has a %q segment; give the endpoint's path without relative segments", p, dec)
	}
	if strings.ContainsAny(dec, `/?#\`) || strings.IndexFunc(dec, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fmt.Errorf("the path %q encodes a separator, space or control character in segment %d (%q); give the segment as it is", p, n, seg)
	}
	return nil
}

// pathAfterHost is the path of the rest of a URL after its scheme and
// colon, without the leading slash, for the suggestion in a message.
func pathAfterHost(rest string) string {
	path := strings.TrimPrefix(rest, "/")
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		_, path, _ = strings.Cut(after, "/")
	}
	path, _, _ = strings.Cut(path, "?")
	path, _, _ = strings.Cut(path, "#")
	return path
}
