package emulator

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Column positions per resource. The column names are the attribute names
// of filters and sorts; the operators and sorts are those the service
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

const (
	fileID = iota
	fileName
	fileMime
	fileSize
	filePublic
	fileCreated
	fileWidth
	fileHeight
)

const (
	accID = iota
	accName
	accLegal
	accReg
	accExtRef
	accParent
	accCreated
	accUpdated
)

// orderSchema: GET /v2/orders, with a hard offset limit. The service
// documents no default order; like the account service it lists the newest
// orders first (created_at descending).
var orderSchema = (&schema{
	resource: "orders",
	typ:      "order",
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
	appendRecord:    appendOrder,
}).init()

// fileSchema: GET /v2/files, with a hard offset limit. Files cannot be
// sorted; they come in the service's own order, which is stable and
// unrelated to created_at: ascending id. Files have no updated_at.
var fileSchema = (&schema{
	resource: "files",
	typ:      "file",
	cols: []column{
		{"id", kindString, opsIn},
		{"file_name", kindString, opsEqLike},
		{"mime_type", kindString, 0},
		{"file_size", kindNumber, opsRange},
		{"public", kindBool, 0},
		{"created_at", kindTime, 0},
		{"width", kindNumber, opsRange},  // nullNum unless an image
		{"height", kindNumber, opsRange}, // nullNum unless an image
	},
	created:         fileCreated,
	updated:         -1,
	defaultSort:     fileID,
	hardOffsetLimit: true,
	appendRecord:    appendFile,
}).init()

// accountSchema: GET /v2/accounts, with a soft offset limit. The documented
// default order is created_at descending.
var accountSchema = (&schema{
	resource: "accounts",
	typ:      "account",
	cols: []column{
		{"id", kindString, opsEqRangeIn},
		{"name", kindString, opsEqLike},
		{"legal_name", kindString, opsEqLike},
		{"registration_id", kindString, opsEqLike},
		{"external_ref", kindString, opsEqLikeIn},
		{"parent_id", kindString, 0},
		{"created_at", kindTime, opsEqRange},
		{"updated_at", kindTime, opsEqRange},
	},
	created:      accCreated,
	updated:      accUpdated,
	sortCols:     []int{accCreated, accID, accName, accUpdated},
	defaultSort:  accCreated,
	defaultDesc:  true,
	appendRecord: appendAccount,
}).init()

// Independent random streams per resource, so that changing one count does
// not change the records of another resource.
// Attributes added after the first version of a resource draw from a second
// stream, so that the existing attributes keep their values for a seed.
const (
	streamOrders     = 0x6f7264657273 // "orders"
	streamFiles      = 0x66696c6573   // "files"
	streamAccounts   = 0x6163636f756e // "accoun"
	streamOrderExtra = 0x6f72642b     // "ord+"
	streamFileExtra  = 0x66696c2b     // "fil+"
	streamProducts   = 0x70726f64     // "prod"
)

func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

const hexDigits = "0123456789abcdef"

// newUUID returns a random version-4 UUID string drawn from rng.
func newUUID(rng *rand.Rand) string {
	hi, lo := rng.Uint64(), rng.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	var b [36]byte
	pos := 0
	for i := range 32 {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b[pos] = '-'
			pos++
		}
		var nib uint64
		if i < 16 {
			nib = hi >> (60 - 4*uint(i)) & 0xf
		} else {
			nib = lo >> (60 - 4*uint(i-16)) & 0xf
		}
		b[pos] = hexDigits[nib]
		pos++
	}
	return string(b[:])
}

// padInt formats n with at least width digits.
func padInt(prefix string, n, width int) string {
	s := strconv.Itoa(n)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return prefix + s
}

// tieGroups returns the tie group sizes to use: explicit as given (nil means
// the default of one group of def records, at most n/div).
func tieGroups(explicit []int, n, def, div int) []int {
	if explicit != nil {
		return explicit
	}
	size := min(def, n/div)
	if size < 2 {
		return nil
	}
	return []int{size}
}

