package emulator

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// JSON is written by hand with append-style helpers: a page of 100 records
// is encoded without reflection and with no allocation besides the pooled
// output buffer.

// plainJSON marks the bytes that stand for themselves in a JSON string.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// SWAR constants: the byte 0x01 and 0x80 in every lane.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// plainWord reports whether none of the 8 bytes of w (little-endian lanes)
// needs attention in a JSON string: no control character, quote, backslash
// or non-ASCII byte.
func plainWord(w uint64) bool {
	q := w ^ '"'*lanes01   // zero lanes where w has a quote
	bs := w ^ '\\'*lanes01 // zero lanes where w has a backslash
	// A lane of v - 0x01.. & ^v has its top bit set where v's lane is zero
	// (exactly when some lane is zero, which is all we ask); likewise
	// w - 0x20.. & ^w for lanes below 0x20.
	return (w|(w-0x20*lanes01)&^w|(q-lanes01)&^q|(bs-lanes01)&^bs)&lanes80 == 0
}

// appendString appends s as a JSON string. Invalid UTF-8 is replaced by
// U+FFFD, as encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip plain bytes eight at a time, then one at a time.
		for i+8 <= len(s) {
			w := s[i : i+8] // the compiler turns the loads below into one
			if !plainWord(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56) {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if plainJSON[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i += size
				start = i
				continue
			}
			if r == '\u2028' || r == '\u2029' {
				b = append(b, s[start:i]...)
				b = append(b, `\u202`...)
				b = append(b, hexDigits[r&0xf])
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendTimestamp appends ms (milliseconds since the epoch, UTC) as
// 2006-01-02T15:04:05.000Z, without the quotes.
func appendTimestamp(b []byte, ms int64) []byte {
	days := ms / 86400000
	rem := ms % 86400000
	if rem < 0 {
		rem += 86400000
		days--
	}
	// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	b = append4(b, y)
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	b = append2(b, d)
	b = append(b, 'T')
	b = append2(b, rem/3600000)
	b = append(b, ':')
	b = append2(b, rem/60000%60)
	b = append(b, ':')
	b = append2(b, rem/1000%60)
	b = append(b, '.')
	b = append(b, byte('0'+rem%1000/100), byte('0'+rem%100/10), byte('0'+rem%10))
	return append(b, 'Z')
}

func append2(b []byte, v int64) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

func append4(b []byte, v int64) []byte {
	if v < 0 || v > 9999 {
		return strconv.AppendInt(b, v, 10)
	}
	return append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

func appendQuotedTimestamp(b []byte, ms int64) []byte {
	b = append(b, '"')
	b = appendTimestamp(b, ms)
	return append(b, '"')
}

// appendTimestamps appends the created_at and, if the resource has one,
// updated_at members (without a leading comma).
func appendTimestamps(b []byte, t *table, row int32) []byte {
	b = append(b, `"created_at":`...)
	b = appendQuotedTimestamp(b, t.num[t.res.created][row])
	if t.res.updated < 0 {
		return b
	}
	b = append(b, `,"updated_at":`...)
	return appendQuotedTimestamp(b, t.num[t.res.updated][row])
}

func currencySymbol(currency string) (string, bool) {
	switch currency {
	case "USD":
		return "$", true
	case "EUR":
		return "€", true
	case "GBP":
		return "£", true
	}
	return "", false
}

// appendFormattedPrice appends e.g. "$1,234.56" (with quotes).
func appendFormattedPrice(b []byte, amount int64, currency string) []byte {
	b = append(b, '"')
	if amount < 0 {
		b = append(b, '-')
		amount = -amount
	}
	if sym, ok := currencySymbol(currency); ok {
		b = append(b, sym...)
	} else {
		b = append(b, currency...)
		b = append(b, ' ')
	}
	var digits [20]byte
	units := strconv.AppendInt(digits[:0], amount/100, 10)
	for i := range len(units) {
		if i > 0 && (len(units)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, units[i])
	}
	b = append(b, '.', byte('0'+amount%100/10), byte('0'+amount%10))
	return append(b, '"')
}

// appendPrice appends a formatted price object {"amount","currency","formatted"}.
// The currency is one of currencies: three capital letters, which need no
// escaping (appendFormattedPrice writes it as it is too).
func appendPrice(b []byte, amount int64, currency string) []byte {
	b = append(b, `{"amount":`...)
	b = strconv.AppendInt(b, amount, 10)
	b = append(b, `,"currency":"`...)
	b = append(b, currency...)
	b = append(b, `","formatted":`...)
	b = appendFormattedPrice(b, amount, currency)
	return append(b, '}')
}

// Addresses store only their postcode; the country and the rest of the
// address follow from it and from the buyer's name.
var (
	streets  = []string{"High Street", "Main Street", "Station Road", "Church Lane", "Park Avenue", "Mill Road", "Kerkstraat", "Elm Street"}
	usCities = []string{"Anaheim", "Springfield", "Portland", "Austin", "Madison"}
	nlCities = []string{"Amsterdam", "Utrecht", "Rotterdam", "Leiden", "Delft"}
	gbCities = []string{"London", "Manchester", "Leeds", "Bristol", "Glasgow"}
)

// postcodeCountry is the country of a postcode made by postcode, and cities
// of that country.
func postcodeCountry(pc string) (string, []string) {
	switch {
	case len(pc) == 5 && pc[0] >= '0' && pc[0] <= '9':
		return "US", usCities
	case len(pc) == 7 && pc[0] >= '0' && pc[0] <= '9' && pc[4] == ' ':
		return "NL", nlCities
	}
	return "GB", gbCities
}

func appendAddress(b []byte, name, pc string) []byte {
	h := 0
	for i := 0; i < len(pc); i++ {
		h = h*31 + int(pc[i])
	}
	h &= 1<<30 - 1
	first, last, _ := strings.Cut(name, " ")
	country, cs := postcodeCountry(pc)
	b = append(b, `{"first_name":`...)
	b = appendString(b, first)
	b = append(b, `,"last_name":`...)
	b = appendString(b, last)
	b = append(b, `,"line_1":"`...)
	b = strconv.AppendInt(b, int64(1+h%200), 10)
	b = append(b, ' ')
	b = append(b, streets[h/200%len(streets)]...)
	b = append(b, `","city":"`...)
	b = append(b, cs[h/7%len(cs)]...)
	b = append(b, `","postcode":`...)
	b = appendString(b, pc)
	b = append(b, `,"country":"`...)
	b = append(b, country...)
	return append(b, '"', '}')
}

// appendRelationship appends "name":{"data":{"type":typ,"id":id}}.
func appendRelationship(b []byte, name, typ, id string) []byte {
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, `":{"data":{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","id":`...)
	b = appendString(b, id)
	return append(b, '}', '}')
}

// encoding holds what record encoders need to know about the request.
type encoding struct {
	flat bool   // Options.FlatTimestamps
	self []byte // `"http://127.0.0.1:8080/v2/`: the quoted start of self links, open
}

// newEncoding returns the encoding of records for a response to r.
func newEncoding(r *http.Request, flat bool) *encoding {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	// The quoted prefix without its closing quote.
	self := appendString(nil, scheme+r.Host+"/v2/")
	return &encoding{flat: flat, self: self[:len(self)-1]}
}

// appendSelfLink appends "links":{"self":"<scheme://host>/v2/<resource>/<id>"}.
func appendSelfLink(b []byte, t *table, row int32, enc *encoding) []byte {
	b = append(b, `"links":{"self":`...)
	b = append(b, enc.self...)
	b = append(b, t.res.name...)
	b = append(b, '/')
	b = append(b, t.id(row)...) // generated UUIDs need no escaping
	return append(b, '"')
}

// Output buffers are pooled; a 100-order page is about 50 KB.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

const maxPooledBuf = 4 << 20

func getBuf() *[]byte {
	b, ok := bufPool.Get().(*[]byte)
	if !ok {
		panic("emulator: buffer pool holds a foreign value")
	}
	return b
}

func putBuf(b *[]byte) {
	if b == nil || cap(*b) > maxPooledBuf {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}
