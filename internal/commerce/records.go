package commerce

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/commerce-tf/terraform-provider-commerce/internal/excerpt"
)

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

// The wire forms of the records, as the service sends them, and the
// decoders that turn a list body into records.

// wireRelation is one to-one relationship of a record,
// {"data": {"type": ..., "id": ...}}; data may be null or absent. Like
// every member that holds only display attributes, it is lenient (see
// displayObjects).
type wireRelation struct {
	Data struct {
		ID lenientString `json:"id"`
	} `json:"data"`
}

// id is the related record's id; path names the relationship in notes.
func (r wireRelation) id(n *decodeNotes, path, rid string) string {
	if r.Data.ID.odd == asDocumented {
		return r.Data.ID.v
	}
	return r.Data.ID.text(n, path+".data.id", rid)
}

// wirePerson is the name and email of an order's customer (customer) or,
// for an order placed by an account member, its contact (contact).
type wirePerson struct {
	Name  lenientString `json:"name"`
	Email lenientString `json:"email"`
}

// wireAmount is one of an order's display prices. The object is strict:
// it holds a range attribute.
type wireAmount struct {
	Amount   flexInt       `json:"amount"`
	Currency lenientString `json:"currency"`
}

// wirePrices are an order's amounts with and without tax.
type wirePrices struct {
	WithTax    wireAmount `json:"with_tax"`
	WithoutTax wireAmount `json:"without_tax"`
}

// orDirect is p, with each amount p lacks taken from direct (the amounts
// directly under meta).
func (p wirePrices) orDirect(direct wirePrices) wirePrices {
	if p.WithTax == (wireAmount{}) {
		p.WithTax = direct.WithTax
	}
	if p.WithoutTax == (wireAmount{}) {
		p.WithoutTax = direct.WithoutTax
	}
	return p
}

// wireTimestamps is where the service keeps a record's timestamps: nested in
// meta.timestamps (what it sends), or flat at the top level (the spec's form).
type wireTimestamps struct {
	CreatedAt lenientString `json:"created_at"`
	UpdatedAt lenientString `json:"updated_at"`
}

type wireCommon struct {
	ID json.RawMessage `json:"id"`
	wireTimestamps
}

func (w wireCommon) common(nested wireTimestamps, raw []byte, keepRaw bool, n *decodeNotes) (Common, error) {
	var id string
	if len(w.ID) == 0 || string(w.ID) == "null" {
		return Common{}, fmt.Errorf("a record has no id")
	}
	if err := json.Unmarshal(w.ID, &id); err != nil || id == "" {
		return Common{}, fmt.Errorf("a record has an id that is not a non-empty string: %s", excerpt.Of(w.ID))
	}
	c := Common{ID: id}
	c.CreatedAt = timestamp(&c, nested.CreatedAt, w.CreatedAt, "created_at", n)
	c.UpdatedAt = timestamp(&c, nested.UpdatedAt, w.UpdatedAt, "updated_at", n)
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
			return fmt.Errorf("%s is not a whole number", excerpt.Of(b))
		}
		n = int64(fl)
	}
	f.v = &n
	return nil
}

// The wire forms of the records. A page is decoded straight into a slice
// of these, in one pass over the body; record turns one into its compact
// form (raw is the record's own JSON, needed only when keepRaw is set),
// noting in n the display attributes of an unexpected type.
type wireOrder struct {
	wireCommon
	Status      lenientString `json:"status"`
	Payment     lenientString `json:"payment"`
	Shipping    lenientString `json:"shipping"`
	OrderNumber lenientString `json:"order_number"`
	ExternalRef lenientString `json:"external_ref"`
	Customer    wirePerson    `json:"customer"`
	Contact     wirePerson    `json:"contact"`
	Meta        struct {
		Timestamps   wireTimestamps `json:"timestamps"`
		DisplayPrice wirePrices     `json:"display_price"`
		// The OrderMeta schema of the vendor's carts-orders spec has the
		// amounts directly under meta; its examples and SDK, under
		// meta.display_price. Either is read.
		wirePrices
	} `json:"meta"`
	Relationships struct {
		Customer wireRelation `json:"customer"`
		Account  wireRelation `json:"account"`
	} `json:"relationships"`
	// customerDropped: customer held something else than an object (see
	// dropped); the order's customer is then null, not its contact.
	customerDropped bool
}

