package commerce

// Kind binds an Endpoint to its record type and decoders: what the listing
// engine lists, and what a lookup reads. decodeRecord notes in n the display
// attributes of an unexpected type (lenient.go); decodeAll returns them
// with the body.
type Kind[T Record] struct {
	Endpoint
	decodeRecord func(raw []byte, keepRaw bool, n *decodeNotes) (T, error)
	decodeAll    func(body []byte) (decodedBody[T], error)
}

// kindOf binds r to the record type T, decoded from the wire form W.
func kindOf[T Record, W wire[T]](r Endpoint) Kind[T] {
	return Kind[T]{Endpoint: r, decodeRecord: decodeOne[T, W], decodeAll: decodeAll[T, W]}
}

// The record kinds of the typed data sources. A new resource adds its
// Endpoint row, its record and wire types, and one line here.
var (
	Orders   = kindOf[Order, wireOrder](OrdersEndpoint)
	Files    = kindOf[File, wireFile](FilesEndpoint)
	Accounts = kindOf[Account, wireAccount](AccountsEndpoint)
)

// DecodeRecord decodes one record's JSON and returns it with the display
// attributes of an unexpected type it held.
func (k Kind[T]) DecodeRecord(raw []byte, keepRaw bool) (T, Issues, error) {
	var n decodeNotes
	rec, err := k.decodeRecord(raw, keepRaw, &n)
	return rec, n.issues, err
}
