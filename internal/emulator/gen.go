package emulator

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Records are drawn from seeded random streams, one per resource (and a
// second one for attributes added after the first version of a resource),
// so that changing one count does not change the records of another
// resource and existing attributes keep their values for a seed. Each
// resource names its streams after itself in ASCII; register checks that
// they differ.

// generate makes the seeded records of r and indexes them.
func generate(r *resource, o *Options) *table {
	g := &r.gen
	n := max(*g.count(o), 0)
	rng := newRand(o.Seed, g.stream)
	var aux *rand.Rand
	if g.extra != 0 {
		aux = newRand(o.Seed, g.extra)
	}
	t := newTable(r, n, rng, aux)
	if g.start != nil {
		g.start(t, o)
	}
	// A resource without updated_at draws the times all the same, so that
	// its records keep their values for a seed.
	created, updated := genTimes(rng, n, o.BaseTime.UnixMilli(),
		tieGroups(g.ties(o), n, g.tieSize, g.tieDiv), meanGap(n, g.gap))
	for i := range n {
		row := t.addRow()
		r.fill(t, row, i+1, true)
		t.num[r.created][row] = created[i]
		if r.updated >= 0 {
			t.num[r.updated][row] = updated[i]
		}
	}
	if g.finish != nil {
		g.finish(t, o)
	}
	t.buildIndexes()
	return t
}

func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

const hexDigits = "0123456789abcdef"

// newUUID returns a random version-4 UUID string drawn from rng.
func newUUID(rng *rand.Rand) string {
	hi, lo := rng.Uint64(), rng.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	var b [36]byte
	pos := 0
	for i := range 32 {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b[pos] = '-'
			pos++
		}
		var nib uint64
		if i < 16 {
			nib = hi >> (60 - 4*uint(i)) & 0xf
		} else {
			nib = lo >> (60 - 4*uint(i-16)) & 0xf
		}
		b[pos] = hexDigits[nib]
		pos++
	}
	return string(b[:])
}

// padInt formats n with at least width digits.
func padInt(prefix string, n, width int) string {
	s := strconv.Itoa(n)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return prefix + s
}

// tieGroups returns the tie group sizes to use: explicit as given (nil means
// the default of one group of def records, at most n/div).
func tieGroups(explicit []int, n, def, div int) []int {
	if explicit != nil {
		return explicit
	}
	size := min(def, n/div)
	if size < 2 {
		return nil
	}
	return []int{size}
}

// groupRanges places groups of the given sizes on n storage positions,
// around evenly spaced centres (the middle for one group), and returns their
// [start, end) ranges in order. Groups never overlap; sizes below 2 and
// groups without room left are skipped, and a group larger than n is cut to
// n.
func groupRanges(n int, sizes []int) [][2]int {
	var out [][2]int
	prevEnd := 0
	for j, size := range sizes {
		size = min(size, n)
		if size < 2 {
			continue
		}
		start := max((j+1)*n/(len(sizes)+1)-size/2, prevEnd, 0)
		if start+size > n {
			start = n - size
		}
		if start < prevEnd {
			continue // no room left for this group
		}
		out = append(out, [2]int{start, start + size})
		prevEnd = start + size
	}
	return out
}

// genTimes returns ms-precision created_at and updated_at values for n
// records in storage order. created_at never decreases; neighbours are
// occasionally equal, and each tie group (placed around evenly spaced
// centres, the middle of the range for a single group) shares exactly one
// created_at, which is also its members' updated_at, as for a bulk import.
// updated_at >= created_at and never exceeds the last created_at.
func genTimes(rng *rand.Rand, n int, base int64, ties []int, meanGap int64) (created, updated []int64) {
	created = make([]int64, n)
	updated = make([]int64, n)
	if n == 0 {
		return created, updated
	}
	const (
		free   = iota
		first  // first member of a tie group: strictly after its predecessor
		member // later member of a tie group: equal to its predecessor
		after  // first record after a group: strictly after it
	)
	mark := make([]uint8, n)
	for _, g := range groupRanges(n, ties) {
		start, end := g[0], g[1]
		mark[start] = first
		for i := start + 1; i < end; i++ {
			mark[i] = member
		}
		if end < n {
			mark[end] = after
		}
	}
	ts := base
	for i := range n {
		if i > 0 {
			switch mark[i] {
			case member:
			case first, after:
				ts += 1 + rng.Int64N(2*meanGap)
			default:
				if rng.IntN(25) != 0 { // about 1 in 25 records share their predecessor's time
					ts += 1 + rng.Int64N(2*meanGap)
				}
			}
		}
		created[i] = ts
	}
	last := created[n-1]
	const maxAge = 30 * 24 * int64(time.Hour/time.Millisecond)
	for i := range n {
		switch {
		case mark[i] == first || mark[i] == member:
			updated[i] = created[i]
		case rng.IntN(10) < 4:
			updated[i] = created[i]
		default:
			updated[i] = created[i] + rng.Int64N(min(maxAge, last-created[i])+1)
		}
	}
	return created, updated
}

