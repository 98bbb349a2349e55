package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot walks up from the test's directory to the folder holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

func TestExportedIdentifiersAreDocumented(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	pkgDoc := map[string]bool{} // dir → has a package comment
	var problems []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "league-data") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if _, seen := pkgDoc[dir]; !seen {
			pkgDoc[dir] = false
		}
		if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
			pkgDoc[dir] = true
		}
		if f.Name.Name == "main" {
			return nil // commands document themselves with their package comment
		}
		rel, _ := filepath.Rel(root, path)
		problems = append(problems, checkFile(fset, rel, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range pkgDoc {
		if !ok {
			rel, _ := filepath.Rel(root, dir)
			problems = append(problems, rel+": package has no package comment")
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func checkFile(fset *token.FileSet, rel string, f *ast.File) []string {
	var out []string
	report := func(pos token.Pos, name, what string) {
		out = append(out, rel+":"+strconv.Itoa(fset.Position(pos).Line)+": exported "+what+" "+name+" has no doc comment starting with its name")
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv != nil && !receiverExported(d.Recv) {
				continue
			}
			if !startsWith(d.Doc, d.Name.Name) {
				report(d.Pos(), d.Name.Name, "func")
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && !startsWith(s.Doc, s.Name.Name) && !startsWith(d.Doc, s.Name.Name) {
						report(s.Pos(), s.Name.Name, "type")
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						// In a group, a comment on the group documents its members.
						if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
							report(n.Pos(), n.Name, "value")
						}
					}
				}
			}
		}
	}
	return out
}

func receiverExported(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return true
		}
	}
}

func startsWith(doc *ast.CommentGroup, name string) bool {
	if doc == nil {
		return false
	}
	text := strings.TrimSpace(doc.Text())
	for _, prefix := range []string{"", "A ", "An ", "The ", "Deprecated: "} {
		if strings.HasPrefix(text, prefix+name) {
			return true
		}
	}
	return false
}
