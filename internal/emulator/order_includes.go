package emulator

import "strconv"

// orderIncludes are the include values of GET /v2/orders/{id}, as the
// vendor's carts-orders docs list them (elasticpath/elasticpath-dev:
// docs/carts-orders/get-an-order.md, last at 8f1b6614^ and as
// apps/core/docs/carts-orders/get-an-order.md at 74b406fd;
// docs/carts-orders/Includes.mdx and custom-discounts-include.mdx at
// 33ab00fe). The positions are the bits of an includeSet.
var orderIncludes = []string{"items", "account", "account_member", "tax_items", "custom_discounts", "promotions"}

const (
	includeItems includeSet = 1 << iota
	includeAccount
	includeAccountMember
	includeTaxItems
	includeCustomDiscounts
	includePromotions
)

// appendOrderIncluded appends ,"included":{...} with the records of order
// row that asked names, in the shapes of the vendor's example bodies: the
// order's item (an order_item), its account and account member, its custom
// discount and its promotion. The emulator's tax is a rate, not tax items
// added to a cart, so tax_items never has a record to include.
func appendOrderIncluded(b []byte, t *table, row int32, enc *encoding, asked includeSet) []byte {
	s := t.str
	start := len(b)
	b = append(b, `,"included":{`...)
	open := len(b)
	member := func(b []byte, name string) []byte {
		if len(b) > open {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		return append(b, `":[`...)
	}
	if asked&includeItems != 0 {
		b = appendOrderItem(member(b, "items"), t, row, enc)
		b = append(b, ']')
	}
	if id := s[ordAccountID][row]; asked&includeAccount != 0 && id != "" {
		b = append(member(b, "accounts"), `{"id":`...)
		b = appendString(b, id)
		name := "Account " + id[:min(8, len(id))]
		b = append(b, `,"type":"account","name":`...)
		b = appendString(b, name)
		b = append(b, `,"legal_name":`...)
		b = appendString(b, name+" Ltd")
		b = append(b, `,"registration_id":"`...)
		b = appendDerivedUUID(b, id, saltRegistrationID)
		b = append(b, `"}]`...)
	}
	if id := s[ordMemberID][row]; asked&includeAccountMember != 0 && id != "" {
		b = append(member(b, "account_members"), `{"id":`...)
		b = appendString(b, id)
		b = append(b, `,"type":"account_member","name":`...)
		b = appendString(b, s[ordName][row])
		b = append(b, `,"email":`...)
		b = appendString(b, s[ordEmail][row])
		b = append(b, `}]`...)
	}
	kind, promo, discount := orderDiscount(t, row)
	if asked&includeCustomDiscounts != 0 && kind == customDiscount {
		b = append(member(b, "custom_discounts"), `{"amount":{"amount":`...)
		b = strconv.AppendInt(b, discount, 10)
		b = append(b, `,"currency":`...)
		b = appendString(b, s[ordCurrency][row])
		b = append(b, `},"type":"custom_discount","id":"`...)
		b = appendDerivedUUID(b, s[ordID][row], saltCustomDiscount)
		b = append(b, `","external_id":`...)
		b = appendString(b, "loyalty-"+s[ordNumber][row])
		b = append(b, `,"discount_engine":"Emulated loyalty engine","description":"Loyalty reward","discount_code":"LOYALTY"}]`...)
	}
	if asked&includePromotions != 0 && kind == promotionDiscount {
		b = appendPromotion(member(b, "promotions"), orderPoolsOf(t), promo)
		b = append(b, ']')
	}
	if len(b) == open {
		return b[:start] // nothing to include: no included member
	}
	return append(b, '}')
}

// saltRegistrationID derives an included account's registration_id from
// its id.
const saltRegistrationID = 0x72656769 // "regi"

// appendPromotion appends promotion i of the pool in the condensed form
// an order includes.
func appendPromotion(b []byte, p *orderPools, i int) []byte {
	def := &promotionDefs[i]
	b = append(b, `{"type":"promotion","id":`...)
	b = appendString(b, p.promotions[i])
	b = append(b, `,"name":`...)
	b = appendString(b, def.name)
	b = append(b, `,"description":`...)
	b = appendString(b, def.description)
	b = append(b, `,"automatic":`...)
	b = strconv.AppendBool(b, def.automatic)
	if def.rule {
		b = append(b, `,"promotion_source":"rule-promotion"`...)
	} else {
		b = append(b, `,"promotion_type":"percent_discount"`...)
	}
	b = append(b, `,"start":`...)
	b = appendSecondsTimestamp(b, p.promoStart)
	b = append(b, `,"end":`...)
	b = appendSecondsTimestamp(b, p.promoEnd)
	return append(b, '}')
}

// appendSecondsTimestamp appends ms as a quoted timestamp without
// milliseconds, as the promotions in the vendor's examples have them.
func appendSecondsTimestamp(b []byte, ms int64) []byte {
	b = appendQuotedTimestamp(b, ms)
	return append(b[:len(b)-len(`.000Z"`)], 'Z', '"')
}

// appendOrderItem appends the order's one line item as an order_item (the
// spec's OrderItemResponse): quantity 1, priced before the discount and
// without tax, and its share of the order's prices.
func appendOrderItem(b []byte, t *table, row int32, enc *encoding) []byte {
	s := t.str
	currency := s[ordCurrency][row]
	total, net := t.num[ordWithTax][row], t.num[ordWithoutTax][row]
	_, _, discount := orderDiscount(t, row)
	list := withoutTax(total - discount)
	b = append(b, `{"type":"order_item","id":`...)
	b = appendString(b, s[ordItemID][row])
	b = append(b, `,"quantity":1,"product_id":`...)
	b = appendString(b, s[ordProductID][row])
	b = append(b, `,"name":`...)
	b = appendString(b, "Product "+s[ordProductSKU][row])
	b = append(b, `,"sku":`...)
	b = appendString(b, s[ordProductSKU][row])
	for _, name := range []string{`,"unit_price":`, `,"value":`} {
		b = append(b, name...)
		b = append(b, `{"amount":`...)
		b = strconv.AppendInt(b, list, 10)
		b = append(b, `,"currency":`...)
		b = appendString(b, currency)
		b = append(b, `,"includes_tax":false}`...)
	}
	b = append(b, `,"links":{},`...)
	if enc.flat {
		b = appendTimestamps(b, t, row)
		b = append(b, ',')
	}
	b = append(b, `"meta":{"display_price":{`...)
	prices := [...]struct {
		name   string
		amount int64
	}{{"with_tax", total}, {"without_tax", net}, {"tax", total - net}, {"discount", discount}, {"without_discount", total - discount}}
	for i, p := range prices {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, p.name...)
		b = append(b, `":{"unit":`...)
		b = appendPrice(b, p.amount, currency)
		b = append(b, `,"value":`...)
		b = appendPrice(b, p.amount, currency)
		b = append(b, '}')
	}
	b = append(b, '}')
	if !enc.flat {
		b = append(b, `,"timestamps":{`...)
		b = appendTimestamps(b, t, row)
		b = append(b, '}')
	}
	return append(b, '}', '}')
}
