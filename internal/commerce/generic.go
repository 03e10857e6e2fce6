package commerce

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Generic is a record of any list endpoint, decoded from its JSON:API form
// without knowing the endpoint: its id, type and timestamps, and the record
// as the service sent it. JSON is always kept: it is the only way to reach
// the other attributes.
type Generic struct {
	Common
	Type string
	// paths are the Endpoint's ValuePaths, shared by every record of a
	// listing; SortValue reads attributes beyond id and the timestamps
	// from JSON on demand, since only a provider-side sort or a range cut
	// asks for them.
	paths map[string][]string
}

// SortValue returns id, created_at and updated_at as decoded, and any other
// attribute from the record's JSON: where the Endpoint's ValuePaths say,
// else at the top level, else under "attributes" (the catalogue services'
// form). Strings are returned as they are, whole numbers in decimal.
func (g Generic) SortValue(attr string) (string, bool) {
	switch attr {
	case "id", "created_at", "updated_at":
		return g.sortValue(attr)
	}
	if ps, ok := g.paths[attr]; ok {
		for _, p := range ps {
			if v, ok := jsonValueAt([]byte(g.JSON), p); ok {
				return v, true
			}
		}
		return "", false
	}
	if v, ok := jsonValueAt([]byte(g.JSON), attr); ok {
		return v, true
	}
	return jsonValueAt([]byte(g.JSON), "attributes."+attr)
}

// jsonValueAt is the value at a dotted path of a JSON object, as SortValue
// returns it; false when the path leads nowhere or to an object, array or
// null.
func jsonValueAt(raw []byte, path string) (string, bool) {
	cur := json.RawMessage(raw)
	for part := range strings.SplitSeq(path, ".") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cur, &obj); err != nil {
			return "", false
		}
		next, ok := obj[part]
		if !ok {
			return "", false
		}
		cur = next
	}
	cur = bytes.TrimSpace(cur)
	if len(cur) == 0 {
		return "", false
	}
	switch c := cur[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(cur, &s); err != nil {
			return "", false
		}
		return s, true
	case c == 't' || c == 'f':
		return string(cur), true
	case c == '-' || (c >= '0' && c <= '9'):
		var n flexInt
		if err := n.UnmarshalJSON(cur); err == nil && n.v != nil {
			return strconv.FormatInt(*n.v, 10), true
		}
		return string(cur), true
	}
	return "", false
}

// looseString is a member a generic record may or may not carry as a
// string: anything else (a number, an object, null) reads as empty rather
// than failing the listing, since nothing about an unknown endpoint's
// records is promised beyond the id.
type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = looseString(v)
	return nil
}

// looseTimes is a pair of timestamps in an object; anything but an object
// reads as none.
type looseTimes struct {
	CreatedAt looseString `json:"created_at"`
	UpdatedAt looseString `json:"updated_at"`
}

func (t *looseTimes) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	type plain looseTimes
	return json.Unmarshal(b, (*plain)(t))
}

// genericMeta is a record's meta: timestamps nested in meta.timestamps
// (the /v2 services) or directly in meta (the catalogue services).
type genericMeta struct {
	looseTimes
	Timestamps looseTimes `json:"timestamps"`
}

func (m *genericMeta) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var w struct {
		CreatedAt  looseString `json:"created_at"`
		UpdatedAt  looseString `json:"updated_at"`
		Timestamps looseTimes  `json:"timestamps"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	m.CreatedAt, m.UpdatedAt, m.Timestamps = w.CreatedAt, w.UpdatedAt, w.Timestamps
	return nil
}

// wireGeneric is the part of any JSON:API record the generic listing reads.
type wireGeneric struct {
	ID        json.RawMessage `json:"id"`
	Type      looseString     `json:"type"`
	CreatedAt looseString     `json:"created_at"`
	UpdatedAt looseString     `json:"updated_at"`
	Meta      genericMeta     `json:"meta"`
}

// strictGeneric is wireGeneric for the records of nearly every endpoint,
// whose members have the types the loose form tolerates others of: it
// decodes without a custom decoder per member, which keeps generic
// listings as fast as typed ones.
type strictGeneric struct {
	ID        json.RawMessage `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	UpdatedAt string          `json:"updated_at"`
	Meta      struct {
		CreatedAt  string `json:"created_at"`
		UpdatedAt  string `json:"updated_at"`
		Timestamps struct {
			CreatedAt string `json:"created_at"`
			UpdatedAt string `json:"updated_at"`
		} `json:"timestamps"`
	} `json:"meta"`
}

