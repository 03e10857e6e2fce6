package emulator

import (
	"fmt"
	"time"
)

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
	// Amount is WithTax.
	//
	// Deprecated: the service calls it with_tax; use WithTax.
	Amount    int64
	Currency  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// File is a copy of one file as the emulator serves it. Files have no
// updated_at.
type File struct {
	ID       string
	FileName string
	MimeType string
	FileSize int64
	Public   bool
	// Width and Height are meta.dimensions, in pixels, for images (a
	// mime_type of image/*); both are 0 for other files, which have none.
	Width, Height int64
	Link          string // link.href, the download address
	CreatedAt     time.Time
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

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func orderAt(t *table, row int32) Order {
	s := t.str
	return Order{
		ID: s[ordID][row], Status: s[ordStatus][row], Payment: s[ordPayment][row], Shipping: s[ordShipping][row],
		OrderNumber: s[ordNumber][row], ExternalRef: s[ordExtRef][row],
		CustomerName: s[ordName][row], CustomerEmail: s[ordEmail][row], CustomerID: s[ordCustomerID][row],
		AccountID: s[ordAccountID][row], AccountMemberID: s[ordMemberID][row],
		ContactName: s[ordContactName][row], ContactEmail: s[ordContactEmail][row],
		ShippingPostcode: s[ordShipPostcode][row], BillingPostcode: s[ordBillPostcode][row],
		ItemID: s[ordItemID][row], ProductID: s[ordProductID][row], ProductSKU: s[ordProductSKU][row],
		WithTax: t.num[ordWithTax][row], WithoutTax: t.num[ordWithoutTax][row], Amount: t.num[ordWithTax][row],
		Currency:  s[ordCurrency][row],
		CreatedAt: msTime(t.num[ordCreated][row]), UpdatedAt: msTime(t.num[ordUpdated][row]),
	}
}

func fileAt(t *table, row int32) File {
	s := t.str
	f := File{
		ID: s[fileID][row], FileName: s[fileName][row], MimeType: s[fileMime][row],
		FileSize: t.num[fileSize][row], Public: t.boo[filePublic][row],
		Link:      fileLink(s[fileID][row], s[fileName][row]),
		CreatedAt: msTime(t.num[fileCreated][row]),
	}
	if w := t.num[fileWidth][row]; w != nullNum {
		f.Width, f.Height = w, t.num[fileHeight][row]
	}
	return f
}

func accountAt(t *table, row int32) Account {
	s := t.str
	return Account{
		ID: s[accID][row], Name: s[accName][row], LegalName: s[accLegal][row], RegistrationID: s[accReg][row],
		ExternalRef: s[accExtRef][row], ParentID: s[accParent][row],
		CreatedAt: msTime(t.num[accCreated][row]), UpdatedAt: msTime(t.num[accUpdated][row]),
	}
}

func collect[T any](s *Server, t *table, at func(*table, int32) T) []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rows := t.liveRows()
	out := make([]T, len(rows))
	for i, row := range rows {
		out[i] = at(t, row)
	}
	return out
}

// Orders returns copies of the live orders in storage (insertion) order.
func (s *Server) Orders() []Order { return collect(s, s.orders, orderAt) }

// Files returns copies of the live files in storage (insertion) order.
func (s *Server) Files() []File { return collect(s, s.files, fileAt) }

// Accounts returns copies of the live accounts in storage (insertion) order.
func (s *Server) Accounts() []Account { return collect(s, s.accounts, accountAt) }

// Count returns the number of live records of a resource ("orders", "files"
// or "accounts"), or 0 for an unknown resource.
func (s *Server) Count(resource string) int {
	t := s.table(resource)
	if t == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return t.live
}

// ExpectedIDs returns the ids of all records of resource matching filter, in
// the order of sort, exactly as the list endpoint would serve them page by
// page (but without paging or offset limits). An empty filter or sort means
// the parameter is absent: sort "" gives the service's default order
// (created_at descending for orders and accounts, ascending id for files).
// The error carries the detail the API would send, e.g. for any sort of
// files or an operator the attribute does not support.
func (s *Server) ExpectedIDs(resource, filter, sort string) ([]string, error) {
	t := s.table(resource)
	if t == nil {
		return nil, fmt.Errorf("%q: %w", resource, errUnknownResource)
	}
	q, aerr := compileQuery(t.sch, filter, filter != "", sort, sort != "", s.ignoresSort(resource))
	if aerr != nil {
		return nil, aerr
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	rows := s.run(t, q)
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = t.id(row)
	}
	return ids, nil
}

// ---- writes ----
//
// Every write stamps the record with the emulator clock, which is strictly
// increasing and later than every seeded timestamp, and bumps the data
// version, which invalidates cached results.

// tick advances the write clock. Caller holds the write lock.
func (s *Server) tick() int64 {
	now := s.opts.Now().UnixMilli()
	if now <= s.clock {
		now = s.clock + 1
	}
	s.clock = now
	return now
}

