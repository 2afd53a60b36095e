package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is where a function stops fitting a screen: one that long
// does several things, which issue 36 asked to split.
const maxFuncLines = 80

// dataTables are functions that are tables of data, not steps: Redmine's
// schema and its fixed rows read best as the lists they are.
var dataTables = map[string]bool{
	"internal/workload/redmine/schema.go:tables":    true,
	"internal/workload/redmine/data.go:fixedTables": true,
}

// Every function outside tests is under maxFuncLines lines, counted from
// its func line to its closing brace (what `funlen` and golangci-lint's
// funlen count as lines).
func TestNoFunctionIsLongerThanAScreen(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines >= maxFuncLines && !dataTables[rel+":"+fn.Name.Name] {
				t.Errorf("%s: %s is %d lines (at most %d but a table of data): split it into its steps",
					fset.Position(fn.Pos()), fn.Name.Name, lines, maxFuncLines-1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
