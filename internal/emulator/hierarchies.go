package emulator

import (
	"strconv"
	"strings"
	"time"
)

// Column positions of hierarchies.
const (
	hierID = iota
	hierName
	hierDesc
	hierSlug
	hierCreated
	hierUpdated
)

// streamHierarchies is the random stream of hierarchies.
const streamHierarchies = 0x6869657261 // "hiera"

// hierarchyResource: GET /pcm/hierarchies, the Product Experience Manager's
// hierarchies (openapispecs/pim/pim.yaml in elasticpath/elasticpath-dev,
// operation getHierarchy). The operation takes page[offset] and page[limit]
// only: no sort (the sorting guide does not list it either) and no filter,
// so nothing can bound or cut a listing, and past the offset limit no
// request reaches further records. Its offset limit is the soft one of
// every endpoint but orders and files. The service's own order is
// unrelated to created_at: ascending id, as for files.
var hierarchyResource = &resource{
	schema: schema{
		name:   "hierarchies",
		typ:    "hierarchy",
		prefix: "/pcm",
		cols: []column{
			{"id", kindString, 0},
			{"name", kindString, 0},
			{"description", kindString, 0},
			{"slug", kindString, 0},
			{"created_at", kindTime, 0},
			{"updated_at", kindTime, 0},
		},
		created:     hierCreated,
		updated:     hierUpdated,
		defaultSort: hierID,
	},
	appendRecord: appendHierarchy,
	gen: generator{
		count:        func(o *Options) *int { return &o.Hierarchies },
		defaultCount: DefaultHierarchies,
		ties:         func(o *Options) []int { return o.HierarchyTieGroups },
		tieSize:      10,
		tieDiv:       8,
		gap:          6 * time.Hour,
		stream:       streamHierarchies,
	},
	fill: fillHierarchy,
	update: func(t *table, row int32) {
		t.str[hierDesc][row] = "Revision " + strconv.FormatUint(t.version, 10)
	},
}

var hierarchyTopics = []string{
	"Shoes", "Major Appliances", "Garden", "Books", "Toys", "Outdoor", "Kitchen", "Lighting", "Audio", "Sportswear",
}

// fillHierarchy fills hierarchy number seq (1-based) except its
// timestamps. The number keeps slugs unique, as the service requires.
func fillHierarchy(t *table, row int32, seq int, _ bool) {
	rng := t.rng
	t.str[hierID][row] = newUUID(rng)
	topic := hierarchyTopics[rng.IntN(len(hierarchyTopics))]
	name := topic + " " + strconv.Itoa(seq)
	t.str[hierName][row] = name
	t.str[hierDesc][row] = topic + " Category"
	t.str[hierSlug][row] = strings.ToLower(strings.ReplaceAll(name, " ", "-"))
}

// appendHierarchy writes a hierarchy in the shape of the vendor's example
// (resp_multi_hierarchy): attributes, the children relationship, and the
// timestamps directly under meta, in every encoding, as the catalogue
// services send them.
func appendHierarchy(b []byte, t *table, row int32, _ *encoding) []byte {
	s := t.str
	id := s[hierID][row]
	b = append(b, `{"type":"hierarchy","id":`...)
	b = appendString(b, id)
	b = append(b, `,"attributes":{"description":`...)
	b = appendString(b, s[hierDesc][row])
	b = append(b, `,"name":`...)
	b = appendString(b, s[hierName][row])
	b = append(b, `,"slug":`...)
	b = appendString(b, s[hierSlug][row])
	b = append(b, `},"relationships":{"children":{"data":[],"links":{"related":"/hierarchies/`...)
	b = append(b, id...) // UUIDs need no escaping
	b = append(b, `/children"}}},"meta":{"created_at":`...)
	b = appendQuotedTimestamp(b, t.num[hierCreated][row])
	b = append(b, `,"owner":"store","updated_at":`...)
	b = appendQuotedTimestamp(b, t.num[hierUpdated][row])
	return append(b, '}', '}')
}

// Hierarchy is a copy of one hierarchy as the emulator serves it.
type Hierarchy struct {
	ID          string
	Name        string // attributes.name
	Description string // attributes.description
	Slug        string // attributes.slug
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func hierarchyAt(t *table, row int32) Hierarchy {
	s := t.str
	return Hierarchy{
		ID: s[hierID][row], Name: s[hierName][row], Description: s[hierDesc][row], Slug: s[hierSlug][row],
		CreatedAt: msTime(t.num[hierCreated][row]), UpdatedAt: msTime(t.num[hierUpdated][row]),
	}
}

var hierarchies = accessor[Hierarchy]{hierarchyResource, hierarchyAt}

// Hierarchies returns copies of the live hierarchies in storage (insertion)
// order.
func (s *Server) Hierarchies() []Hierarchy { return hierarchies.all(s) }

// InsertHierarchy creates a hierarchy stamped with the emulator clock and
// returns it.
func (s *Server) InsertHierarchy() Hierarchy { return hierarchies.insert(s) }

// UpdateHierarchy changes a hierarchy (its description) and sets its
// updated_at to the emulator clock.
func (s *Server) UpdateHierarchy(id string) (Hierarchy, error) { return hierarchies.update(s, id) }

// DeleteHierarchy deletes a hierarchy.
func (s *Server) DeleteHierarchy(id string) error { return hierarchies.delete(s, id) }
