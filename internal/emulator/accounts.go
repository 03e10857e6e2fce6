package emulator

import (
	"strconv"
	"time"
)

// Column positions of accounts.
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

// streamAccounts is the random stream of accounts.
const streamAccounts = 0x6163636f756e // "accoun"

// accountResource: GET /v2/accounts, with a soft offset limit. The
// documented default order is created_at descending.
var accountResource = &resource{
	schema: schema{
		name: "accounts",
		typ:  "account",
		cols: []column{
			{"id", kindString, opsEqRangeIn},
			{"name", kindString, opsEqLike},
			{"legal_name", kindString, opsEqLike},
			{"registration_id", kindString, opsEqLike},
			{"external_ref", kindString, opsEqLike},
			{"parent_id", kindString, 0},
			{"created_at", kindTime, opsEqRange},
			{"updated_at", kindTime, opsEqRange},
		},
		created:     accCreated,
		updated:     accUpdated,
		sortCols:    []int{accCreated, accID, accName, accUpdated},
		defaultSort: accCreated,
		defaultDesc: true,
	},
	appendRecord: appendAccount,
	gen: generator{
		count:        func(o *Options) *int { return &o.Accounts },
		defaultCount: DefaultAccounts,
		ties:         func(o *Options) []int { return o.AccountTieGroups },
		tieSize:      30,
		tieDiv:       8,
		gap:          time.Hour,
		stream:       streamAccounts,
	},
	fill: fillAccount,
	update: func(t *table, row int32) {
		t.str[accExtRef][row] = padInt("crm-u", int(t.version), 6)
	},
}

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
// the timestamps.
func fillAccount(t *table, row int32, seq int, seeded bool) {
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
	t.str[accParent][row] = drawParent(t, row, seq, seeded)
}

// drawParent draws the parent_id of a new account, or "" for none. A
// seeded account's parent is an earlier account, looked up by position as
// the indexes do not exist yet; an inserted account's is any live one.
func drawParent(t *table, row int32, seq int, seeded bool) string {
	rng := t.rng
	if seeded {
		if seq > 3 && rng.IntN(5) == 0 {
			return t.id(int32(rng.IntN(int(row))))
		}
		return ""
	}
	if t.live > 1 && rng.IntN(5) == 0 {
		idx := t.asc[t.res.idCol]
		return t.id(idx[rng.IntN(len(idx))])
	}
	return ""
}

func appendAccount(b []byte, t *table, row int32, enc *encoding) []byte {
	s := t.str
	b = append(b, `{"type":"account","id":`...)
	b = appendString(b, s[accID][row])
	b = append(b, `,"name":`...)
	b = appendString(b, s[accName][row])
	b = append(b, `,"legal_name":`...)
	b = appendString(b, s[accLegal][row])
	b = append(b, `,"registration_id":`...)
	b = appendString(b, s[accReg][row])
	b = append(b, `,"external_ref":`...)
	b = appendString(b, s[accExtRef][row])
	parent := s[accParent][row]
	if parent != "" {
		// Read-only; the same as relationships.parent.data.id.
		b = append(b, `,"parent_id":`...)
		b = appendString(b, parent)
	}
	b = append(b, ',')
	if enc.flat {
		b = appendTimestamps(b, t, row)
	} else {
		b = append(b, `"meta":{"timestamps":{`...)
		b = appendTimestamps(b, t, row)
		b = append(b, '}', '}')
	}
	b = append(b, ',')
	b = appendSelfLink(b, t, row, enc)
	b = append(b, '}')
	if parent != "" {
		b = append(b, `,"relationships":{`...)
		b = appendRelationship(b, "parent", "account", parent)
		b = append(b, '}')
	}
	return append(b, '}')
}

// Account is a copy of one account as the emulator serves it.
type Account struct {
	ID             string
	Name           string
	LegalName      string
	RegistrationID string
	ExternalRef    string
	ParentID       string // empty when the account has no parent
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func accountAt(t *table, row int32) Account {
	s := t.str
	return Account{
		ID: s[accID][row], Name: s[accName][row], LegalName: s[accLegal][row], RegistrationID: s[accReg][row],
		ExternalRef: s[accExtRef][row], ParentID: s[accParent][row],
		CreatedAt: msTime(t.num[accCreated][row]), UpdatedAt: msTime(t.num[accUpdated][row]),
	}
}

var accounts = accessor[Account]{accountResource, accountAt}

// Accounts returns copies of the live accounts in storage (insertion) order.
func (s *Server) Accounts() []Account { return accounts.all(s) }

// InsertAccount creates an account stamped with the emulator clock and
// returns it.
func (s *Server) InsertAccount() Account { return accounts.insert(s) }

// UpdateAccount changes an account (its external_ref) and sets its
// updated_at to the emulator clock.
func (s *Server) UpdateAccount(id string) (Account, error) { return accounts.update(s, id) }

// DeleteAccount deletes an account. Accounts naming it as parent keep their
// parent_id, as the service does not cascade.
func (s *Server) DeleteAccount(id string) error { return accounts.delete(s, id) }
