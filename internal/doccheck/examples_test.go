package doccheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExamplesUseOnlyThePublicAPI checks that no file under examples/ (tests
// included) imports a package of the module's internal/ tree: the examples
// show what a user of the module can write.
func TestExamplesUseOnlyThePublicAPI(t *testing.T) {
	const internal = "github.com/agentleague/league/internal"
	root := filepath.Join(moduleRoot(t), "examples")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if p == internal || strings.HasPrefix(p, internal+"/") {
				rel, _ := filepath.Rel(moduleRoot(t), path)
				t.Errorf("%s imports %s: examples may use only the public packages", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no Go files under %s", root)
	}
}
