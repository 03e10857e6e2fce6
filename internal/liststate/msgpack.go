package liststate

// The few msgpack forms a state needs, appended to a byte slice without
// allocating. Each writes exactly what the msgpack library behind tftypes
// (github.com/vmihailenco/msgpack/v5) writes for the same value: the
// smallest form, strings as str8 from 32 bytes on. state_encoder_test.go
// and TestAppendersMatchLibrary hold them to that.
//
// Hand-written for the figure they hold: a 60,000-order state written in
// 46 ms (PERFORMANCE.md, "Where the provider's memory goes"). The
// library's Encoder writes the same bytes without allocating either, but
// 1.7 to 2.1 times slower for that state and 1.2 to 1.9 times for a
// million ids (BenchmarkAppendersAgainstLibrary, side by side).

const msgpackNil = 0xc0

func appendMapLen(dst []byte, n int) []byte {
	switch {
	case n < 16:
		return append(dst, 0x80|byte(n))
	case n <= 0xffff:
		return append(dst, 0xde, byte(n>>8), byte(n))
	}
	return append(dst, 0xdf, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendArrayLen(dst []byte, n int) []byte {
	switch {
	case n < 16:
		return append(dst, 0x90|byte(n))
	case n <= 0xffff:
		return append(dst, 0xdc, byte(n>>8), byte(n))
	}
	return append(dst, 0xdd, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendString(dst []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		dst = append(dst, 0xa0|byte(n))
	case n < 256:
		dst = append(dst, 0xd9, byte(n))
	case n <= 0xffff:
		dst = append(dst, 0xda, byte(n>>8), byte(n))
	default:
		dst = append(dst, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(dst, s...)
}

// appendStringOrNil writes the service's empty string as null.
func appendStringOrNil(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, msgpackNil)
	}
	return appendString(dst, s)
}

func appendBool(dst []byte, v *bool) []byte {
	switch {
	case v == nil:
		return append(dst, msgpackNil)
	case *v:
		return append(dst, 0xc3)
	}
	return append(dst, 0xc2)
}

// appendInt writes a whole number in its smallest form, or null.
func appendInt(dst []byte, v *int64) []byte {
	if v == nil {
		return append(dst, msgpackNil)
	}
	n := *v
	if n >= 0 {
		return appendUint(dst, uint64(n))
	}
	switch {
	case n >= -32:
		return append(dst, byte(n))
	case n >= -1<<7:
		return append(dst, 0xd0, byte(n))
	case n >= -1<<15:
		return append(dst, 0xd1, byte(n>>8), byte(n))
	case n >= -1<<31:
		return append(dst, 0xd2, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(dst, 0xd3, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendUint(dst []byte, n uint64) []byte {
	switch {
	case n <= 0x7f:
		return append(dst, byte(n))
	case n <= 0xff:
		return append(dst, 0xcc, byte(n))
	case n <= 0xffff:
		return append(dst, 0xcd, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		return append(dst, 0xce, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(dst, 0xcf, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}
