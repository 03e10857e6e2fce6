package listing

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The code that reads a sort key or splits an in() runs in the plan
// alone: a read's plan works them out once (Plan), and the rest of the
// read, sharing and the cache included (internal/reads), takes them from
// the Listing.
func TestAReadIsPlannedOnce(t *testing.T) {
	for fn, file := range map[string]string{"parseSort": "plan.go", "splitIn": "plan.go"} {
		if callers := callersOf(t, fn); !slices.Equal(callers, []string{file}) {
			t.Errorf("%s is called from %v, want %s alone: a read's plan works it out once, the rest of the read takes it from there", fn, callers, file)
		}
	}
}

// callersOf lists the non-test files of the package that call fn.
func callersOf(t *testing.T, fn string) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var callers []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == fn && !slices.Contains(callers, name) {
					callers = append(callers, name)
				}
			}
			return true
		})
	}
	return callers
}
