package filter

import (
	"fmt"
	"strconv"
	"time"
)

// The forms a timestamp value may take in a filter, as the vendor's
// filtering guide and endpoint references document them.
//
//   - A date, YYYY-MM-DD: midnight UTC at the start of that day.
//   - An integer number of milliseconds since 1970-01-01T00:00:00Z.
//   - ISO 8601 date and time, with or without milliseconds, in UTC (Z) or
//     with an offset (+hh:mm or -hh:mm): 2026-01-02T03:04:05Z,
//     2026-01-02T03:04:05.678Z, 2026-01-02T05:04:05+02:00.
//
// Every form is exact to the millisecond, the precision the service
// compares at; a value more precise than that is refused rather than
// rounded, so a filter never means less than it says.

// timestampForms describes the accepted forms, for messages.
const timestampForms = "a date (2026-01-02, midnight UTC), milliseconds since 1970-01-01 (1767312000000), " +
	"or ISO 8601 with or without milliseconds (2026-01-02T03:04:05Z, 2026-01-02T03:04:05.678Z, 2026-01-02T05:04:05+02:00)"

// maxEpochMillis is 9999-12-31T23:59:59.999Z: later instants have no
// four-digit year, so no other form could write them.
const maxEpochMillis = 253402300799999

// ParseTimestamp reads a timestamp value in any documented form (see
// TimestampForms) and returns it in UTC. The error says what is wrong with
// the value and which forms are accepted.
func ParseTimestamp(v string) (time.Time, error) {
	switch {
	case v == "":
		return time.Time{}, fmt.Errorf("an empty value is not a timestamp; use %s", timestampForms)
	case allDigits(v):
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms > maxEpochMillis {
			return time.Time{}, fmt.Errorf("%q milliseconds since 1970 is past the year 9999", v)
		}
		return time.UnixMilli(ms).UTC(), nil
	case len(v) == len("2006-01-02"):
		if !shaped(v, "0000-00-00") {
			break
		}
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not a date that exists", v)
		}
		return t, nil
	case len(v) >= len("2006-01-02T15:04:05"):
		return parseDateTime(v)
	}
	return time.Time{}, fmt.Errorf("%q is not a timestamp; use %s", v, timestampForms)
}

// parseDateTime reads the ISO 8601 date-and-time forms.
func parseDateTime(v string) (time.Time, error) {
	const head = "0000-00-00T00:00:00" // the shape before fraction and zone
	if !shaped(v[:len(head)], head) {
		return time.Time{}, fmt.Errorf("%q is not a timestamp; use %s", v, timestampForms)
	}
	rest := v[len(head):]
	if len(rest) > 0 && rest[0] == '.' {
		digits := 0
		for digits+1 < len(rest) && '0' <= rest[digits+1] && rest[digits+1] <= '9' {
			digits++
		}
		if digits != 3 {
			return time.Time{}, fmt.Errorf("%q has %d fractional digits; write milliseconds with exactly three (.000) or none, since the service compares timestamps to the millisecond", v, digits)
		}
		rest = rest[4:]
	}
	offset := len(rest) == len("+00:00") && (rest[0] == '+' || rest[0] == '-') && shaped(rest[1:], "00:00")
	if rest != "Z" && !offset {
		return time.Time{}, fmt.Errorf("%q has no time zone the service reads; end it with Z (UTC) or an offset such as +02:00", v)
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date and time that exist", v)
	}
	return t.UTC(), nil
}

// IsDateOnly reports whether v is a timestamp written as a bare date
// (YYYY-MM-DD), which stands for midnight UTC: eq with it matches only that
// instant, not the whole day.
func IsDateOnly(v string) bool {
	_, err := time.Parse(time.DateOnly, v)
	return err == nil && len(v) == len(time.DateOnly) && shaped(v, "0000-00-00")
}

// FormatTimestamp writes t in TimestampLayout, the form the provider's own
// bounds use, at millisecond precision.
func FormatTimestamp(t time.Time) string {
	return t.UTC().Truncate(time.Millisecond).Format(TimestampLayout)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// shaped reports whether s has the shape of pattern, in which every 0
// stands for a digit and every other byte for itself.
func shaped(s, pattern string) bool {
	if len(s) != len(pattern) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if pattern[i] == '0' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != pattern[i] {
			return false
		}
	}
	return true
}
