package commerce

import "strconv"

// Record is what the pagination engine needs of a decoded record.
type Record interface {
	RecordID() string
	// Base returns what every record carries.
	Base() Common
	// SortValue returns the raw value of a sort attribute, and whether the
	// record has one.
	SortValue(attr string) (string, bool)
}

// Common holds what every record carries.
type Common struct {
	ID        string
	CreatedAt string // as the service sent it (ISO 8601)
	UpdatedAt string
	// JSON is the record's raw JSON; filled only when a listing asks for it.
	JSON string
	// odd is set when a timestamp held neither a string nor a number
	// (CreatedAt or UpdatedAt is then empty): see oddTimes.
	odd *oddTimes
}

func (c Common) RecordID() string { return c.ID }

func (c Common) Base() Common { return c }

func (c Common) sortValue(attr string) (string, bool) {
	switch attr {
	case "id":
		return c.ID, c.ID != ""
	case "created_at":
		if c.CreatedAt == "" && c.odd != nil && c.odd.createdAt != "" {
			return c.odd.createdAt, true
		}
		return c.CreatedAt, c.CreatedAt != ""
	case "updated_at":
		if c.UpdatedAt == "" && c.odd != nil && c.odd.updatedAt != "" {
			return c.odd.updatedAt, true
		}
		return c.UpdatedAt, c.UpdatedAt != ""
	}
	return "", false
}

// Order is an order record.
type Order struct {
	Common
	Status        string
	Payment       string
	Shipping      string
	OrderNumber   string
	ExternalRef   string
	CustomerName  string // customer.name, or contact.name when the order has no customer object
	CustomerEmail string
	CustomerID    string // relationships.customer.data.id
	AccountID     string // relationships.account.data.id
	Currency      string
	AmountWithTax *int64 // minor units (cents); nil when the service sent none
	// AmountWithoutTax is meta.display_price.without_tax.amount, in minor units.
	AmountWithoutTax *int64
}

func (o Order) SortValue(attr string) (string, bool) {
	switch attr {
	case "with_tax":
		return wholeNumber(o.AmountWithTax)
	case "without_tax":
		return wholeNumber(o.AmountWithoutTax)
	}
	return o.sortValue(attr)
}

// File is a file record.
type File struct {
	Common
	FileName string
	MimeType string
	FileSize *int64
	Public   *bool
	Href     string
	// Width and Height are meta.dimensions, in pixels; nil for a file
	// that is not an image or when the service sent none.
	Width, Height *int64
}

func (f File) SortValue(attr string) (string, bool) {
	switch attr {
	case "file_size":
		return wholeNumber(f.FileSize)
	case "width":
		return wholeNumber(f.Width)
	case "height":
		return wholeNumber(f.Height)
	}
	return f.sortValue(attr)
}

// wholeNumber is the sort value of a number attribute: its decimal form,
// and false when the record has none.
func wholeNumber(v *int64) (string, bool) {
	if v == nil {
		return "", false
	}
	return strconv.FormatInt(*v, 10), true
}

// Account is an account record.
type Account struct {
	Common
	Name           string
	LegalName      string
	RegistrationID string
	ExternalRef    string
	ParentID       string
}

func (a Account) SortValue(attr string) (string, bool) {
	if attr == "name" {
		return a.Name, true
	}
	return a.sortValue(attr)
}
