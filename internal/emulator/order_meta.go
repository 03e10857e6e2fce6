package emulator

// An order's meta.display_price holds, beside the totals with and without
// tax and the tax, its discount, and what of it has been paid and
// authorized (the cartsorders spec's OrderMeta, the vendor's example
// bodies and its JavaScript SDK's Order). The discount is negative, and
// with_tax is what remains after it: the examples give a discount of
// -1500 on 10000 with a with_tax of 8500.

// discountKind is where an order's discount comes from.
type discountKind uint8

const (
	noDiscount        discountKind = iota
	promotionDiscount              // one of the store's promotions, promotionDefs
	customDiscount                 // a custom discount from an external engine
)

// promotionDefs are the store's promotions, each a percentage off an
// order. As in the vendor's examples, some are rule promotions (with a
// promotion_source) and the others the older kind (with a promotion_type).
var promotionDefs = [...]struct {
	name, description string
	automatic, rule   bool
	percent           int64
}{
	{"spring10", "Ten percent off every spring order", true, false, 10},
	{"members15", "Fifteen percent off for members", false, true, 15},
	{"welcome5", "Five percent off a first order", false, false, 5},
	{"clearance20", "Twenty percent off clearance", true, true, 20},
}

// streamPromotions is the random stream of the promotions' ids.
const streamPromotions = 0x70726f6d6f // "promo"

// saltCustomDiscount derives the id of an order's custom discount from the
// order's id.
const saltCustomDiscount = 0x63757374 // "cust"

// promotionPool is the ids of promotionDefs, and the time they run, from
// a year before the base time to three years after it (ms, whole seconds).
type promotionPool struct {
	promotions           [len(promotionDefs)]string
	promoStart, promoEnd int64
}

func newPromotionPool(seed, baseMs int64) promotionPool {
	var p promotionPool
	rng := newRand(seed, streamPromotions)
	for i := range p.promotions {
		p.promotions[i] = newUUID(rng)
	}
	const year = 365 * 24 * 60 * 60 * 1000
	base := baseMs - baseMs%1000
	p.promoStart, p.promoEnd = base-year, base+3*year
	return p
}

// orderDiscount returns where order row's discount comes from, which
// promotion (an index into promotionDefs) if one does, and the amount in
// minor units (0 or negative). About one order in eight has a promotion and
// one in sixteen a custom discount. Both follow from the order's id, whose
// characters are random hex digits, not from a random stream: drawing
// would change the records a seed gives.
func orderDiscount(t *table, row int32) (kind discountKind, promo int, amount int64) {
	id := t.str[ordID][row]
	if len(id) < 2 {
		return noDiscount, 0, 0
	}
	withTax := t.num[ordWithTax][row]
	switch h := hexValue(id[0]); {
	case h < 2:
		promo = hexValue(id[1]) % len(promotionDefs)
		pct := promotionDefs[promo].percent
		// The price before the discount was with_tax*100/(100-pct).
		return promotionDiscount, promo, -(withTax * pct / (100 - pct))
	case h == 2:
		return customDiscount, 0, -min(1000, withTax/5)
	}
	return noDiscount, 0, 0
}

// hexValue is the value of a lowercase hex digit; any other byte counts
// as 15.
func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return 15
}

// orderPayments returns what of an order's with_tax has been paid and
// what authorized: all of it once its payment is paid, respectively
// authorized, and nothing otherwise.
func orderPayments(withTax int64, payment string) (paid, authorized int64) {
	switch payment {
	case "paid":
		return withTax, 0
	case "authorized":
		return 0, withTax
	}
	return 0, 0
}

// appendOrderMeta appends the meta member with the display prices, and the
// timestamps where they go.
func appendOrderMeta(b []byte, t *table, row int32, enc *encoding) []byte {
	if enc.flat {
		b = appendTimestamps(b, t, row)
		b = append(b, ',')
	}
	withTax, withoutTax, currency := t.num[ordWithTax][row], t.num[ordWithoutTax][row], t.str[ordCurrency][row]
	_, _, discount := orderDiscount(t, row)
	paid, authorized := orderPayments(withTax, t.str[ordPayment][row])
	b = append(b, `"meta":{"display_price":{"with_tax":`...)
	start := len(b)
	b = appendPrice(b, withTax, currency)
	total := b[start:] // paid or authorized repeat it: copied, not formatted again
	b = append(b, `,"without_tax":`...)
	b = appendPrice(b, withoutTax, currency)
	b = append(b, `,"tax":`...)
	b = appendPrice(b, withTax-withoutTax, currency)
	for _, p := range [...]struct {
		name   string
		amount int64
	}{{`,"discount":`, discount}, {`,"paid":`, paid}, {`,"authorized":`, authorized}} {
		b = append(b, p.name...)
		switch p.amount {
		case 0:
			b = appendZeroPrice(b, currency)
		case withTax:
			b = append(b, total...)
		default:
			b = appendPrice(b, p.amount, currency)
		}
	}
	b = append(b, '}')
	if !enc.flat {
		b = append(b, `,"timestamps":{`...)
		b = appendTimestamps(b, t, row)
		b = append(b, '}')
	}
	return append(b, '}')
}

// zeroPrices are appendPrice's zero of each of currencies: most orders
// have two or three of them.
var zeroPrices = func() [][]byte {
	z := make([][]byte, len(currencies))
	for i, c := range currencies {
		z[i] = appendPrice(nil, 0, c)
	}
	return z
}()

func appendZeroPrice(b []byte, currency string) []byte {
	for i, c := range currencies {
		if c == currency {
			return append(b, zeroPrices[i]...)
		}
	}
	return appendPrice(b, 0, currency)
}

// appendDiscountRelationship appends, with a leading comma, the
// relationship to the promotion or custom discount of order row, if it has
// one.
func appendDiscountRelationship(b []byte, t *table, row int32) []byte {
	switch kind, promo, _ := orderDiscount(t, row); kind {
	case promotionDiscount:
		b = append(b, `,"promotions":{"data":[{"type":"promotion","id":`...)
		b = appendString(b, orderPoolsOf(t).promotions[promo])
	case customDiscount:
		b = append(b, `,"custom_discounts":{"data":[{"type":"custom_discount","id":"`...)
		b = appendDerivedUUID(b, t.str[ordID][row], saltCustomDiscount)
		b = append(b, '"')
	default:
		return b
	}
	return append(b, `}]}`...)
}

// appendDerivedUUID appends, without quotes, a version-4 UUID that follows
// from s and salt (two FNV-1a hashes), for records the emulator derives
// from another record instead of storing them.
func appendDerivedUUID(b []byte, s string, salt uint64) []byte {
	hi, lo := fnv1a(s, salt), fnv1a(s, ^salt)
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	for i := range 32 {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b = append(b, '-')
		}
		w, shift := hi, 60-4*uint(i)
		if i >= 16 {
			w, shift = lo, 60-4*uint(i-16)
		}
		b = append(b, hexDigits[w>>shift&0xf])
	}
	return b
}

func fnv1a(s string, salt uint64) uint64 {
	h := uint64(14695981039346656037) ^ salt
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
