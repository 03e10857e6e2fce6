package emulator

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Column positions of files.
const (
	fileID = iota
	fileName
	fileMime
	fileSize
	filePublic
	fileCreated
	fileWidth
	fileHeight
)

// The random streams of files: the first version's attributes and those
// added later.
const (
	streamFiles     = 0x66696c6573 // "files"
	streamFileExtra = 0x66696c2b   // "fil+"
)

// fileResource: GET /v2/files, with a hard offset limit. Files cannot be
// sorted; they come in the service's own order, which is stable and
// unrelated to created_at: ascending id. Files have no updated_at.
var fileResource = &resource{
	schema: schema{
		name: "files",
		typ:  "file",
		cols: []column{
			{"id", kindString, 0}, // no id filter on files
			{"file_name", kindString, opsEqLike},
			{"mime_type", kindString, 0},
			{"file_size", kindNumber, opsRange},
			{"public", kindBool, 0},
			{"created_at", kindTime, 0},
			{"width", kindNumber, opsRange},  // nullNum unless an image
			{"height", kindNumber, opsRange}, // nullNum unless an image
		},
		created:         fileCreated,
		updated:         -1,
		defaultSort:     fileID,
		hardOffsetLimit: true,
	},
	appendRecord: appendFile,
	gen: generator{
		count:        func(o *Options) *int { return &o.Files },
		defaultCount: DefaultFiles,
		ties:         func(o *Options) []int { return o.FileTieGroups },
		tieSize:      40,
		tieDiv:       7,
		gap:          10 * time.Minute,
		stream:       streamFiles,
		extra:        streamFileExtra,
		finish:       groupFileSizes,
	},
	fill:   fillFile,
	update: func(t *table, row int32) { t.boo[filePublic][row] = !t.boo[filePublic][row] },
}

var filePrefixes = []string{"invoice", "photo", "report", "logo", "banner", "contract", "avatar", "export", "manual", "receipt"}

var fileTypes = []struct{ ext, mime string }{
	{".png", "image/png"}, {".jpg", "image/jpeg"}, {".pdf", "application/pdf"},
	{".csv", "text/csv"}, {".svg", "image/svg+xml"}, {".webp", "image/webp"},
}

func fillFile(t *table, row int32, seq int, _ bool) {
	rng := t.rng
	t.str[fileID][row] = newUUID(rng)
	ft := fileTypes[rng.IntN(len(fileTypes))]
	t.str[fileName][row] = filePrefixes[rng.IntN(len(filePrefixes))] + padInt("-", seq, 6) + ft.ext
	t.str[fileMime][row] = ft.mime
	t.num[fileSize][row] = 512 + rng.Int64N(20<<20)
	t.boo[filePublic][row] = rng.IntN(2) == 0
	t.num[fileWidth][row], t.num[fileHeight][row] = nullNum, nullNum
	if strings.HasPrefix(ft.mime, "image/") {
		t.num[fileWidth][row] = 16 + t.aux.Int64N(4096-16+1)
		t.num[fileHeight][row] = 16 + t.aux.Int64N(4096-16+1)
	}
}

// fileSizeTieValue is the file_size shared by the files of size tie group
// j: distinct per group and at least 2 apart, so that nudging another
// file's size by one never lands on a group's value.
func fileSizeTieValue(j int) int64 { return 250000 + int64(j)*10007 }

// groupFileSizes makes the file size tie groups: each group of files
// shares one exact size, which no other file has.
func groupFileSizes(t *table, o *Options) {
	sizes := t.num[fileSize]
	n := len(sizes)
	groups := groupRanges(n, o.FileSizeTieGroups)
	if len(groups) == 0 {
		return
	}
	inGroup := make([]bool, n)
	values := map[int64]bool{}
	for j, g := range groups {
		v := fileSizeTieValue(j)
		values[v] = true
		for i := g[0]; i < g[1]; i++ {
			sizes[i] = v
			inGroup[i] = true
		}
	}
	for i := range n {
		if !inGroup[i] && values[sizes[i]] {
			sizes[i]++
		}
	}
}

// fileLink is the download address of a file.
func fileLink(id, name string) string {
	return "https://files.example.test/" + url.PathEscape(id) + "/" + url.PathEscape(name)
}

func appendFile(b []byte, t *table, row int32, enc *encoding) []byte {
	s := t.str
	id, name := s[fileID][row], s[fileName][row]
	b = append(b, `{"type":"file","id":`...)
	b = appendString(b, id)
	b = append(b, `,"file_name":`...)
	b = appendString(b, name)
	b = append(b, `,"mime_type":`...)
	b = appendString(b, s[fileMime][row])
	b = append(b, `,"file_size":`...)
	b = strconv.AppendInt(b, t.num[fileSize][row], 10)
	b = append(b, `,"public":`...)
	b = strconv.AppendBool(b, t.boo[filePublic][row])
	b = append(b, ',')
	if enc.flat {
		b = appendTimestamps(b, t, row)
		b = append(b, ',')
	}
	width, height := t.num[fileWidth][row], t.num[fileHeight][row]
	if hasDims := width != nullNum; hasDims || !enc.flat {
		b = append(b, `"meta":{`...)
		if hasDims {
			b = append(b, `"dimensions":{"width":`...)
			b = strconv.AppendInt(b, width, 10)
			b = append(b, `,"height":`...)
			b = strconv.AppendInt(b, height, 10)
			b = append(b, '}')
		}
		if !enc.flat {
			if hasDims {
				b = append(b, ',')
			}
			b = append(b, `"timestamps":{`...)
			b = appendTimestamps(b, t, row)
			b = append(b, '}')
		}
		b = append(b, '}', ',')
	}
	b = appendSelfLink(b, t, row, enc)
	b = append(b, `},"link":{"href":"https://files.example.test/`...)
	b = append(b, id...) // UUIDs need no escaping
	b = append(b, '/')
	b = append(b, url.PathEscape(name)...)
	return append(b, '"', '}', '}')
}

// File is a copy of one file as the emulator serves it. Files have no
// updated_at.
type File struct {
	ID       string
	FileName string
	MimeType string
	FileSize int64
	Public   bool
	// Width and Height are meta.dimensions, in pixels, for images (a
	// mime_type of image/*); both are 0 for other files, which have none.
	Width, Height int64
	Link          string // link.href, the download address
	CreatedAt     time.Time
}

func fileAt(t *table, row int32) File {
	s := t.str
	f := File{
		ID: s[fileID][row], FileName: s[fileName][row], MimeType: s[fileMime][row],
		FileSize: t.num[fileSize][row], Public: t.boo[filePublic][row],
		Link:      fileLink(s[fileID][row], s[fileName][row]),
		CreatedAt: msTime(t.num[fileCreated][row]),
	}
	if w := t.num[fileWidth][row]; w != nullNum {
		f.Width, f.Height = w, t.num[fileHeight][row]
	}
	return f
}

var files = accessor[File]{fileResource, fileAt}

// Files returns copies of the live files in storage (insertion) order.
func (s *Server) Files() []File { return files.all(s) }

// InsertFile creates a file stamped with the emulator clock and returns it.
func (s *Server) InsertFile() File { return files.insert(s) }

// UpdateFile changes a file: it toggles public. Files have no updated_at, so
// nothing records when.
func (s *Server) UpdateFile(id string) (File, error) { return files.update(s, id) }

// DeleteFile deletes a file.
func (s *Server) DeleteFile(id string) error { return files.delete(s, id) }