// parseGeneric decodes one record: strictly where it can, loosely where a
// member has an unexpected type.
func parseGeneric(b []byte) (wireGeneric, error) {
	var s strictGeneric
	err := json.Unmarshal(b, &s)
	if err == nil {
		m := s.Meta
		return wireGeneric{
			ID: s.ID, Type: looseString(s.Type), CreatedAt: looseString(s.CreatedAt), UpdatedAt: looseString(s.UpdatedAt),
			Meta: genericMeta{
				looseTimes: looseTimes{CreatedAt: looseString(m.CreatedAt), UpdatedAt: looseString(m.UpdatedAt)},
				Timestamps: looseTimes{CreatedAt: looseString(m.Timestamps.CreatedAt), UpdatedAt: looseString(m.Timestamps.UpdatedAt)},
			},
		}, nil
	}
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		return wireGeneric{}, err
	}
	var w wireGeneric
	return w, json.Unmarshal(b, &w)
}

// record takes the timestamps from meta.timestamps, else meta, else the
// top level, whichever the record has.
func (w wireGeneric) record(raw string, paths map[string][]string) (Generic, error) {
	first := func(vs ...looseString) string {
		for _, v := range vs {
			if v != "" {
				return string(v)
			}
		}
		return ""
	}
	m := w.Meta
	nested := wireTimestamps{
		CreatedAt: lenientString{v: first(m.Timestamps.CreatedAt, m.CreatedAt, w.CreatedAt)},
		UpdatedAt: lenientString{v: first(m.Timestamps.UpdatedAt, m.UpdatedAt, w.UpdatedAt)},
	}
	c, err := wireCommon{ID: w.ID}.common(nested, nil, false, nil)
	if err != nil {
		return Generic{}, err
	}
	c.JSON = raw
	return Generic{Common: c, Type: string(w.Type), paths: paths}, nil
}

// genericElem is one element of a list body's data array, decoded where the
// body's decoder finds it: the record's JSON is copied once, as the
// string Generic keeps, rather than into a json.RawMessage first. A record
// of the wrong shape is kept as err, to be reported as that record's
// problem.
type genericElem struct {
	raw string
	w   wireGeneric
	err error
}

func (e *genericElem) UnmarshalJSON(b []byte) error {
	e.raw = string(b)
	e.w, e.err = parseGeneric(b)
	return nil
}

// GenericKind lists r's endpoint with generic records, on the same engine
// as the typed kinds: r may be a row of the capability table
// (EndpointForPath) or what the listing engine's probe found out about an
// endpoint the table does not know. Every record keeps its JSON, whatever
// the listing's IncludeJSON says.
func GenericKind(r Endpoint) Kind[Generic] {
	paths := r.ValuePaths
	decode := func(raw []byte, _ bool, _ *decodeNotes) (Generic, error) {
		w, err := parseGeneric(raw)
		if err != nil {
			return Generic{}, err
		}
		return w.record(string(raw), paths)
	}
	decodeAll := func(body []byte) (decodedBody[Generic], error) {
		return decodeBody(body, unmarshalOnePass, func(e genericElem, _ *decodeNotes) (Generic, error) {
			if e.err != nil {
				return Generic{}, e.err
			}
			return e.w.record(e.raw, paths)
		})
	}
	return Kind[Generic]{Endpoint: r, decodeRecord: decode, decodeAll: decodeAll}
}
