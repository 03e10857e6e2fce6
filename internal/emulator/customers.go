package emulator

import (
	"strconv"
	"time"
)

// Column positions of customers.
const (
	custID = iota
	custName
	custEmail
	custExtRef
	custPassword
	custCreated
	custUpdated
)

// streamCustomers is the random stream of customers.
const streamCustomers = 0x637573746f6d // "custom"

// customerResource: GET /v2/customers, as the vendor's "Get all Customers"
// page (docs/customer-management/customer-management-api/
// get-all-customers.md in elasticpath/elasticpath-dev) documents it: sort by
// created_at, email, id, name or updated_at, default created_at descending;
// filters email and name eq/like, id and the timestamps eq/gt/ge/lt/le,
// external_ref eq. The pagination guide gives only orders and files a hard
// offset limit, so customers have the soft one, like accounts.
var customerResource = &resource{
	schema: schema{
		name: "customers",
		typ:  "customer",
		cols: []column{
			{"id", kindString, opsEqRange},
			{"name", kindString, opsEqLike},
			{"email", kindString, opsEqLike},
			{"external_ref", kindString, opsEq},
			{"password", kindBool, 0},
			{"created_at", kindTime, opsEqRange},
			{"updated_at", kindTime, opsEqRange},
		},
		created:     custCreated,
		updated:     custUpdated,
		sortCols:    []int{custCreated, custEmail, custID, custName, custUpdated},
		defaultSort: custCreated,
		defaultDesc: true,
	},
	appendRecord: appendCustomer,
	gen: generator{
		count:        func(o *Options) *int { return &o.Customers },
		defaultCount: DefaultCustomers,
		ties:         func(o *Options) []int { return o.CustomerTieGroups },
		tieSize:      30,
		tieDiv:       8,
		gap:          20 * time.Minute,
		stream:       streamCustomers,
	},
	fill: fillCustomer,
	update: func(t *table, row int32) {
		t.str[custExtRef][row] = padInt("crm-u", int(t.version), 6)
	},
}

// fillCustomer fills customer number seq (1-based) except its timestamps.
// The number in the address keeps emails unique, as the service requires.
func fillCustomer(t *table, row int32, seq int, _ bool) {
	rng := t.rng
	t.str[custID][row] = newUUID(rng)
	f, l := rng.IntN(len(firstNames)), rng.IntN(len(lastNames))
	t.str[custName][row] = firstNames[f] + " " + lastNames[l]
	domain := "@example.com"
	if rng.IntN(5) == 0 {
		domain = "@example.org"
	}
	t.str[custEmail][row] = firstSlugs[f] + "." + lastSlugs[l] + "." + strconv.Itoa(seq) + domain
	if rng.IntN(3) == 0 {
		t.str[custExtRef][row] = padInt("crm-", seq, 6)
	}
	t.boo[custPassword][row] = rng.IntN(4) != 0
}

// appendCustomer writes a customer as the vendor's example shows it:
// external_ref only when set, no links.
func appendCustomer(b []byte, t *table, row int32, enc *encoding) []byte {
	s := t.str
	b = append(b, `{"type":"customer","id":`...)
	b = appendString(b, s[custID][row])
	b = append(b, `,"name":`...)
	b = appendString(b, s[custName][row])
	b = append(b, `,"email":`...)
	b = appendString(b, s[custEmail][row])
	if ref := s[custExtRef][row]; ref != "" {
		b = append(b, `,"external_ref":`...)
		b = appendString(b, ref)
	}
	b = append(b, `,"password":`...)
	b = strconv.AppendBool(b, t.boo[custPassword][row])
	b = append(b, ',')
	if enc.flat {
		b = appendTimestamps(b, t, row)
		return append(b, '}')
	}
	b = append(b, `"meta":{"timestamps":{`...)
	b = appendTimestamps(b, t, row)
	return append(b, '}', '}', '}')
}

// Customer is a copy of one customer as the emulator serves it.
type Customer struct {
	ID          string
	Name        string
	Email       string
	ExternalRef string // empty when the customer has none
	Password    bool   // whether the customer has a password
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func customerAt(t *table, row int32) Customer {
	s := t.str
	return Customer{
		ID: s[custID][row], Name: s[custName][row], Email: s[custEmail][row], ExternalRef: s[custExtRef][row],
		Password: t.boo[custPassword][row], CreatedAt: msTime(t.num[custCreated][row]), UpdatedAt: msTime(t.num[custUpdated][row]),
	}
}

var customers = accessor[Customer]{customerResource, customerAt}

// Customers returns copies of the live customers in storage (insertion)
// order.
func (s *Server) Customers() []Customer { return customers.all(s) }

// InsertCustomer creates a customer stamped with the emulator clock and
// returns it.
func (s *Server) InsertCustomer() Customer { return customers.insert(s) }

// UpdateCustomer changes a customer (its external_ref) and sets its
// updated_at to the emulator clock.
func (s *Server) UpdateCustomer(id string) (Customer, error) { return customers.update(s, id) }

// DeleteCustomer deletes a customer.
func (s *Server) DeleteCustomer(id string) error { return customers.delete(s, id) }
