package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The limits that keep the code readable, held here so that no change
// breaks them unseen. They apply to every package under internal/ but the
// emulator, which implements the service from its documentation and is
// read as such.
const (
	// maxFunctionLines is the longest function, from func to its closing
	// brace; schema declarations (a data source's Schema, and functions
	// that return schema attributes) are lists, not logic, and exempt.
	maxFunctionLines = 60
	// maxParameters is the most parameters a function takes; more go into
	// a request value.
	maxParameters = 6
)

const modulePath = "github.com/commerce-tf/terraform-provider-commerce"

// goPackage is one package's non-test files, parsed.
type goPackage struct {
	dir   string // relative to the module root
	files map[string]*ast.File
}

// internalPackages parses every package under internal/ but the emulator.
func internalPackages(t *testing.T) (*token.FileSet, []*goPackage) {
	t.Helper()
	fset := token.NewFileSet()
	byDir := map[string]*goPackage{}
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || path == filepath.Join("internal", "emulator") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		p := byDir[dir]
		if p == nil {
			p = &goPackage{dir: dir, files: map[string]*ast.File{}}
			byDir[dir] = p
		}
		p.files[path] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []*goPackage
	for _, p := range byDir {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return fset, out
}

func TestFunctionsStayShort(t *testing.T) {
	fset, pkgs := internalPackages(t)
	for _, p := range pkgs {
		for _, f := range p.files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				at := fset.Position(fn.Pos())
				if n := fset.Position(fn.End()).Line - at.Line + 1; n > maxFunctionLines && !declaresSchema(fn) {
					t.Errorf("%s:%d: %s is %d lines long, more than %d: split it into steps with names", at.Filename, at.Line, funcName(fn), n, maxFunctionLines)
				}
				if n := parameters(fn.Type); n > maxParameters {
					t.Errorf("%s:%d: %s takes %d parameters, more than %d: pass a request value", at.Filename, at.Line, funcName(fn), n, maxParameters)
				}
			}
		}
	}
}

// declaresSchema reports whether fn is a schema declaration: a Schema
// method, or a function whose results are schema attributes or blocks.
func declaresSchema(fn *ast.FuncDecl) bool {
	if fn.Recv != nil && fn.Name.Name == "Schema" {
		return true
	}
	if fn.Type.Results == nil {
		return false
	}
	for _, r := range fn.Type.Results.List {
		if strings.Contains(exprText(r.Type), "schema.") {
			return true
		}
	}
	return false
}

func parameters(ft *ast.FuncType) int {
	n := 0
	for _, f := range ft.Params.List {
		n += max(1, len(f.Names))
	}
	return n
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return exprText(fn.Recv.List[0].Type) + "." + fn.Name.Name
}

func exprText(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return exprText(x.X)
	case *ast.SelectorExpr:
		return exprText(x.X) + "." + x.Sel.Name
	case *ast.IndexExpr:
		return exprText(x.X)
	case *ast.IndexListExpr:
		return exprText(x.X)
	case *ast.ArrayType:
		return "[]" + exprText(x.Elt)
	case *ast.MapType:
		return "map[" + exprText(x.Key) + "]" + exprText(x.Value)
	}
	return fmt.Sprintf("%T", e)
}

// An exported name is a promise to other packages: a name only its own
// package uses is unexported, so that a reader knows it has no callers
// elsewhere. Checked for the package-level names (functions, types,
// variables, constants) of every package under internal/ but the emulator,
// against every other package of the module, tests included.
func TestExportedNamesAreUsedElsewhere(t *testing.T) {
	_, pkgs := internalPackages(t)
	uses := usesByPackage(t)
	for _, p := range pkgs {
		importPath := modulePath + "/" + filepath.ToSlash(p.dir)
		used := map[string]bool{}
		for user, names := range uses {
			if user == importPath || user == importPath+"_test" {
				continue // its own tests
			}
			for name := range names[importPath] {
				used[name] = true
			}
		}
		api := apiTypes(p, used)
		for _, name := range exportedNames(p) {
			if !used[name] && !api[name] {
				t.Errorf("%s.%s is exported, but no other package uses it: unexport it", p.dir, name)
			}
		}
	}
}

