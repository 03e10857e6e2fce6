package commerce

// The warnings of decoding with care (see lenient.go): a listing gathers
// what its pages' records held where their type documents another, and
// warns once per attribute when it ends; a lookup warns once per attribute
// of its record. This file words them; the caller logs them.

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

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
