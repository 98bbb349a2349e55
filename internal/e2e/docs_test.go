package e2e

import (
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestMarkdownLinksResolve checks that every relative link of the README
// and of docs/ names a file that exists and, for a link into a markdown
// file with a #fragment, a heading of that file.
func TestMarkdownLinksResolve(t *testing.T) {
	root := moduleRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(append(pages, more...), filepath.Join(root, "README.md"))

	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range link.FindAllStringSubmatch(stripCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which does not exist", rel, target)
					continue
				}
			}
			if fragment != "" && strings.HasSuffix(path, ".md") && !hasHeading(t, path, fragment) {
				t.Errorf("%s links to %s, but that page has no such heading", rel, target)
			}
		}
	}
}

// stripCode removes fenced code blocks, whose brackets are not links.
func stripCode(s string) string {
	var out strings.Builder
	in := false
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			out.WriteString(line)
		}
	}
	return out.String()
}

// hasHeading reports whether the markdown file has a heading whose anchor,
// as GitHub makes it, is fragment.
func hasHeading(t *testing.T, path, fragment string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(stripCode(string(b)), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		if slug(title) == fragment {
			return true
		}
	}
	return false
}

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces turned into hyphens.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestGoDocLinksResolve checks the doc comments of every package of the
// module: a [Name] that looks like a doc link must be one, naming a symbol
// of the package, a method, or a symbol of an imported package, so that
// pkg.go.dev renders it as a link.
func TestGoDocLinksResolve(t *testing.T) {
	root := moduleRoot(t)
	candidate := regexp.MustCompile(`\[\*?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}\]`)
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		pkgs := map[string][]*ast.File{} // by package name
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(path, name), nil, parser.ParseComments)
			if err != nil {
				return err
			}
			pkgs[f.Name.Name] = append(pkgs[f.Name.Name], f)
		}
		for pkgName, files := range pkgs {
			dp, err := doc.NewFromFiles(fset, files, "example.com/"+pkgName, doc.PreserveAST)
			if err != nil {
				return err
			}
			p := dp.Parser()
			for _, f := range files {
				for _, group := range f.Comments {
					checked++
					for _, bad := range unresolved(p.Parse(group.Text()), candidate) {
						t.Errorf("%s: %s in a doc comment is not a doc link (no such symbol)", fset.Position(group.Pos()), bad)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no comment checked")
	}
}

// unresolved returns the link-shaped texts of d that the parser left as
// plain text.
func unresolved(d *comment.Doc, candidate *regexp.Regexp) []string {
	var out []string
	var walk func([]comment.Text)
	walk = func(ts []comment.Text) {
		for _, t := range ts {
			switch t := t.(type) {
			case comment.Plain:
				out = append(out, candidate.FindAllString(string(t), -1)...)
			case comment.Italic:
				out = append(out, candidate.FindAllString(string(t), -1)...)
			case *comment.Link:
				walk(t.Text)
			}
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			walk(b.Text)
		case *comment.Heading:
			walk(b.Text)
		case *comment.List:
			for _, item := range b.Items {
				for _, c := range item.Content {
					if para, ok := c.(*comment.Paragraph); ok {
						walk(para.Text)
					}
				}
			}
		}
	}
	return out
}
