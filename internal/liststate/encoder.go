package liststate

import (
	"fmt"
	"sort"

	"github.com/commerce-tf/terraform-provider-commerce/internal/commerce"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// JSONAttribute is the attribute of a record that holds its raw JSON,
// null unless the read keeps it (include_json).
const JSONAttribute = "json"

// Field is one typed attribute of a record as the state holds it, with
// the getter that reads it from a record: exactly one of String, Int and
// Bool is set.
type Field[T commerce.Record] struct {
	Name string
	// String reads a string; the service's empty string is null.
	String func(T) string
	// Int reads a whole number; nil is null.
	Int func(T) *int64
	// Bool reads a boolean; nil is null.
	Bool func(T) *bool
}

// Type is the field's Terraform type.
func (f Field[T]) Type() tftypes.Type {
	switch {
	case f.Int != nil:
		return tftypes.Number
	case f.Bool != nil:
		return tftypes.Bool
	}
	return tftypes.String
}

// Encoder writes one record as the msgpack of its state object.
type Encoder[T commerce.Record] struct {
	// attrs are in the order msgpack objects list their keys: sorted.
	attrs []attrEncoder[T]
}

type attrEncoder[T commerce.Record] struct {
	name  string
	field *Field[T] // nil for json, which depends on include_json
}

// Shape is the Terraform type of a list data source's state, down to one
// record of its records list.
type Shape struct {
	State   tftypes.Object
	List    tftypes.List
	Element tftypes.Object
}

// ShapeOf is the shape of the state of type t whose attribute records
// holds the records.
func ShapeOf(t tftypes.Type, records string) (Shape, bool) {
	state, ok := t.(tftypes.Object)
	list, ok2 := state.AttributeTypes[records].(tftypes.List)
	elem, ok3 := list.ElementType.(tftypes.Object)
	return Shape{state, list, elem}, ok && ok2 && ok3
}

// EncoderFor derives the encoder of the records held in the attribute
// records of a list data source whose schema has the Terraform type typ.
func EncoderFor[T commerce.Record](typ tftypes.Type, records string, fields []Field[T]) (Encoder[T], error) {
	shape, ok := ShapeOf(typ, records)
	if !ok {
		return Encoder[T]{}, fmt.Errorf("schema type %s has no list of %s objects", typ, records)
	}
	return newEncoder(shape.Element, fields)
}

// newEncoder derives the encoder of elem, the Terraform type of one
// record in the schema, from fields. Every attribute of the schema must
// have a field of the same type, and every field an attribute: a mismatch
// is a bug, reported when the provider server starts.
func newEncoder[T commerce.Record](elem tftypes.Object, fields []Field[T]) (Encoder[T], error) {
	byName := make(map[string]*Field[T], len(fields))
	for i := range fields {
		byName[fields[i].Name] = &fields[i]
	}
	names := make([]string, 0, len(elem.AttributeTypes))
	for name := range elem.AttributeTypes {
		names = append(names, name)
	}
	sort.Strings(names)
	var enc Encoder[T]
	for _, name := range names {
		typ := elem.AttributeTypes[name]
		if name == JSONAttribute {
			if !typ.Is(tftypes.String) {
				return enc, fmt.Errorf("attribute %q is %s, not a string", name, typ)
			}
			enc.attrs = append(enc.attrs, attrEncoder[T]{name: name})
			continue
		}
		f, ok := byName[name]
		if !ok {
			return enc, fmt.Errorf("attribute %q of the schema has no field", name)
		}
		delete(byName, name)
		if want := f.Type(); !typ.Is(want) {
			return enc, fmt.Errorf("attribute %q is %s in the schema, %s in its field", name, typ, want)
		}
		enc.attrs = append(enc.attrs, attrEncoder[T]{name: name, field: f})
	}
	for name := range byName {
		return enc, fmt.Errorf("field %q is not in the schema", name)
	}
	return enc, nil
}

// appendRecord appends rec's state object to dst.
func (e Encoder[T]) appendRecord(dst []byte, rec T, includeJSON bool) []byte {
	dst = appendMapLen(dst, len(e.attrs))
	for _, a := range e.attrs {
		dst = appendString(dst, a.name)
		switch f := a.field; {
		case f == nil:
			if includeJSON {
				dst = appendString(dst, rec.Base().JSON)
			} else {
				dst = append(dst, msgpackNil)
			}
		case f.Int != nil:
			dst = appendInt(dst, f.Int(rec))
		case f.Bool != nil:
			dst = appendBool(dst, f.Bool(rec))
		default:
			dst = appendStringOrNil(dst, f.String(rec))
		}
	}
	return dst
}