// displayObjects are the members of an order documented as objects that
// hold display attributes only, parents first: one of another type is
// dropped (and noted) rather than failing the record.
func (wireOrder) displayObjects() []string {
	return []string{"customer", "contact", "relationships", "relationships.customer", "relationships.customer.data",
		"relationships.account", "relationships.account.data"}
}

func (w *wireOrder) dropped(objs []droppedObject) {
	for _, o := range objs {
		w.customerDropped = w.customerDropped || o.path == "customer"
	}
}

func (w wireOrder) record(raw []byte, keepRaw bool, n *decodeNotes) (Order, error) {
	c, err := w.common(w.Meta.Timestamps, raw, keepRaw, n)
	if err != nil {
		return Order{}, err
	}
	id := c.ID
	person, who := w.Customer, "customer"
	if person == (wirePerson{}) && !w.customerDropped {
		// An order placed by an account member names a contact instead.
		person, who = w.Contact, "contact"
	}
	name, email := person.Name.v, person.Email.v
	if person.Name.odd != asDocumented || person.Email.odd != asDocumented {
		name, email = person.Name.text(n, who+".name", id), person.Email.text(n, who+".email", id)
	}
	price := w.Meta.DisplayPrice.orDirect(w.Meta.wirePrices)
	currency := price.WithTax.Currency.text(n, "meta.display_price.with_tax.currency", id)
	if currency == "" {
		currency = price.WithoutTax.Currency.text(n, "meta.display_price.without_tax.currency", id)
	}
	rel := w.Relationships
	return Order{
		Common: c, Status: w.Status.text(n, "status", id), Payment: w.Payment.text(n, "payment", id),
		Shipping: w.Shipping.text(n, "shipping", id), OrderNumber: w.OrderNumber.text(n, "order_number", id),
		ExternalRef: w.ExternalRef.text(n, "external_ref", id), CustomerName: name, CustomerEmail: email,
		CustomerID: rel.Customer.id(n, "relationships.customer", id), AccountID: rel.Account.id(n, "relationships.account", id),
		Currency: currency, AmountWithTax: price.WithTax.Amount.v, AmountWithoutTax: price.WithoutTax.Amount.v,
	}, nil
}

type wireFile struct {
	wireCommon
	FileName lenientString `json:"file_name"`
	MimeType lenientString `json:"mime_type"`
	FileSize flexInt       `json:"file_size"`
	Public   lenientBool   `json:"public"`
	Link     wireLink      `json:"link"`
	Meta     struct {
		Timestamps wireTimestamps `json:"timestamps"`
		Dimensions wireDimensions `json:"dimensions"`
	} `json:"meta"`
}

type wireLink struct {
	Href lenientString `json:"href"`
}

type wireDimensions struct {
	Width  lenientInt `json:"width"`
	Height lenientInt `json:"height"`
}

func (wireFile) displayObjects() []string { return []string{"link", "meta.dimensions"} }

func (w wireFile) record(raw []byte, keepRaw bool, n *decodeNotes) (File, error) {
	c, err := w.common(w.Meta.Timestamps, raw, keepRaw, n)
	if err != nil {
		return File{}, err
	}
	id, dim := c.ID, w.Meta.Dimensions
	return File{
		Common: c, FileName: w.FileName.text(n, "file_name", id), MimeType: w.MimeType.text(n, "mime_type", id),
		FileSize: w.FileSize.v, Public: w.Public.value(n, "public", id), Href: w.Link.Href.text(n, "link.href", id),
		Width: dim.Width.value(n, "meta.dimensions.width", id), Height: dim.Height.value(n, "meta.dimensions.height", id),
	}, nil
}

type wireAccount struct {
	wireCommon
	Name           lenientString `json:"name"`
	LegalName      lenientString `json:"legal_name"`
	RegistrationID lenientString `json:"registration_id"`
	ExternalRef    lenientString `json:"external_ref"`
	ParentID       lenientString `json:"parent_id"` // the form create and update requests use
	Meta           struct {
		Timestamps wireTimestamps `json:"timestamps"`
	} `json:"meta"`
	Relationships struct {
		Parent wireRelation `json:"parent"`
	} `json:"relationships"`
}

func (wireAccount) displayObjects() []string {
	return []string{"relationships", "relationships.parent", "relationships.parent.data"}
}

