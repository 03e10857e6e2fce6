package emulatortest

import "github.com/commerce-tf/terraform-provider-commerce/internal/emulator"

// Countings are the ways a store may count, as the issue of lazy counts
// names them, each with page[total_method]=exact honoured and not.
func Countings() map[string]emulator.Counting {
	base := map[string]emulator.Counting{
		"exact unlabelled":             {},
		"exact":                        {Method: emulator.CountExact},
		"lower bound 1000":             {Method: emulator.CountLowerBound, Cap: 1000},
		"lower bound 10000":            {Method: emulator.CountLowerBound, Cap: 10000},
		"lower bound 1000 unlabelled":  {Method: emulator.CountLowerBound, Cap: 1000, Unlabelled: true},
		"lower bound 10000 unlabelled": {Method: emulator.CountLowerBound, Cap: 10000, Unlabelled: true},
		"observed":                     {Method: emulator.CountObserved},
		"estimate 10%":                 {Method: emulator.CountEstimate, Percent: 10},
		"none":                         {Method: emulator.CountNone},
	}
	out := map[string]emulator.Counting{}
	for name, c := range base {
		out[name] = c
		c.IgnoreExact = true
		out[name+", exact not honoured"] = c
	}
	return out
}

// ExactWhenAsked reports whether a store counting as c answers
// page[total_method]=exact with a count labelled exact.
func ExactWhenAsked(c emulator.Counting) bool {
	return !c.IgnoreExact || c.Method == emulator.CountExact
}
