package emulator

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Column positions per resource. The column names are the filterable
// attribute names.
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
	ordAmount
	ordCreated
	ordUpdated
)

const (
	fileID = iota
	fileName
	fileMime
	fileSize
	filePublic
	fileCreated
	fileUpdated
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

var orderSchema = &schema{
	resource: "orders",
	typ:      "order",
	cols: []column{
		{"id", kindString}, {"status", kindString}, {"payment", kindString}, {"shipping", kindString},
		{"order_number", kindString}, {"external_ref", kindString}, {"email", kindString}, {"name", kindString},
		{"currency", kindString}, {"amount", kindNumber}, {"created_at", kindTime}, {"updated_at", kindTime},
	},
	created:         ordCreated,
	updated:         ordUpdated,
	sortCols:        []int{ordCreated, ordUpdated, ordID},
	hardOffsetLimit: true,
	appendRecord:    appendOrder,
}

var fileSchema = &schema{
	resource: "files",
	typ:      "file",
	cols: []column{
		{"id", kindString}, {"file_name", kindString}, {"mime_type", kindString}, {"file_size", kindNumber},
		{"public", kindBool}, {"created_at", kindTime}, {"updated_at", kindTime},
	},
	created:         fileCreated,
	updated:         fileUpdated,
	sortCols:        []int{fileCreated, fileUpdated, fileID},
	hardOffsetLimit: true,
	appendRecord:    appendFile,
}

var accountSchema = &schema{
	resource: "accounts",
	typ:      "account",
	cols: []column{
		{"id", kindString}, {"name", kindString}, {"legal_name", kindString}, {"registration_id", kindString},
		{"external_ref", kindString}, {"parent_id", kindString}, {"created_at", kindTime}, {"updated_at", kindTime},
	},
	created:      accCreated,
	updated:      accUpdated,
	sortCols:     []int{accCreated, accUpdated, accID, accName},
	appendRecord: appendAccount,
}

// Independent random streams per resource, so that changing one count does
// not change the records of another resource.
const (
	streamOrders   = 0x6f7264657273 // "orders"
	streamFiles    = 0x66696c6573   // "files"
	streamAccounts = 0x6163636f756e // "accoun"
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
	prevEnd := 0
	for j, size := range ties {
		size = min(size, n)
		if size < 2 {
			continue
		}
		// Groups never overlap: a group starts at or after the end of the
		// previous one (its first member is strictly later in time).
		start := max((j+1)*n/(len(ties)+1)-size/2, prevEnd, 0)
		if start+size > n {
			start = n - size
		}
		if start < prevEnd {
			continue // no room left for this group
		}
		mark[start] = first
		for i := start + 1; i < start+size; i++ {
			mark[i] = member
		}
		if start+size < n {
			mark[start+size] = after
		}
		prevEnd = start + size
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

// fillOrder fills the non-time attributes of order row number seq (1-based).
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
	t.str[ordName][row] = firstNames[f] + " " + lastNames[l]
	domain := "@example.com"
	if rng.IntN(5) == 0 {
		domain = "@example.org"
	}
	t.str[ordEmail][row] = firstSlugs[f] + "." + lastSlugs[l] + strconv.Itoa(1+rng.IntN(99)) + domain
	t.str[ordCurrency][row] = currencies[rng.IntN(len(currencies))]
	t.num[ordAmount][row] = 100 + rng.Int64N(250000)
}

func genOrders(o *Options) *table {
	n := max(o.Orders, 0)
	rng := newRand(o.Seed, streamOrders)
	t := newTable(orderSchema, n, rng)
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
}

func genFiles(o *Options) *table {
	n := max(o.Files, 0)
	rng := newRand(o.Seed, streamFiles)
	t := newTable(fileSchema, n, rng)
	created, updated := genTimes(rng, n, o.BaseTime.UnixMilli(),
		tieGroups(o.FileTieGroups, n, 40, 7), meanGap(n, 10*time.Minute))
	for i := range n {
		row := t.addRow()
		fillFile(t, row, i+1)
		t.num[fileCreated][row] = created[i]
		t.num[fileUpdated][row] = updated[i]
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
	t := newTable(accountSchema, n, rng)
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