// groupRanges places groups of the given sizes on n storage positions,
// around evenly spaced centres (the middle for one group), and returns their
// [start, end) ranges in order. Groups never overlap; sizes below 2 and
// groups without room left are skipped, and a group larger than n is cut to
// n.
func groupRanges(n int, sizes []int) [][2]int {
	var out [][2]int
	prevEnd := 0
	for j, size := range sizes {
		size = min(size, n)
		if size < 2 {
			continue
		}
		start := max((j+1)*n/(len(sizes)+1)-size/2, prevEnd, 0)
		if start+size > n {
			start = n - size
		}
		if start < prevEnd {
			continue // no room left for this group
		}
		out = append(out, [2]int{start, start + size})
		prevEnd = start + size
	}
	return out
}

// genTimes returns ms-precision created_at and updated_at values for n
// records in storage order. created_at never decreases; neighbours are
// occasionally equal, and each tie group (placed around evenly spaced
// centres, the middle of the range for a single group) shares exactly one
// created_at, which is also its members' updated_at, as for a bulk import.
// updated_at >= created_at and never exceeds the last created_at.
func genTimes(rng *rand.Rand, n int, base int64, ties []int, meanGap int64) (created, updated []int64) {
	created = make([]int64, n)
	updated = make([]int64, n)
	if n == 0 {
		return created, updated
	}
	const (
		free   = iota
		first  // first member of a tie group: strictly after its predecessor
		member // later member of a tie group: equal to its predecessor
		after  // first record after a group: strictly after it
	)
	mark := make([]uint8, n)
	for _, g := range groupRanges(n, ties) {
		start, end := g[0], g[1]
		mark[start] = first
		for i := start + 1; i < end; i++ {
			mark[i] = member
		}
		if end < n {
			mark[end] = after
		}
	}
	ts := base
	for i := range n {
		if i > 0 {
			switch mark[i] {
			case member:
			case first, after:
				ts += 1 + rng.Int64N(2*meanGap)
			default:
				if rng.IntN(25) != 0 { // about 1 in 25 records share their predecessor's time
					ts += 1 + rng.Int64N(2*meanGap)
				}
			}
		}
		created[i] = ts
	}
	last := created[n-1]
	const maxAge = 30 * 24 * int64(time.Hour/time.Millisecond)
	for i := range n {
		switch {
		case mark[i] == first || mark[i] == member:
			updated[i] = created[i]
		case rng.IntN(10) < 4:
			updated[i] = created[i]
		default:
			updated[i] = created[i] + rng.Int64N(min(maxAge, last-created[i])+1)
		}
	}
	return created, updated
}

// meanGap spreads n records over at most a year.
func meanGap(n int, preferred time.Duration) int64 {
	g := int64(preferred / time.Millisecond)
	if n > 0 {
		g = min(g, int64(365*24*time.Hour/time.Millisecond)/int64(n))
	}
	return max(g, 1)
}

// ---- orders ----

var firstNames = []string{
	"Jane", "John", "Maria", "Ahmed", "Wei", "Olivia", "Liam", "Emma", "Noah", "Ava",
	"Sofia", "Lucas", "Mia", "Ethan", "Amara", "Hiro", "Chloe", "Mateo", "Zoë", "José",
	"Priya", "Lars", "Fatima", "Kofi", "Ingrid", "Diego", "Anna", "Omar", "Elena", "Tom",
}

var firstSlugs = []string{
	"jane", "john", "maria", "ahmed", "wei", "olivia", "liam", "emma", "noah", "ava",
	"sofia", "lucas", "mia", "ethan", "amara", "hiro", "chloe", "mateo", "zoe", "jose",
	"priya", "lars", "fatima", "kofi", "ingrid", "diego", "anna", "omar", "elena", "tom",
}

var lastNames = []string{
	"Doe", "Smith", "García", "Khan", "Zhang", "Johnson", "O'Brien", "Müller", "Rossi", "Nakamura",
	"Dubois", "Silva", "Kowalski", "Andersen", "Okafor", "Nguyen", "Schmidt", "Martin", "Haddad", "Lee",
}