func (s *Server) insert(t *table) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.tick()
	row := t.addRow()
	seq := t.inserted
	switch t.sch {
	case orderSchema:
		fillOrder(t, row, seq)
	case fileSchema:
		fillFile(t, row, seq)
	case accountSchema:
		fillAccount(t, row, seq)
		if t.live > 1 && t.rng.IntN(5) == 0 {
			idx := t.asc[t.sch.idCol]
			t.str[accParent][row] = t.id(idx[t.rng.IntN(len(idx))])
		}
	}
	t.num[t.sch.created][row] = now
	if t.sch.updated >= 0 {
		t.num[t.sch.updated][row] = now
	}
	t.indexInsert(row)
	t.version++
	return row
}

func (s *Server) update(t *table, id string) (int32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := t.lookup(id)
	if !ok {
		return 0, fmt.Errorf("no %s with id %q", t.sch.typ, id)
	}
	t.indexRemove(row)
	if t.sch.updated >= 0 {
		t.num[t.sch.updated][row] = s.tick()
	}
	switch t.sch {
	case orderSchema:
		switch t.str[ordStatus][row] {
		case "incomplete":
			t.str[ordStatus][row], t.str[ordPayment][row] = "processing", "authorized"
		case "processing":
			t.str[ordStatus][row], t.str[ordPayment][row], t.str[ordShipping][row] = "complete", "paid", "fulfilled"
		}
	case fileSchema:
		t.boo[filePublic][row] = !t.boo[filePublic][row]
	case accountSchema:
		t.str[accExtRef][row] = padInt("crm-u", int(t.version), 6)
	}
	t.indexInsert(row)
	t.version++
	return row, nil
}

func (s *Server) remove(t *table, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := t.lookup(id)
	if !ok {
		return fmt.Errorf("no %s with id %q", t.sch.typ, id)
	}
	t.indexRemove(row)
	t.deleted[row] = true
	t.live--
	t.version++
	return nil
}

// InsertOrder creates an order stamped with the emulator clock and returns it.
func (s *Server) InsertOrder() Order { return recordAt(s, s.orders, s.insert(s.orders), orderAt) }

// InsertFile creates a file stamped with the emulator clock and returns it.
func (s *Server) InsertFile() File { return recordAt(s, s.files, s.insert(s.files), fileAt) }

// InsertAccount creates an account stamped with the emulator clock and
// returns it.
func (s *Server) InsertAccount() Account {
	return recordAt(s, s.accounts, s.insert(s.accounts), accountAt)
}

// UpdateOrder changes an order (advancing its status) and sets its
// updated_at to the emulator clock.
func (s *Server) UpdateOrder(id string) (Order, error) {
	row, err := s.update(s.orders, id)
	if err != nil {
		return Order{}, err
	}
	return recordAt(s, s.orders, row, orderAt), nil
}

// UpdateFile changes a file: it toggles public. Files have no updated_at, so
// nothing records when.
func (s *Server) UpdateFile(id string) (File, error) {
	row, err := s.update(s.files, id)
	if err != nil {
		return File{}, err
	}
	return recordAt(s, s.files, row, fileAt), nil
}

// UpdateAccount changes an account (its external_ref) and sets its
// updated_at to the emulator clock.
func (s *Server) UpdateAccount(id string) (Account, error) {
	row, err := s.update(s.accounts, id)
	if err != nil {
		return Account{}, err
	}
	return recordAt(s, s.accounts, row, accountAt), nil
}

// DeleteOrder deletes an order.
func (s *Server) DeleteOrder(id string) error { return s.remove(s.orders, id) }

// DeleteFile deletes a file.
func (s *Server) DeleteFile(id string) error { return s.remove(s.files, id) }

// DeleteAccount deletes an account. Accounts naming it as parent keep their
// parent_id, as the service does not cascade.
func (s *Server) DeleteAccount(id string) error { return s.remove(s.accounts, id) }

// Insert creates a record of resource and returns its id.
func (s *Server) Insert(resource string) (string, error) {
	t := s.table(resource)
	if t == nil {
		return "", fmt.Errorf("%q: %w", resource, errUnknownResource)
	}
	row := s.insert(t)
	s.mu.RLock()
	defer s.mu.RUnlock()
	return t.id(row), nil
}

// Update changes a record of resource and sets its updated_at to the
// emulator clock (files, which have none, only change).
func (s *Server) Update(resource, id string) error {
	t := s.table(resource)
	if t == nil {
		return fmt.Errorf("%q: %w", resource, errUnknownResource)
	}
	_, err := s.update(t, id)
	return err
}

// Delete deletes a record of resource.
func (s *Server) Delete(resource, id string) error {
	t := s.table(resource)
	if t == nil {
		return fmt.Errorf("%q: %w", resource, errUnknownResource)
	}
	return s.remove(t, id)
}

// recordAt returns the exported copy of a row, read under the data lock.
func recordAt[R any](s *Server, t *table, row int32, at func(*table, int32) R) R {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return at(t, row)
}
