package commerce

// Decoding with care. The wire forms (wire.go) are strict where a
// listing's correctness depends on a value: ids, results.total and the
// paging members, the range attributes (orders' amounts, files'
// file_size), and the timestamps where a listing sorts or cuts by them
// (see oddTimes). Elsewhere, on the display attributes, a value of another
// type than the vendor documents does not fail the listing: a number where
// a string is documented is kept as the number's text, exactly as the
// service wrote it (the vendor's own example gives order_number as 1234);
// anything else leaves the attribute null. Each such value is noted with
// its record's id; a listing warns once per attribute when it ends
// (DecodeLog), a lookup once per attribute of its record (Issues).
//
// The lenient types decode a value of the documented type as the plain
// type would, so that a body without surprises costs what it did.

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/commerce-tf/terraform-provider-commerce/internal/excerpt"
)

// jsonKind is the kind of a JSON value a record holds where it documents
// another, or the kind it documents.
type jsonKind uint8

const (
	asDocumented jsonKind = iota // the documented type, null or absent
	jsonString
	jsonNumber
	jsonFraction // a number that is not a whole number of 64 bits, where one is documented
	jsonBool
	jsonObject
	jsonArray
)

// kindOfValue is the kind of the JSON value b; null is asDocumented.
func kindOfValue(b []byte) jsonKind {
	if len(b) == 0 {
		return asDocumented
	}
	switch b[0] {
	case '"':
		return jsonString
	case '{':
		return jsonObject
	case '[':
		return jsonArray
	case 't', 'f':
		return jsonBool
	case 'n':
		return asDocumented
	}
	return jsonNumber
}

// found is k as what a record held.
func (k jsonKind) found() string {
	switch k {
	case jsonString:
		return "a string"
	case jsonNumber:
		return "a number"
	case jsonFraction:
		return "a number that is not a whole number"
	case jsonBool:
		return "a boolean"
	case jsonObject:
		return "an object"
	case jsonArray:
		return "an array"
	}
	return "a value"
}

// documented is k as what the record type documents.
func (k jsonKind) documented() string {
	switch k {
	case jsonNumber:
		return "a whole number"
	case jsonBool:
		return "a boolean"
	case jsonObject:
		return "an object"
	}
	return "a string"
}

// name is k as a log field's value.
func (k jsonKind) name() string {
	switch k {
	case jsonString:
		return "string"
	case jsonNumber:
		return "number"
	case jsonFraction:
		return "fraction"
	case jsonBool:
		return "bool"
	case jsonObject:
		return "object"
	case jsonArray:
		return "array"
	}
	return ""
}

// keptAsText reports whether a value found where want is documented is
// kept (a number's text where a string is documented) rather than null.
func keptAsText(found, want jsonKind) bool { return found == jsonNumber && want == jsonString }

// lenientString is a display attribute documented as a string.
type lenientString struct {
	v   string   // the string, or the JSON of what the service sent instead
	odd jsonKind // what the service sent instead of a string
}

func (s *lenientString) UnmarshalJSON(b []byte) error {
	if len(b) > 1 && b[0] == '"' {
		// What encoding/json does with a string without escapes, without
		// its reflection; the decoder has checked the body's syntax.
		if inner := b[1 : len(b)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			s.v = string(inner)
			return nil
		}
		return json.Unmarshal(b, &s.v)
	}
	if s.odd = kindOfValue(b); s.odd != asDocumented {
		s.v = string(b) // a number as written: 12.50 stays "12.50"
	}
	return nil
}

// text is s for the record: the string, a number's text, or "" (null),
// noting anything but a string at path.
func (s lenientString) text(n *decodeNotes, path, id string) string {
	if s.odd != asDocumented {
		n.note(path, s.odd, jsonString, id)
		if s.odd != jsonNumber {
			return ""
		}
	}
	return s.v
}

// lenientInt is a display attribute documented as a whole number; like
// flexInt, it takes one in a string.
type lenientInt struct {
	v   *int64
	odd jsonKind
}

func (i *lenientInt) UnmarshalJSON(b []byte) error {
	var f flexInt
	if err := f.UnmarshalJSON(b); err != nil {
		i.odd = kindOfValue(b)
		if i.odd == jsonNumber {
			i.odd = jsonFraction
		}
		return nil
	}
	i.v = f.v
	return nil
}

func (i lenientInt) value(n *decodeNotes, path, id string) *int64 {
	if i.odd != asDocumented {
		n.note(path, i.odd, jsonNumber, id)
	}
	return i.v
}

