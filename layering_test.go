package main

import (
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// referencesInCycles is, per package, how many of its file-to-file
// references may lie on a cycle: a file using a name that a second file
// declares, which (through others, perhaps) uses a name of the first. A
// package without such cycles reads bottom up, each file needing only the
// files below it; every reference in a cycle is one a newcomer has to
// jump back for. A method call counts as a use of the file that declares
// the method. The transport, the engine and the provider have none; the
// others may lose theirs but not gain more.
var referencesInCycles = map[string]int{
	"internal/listing":   0,
	"internal/provider":  0,
	"internal/cache":     4,
	"internal/client":    0,
	"internal/commerce":  19,
	"internal/liststate": 2,
	"internal/refresh":   2,
}

// TestFilesReadBottomUp holds each package's references between its files
// to referencesInCycles (0 for a package it does not name).
func TestFilesReadBottomUp(t *testing.T) {
	_, pkgs := internalPackages(t)
	calls := methodCalls(t)
	for _, p := range pkgs {
		dir := filepath.ToSlash(p.dir)
		edges := fileReferences(p)
		for from, tos := range calls[dir] {
			for to, names := range tos {
				if edges[from] == nil {
					edges[from] = map[string][]string{}
				}
				edges[from][to] = append(edges[from][to], names...)
			}
		}
		cyclic := referencesOnCycles(edges)
		if limit := referencesInCycles[dir]; len(cyclic) > limit {
			t.Errorf("%s: %d references between its files lie on a cycle, more than %d: a file uses a name of a file that "+
				"(through others, perhaps) uses one of its own, so the package no longer reads bottom up. Move the name to the "+
				"file below both, or the user above. The references:\n%s", dir, len(cyclic), limit, strings.Join(cyclic, "\n"))
		}
	}
}

// fileReferences maps each file of p to the files whose package-level
// names it uses (funcs, types, vars and consts; a method defined on a type
// of another file names that type), and says which names. Method calls
// are added by methodCalls, which needs the types.
func fileReferences(p *goPackage) map[string]map[string][]string {
	declaredIn := map[string]string{}
	for path, f := range p.files {
		for _, name := range packageLevelNames(f) {
			declaredIn[name] = path
		}
	}
	out := map[string]map[string][]string{}
	for path, f := range p.files {
		uses := map[string][]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				// x.Name: only x can be one of this package's names.
				ast.Inspect(n.X, func(m ast.Node) bool { noteUse(m, path, declaredIn, uses); return true })
				return false
			case *ast.File:
				return true
			}
			noteUse(n, path, declaredIn, uses)
			return true
		})
		out[path] = uses
	}
	return out
}

func noteUse(n ast.Node, path string, declaredIn map[string]string, uses map[string][]string) {
	id, ok := n.(*ast.Ident)
	if !ok {
		return
	}
	if other, ok := declaredIn[id.Name]; ok && other != path && !slices.Contains(uses[other], id.Name) {
		uses[other] = append(uses[other], id.Name)
	}
}

// packageLevelNames are the names f declares at package level, methods
// aside.
func packageLevelNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

// methodCalls maps, per package directory, each file to the files that
// declare the methods it calls or takes as values (x.m, T.m), and says
// which ("T.m"): a call of a method declared in a file above runs back up
// as much as a use of a name does, but only the types can tell whose
// method x.m is.
func methodCalls(t *testing.T) map[string]map[string]map[string][]string {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, "./internal/...")
	if err != nil {
		t.Fatal(err)
	}
	// A package that failed to load or type-check has no selections to
	// count: its calls would pass unseen.
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			t.Errorf("loading %s: %v", p.PkgPath, e)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel := func(name string) string {
		r, err := filepath.Rel(wd, name)
		if err != nil {
			return name
		}
		return filepath.ToSlash(r)
	}
	out := map[string]map[string]map[string][]string{}
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			from := rel(p.Fset.File(f.Pos()).Name())
			dir := path.Dir(from)
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				s, ok := p.TypesInfo.Selections[sel]
				if !ok || s.Kind() == types.FieldVal || s.Obj().Pkg() != p.Types {
					return true
				}
				to := rel(p.Fset.File(s.Obj().Pos()).Name())
				if to == from {
					return true
				}
				name := types.TypeString(s.Recv(), types.RelativeTo(p.Types)) + "." + s.Obj().Name()
				if out[dir] == nil {
					out[dir] = map[string]map[string][]string{}
				}
				if out[dir][from] == nil {
					out[dir][from] = map[string][]string{}
				}
				if !slices.Contains(out[dir][from][to], name) {
					out[dir][from][to] = append(out[dir][from][to], name)
				}
				return true
			})
		}
	}
	return out
}

// referencesOnCycles lists the references (file -> file: names) whose two
// files are in one strongly connected component of edges.
func referencesOnCycles(edges map[string]map[string][]string) []string {
	component := stronglyConnected(edges)
	var out []string
	for from, tos := range edges {
		for to, names := range tos {
			if component[from] == component[to] {
				out = append(out, fmt.Sprintf("  %s -> %s (%s)", filepath.Base(from), filepath.Base(to), strings.Join(names, ", ")))
			}
		}
	}
	sort.Strings(out)
	return out
}

// stronglyConnected numbers the strongly connected components of edges
// (Tarjan's algorithm).
func stronglyConnected(edges map[string]map[string][]string) map[string]int {
	var (
		index, low = map[string]int{}, map[string]int{}
		onStack    = map[string]bool{}
		stack      []string
		component  = map[string]int{}
		next, comp int
		visit      func(v string)
	)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for w := range edges[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				component[w] = comp
				if w == v {
					break
				}
			}
			comp++
		}
	}
	files := make([]string, 0, len(edges))
	for f := range edges {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	return component
}