func (w wireAccount) record(raw []byte, keepRaw bool, n *decodeNotes) (Account, error) {
	c, err := w.common(w.Meta.Timestamps, raw, keepRaw, n)
	if err != nil {
		return Account{}, err
	}
	id := c.ID
	parent := w.Relationships.Parent.id(n, "relationships.parent", id)
	if parent == "" {
		parent = w.ParentID.text(n, "parent_id", id)
	}
	return Account{
		Common: c, Name: w.Name.text(n, "name", id), LegalName: w.LegalName.text(n, "legal_name", id),
		RegistrationID: w.RegistrationID.text(n, "registration_id", id), ExternalRef: w.ExternalRef.text(n, "external_ref", id),
		ParentID: parent,
	}, nil
}

// wire is what the decoders need of a wire form W: record, which turns it
// into its record. The decoders decode into a zero W and call record on it,
// so W is a struct type with record on a value receiver (a pointer W would
// be nil for a JSON null). Any such type will do: a new resource adds its
// wire form and a Kind (see kindOf), nothing here.
type wire[T Record] interface {
	record(raw []byte, keepRaw bool, n *decodeNotes) (T, error)
	// displayObjects are the members documented as objects that hold
	// display attributes only (dotted paths, parents first).
	displayObjects() []string
}

// decodeOne decodes a single record's JSON, noting in n its display
// attributes of an unexpected type. A display object of another type
// fails the decoding into W: such a record is decoded again without it
// (decodeDropping), so that only the records that hold one pay for it.
func decodeOne[T Record, W wire[T]](raw []byte, keepRaw bool, n *decodeNotes) (T, error) {
	var w W
	err := json.Unmarshal(raw, &w)
	if err == nil {
		return w.record(raw, keepRaw, n)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return decodeDropping[T, W](raw, keepRaw, n, err)
	}
	var zero T
	return zero, err
}

// decodedBody is a list body with its records decoded: env holds the
// paging attributes, records is nil without a data array, and badRecord
// reports the first record that is unusable (index and why); issues are
// the display attributes of an unexpected type of the records decoded.
type decodedBody[T Record] struct {
	env       listEnvelope
	records   *[]T
	count     int // records in the body, decoded or not
	badIndex  int
	badRecord error
	issues    Issues
}

// decodeAll decodes a whole list body in one pass over it, keeping no
// record's raw JSON.
func decodeAll[T Record, W wire[T]](body []byte) (decodedBody[T], error) {
	return decodeBody(body, unmarshalOnePass, func(w W, n *decodeNotes) (T, error) { return w.record(nil, false, n) })
}

// unmarshalOnePass is how decodeAll, the decoding of every list page read
// without the records' JSON (include_json and the cache keep it, and
// decode record by record with encoding/json: decodeEach), reads a body:
// encoding/json's rules (the v1 package of the Go team's encoding/json/v2
// module, which Go 1.27 makes the standard library's) on v2's decoder. On Go 1.26 it decodes a page of orders, files or accounts
// 1.6 to 1.9 times as fast as encoding/json (BenchmarkDecodeOrders and its
// siblings), and a read of 60,000 orders at no latency took 688-763 ms
// against 843-1,008 (BenchmarkReadOrders): decoding was most of what the
// provider adds to a plan over Terraform's own cost (make bench-floor). A
// body it refuses is decoded again record by record with encoding/json
// (decodeEach), so every error reads as it did; where it succeeds, the two
// agree (FuzzDecodeListBody).
var unmarshalOnePass = jsonv1.Unmarshal

// decodeEach decodes a list body record by record, keeping each record's
// raw JSON if asked to; it also names the record whose JSON has the wrong
// shape, which a single pass cannot.
func decodeEach[T Record](body []byte, decode func([]byte, bool, *decodeNotes) (T, error), keepRaw bool) (decodedBody[T], error) {
	return decodeBody(body, json.Unmarshal, func(raw json.RawMessage, n *decodeNotes) (T, error) { return decode(raw, keepRaw, n) })
}

// decodeBody decodes a list body's records as E with unmarshal and turns
// each into a T.
func decodeBody[T Record, E any](body []byte, unmarshal func([]byte, any) error, convert func(E, *decodeNotes) (T, error)) (decodedBody[T], error) {
	data := borrowWireSlice[E]()
	var b struct {
		listEnvelope
		Data *[]E `json:"data"`
	}
	b.Data = data
	var out decodedBody[T]
	err := unmarshal(body, &b)
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
	var notes decodeNotes
	for i, e := range *b.Data {
		rec, err := convert(e, &notes)
		if err != nil {
			// Reported as the record's problem, not as the body's.
			out.badIndex, out.badRecord = i, err
			break
		}
		recs = append(recs, rec)
	}
	out.issues = notes.issues
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