// lenientBool is a display attribute documented as a boolean; it takes
// "true" and "false" in a string too.
type lenientBool struct {
	v   *bool
	odd jsonKind
}

func (f *lenientBool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true", `"true"`:
		v := true
		f.v = &v
	case "false", `"false"`:
		v := false
		f.v = &v
	case "null":
	default:
		f.odd = kindOfValue(b)
	}
	return nil
}

func (f lenientBool) value(n *decodeNotes, path, id string) *bool {
	if f.odd != asDocumented {
		n.note(path, f.odd, jsonBool, id)
	}
	return f.v
}

// droppedObject is a display member documented as an object that held
// something else.
type droppedObject struct {
	path  string
	found jsonKind
}

// dropOddObjects returns a record's JSON without the members at paths
// (dotted, parents first) that hold neither an object nor null, and which
// those were. It is the slow path: only a record whose decoding failed on
// a type takes it.
func dropOddObjects(raw []byte, paths []string) ([]byte, []droppedObject) {
	var rec map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers as written
	if dec.Decode(&rec) != nil {
		return raw, nil
	}
	var dropped []droppedObject
	for _, path := range paths {
		obj, last := rec, path
		for {
			head, rest, nested := strings.Cut(last, ".")
			if !nested {
				break
			}
			inner, ok := obj[head].(map[string]any)
			if !ok {
				obj = nil // the parent is absent, null or was dropped
				break
			}
			obj, last = inner, rest
		}
		v, ok := obj[last]
		if _, isObject := v.(map[string]any); !ok || v == nil || isObject {
			continue
		}
		held, err := json.Marshal(v)
		if err != nil {
			continue
		}
		dropped = append(dropped, droppedObject{path: path, found: kindOfValue(held)})
		delete(obj, last)
	}
	if len(dropped) == 0 {
		return raw, nil
	}
	fixed, err := json.Marshal(rec)
	if err != nil {
		return raw, nil
	}
	return fixed, dropped
}

// decodeDropping is decodeOne for a record whose decoding failed on a
// type (err): it decodes the record again without its display objects of
// another type, and notes them. The record's JSON (keepRaw) stays as the
// service sent it.
func decodeDropping[T Record, W wire[T]](raw []byte, keepRaw bool, n *decodeNotes, err error) (T, error) {
	var zero T
	var w W
	fixed, dropped := dropOddObjects(raw, w.displayObjects())
	if len(dropped) == 0 {
		return zero, err
	}
	if err := json.Unmarshal(fixed, &w); err != nil {
		return zero, err
	}
	if d, ok := any(&w).(interface{ dropped([]droppedObject) }); ok {
		d.dropped(dropped)
	}
	rec, err := w.record(raw, keepRaw, n)
	if err != nil {
		return zero, err
	}
	for _, d := range dropped {
		n.note(d.path, d.found, jsonObject, rec.RecordID())
	}
	return rec, nil
}

// timestamp is a record's attr: nested (meta.timestamps), else flat. A
// value that is neither a string nor a number is null, and kept in c.odd
// for the sort (see oddTimes).
func timestamp(c *Common, nested, flat lenientString, attr string, n *decodeNotes) string {
	s, isNested := nested, true
	if s == (lenientString{}) {
		s, isNested = flat, false
	}
	if s.odd == asDocumented {
		return s.v
	}
	path := attr
	if isNested {
		path = "meta.timestamps." + attr
	}
	v := s.text(n, path, c.ID)
	if v == "" {
		if c.odd == nil {
			c.odd = &oddTimes{}
		}
		if attr == "created_at" {
			c.odd.createdAt = excerpt.Of([]byte(s.v))
		} else {
			c.odd.updatedAt = excerpt.Of([]byte(s.v))
		}
	}
	return v
}

// decodeIssue is a value of one record that was not of its documented
// type.
type decodeIssue struct {
	path  string // "order_number", "meta.dimensions.width"
	found jsonKind
	want  jsonKind
	id    string // the record's
}

// decodeNotes collects the issues of one body, a page or a lookup, on the
// goroutine that decodes it. A nil *decodeNotes discards them.
type decodeNotes struct{ issues Issues }

func (n *decodeNotes) note(path string, found, want jsonKind, id string) {
	if n != nil {
		n.issues = append(n.issues, decodeIssue{path: path, found: found, want: want, id: id})
	}
}

// oddTimes keeps (an excerpt of) what a record held in a timestamp that
// was neither a string nor a number: the timestamp is null in state, but
// a listing sorted or cut by it must fail on it as on any other value that
// is not a timestamp (keyOf), not take it for absent and sort the record
// last.
type oddTimes struct{ createdAt, updatedAt string }
