package commerce

// Decoding with care. The wire forms (records.go) are strict where a
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
	"fmt"
	"slices"
	"strings"
	"sync"
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

// The warnings of decoding with care (see lenient.go): a listing gathers
// what its pages' records held where their type documents another, and
// warns once per attribute when it ends; a lookup warns once per attribute
// of its record. This file words them; the caller logs them.

// Issues are the values of a body's records that were not of their
// documented type.
type Issues []decodeIssue

// Warning is one line to log at WARN: its message and structured fields.
type Warning struct {
	Message string
	Fields  map[string]any
}

// DecodeLog gathers the issues of a listing's pages, which several
// goroutines decode at once, by attribute. A record read twice (pages that
// overlap, a window read again) counts once. The zero value is ready.
type DecodeLog struct {
	mu     sync.Mutex
	fields map[string]*fieldLog
}

type fieldLog struct {
	want    jsonKind
	records map[string]jsonKind // by id: what the record held
}

// Add records a page's issues. Any goroutine.
func (l *DecodeLog) Add(issues Issues) {
	if len(issues) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fields == nil {
		l.fields = map[string]*fieldLog{}
	}
	for _, is := range issues {
		f := l.fields[is.path]
		if f == nil {
			f = &fieldLog{want: is.want, records: map[string]jsonKind{}}
			l.fields[is.path] = f
		}
		f.records[is.id] = is.found
	}
}

// Warnings are the log's lines, one per attribute, in attribute order.
func (l *DecodeLog) Warnings(resource string) []Warning {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Warning
	for _, path := range sortedKeys(l.fields) {
		msg, fields := l.fields[path].summary(resource, path)
		out = append(out, Warning{Message: msg, Fields: fields})
	}
	return out
}

// LookupWarnings are the lines of a looked-up record's issues, one per
// attribute.
func (is Issues) LookupWarnings(what, id string) []Warning {
	var out []Warning
	seen := map[string]bool{}
	for _, i := range is {
		if seen[i.path] {
			continue
		}
		seen[i.path] = true
		out = append(out, Warning{
			Message: fmt.Sprintf("%s %s: %s has a value of an unexpected type (%s where %s is documented); %s.",
				what, id, i.path, i.found.found(), i.want.documented(), shownAs(i.found, i.want)),
			Fields: map[string]any{"resource": what, "field": i.path, "found": i.found.name(), "records": 1, "example_id": id},
		})
	}
	return out
}

// shownAs says what the state shows for a value found where want is
// documented.
func shownAs(found, want jsonKind) string {
	if keptAsText(found, want) {
		return "it is kept as the number's text, as the service wrote it"
	}
	return "it is null in state"
}

// summary is the WARN of one attribute of a listing: how many records
// held what, what the state shows, and an example record (the smallest
// id, so that the line does not depend on which worker came first).
func (f *fieldLog) summary(resource, path string) (string, map[string]any) {
	byKind := map[jsonKind]int{}
	example := ""
	for id, k := range f.records {
		byKind[k]++
		if example == "" || id < example {
			example = id
		}
	}
	kinds := sortedKeys(byKind)
	n := len(f.records)
	found := make([]string, len(kinds))
	for i, k := range kinds {
		found[i] = k.name()
	}
	fields := map[string]any{
		"resource": resource, "field": path, "found": strings.Join(found, ","), "documented": f.want.name(),
		"records": n, "example_id": example,
	}
	if len(kinds) == 1 {
		return fmt.Sprintf("%s: %s had a value of an unexpected type in %s (%s where %s is documented); %s. Example record: %s",
			resource, plural(n, "record"), path, kinds[0].found(), f.want.documented(), shownAs(kinds[0], f.want), example), fields
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		shown := "null in state"
		if keptAsText(k, f.want) {
			shown = "kept as the number's text"
		}
		parts[i] = fmt.Sprintf("%s in %d (%s)", k.found(), byKind[k], shown)
	}
	return fmt.Sprintf("%s: %s had a value of an unexpected type in %s, where %s is documented: %s. Example record: %s",
		resource, plural(n, "record"), path, f.want.documented(), strings.Join(parts, ", "), example), fields
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func sortedKeys[K interface{ ~string | ~uint8 }, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
