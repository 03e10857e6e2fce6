package emulator

import (
	"math/rand/v2"
	"strconv"
	"time"
)

// Column positions of orders. The column names are the attribute names of
// filters and sorts; the operators and sorts are those the service
// documents for the attribute.
const (
	ordID = iota
	ordStatus
	ordPayment
	ordShipping
	ordNumber
	ordExtRef
	ordEmail
	ordName
	ordCurrency
	ordWithTax
	ordCreated
	ordUpdated
	ordWithoutTax
	ordCustomerID
	ordAccountID
	ordMemberID
	ordContactName
	ordContactEmail
	ordShipPostcode
	ordBillPostcode
	ordProductID
	ordProductSKU
	ordItemID
)

// The random streams of orders: the first version's attributes, those
// added later, and the product catalogue.
const (
	streamOrders     = 0x6f7264657273 // "orders"
	streamOrderExtra = 0x6f72642b     // "ord+"
	streamProducts   = 0x70726f64     // "prod"
)

// orderResource: GET /v2/orders, with a hard offset limit. The service
// documents no default order; like the account service it lists the newest
// orders first (created_at descending).
var orderResource = &resource{
	schema: schema{
		name: "orders",
		typ:  "order",
		cols: []column{
			{"id", kindString, 0}, // no id filter on orders
			{"status", kindString, opsEq},
			{"payment", kindString, opsEq},
			{"shipping", kindString, opsEq},
			{"order_number", kindString, opsEqLike},
			{"external_ref", kindString, opsEqLike},
			{"email", kindString, opsEqLike}, // customer.email
			{"name", kindString, opsEqLike},  // customer.name
			{"currency", kindString, opsEq},
			{"with_tax", kindNumber, opsRange}, // minor units
			{"created_at", kindTime, opsEqRange},
			{"updated_at", kindTime, opsEqRange},
			{"without_tax", kindNumber, opsRange},
			{"customer_id", kindString, opsEqLike},
			{"account_id", kindString, opsEqLike},
			{"account_member_id", kindString, opsEqLike},
			{"contact.name", kindString, opsEqLike},
			{"contact.email", kindString, opsEqLike},
			{"shipping_postcode", kindString, opsEqLike},
			{"billing_postcode", kindString, opsEqLike},
			{"product_id", kindString, opsEq},
			{"product_sku", kindString, opsEq},
			{"items.id", kindString, 0},
		},
		created:         ordCreated,
		updated:         ordUpdated,
		sortCols:        []int{ordCreated, ordPayment, ordShipping, ordStatus, ordWithTax},
		defaultSort:     ordCreated,
		defaultDesc:     true,
		hardOffsetLimit: true,
	},
	appendRecord: appendOrder,
	gen: generator{
		count:        func(o *Options) *int { return &o.Orders },
		defaultCount: DefaultOrders,
		ties:         func(o *Options) []int { return o.OrderTieGroups },
		tieSize:      350,
		tieDiv:       7,
		gap:          45 * time.Second,
		stream:       streamOrders,
		extra:        streamOrderExtra,
		start:        func(t *table, o *Options) { t.state = newOrderPools(o.Seed, o.BaseTime.UnixMilli()) },
	},
	fill:           fillOrder,
	update:         updateOrder,
	includes:       orderIncludes,
	appendIncluded: appendOrderIncluded,
}

var currencies = []string{"USD", "EUR", "GBP"}

// numProducts is the size of the catalogue orders draw their item from.
const numProducts = 50

// buyer is who places orders: a registered customer, an account member, or
// (for one order) a guest.
type buyer struct {
	customerID          string
	accountID, memberID string
	name, email         string
	postcode            string // of the buyer's address
}

// orderPools hold the customers, account members, products and
// promotions orders refer to. The buyers grow as orders are generated or
// inserted, so that returning buyers place several orders.
type orderPools struct {
	customers []*buyer
	members   []*buyer
	accounts  []string
	products  [numProducts]string // ids
	skus      [numProducts]string
	promotionPool
}

func newOrderPools(seed, baseMs int64) *orderPools {
	p := &orderPools{promotionPool: newPromotionPool(seed, baseMs)}
	rng := newRand(seed, streamProducts)
	for i := range p.products {
		p.products[i] = newUUID(rng)
		p.skus[i] = productSKU(i)
	}
	return p
}

// orderPoolsOf is the generator state of the orders table; it holds
// nothing else.
func orderPoolsOf(t *table) *orderPools {
	p, ok := t.state.(*orderPools)
	if !ok {
		panic("emulator: the orders table has no order pools")
	}
	return p
}

// productSKU is the SKU of product i of the catalogue.
func productSKU(i int) string { return padInt("SKU-", i+1, 4) }

// withoutTax is the price before tax of a price including a 20% tax.
func withoutTax(withTax int64) int64 { return withTax * 100 / 120 }

