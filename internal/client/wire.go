package client

// The wire forms of the records, as the service sends them, and the
// decoders that turn a list body into records.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"sync"
)

// wireRelation is one to-one relationship of a record,
// {"data": {"type": ..., "id": ...}}; data may be null or absent.
type wireRelation struct {
	Data *struct {
		ID string `json:"id"`
	} `json:"data"`
}

func (r wireRelation) id() string {
	if r.Data == nil {
		return ""
	}
	return r.Data.ID
}

// wirePerson is the name and email of an order's customer (customer) or,
// for an order placed by an account member, its contact (contact).
type wirePerson struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// wireAmount is one of an order's display prices.
type wireAmount struct {
	Amount   flexInt `json:"amount"`
	Currency string  `json:"currency"`
}

// wireTimestamps is where the service keeps a record's timestamps: nested in
// meta.timestamps (what it sends), or flat at the top level (the spec's form).
type wireTimestamps struct {
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

type wireCommon struct {
	ID json.RawMessage `json:"id"`
	wireTimestamps
}

func (w wireCommon) common(nested wireTimestamps, raw []byte, keepRaw bool) (Common, error) {
	var id string
	if len(w.ID) == 0 || string(w.ID) == "null" {
		return Common{}, fmt.Errorf("a record has no id")
	}
	if err := json.Unmarshal(w.ID, &id); err != nil || id == "" {
		return Common{}, fmt.Errorf("a record has an id that is not a non-empty string: %s", excerpt(w.ID))
	}
	c := Common{ID: id, CreatedAt: nested.CreatedAt, UpdatedAt: nested.UpdatedAt}
	if c.CreatedAt == "" {
		c.CreatedAt = w.CreatedAt
	}
	if c.UpdatedAt == "" {
		c.UpdatedAt = w.UpdatedAt
	}
	if keepRaw {
		c.JSON = string(raw)
	}
	return c, nil
}

// flexInt accepts a JSON number or a numeric string, since services are not
// always consistent about amounts and sizes.
type flexInt struct{ v *int64 }

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(s) > 1 && s[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		fl, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || fl != float64(int64(fl)) {
			return fmt.Errorf("%s is not a whole number", excerpt(b))
		}
		n = int64(fl)
	}
	f.v = &n
	return nil
}

// The wire forms of the records. A page is decoded straight into a slice
// of these, in one pass over the body; record turns one into its compact
// form (raw is the record's own JSON, needed only when keepRaw is set).
type wireOrder struct {
	wireCommon
	Status      string     `json:"status"`
	Payment     string     `json:"payment"`
	Shipping    string     `json:"shipping"`
	OrderNumber string     `json:"order_number"`
	ExternalRef string     `json:"external_ref"`
	Customer    wirePerson `json:"customer"`
	Contact     wirePerson `json:"contact"`
	Meta        struct {
		Timestamps   wireTimestamps `json:"timestamps"`
		DisplayPrice struct {
			WithTax    wireAmount `json:"with_tax"`
			WithoutTax wireAmount `json:"without_tax"`
		} `json:"display_price"`
	} `json:"meta"`
	Relationships struct {
		Customer wireRelation `json:"customer"`
		Account  wireRelation `json:"account"`
	} `json:"relationships"`
}

func (w wireOrder) record(raw []byte, keepRaw bool) (Order, error) {
	c, err := w.common(w.Meta.Timestamps, raw, keepRaw)
	if err != nil {
		return Order{}, err
	}
	person := w.Customer
	if person == (wirePerson{}) {
		// An order placed by an account member names a contact instead.
		person = w.Contact
	}
	price := w.Meta.DisplayPrice
	currency := price.WithTax.Currency
	if currency == "" {
		currency = price.WithoutTax.Currency
	}
	return Order{
		Common: c, Status: w.Status, Payment: w.Payment, Shipping: w.Shipping,
		OrderNumber: w.OrderNumber, ExternalRef: w.ExternalRef,
		CustomerName: person.Name, CustomerEmail: person.Email,
		CustomerID: w.Relationships.Customer.id(), AccountID: w.Relationships.Account.id(),
		Currency: currency, AmountWithTax: price.WithTax.Amount.v, AmountWithoutTax: price.WithoutTax.Amount.v,
	}, nil
}

type wireFile struct {
	wireCommon
	FileName string  `json:"file_name"`
	MimeType string  `json:"mime_type"`
	FileSize flexInt `json:"file_size"`
	Public   *bool   `json:"public"`
	Link     struct {
		Href string `json:"href"`
	} `json:"link"`
	Meta struct {
		Timestamps wireTimestamps `json:"timestamps"`
		Dimensions struct {
			Width  flexInt `json:"width"`
			Height flexInt `json:"height"`
		} `json:"dimensions"`
	} `json:"meta"`
}

func (w wireFile) record(raw []byte, keepRaw bool) (File, error) {
	c, err := w.common(w.Meta.Timestamps, raw, keepRaw)
	if err != nil {
		return File{}, err
	}
	return File{
		Common: c, FileName: w.FileName, MimeType: w.MimeType, FileSize: w.FileSize.v, Public: w.Public, Href: w.Link.Href,
		Width: w.Meta.Dimensions.Width.v, Height: w.Meta.Dimensions.Height.v,
	}, nil
}