// meanGap spreads n records over at most a year.
func meanGap(n int, preferred time.Duration) int64 {
	g := int64(preferred / time.Millisecond)
	if n > 0 {
		g = min(g, int64(365*24*time.Hour/time.Millisecond)/int64(n))
	}
	return max(g, 1)
}

// Names of people, and their spellings in email addresses (the slugs).
var firstNames = []string{
	"Jane", "John", "Maria", "Ahmed", "Wei", "Olivia", "Liam", "Emma", "Noah", "Ava",
	"Sofia", "Lucas", "Mia", "Ethan", "Amara", "Hiro", "Chloe", "Mateo", "Zoë", "José",
	"Priya", "Lars", "Fatima", "Kofi", "Ingrid", "Diego", "Anna", "Omar", "Elena", "Tom",
}

var firstSlugs = []string{
	"jane", "john", "maria", "ahmed", "wei", "olivia", "liam", "emma", "noah", "ava",
	"sofia", "lucas", "mia", "ethan", "amara", "hiro", "chloe", "mateo", "zoe", "jose",
	"priya", "lars", "fatima", "kofi", "ingrid", "diego", "anna", "omar", "elena", "tom",
}

var lastNames = []string{
	"Doe", "Smith", "García", "Khan", "Zhang", "Johnson", "O'Brien", "Müller", "Rossi", "Nakamura",
	"Dubois", "Silva", "Kowalski", "Andersen", "Okafor", "Nguyen", "Schmidt", "Martin", "Haddad", "Lee",
}

var lastSlugs = []string{
	"doe", "smith", "garcia", "khan", "zhang", "johnson", "obrien", "muller", "rossi", "nakamura",
	"dubois", "silva", "kowalski", "andersen", "okafor", "nguyen", "schmidt", "martin", "haddad", "lee",
}

// drawPerson draws a name and an email address that goes with it.
func drawPerson(rng *rand.Rand) (name, email string) {
	f, l := rng.IntN(len(firstNames)), rng.IntN(len(lastNames))
	name = firstNames[f] + " " + lastNames[l]
	domain := "@example.com"
	if rng.IntN(5) == 0 {
		domain = "@example.org"
	}
	email = firstSlugs[f] + "." + lastSlugs[l] + strconv.Itoa(1+rng.IntN(99)) + domain
	return name, email
}

var postcodeAreas = []string{"EC", "SW", "N", "M", "B", "LS", "G", "EH", "BS", "CF"}

// postcode returns a postcode of the country that goes with currency: US
// ZIP codes, Dutch postcodes or British postcodes.
func postcode(rng *rand.Rand, currency string) string {
	switch currency {
	case "USD":
		return padInt("", rng.IntN(99000)+1000, 5)
	case "EUR":
		return padInt("", 1000+rng.IntN(9000), 4) + " " + string(rune('A'+rng.IntN(26))) + string(rune('A'+rng.IntN(26)))
	}
	return postcodeAreas[rng.IntN(len(postcodeAreas))] + strconv.Itoa(1+rng.IntN(20)) + " " + strconv.Itoa(rng.IntN(10)) +
		string(rune('A'+rng.IntN(26))) + string(rune('A'+rng.IntN(26)))
}