// fillOrder fills the non-time attributes of order row number seq (1-based).
// The attributes of the first version of orders draw from t.rng, those
// added later from t.aux.
func fillOrder(t *table, row int32, seq int, _ bool) {
	rng, s := t.rng, t.str
	s[ordID][row] = newUUID(rng)
	s[ordStatus][row], s[ordPayment][row], s[ordShipping][row] = drawOrderStatus(rng)
	s[ordNumber][row] = padInt("ORD-", seq, 7)
	if rng.IntN(5) != 0 {
		s[ordExtRef][row] = "shop-" + strconv.Itoa(100000+seq)
	}
	name, email := drawPerson(rng)
	currency := currencies[rng.IntN(len(currencies))]
	s[ordCurrency][row] = currency
	withTax := 100 + rng.Int64N(250000)
	t.num[ordWithTax][row] = withTax
	t.num[ordWithoutTax][row] = withoutTax(withTax)

	aux, p := t.aux, orderPoolsOf(t)
	b := p.buyer(aux, name, email, currency)
	s[ordName][row], s[ordEmail][row] = b.name, b.email
	s[ordContactName][row], s[ordContactEmail][row] = b.name, b.email
	s[ordCustomerID][row] = b.customerID
	s[ordAccountID][row], s[ordMemberID][row] = b.accountID, b.memberID
	s[ordShipPostcode][row] = b.postcode
	s[ordBillPostcode][row] = b.postcode
	if aux.IntN(8) == 0 { // shipped elsewhere
		s[ordShipPostcode][row] = postcode(aux, currency)
	}
	// One line item; a few products sell much more than the others.
	product := aux.IntN(1 + aux.IntN(numProducts))
	s[ordProductID][row] = p.products[product]
	s[ordProductSKU][row] = p.skus[product]
	s[ordItemID][row] = newUUID(aux)
}

// drawOrderStatus draws a consistent status, payment and shipping.
func drawOrderStatus(rng *rand.Rand) (status, payment, shipping string) {
	switch r := rng.IntN(100); {
	case r < 55:
		return "complete", "paid", "fulfilled"
	case r < 75:
		payment = "authorized"
		if rng.IntN(5) < 2 {
			payment = "paid"
		}
		return "processing", payment, "unfulfilled"
	case r < 90:
		return "incomplete", "unpaid", "unfulfilled"
	}
	payment = "unpaid"
	if rng.IntN(2) == 0 {
		payment = "refunded"
	}
	return "cancelled", payment, "unfulfilled"
}

// buyer picks who places an order: about 15% guests, 20% account members
// and 65% customers. About half of the orders of customers and members come
// from returning ones, who order under the same name and email; a new buyer
// orders as name and email.
func (p *orderPools) buyer(aux *rand.Rand, name, email, currency string) *buyer {
	returning := func(pool []*buyer) *buyer {
		if len(pool) > 0 && aux.IntN(100) < 50 {
			return pool[aux.IntN(len(pool))]
		}
		return nil
	}
	switch r := aux.IntN(100); {
	case r < 15:
		return &buyer{name: name, email: email, postcode: postcode(aux, currency)}
	case r < 35:
		if b := returning(p.members); b != nil {
			return b
		}
		b := &buyer{name: name, email: email, postcode: postcode(aux, currency), memberID: newUUID(aux)}
		if len(p.accounts) > 0 && aux.IntN(2) == 0 {
			b.accountID = p.accounts[aux.IntN(len(p.accounts))]
		} else {
			b.accountID = newUUID(aux)
			p.accounts = append(p.accounts, b.accountID)
		}
		p.members = append(p.members, b)
		return b
	}
	if b := returning(p.customers); b != nil {
		return b
	}
	b := &buyer{name: name, email: email, postcode: postcode(aux, currency), customerID: newUUID(aux)}
	p.customers = append(p.customers, b)
	return b
}

// updateOrder advances an order's status.
func updateOrder(t *table, row int32) {
	s := t.str
	switch s[ordStatus][row] {
	case "incomplete":
		s[ordStatus][row], s[ordPayment][row] = "processing", "authorized"
	case "processing":
		s[ordStatus][row], s[ordPayment][row], s[ordShipping][row] = "complete", "paid", "fulfilled"
	}
}