type wireAccount struct {
	wireCommon
	Name           string `json:"name"`
	LegalName      string `json:"legal_name"`
	RegistrationID string `json:"registration_id"`
	ExternalRef    string `json:"external_ref"`
	ParentID       string `json:"parent_id"` // the form create and update requests use
	Meta           struct {
		Timestamps wireTimestamps `json:"timestamps"`
	} `json:"meta"`
	Relationships struct {
		Parent wireRelation `json:"parent"`
	} `json:"relationships"`
}

func (w wireAccount) record(raw []byte, keepRaw bool) (Account, error) {
	c, err := w.common(w.Meta.Timestamps, raw, keepRaw)
	if err != nil {
		return Account{}, err
	}
	parent := w.Relationships.Parent.id()
	if parent == "" {
		parent = w.ParentID
	}
	return Account{Common: c, Name: w.Name, LegalName: w.LegalName, RegistrationID: w.RegistrationID, ExternalRef: w.ExternalRef, ParentID: parent}, nil
}

// wire is what the decoders need of a wire form W: record, which turns it
// into its record. The decoders decode into a zero W and call record on it,
// so W is a struct type with record on a value receiver (a pointer W would
// be nil for a JSON null). Any such type will do: a new resource adds its
// wire form and a Kind (see kindOf), nothing here.
type wire[T Record] interface {
	record(raw []byte, keepRaw bool) (T, error)
}

// decodeOne decodes a single record's JSON.
func decodeOne[T Record, W wire[T]](raw []byte, keepRaw bool) (T, error) {
	var w W
	if err := json.Unmarshal(raw, &w); err != nil {
		var zero T
		return zero, err
	}
	return w.record(raw, keepRaw)
}

// decodedBody is a list body with its records decoded: env holds the
// paging attributes, records is nil without a data array, and badRecord
// reports the first record that is unusable (index and why).
type decodedBody[T Record] struct {
	env       listEnvelope
	records   *[]T
	count     int // records in the body, decoded or not
	badIndex  int
	badRecord error
}

// decodeAll decodes a whole list body in one pass over it, keeping no
// record's raw JSON.
func decodeAll[T Record, W wire[T]](body []byte) (decodedBody[T], error) {
	return decodeBody(body, func(w W) (T, error) { return w.record(nil, false) })
}

// decodeEach decodes a list body record by record, keeping each record's
// raw JSON if asked to; it also names the record whose JSON has the wrong
// shape, which a single pass cannot.
func decodeEach[T Record](body []byte, decode func([]byte, bool) (T, error), keepRaw bool) (decodedBody[T], error) {
	return decodeBody(body, func(raw json.RawMessage) (T, error) { return decode(raw, keepRaw) })
}

// decodeBody decodes a list body's records as E and turns each into a T.
func decodeBody[T Record, E any](body []byte, convert func(E) (T, error)) (decodedBody[T], error) {
	data := borrowWireSlice[E]()
	var b struct {
		listEnvelope
		Data *[]E `json:"data"`
	}
	b.Data = data
	var out decodedBody[T]
	err := json.Unmarshal(body, &b)
	if b.Data != nil {
		defer returnWireSlice(b.Data)
	}
	if err != nil {
		return out, err
	}
	out.env = b.listEnvelope
	// "data": null leaves b.Data nil; an absent data array leaves it empty,
	// like an empty one, which only a second look tells apart.
	if b.Data == nil || (len(*b.Data) == 0 && !hasData(body)) {
		return out, nil
	}
	recs := make([]T, 0, len(*b.Data))
	out.records, out.count = &recs, len(*b.Data)
	for i, e := range *b.Data {
		rec, err := convert(e)
		if err != nil {
			// Reported as the record's problem, not as the body's.
			out.badIndex, out.badRecord = i, err
			break
		}
		recs = append(recs, rec)
	}
	return out, nil
}

// hasData reports whether a list body has a data array.
func hasData(body []byte) bool {
	var b struct {
		Data json.RawMessage `json:"data"`
	}
	return json.Unmarshal(body, &b) == nil && len(b.Data) > 0 && string(b.Data) != "null"
}

// wireSlices are pools of the slices list bodies are decoded into, one per
// wire type: decoding a page into a fresh slice grows it by doubling, which
// at 100,000 records allocates twice their wire form again.
var wireSlices sync.Map // reflect.Type of E -> *sync.Pool of *[]E

func wirePool[E any]() *sync.Pool {
	p, _ := wireSlices.LoadOrStore(reflect.TypeFor[E](), &sync.Pool{})
	pool, ok := p.(*sync.Pool)
	if !ok {
		panic("client: wireSlices holds a " + reflect.TypeOf(p).String())
	}
	return pool
}

func borrowWireSlice[E any]() *[]E {
	if s, ok := wirePool[E]().Get().(*[]E); ok {
		return s
	}
	s := make([]E, 0, DefaultPageSize)
	return &s
}

// returnWireSlice zeroes s before it goes back: the decoder fills a reused
// element field by field, so a field the next record lacks would keep this
// record's value.
func returnWireSlice[E any](s *[]E) {
	clear((*s)[:cap(*s)])
	*s = (*s)[:0]
	wirePool[E]().Put(s)
}
