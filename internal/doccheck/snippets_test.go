package doccheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestGuideSnippetsCompileTogether type-checks every Go block of
// docs/writing-a-player.md as one package, the way a reader puts them
// together: a block that starts with package is a file of its own (the
// guide's main.go and main_test.go), a block of declarations goes beside
// them, and a block of statements becomes the body of a function whose
// parameters are the names the guide's fragments take as given (ctx, call,
// league). Imports a fragment does not write are added for the module's
// public packages and the standard library's it names; in fragments alone,
// a name declared and not used is not an error.
//
// The README's player, one file, is checked the same way.
func TestGuideSnippetsCompileTogether(t *testing.T) {
	root := moduleRoot(t)
	for _, page := range []struct {
		path      string
		minBlocks int
	}{
		{filepath.Join(root, "docs", "writing-a-player.md"), 3}, // the main.go, its test and fragments
		{filepath.Join(root, "README.md"), 1},                   // the player in twenty lines
	} {
		t.Run(filepath.Base(page.path), func(t *testing.T) { checkSnippets(t, root, page.path, page.minBlocks) })
	}
}

// checkSnippets type-checks the Go blocks of the page at path together.
func checkSnippets(t *testing.T, root, path string, minBlocks int) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Base(path)
	blocks := fencedBlocks(string(b), "go")
	if len(blocks) < minBlocks {
		t.Fatalf("%s has %d Go blocks, want at least %d", path, len(blocks), minBlocks)
	}

	var files []string
	var decls, bodies []string
	var imports []string
	for _, blk := range blocks {
		code := blk.code
		switch {
		case strings.HasPrefix(code, "package "):
			files = append(files, fmt.Sprintf("//line %s:%d\n%s\n", page, blk.line, code))
		case regexp.MustCompile(`^(func|type|var|const) `).MatchString(code):
			decls = append(decls, fmt.Sprintf("//line %s:%d\n%s\n", page, blk.line, code))
		default:
			var body []string
			for i, line := range strings.Split(code, "\n") {
				if rest, ok := strings.CutPrefix(line, "import "); ok {
					imports = append(imports, strings.TrimSpace(rest))
					continue
				}
				body = append(body, fmt.Sprintf("//line %s:%d\n%s", page, blk.line+i, line))
			}
			bodies = append(bodies, strings.Join(body, "\n"))
		}
	}
	if len(files) == 0 {
		t.Fatalf("%s has no Go file (a block starting with package)", path)
	}

	var frag strings.Builder
	frag.WriteString("package main\n\n")
	for _, d := range decls {
		frag.WriteString(d)
	}
	for i, body := range bodies {
		fmt.Fprintf(&frag, "\nfunc fragment%d(ctx context.Context, call player.ParityCall, league string) {\n%s\n}\n", i, body)
	}
	fragment := addImports(t, root, frag.String(), imports, files)

	fset := token.NewFileSet()
	var parsed []*ast.File
	for i, src := range append(files, fragment) {
		name := fmt.Sprintf("snippet%d.go", i)
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatalf("the Go blocks of %s do not parse: %v\n%s", page, err, src)
		}
		parsed = append(parsed, f)
	}
	fragmentFile := fset.File(parsed[len(parsed)-1].Pos())

	var paths []string
	for _, f := range parsed {
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	exports := exportData(t, root, paths)
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(file)
		}),
		Error: func(err error) {
			te, _ := err.(types.Error)
			if te.Soft && fset.File(te.Pos) == fragmentFile {
				return // a fragment's variable it shows but does not use
			}
			t.Errorf("the Go blocks of %s do not compile together: %v", page, err)
		},
	}
	_, _ = conf.Check("main", fset, parsed, nil)
	if t.Failed() {
		for i, src := range append(files, fragment) {
			t.Logf("snippet%d.go:\n%s", i, src)
		}
	}
}

// fencedBlock is a fenced code block of a markdown page and the line its
// code starts on.
type fencedBlock struct {
	code string
	line int
}

// fencedBlocks returns the code blocks in lang of a markdown page, each
// without its last newline.
func fencedBlocks(page, lang string) []fencedBlock {
	var out []fencedBlock
	var cur []string
	in, start := false, 0
	for i, line := range strings.Split(page, "\n") {
		switch {
		case !in && line == "```"+lang:
			in, start, cur = true, i+2, nil
		case in && line == "```":
			in = false
			out = append(out, fencedBlock{code: strings.Join(cur, "\n"), line: start})
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

// addImports gives the fragment file the imports its fragments wrote and
// those of the packages it names by their package name: this module's
// public packages and a few of the standard library's.
func addImports(t *testing.T, root, src string, written []string, files []string) string {
	t.Helper()
	known := map[string]string{
		"context": "context", "errors": "errors", "fmt": "fmt", "log": "log", "slog": "log/slog",
		"os": "os", "signal": "os/signal", "testing": "testing", "time": "time", "http": "net/http",
	}
	cmd := exec.Command("go", "list", "-f", "{{.Name}} {{.ImportPath}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	ambiguous := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, path, _ := strings.Cut(line, " ")
		if strings.Contains(path, "/internal/") || strings.Contains(path, "/examples/") || name == "main" {
			continue
		}
		if _, dup := known[name]; dup {
			ambiguous[name] = true
		}
		known[name] = path
	}
	// Names the package's files declare at their top level are not packages.
	declared := map[string]bool{}
	for _, f := range files {
		pf, err := parser.ParseFile(token.NewFileSet(), "", f, 0)
		if err != nil {
			continue
		}
		for name := range pf.Scope.Objects {
			declared[name] = true
		}
	}
	imports := slices.Clone(written)
	for _, m := range regexp.MustCompile(`\b([a-z][a-z0-9]*)\.[A-Z]`).FindAllStringSubmatch(src, -1) {
		name := m[1]
		path, ok := known[name]
		if !ok || ambiguous[name] || declared[name] {
			continue
		}
		if q := strconv.Quote(path); !slices.Contains(imports, q) {
			imports = append(imports, q)
		}
	}
	for _, q := range []string{`"context"`, `"github.com/agentleague/league/player"`} { // the fragments' parameters
		if !slices.Contains(imports, q) {
			imports = append(imports, q)
		}
	}
	head, rest, _ := strings.Cut(src, "\n")
	return head + "\n\nimport (\n\t" + strings.Join(imports, "\n\t") + "\n)\n" + rest
}

// exportData builds the packages and returns the file of each package's
// export data (of them and of what they import), by import path.
func exportData(t *testing.T, root string, paths []string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-json=ImportPath,Export,Error"}, paths...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export %v: %v\n%s", paths, err, stderr.String())
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Export string
			Error              *struct{ Err string }
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Fatalf("package %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
	}
	return exports
}