func appendOrder(b []byte, t *table, row int32, enc *encoding) []byte {
	s := t.str
	b = append(b, `{"type":"order","id":`...)
	b = appendString(b, s[ordID][row])
	b = append(b, `,"status":`...)
	b = appendString(b, s[ordStatus][row])
	b = append(b, `,"payment":`...)
	b = appendString(b, s[ordPayment][row])
	b = append(b, `,"shipping":`...)
	b = appendString(b, s[ordShipping][row])
	// The emulator anonymizes no order (POST /v2/orders/anonymize is not
	// served), so every order keeps its buyer's data.
	b = append(b, `,"anonymized":false,"order_number":`...)
	b = appendString(b, s[ordNumber][row])
	b = append(b, `,"external_ref":`...)
	b = appendString(b, s[ordExtRef][row])
	b = append(b, `,"customer":{"name":`...)
	b = appendString(b, s[ordName][row])
	b = append(b, `,"email":`...)
	b = appendString(b, s[ordEmail][row])
	b = append(b, `},"contact":{"name":`...)
	b = appendString(b, s[ordContactName][row])
	b = append(b, `,"email":`...)
	b = appendString(b, s[ordContactEmail][row])
	b = append(b, `},"shipping_address":`...)
	b = appendAddress(b, s[ordName][row], s[ordShipPostcode][row])
	b = append(b, `,"billing_address":`...)
	b = appendAddress(b, s[ordName][row], s[ordBillPostcode][row])
	b = append(b, ',')
	b = appendOrderMeta(b, t, row, enc)
	b = append(b, `,"relationships":{"items":{"data":[{"type":"item","id":`...)
	b = appendString(b, s[ordItemID][row])
	b = append(b, `}]}`...)
	b = appendDiscountRelationship(b, t, row)
	if id := s[ordCustomerID][row]; id != "" {
		b = append(b, ',')
		b = appendRelationship(b, "customer", "customer", id)
	}
	if id := s[ordAccountID][row]; id != "" {
		b = append(b, ',')
		b = appendRelationship(b, "account", "account", id)
		b = append(b, ',')
		b = appendRelationship(b, "account_member", "account_member", s[ordMemberID][row])
	}
	return append(b, '}', '}')
}

// Order is a copy of one order as the emulator serves it.
type Order struct {
	ID            string
	Status        string // incomplete, processing, complete or cancelled
	Payment       string // unpaid, authorized, paid or refunded
	Shipping      string // unfulfilled or fulfilled
	OrderNumber   string // ORD-0000123
	ExternalRef   string
	CustomerName  string // customer.name (filter attribute name)
	CustomerEmail string // customer.email (filter attribute email)
	// CustomerID is the registered customer who placed the order; empty for
	// guest orders and account orders.
	CustomerID string
	// AccountID and AccountMemberID are set for orders placed by an account
	// member, and empty otherwise.
	AccountID       string
	AccountMemberID string
	ContactName     string // contact.name
	ContactEmail    string // contact.email
	// ShippingPostcode and BillingPostcode are the postcodes of the
	// shipping and billing addresses.
	ShippingPostcode string
	BillingPostcode  string
	// The order's one line item: its id and the product's id and SKU.
	ItemID     string
	ProductID  string
	ProductSKU string // SKU-0042
	WithTax    int64  // meta.display_price.with_tax.amount, in minor units
	WithoutTax int64  // meta.display_price.without_tax.amount, in minor units
	// Discount is meta.display_price.discount.amount: 0, or negative for
	// an order with a promotion (PromotionID) or a custom discount
	// (CustomDiscountID); WithTax is the price after it.
	Discount         int64
	PromotionID      string
	CustomDiscountID string
	// Paid and Authorized are meta.display_price.paid and .authorized:
	// WithTax for a paid, respectively authorized, order, else 0.
	Paid, Authorized int64
	Currency         string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

func orderAt(t *table, row int32) Order {
	s := t.str
	o := Order{
		ID: s[ordID][row], Status: s[ordStatus][row], Payment: s[ordPayment][row], Shipping: s[ordShipping][row],
		OrderNumber: s[ordNumber][row], ExternalRef: s[ordExtRef][row],
		CustomerName: s[ordName][row], CustomerEmail: s[ordEmail][row], CustomerID: s[ordCustomerID][row],
		AccountID: s[ordAccountID][row], AccountMemberID: s[ordMemberID][row],
		ContactName: s[ordContactName][row], ContactEmail: s[ordContactEmail][row],
		ShippingPostcode: s[ordShipPostcode][row], BillingPostcode: s[ordBillPostcode][row],
		ItemID: s[ordItemID][row], ProductID: s[ordProductID][row], ProductSKU: s[ordProductSKU][row],
		WithTax: t.num[ordWithTax][row], WithoutTax: t.num[ordWithoutTax][row],
		Currency:  s[ordCurrency][row],
		CreatedAt: msTime(t.num[ordCreated][row]), UpdatedAt: msTime(t.num[ordUpdated][row]),
	}
	kind, promo, discount := orderDiscount(t, row)
	o.Discount = discount
	switch kind {
	case promotionDiscount:
		o.PromotionID = orderPoolsOf(t).promotions[promo]
	case customDiscount:
		o.CustomDiscountID = string(appendDerivedUUID(nil, o.ID, saltCustomDiscount))
	}
	o.Paid, o.Authorized = orderPayments(o.WithTax, o.Payment)
	return o
}

var orders = accessor[Order]{orderResource, orderAt}

// Orders returns copies of the live orders in storage (insertion) order.
func (s *Server) Orders() []Order { return orders.all(s) }

// InsertOrder creates an order stamped with the emulator clock and returns it.
func (s *Server) InsertOrder() Order { return orders.insert(s) }

// UpdateOrder changes an order (advancing its status) and sets its
// updated_at to the emulator clock.
func (s *Server) UpdateOrder(id string) (Order, error) { return orders.update(s, id) }

// DeleteOrder deletes an order.
func (s *Server) DeleteOrder(id string) error { return orders.delete(s, id) }
