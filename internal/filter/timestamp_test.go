package filter

import (
	"strings"
	"testing"
	"time"
)

func TestParseTimestamp(t *testing.T) {
	midnight := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	ok := []struct {
		in   string
		want time.Time
	}{
		{"2026-01-02", midnight},
		{"1767312000000", midnight},
		{"640912546584", time.UnixMilli(640912546584).UTC()},
		{"0", time.Unix(0, 0).UTC()},
		{"2026-01-02T00:00:00Z", midnight},
		{"2026-01-02T00:00:00.000Z", midnight},
		{"2026-01-02T03:04:05.678Z", time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)},
		{"2026-01-02T05:04:05+02:00", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"2026-01-01T21:04:05.001-03:00", time.Date(2026, 1, 2, 0, 4, 5, 1e6, time.UTC)},
		{"9999-12-31T23:59:59.999Z", time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)},
		{"253402300799999", time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)},
	}
	for _, tt := range ok {
		got, err := ParseTimestamp(tt.in)
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseTimestamp(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"", "empty"},
		{"2026-02-30", "not a date that exists"},
		{"2026-1-02", "not a timestamp"},
		{"20260102", ""}, // digits: milliseconds, fine — see below
		{"-1", "not a timestamp"},
		{"253402300800000", "past the year 9999"},
		{"2026-01-02T03:04:05", "no time zone"},
		{"2026-01-02T03:04:05.1Z", "1 fractional digits"},
		{"2026-01-02T03:04:05.123456Z", "6 fractional digits"},
		{"2026-01-02t03:04:05Z", "not a timestamp"},
		{"2026-01-02T03:04:05z", "no time zone"},
		{"2026-01-02T25:04:05Z", "not a date and time that exist"},
		{"2026-01-02T03:04:05+0200", "no time zone"},
		{"2026-01-02 03:04:05Z", "not a timestamp"},
		{"yesterday", "not a timestamp"},
		{"1.5", "not a timestamp"},
	}
	for _, tt := range bad {
		_, err := ParseTimestamp(tt.in)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("ParseTimestamp(%q): %v", tt.in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseTimestamp(%q) error = %v, want it to say %q", tt.in, err, tt.msg)
		}
	}
}

func TestIsDateOnly(t *testing.T) {
	for in, want := range map[string]bool{"2026-01-02": true, "2026-02-30": false, "2026-01-02T00:00:00Z": false, "1767312000000": false} {
		if got := IsDateOnly(in); got != want {
			t.Errorf("IsDateOnly(%q) = %v", in, got)
		}
	}
}

func TestFormatTimestampRoundTrips(t *testing.T) {
	for _, in := range []string{"2026-01-02", "1767312000123", "2026-01-02T05:04:05.678+02:00"} {
		ts, err := ParseTimestamp(in)
		if err != nil {
			t.Fatal(err)
		}
		out := FormatTimestamp(ts)
		back, err := ParseTimestamp(out)
		if err != nil || !back.Equal(ts) || !isTimestamp(out) {
			t.Errorf("%q → %q → %v, %v", in, out, back, err)
		}
	}
}

// isTimestamp reports whether s is a timestamp in TimestampLayout, e.g.
// 2026-01-01T00:00:00.000Z: exactly that shape (four-digit year, two-digit
// fields, three fractional digits, literal Z) and a date and time that exist
// (no February 30th, no hour 24, no leap second).
func isTimestamp(s string) bool {
	// Check the shape first: time.Parse alone accepts some variations,
	// such as a one-digit hour, that the service does not.
	if len(s) != len(TimestampLayout) {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c, l := s[i], TimestampLayout[i]; {
		case '0' <= l && l <= '9':
			if c < '0' || c > '9' {
				return false
			}
		case c != l:
			return false
		}
	}
	_, err := time.Parse(TimestampLayout, s)
	return err == nil
}
