package emulatortest

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// Logs is a logger of the transport's and the engine's shape that keeps
// every line logged, with its fields.
type Logs struct {
	mu     sync.Mutex
	lines  []string
	fields []map[string]any // fields[i] belongs to lines[i]
}

func (l *Logs) add(level, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, level+": "+msg)
	l.fields = append(l.fields, fields)
}

func (l *Logs) Debug(_ context.Context, m string, f map[string]any) { l.add("DEBUG", m, f) }
func (l *Logs) Info(_ context.Context, m string, f map[string]any)  { l.add("INFO", m, f) }
func (l *Logs) Warn(_ context.Context, m string, f map[string]any)  { l.add("WARN", m, f) }

// Find returns the fields of the lines that start with prefix (level
// included, e.g. "WARN: request").
func (l *Logs) Find(prefix string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for i, line := range l.lines {
		if strings.HasPrefix(line, prefix) {
			out = append(out, l.fields[i])
		}
	}
	return out
}

// Count is how many lines hold part.
func (l *Logs) Count(part string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, part) {
			n++
		}
	}
	return n
}

// String is every line, one per line, for a failure message.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// Lines are the lines logged so far, "LEVEL: message" each.
func (l *Logs) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}