var lastSlugs = []string{
	"doe", "smith", "garcia", "khan", "zhang", "johnson", "obrien", "muller", "rossi", "nakamura",
	"dubois", "silva", "kowalski", "andersen", "okafor", "nguyen", "schmidt", "martin", "haddad", "lee",
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

// orderPools hold the customers, account members and products orders refer
// to. They grow as orders are generated or inserted, so that returning
// buyers place several orders.
type orderPools struct {
	customers []*buyer
	members   []*buyer
	accounts  []string
	products  [numProducts]string // ids
	skus      [numProducts]string
}

func newOrderPools(seed int64) *orderPools {
	p := &orderPools{}
	rng := newRand(seed, streamProducts)
	for i := range p.products {
		p.products[i] = newUUID(rng)
		p.skus[i] = productSKU(i)
	}
	return p
}

// productSKU is the SKU of product i of the catalogue.
func productSKU(i int) string { return padInt("SKU-", i+1, 4) }

var postcodeAreas = []string{"EC", "SW", "N", "M", "B", "LS", "G", "EH", "BS", "CF"}

// postcode returns a postcode of the country that goes with currency: US
// ZIP codes, Dutch postcodes or British postcodes.
func postcode(rng *rand.Rand, currency string) string {
	switch currency {
	case "USD":
		return padInt("", rng.IntN(99000)+1000, 5)
	case "EUR":
		return padInt("", 1000+rng.IntN(9000), 4) + " " + string(rune('A'+rng.IntN(26))) + string(rune('A'+rng.IntN(26)))
	}
	return postcodeAreas[rng.IntN(len(postcodeAreas))] + strconv.Itoa(1+rng.IntN(20)) + " " + strconv.Itoa(rng.IntN(10)) +
		string(rune('A'+rng.IntN(26))) + string(rune('A'+rng.IntN(26)))
}

// withoutTax is the price before tax of a price including a 20% tax.
func withoutTax(withTax int64) int64 { return withTax * 100 / 120 }

// fillOrder fills the non-time attributes of order row number seq (1-based).
// The attributes of the first version of orders draw from t.rng, those
// added later from t.aux.
func fillOrder(t *table, row int32, seq int) {
	rng := t.rng
	t.str[ordID][row] = newUUID(rng)
	var status, payment, shipping string
	switch r := rng.IntN(100); {
	case r < 55:
		status, payment, shipping = "complete", "paid", "fulfilled"
	case r < 75:
		status, shipping = "processing", "unfulfilled"
		payment = "authorized"
		if rng.IntN(5) < 2 {
			payment = "paid"
		}
	case r < 90:
		status, payment, shipping = "incomplete", "unpaid", "unfulfilled"
	default:
		status, payment, shipping = "cancelled", "unpaid", "unfulfilled"
		if rng.IntN(2) == 0 {
			payment = "refunded"
		}
	}
	t.str[ordStatus][row] = status
	t.str[ordPayment][row] = payment
	t.str[ordShipping][row] = shipping
	t.str[ordNumber][row] = padInt("ORD-", seq, 7)
	if rng.IntN(5) != 0 {
		t.str[ordExtRef][row] = "shop-" + strconv.Itoa(100000+seq)
	}
	f, l := rng.IntN(len(firstNames)), rng.IntN(len(lastNames))
	name := firstNames[f] + " " + lastNames[l]
	domain := "@example.com"
	if rng.IntN(5) == 0 {
		domain = "@example.org"
	}
	email := firstSlugs[f] + "." + lastSlugs[l] + strconv.Itoa(1+rng.IntN(99)) + domain
	currency := currencies[rng.IntN(len(currencies))]
	t.str[ordCurrency][row] = currency
	withTax := 100 + rng.Int64N(250000)
	t.num[ordWithTax][row] = withTax
	t.num[ordWithoutTax][row] = withoutTax(withTax)

	// Who ordered: about 15% guests, 20% account members and 65%
	// customers; about half of the orders of customers and members come
	// from returning ones, who order under the same name and email.
	aux, p := t.aux, t.pools
	returning := func(pool []*buyer) *buyer {
		if len(pool) > 0 && aux.IntN(100) < 50 {
			return pool[aux.IntN(len(pool))]
		}
		return nil
	}
	var b *buyer
	switch r := aux.IntN(100); {
	case r < 15:
		b = &buyer{name: name, email: email, postcode: postcode(aux, currency)}
	case r < 35:
		if b = returning(p.members); b == nil {
			b = &buyer{name: name, email: email, postcode: postcode(aux, currency), memberID: newUUID(aux)}
			if len(p.accounts) > 0 && aux.IntN(2) == 0 {
				b.accountID = p.accounts[aux.IntN(len(p.accounts))]
			} else {
				b.accountID = newUUID(aux)
				p.accounts = append(p.accounts, b.accountID)
			}
			p.members = append(p.members, b)
		}
	default:
		if b = returning(p.customers); b == nil {
			b = &buyer{name: name, email: email, postcode: postcode(aux, currency), customerID: newUUID(aux)}
			p.customers = append(p.customers, b)
		}
	}
	t.str[ordName][row], t.str[ordEmail][row] = b.name, b.email
	t.str[ordContactName][row], t.str[ordContactEmail][row] = b.name, b.email
	t.str[ordCustomerID][row] = b.customerID
	t.str[ordAccountID][row], t.str[ordMemberID][row] = b.accountID, b.memberID
	t.str[ordShipPostcode][row] = b.postcode
	t.str[ordBillPostcode][row] = b.postcode
	if aux.IntN(8) == 0 { // shipped elsewhere
		t.str[ordShipPostcode][row] = postcode(aux, currency)
	}
	// One line item; a few products sell much more than the others.
	product := aux.IntN(1 + aux.IntN(numProducts))
	t.str[ordProductID][row] = p.products[product]
	t.str[ordProductSKU][row] = p.skus[product]
	t.str[ordItemID][row] = newUUID(aux)
}

func genOrders(o *Options) *table {
	n := max(o.Orders, 0)
	rng := newRand(o.Seed, streamOrders)
	t := newTable(orderSchema, n, rng, newRand(o.Seed, streamOrderExtra))
	t.pools = newOrderPools(o.Seed)
	created, updated := genTimes(rng, n, o.BaseTime.UnixMilli(),
		tieGroups(o.OrderTieGroups, n, 350, 7), meanGap(n, 45*time.Second))
	for i := range n {
		row := t.addRow()
		fillOrder(t, row, i+1)
		t.num[ordCreated][row] = created[i]
		t.num[ordUpdated][row] = updated[i]
	}
	t.buildIndexes()
	return t
}

// ---- files ----

var filePrefixes = []string{"invoice", "photo", "report", "logo", "banner", "contract", "avatar", "export", "manual", "receipt"}

var fileTypes = []struct{ ext, mime string }{
	{".png", "image/png"}, {".jpg", "image/jpeg"}, {".pdf", "application/pdf"},
	{".csv", "text/csv"}, {".svg", "image/svg+xml"}, {".webp", "image/webp"},
}

func fillFile(t *table, row int32, seq int) {
	rng := t.rng
	t.str[fileID][row] = newUUID(rng)
	ft := fileTypes[rng.IntN(len(fileTypes))]
	t.str[fileName][row] = filePrefixes[rng.IntN(len(filePrefixes))] + padInt("-", seq, 6) + ft.ext
	t.str[fileMime][row] = ft.mime
	t.num[fileSize][row] = 512 + rng.Int64N(20<<20)
	t.boo[filePublic][row] = rng.IntN(2) == 0
	t.num[fileWidth][row], t.num[fileHeight][row] = nullNum, nullNum
	if strings.HasPrefix(ft.mime, "image/") {
		t.num[fileWidth][row] = 16 + t.aux.Int64N(4096-16+1)
		t.num[fileHeight][row] = 16 + t.aux.Int64N(4096-16+1)
	}
}

// fileSizeTieValue is the file_size shared by the files of size tie group
// j: distinct per group and at least 2 apart, so that nudging another
// file's size by one never lands on a group's value.
func fileSizeTieValue(j int) int64 { return 250000 + int64(j)*10007 }

func genFiles(o *Options) *table {
	n := max(o.Files, 0)
	rng := newRand(o.Seed, streamFiles)
	t := newTable(fileSchema, n, rng, newRand(o.Seed, streamFileExtra))
	// Files have no updated_at; the times are drawn as for the other
	// resources so that the files of a seed keep their values.
	created, _ := genTimes(rng, n, o.BaseTime.UnixMilli(),
		tieGroups(o.FileTieGroups, n, 40, 7), meanGap(n, 10*time.Minute))
	for i := range n {
		row := t.addRow()
		fillFile(t, row, i+1)
		t.num[fileCreated][row] = created[i]
	}
	// File size tie groups: each group of files shares one exact size,
	// which no other file has.
	if groups := groupRanges(n, o.FileSizeTieGroups); len(groups) > 0 {
		inGroup := make([]bool, n)
		values := map[int64]bool{}
		for j, g := range groups {
			v := fileSizeTieValue(j)
			values[v] = true
			for i := g[0]; i < g[1]; i++ {
				t.num[fileSize][i] = v
				inGroup[i] = true
			}
		}
		for i := range n {
			if !inGroup[i] && values[t.num[fileSize][i]] {
				t.num[fileSize][i]++
			}
		}
	}
	t.buildIndexes()
	return t
}

// ---- accounts ----

// hostileAccountNames are the names of the first accounts: each one breaks a
// careless filter builder, URL encoder or JSON handler.
var hostileAccountNames = []string{
	"Acme, Inc.",
	"Smith (Holdings) Ltd",
	"Key: Value Partners",
	"O'Brien & Sons",
	`The "Quoted" Company`,
	`Back\slash Trading`,
	"Star*Power Ventures",
	"*",
	"Double  Space  Logistics",
	" Leading Space Co",
	"Trailing Space Co ",
	"Müller & Söhne GmbH",
	"東京商事",
	"Rocket 🚀 Labs",
	"eq(name,Acme)",
	`All,the:(hard)'bits"\*`,
	"Plus+Sign & Equals=Co",
	"Percent %2C 100% Pure",
	"Hash #1; Semi?colon/Slash",
	"Zoë's Café — Ünïcödé",
}

var companyWords = []string{
	"Globex", "Initech", "Umbrella", "Stark", "Wayne", "Wonka", "Tyrell", "Cyberdyne", "Soylent", "Hooli",
	"Vandelay", "Oscorp", "Gringotts", "Monarch", "Nakatomi", "Aperture", "Massive", "Dunder", "Prestige", "Sterling",
}

var companyKinds = []string{"Industries", "Logistics", "Trading", "Holdings", "Labs", "Systems", "Foods", "Media", "Partners", "Ventures"}

var legalForms = []string{"LLC", "Ltd.", "GmbH", "S.A.", "B.V.", "Inc.", "K.K.", "AB"}

// fillAccount fills the attributes of account number seq (1-based) except
// parent_id and the timestamps.
func fillAccount(t *table, row int32, seq int) {
	rng := t.rng
	t.str[accID][row] = newUUID(rng)
	var name, legal string
	if seq <= len(hostileAccountNames) {
		name = hostileAccountNames[seq-1]
		legal = name + " Ltd."
	} else {
		// The number makes generated names unique and distinct from the
		// hostile ones; legal names end in a form that contains no digit,
		// so they are unique too.
		name = companyWords[rng.IntN(len(companyWords))] + " " + companyKinds[rng.IntN(len(companyKinds))] + " " + strconv.Itoa(seq)
		legal = name + " " + legalForms[rng.IntN(len(legalForms))]
	}
	t.str[accName][row] = name
	t.str[accLegal][row] = legal
	// 48271 is coprime with 10^8, so this is a bijection on 0..10^8-1.
	t.str[accReg][row] = padInt("RC", int((int64(seq)*48271+1000003)%100000000), 8)
	if rng.IntN(7) != 0 {
		t.str[accExtRef][row] = padInt("crm-", seq, 6)
	}
}

func genAccounts(o *Options) *table {
	n := max(o.Accounts, 0)
	rng := newRand(o.Seed, streamAccounts)
	t := newTable(accountSchema, n, rng, nil)
	created, updated := genTimes(rng, n, o.BaseTime.UnixMilli(),
		tieGroups(o.AccountTieGroups, n, 30, 8), meanGap(n, time.Hour))
	for i := range n {
		row := t.addRow()
		fillAccount(t, row, i+1)
		if i >= 3 && rng.IntN(5) == 0 {
			t.str[accParent][row] = t.id(int32(rng.IntN(i)))
		}
		t.num[accCreated][row] = created[i]
		t.num[accUpdated][row] = updated[i]
	}
	t.buildIndexes()
	return t
}