// apiTypes are the exported types of p that the names other packages use
// show them: in a function's parameters or results, a struct's exported
// fields, an interface's methods, or the methods of such a type. Another
// package handles values of them without naming them (the result of
// New, an interface it implements), so they stay exported.
func apiTypes(p *goPackage, used map[string]bool) map[string]bool {
	types := map[string]*ast.TypeSpec{}
	funcs := map[string]*ast.FuncType{}
	methods := map[string][]*ast.FuncType{}
	for _, f := range p.files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					funcs[d.Name.Name] = d.Type
				} else if len(d.Recv.List) > 0 {
					recv := exprText(d.Recv.List[0].Type)
					methods[recv] = append(methods[recv], d.Type)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if s, ok := spec.(*ast.TypeSpec); ok {
						types[s.Name.Name] = s
					}
				}
			}
		}
	}
	api := map[string]bool{}
	var mark func(n ast.Node)
	mark = func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || api[id.Name] {
				return true
			}
			spec, ok := types[id.Name]
			if !ok || !id.IsExported() {
				return true
			}
			api[id.Name] = true
			mark(exportedPart(spec.Type))
			for _, m := range methods[id.Name] {
				mark(m)
			}
			return true
		})
	}
	for name := range used {
		if ft, ok := funcs[name]; ok {
			mark(ft)
		}
		if spec, ok := types[name]; ok {
			mark(exportedPart(spec.Type))
			for _, m := range methods[name] {
				mark(m)
			}
		}
	}
	return api
}

// exportedPart is what another package sees of a type: a struct's
// exported fields, an interface's exported methods, or the type itself.
func exportedPart(t ast.Expr) ast.Node {
	var fields *ast.FieldList
	switch x := t.(type) {
	case *ast.StructType:
		fields = x.Fields
	case *ast.InterfaceType:
		fields = x.Methods
	default:
		return t
	}
	out := &ast.FieldList{}
	for _, f := range fields.List {
		if len(f.Names) == 0 || f.Names[0].IsExported() {
			out.List = append(out.List, f)
		}
	}
	return out
}

// exportedNames are the package-level exported names p declares.
func exportedNames(p *goPackage) []string {
	var names []string
	for _, f := range p.files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() && d.Name.Name != "main" {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// usesByPackage maps each package of the module (its tests' external
// packages under their own "_test" path) to the names it selects from each
// package of the module it imports.
func usesByPackage(t *testing.T) map[string]map[string]map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	uses := map[string]map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		user := modulePath + "/" + filepath.ToSlash(filepath.Dir(path))
		if strings.HasSuffix(f.Name.Name, "_test") {
			user += "_test"
		}
		if uses[user] == nil {
			uses[user] = map[string]map[string]bool{}
		}
		collectSelections(f, uses[user])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return uses
}

// collectSelections adds to into the names f selects from the module's
// packages it imports, by package path.
func collectSelections(f *ast.File, into map[string]map[string]bool) {
	local := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !strings.HasPrefix(path, modulePath+"/") {
			continue
		}
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok {
			if path, ok := local[id.Name]; ok {
				if into[path] == nil {
					into[path] = map[string]bool{}
				}
				into[path][sel.Sel.Name] = true
			}
		}
		return true
	})
}

// oracleCalls are the calls whose error a test may not throw away: the
// emulator's expected ids, a file or folder read, a decode. With its error
// dropped, a check compares with nothing (a nil list, an empty body) and
// can pass without looking.
var oracleCalls = map[string]bool{"ExpectedIDs": true, "SortedIDs": true, "ReadFile": true, "ReadDir": true, "Unmarshal": true, "Decode": true}

// No test under internal/ assigns the error of an oracle call to _.
func TestTestsKeepTheErrorsTheyDependOn(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 {
				return true
			}
			if blank, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident); !ok || blank.Name != "_" {
				return true
			}
			if call, ok := as.Rhs[0].(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && oracleCalls[sel.Sel.Name] {
					found = append(found, fmt.Sprintf("%s: the error of %s is thrown away", fset.Position(as.Pos()), sel.Sel.Name))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("tests that drop an error their check depends on (fail the test on it instead):\n  %s", strings.Join(found, "\n  "))
	}
}
