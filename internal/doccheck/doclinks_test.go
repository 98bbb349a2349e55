package doccheck

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestDocLinks checks the doc comments of every package of the module (the
// package comment, every declaration's and every struct field's or
// interface method's) as go/doc reads them:
//
//   - a doc link ([Name], [pkg.Name], [Type.Method], [Type.Field],
//     [net/http.Client]) names something that exists;
//   - bracketed text that has the form of a doc link but is none (its
//     identifier is nowhere in scope) is reported, since go doc shows it
//     as brackets — in every comment, so that a comment moved to a
//     declaration keeps working;
//   - a backquoted identifier that would resolve as a doc link is one;
//   - a qualified identifier in plain text (pkg.Name, Type.Method,
//     pkg.Type.Method) that would resolve is a link where the comment
//     first names it.
//
// Code blocks, quoted strings, URLs and paths are left alone, and code
// spans that are not identifiers (flags, JSON member names, file paths,
// values) are fine as code.
func TestDocLinks(t *testing.T) {
	root := moduleRoot(t)
	w := newWorld(t, root)
	var problems []string
	checked := 0
	for _, path := range w.modulePackages {
		pi := w.pkg(path)
		if pi == nil {
			t.Fatalf("package %s not loaded", path)
		}
		for _, dc := range pi.comments {
			rel, _ := filepath.Rel(root, w.fset.Position(dc.group.Pos()).Filename)
			where := rel + ":" + strconv.Itoa(w.fset.Position(dc.group.Pos()).Line)
			for _, p := range w.check(pi, dc) {
				problems = append(problems, where+": "+p)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no comment checked")
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// world holds the packages a module's doc links may point at, loaded on
// demand from the directories the go command lists.
type world struct {
	t              *testing.T
	root           string
	fset           *token.FileSet
	modulePackages []string
	mu             sync.Mutex
	listed         map[string]listedPackage
	loaded         map[string]*pkgInfo
}

type listedPackage struct {
	dir   string
	files []string
}

// pkgInfo is a package read as go/doc reads it.
type pkgInfo struct {
	path     string
	doc      *doc.Package
	comments []docComment
}

// parser returns go/doc's doc comment parser for the package (package
// names are those it imports).
func (p *pkgInfo) parser() *comment.Parser { return p.doc.Parser() }

// docComment is one comment of a file.
type docComment struct {
	group *ast.CommentGroup
	// self is the identifier the comment documents ("" for a package
	// comment): a comment names its own subject in plain text.
	self string
	// inner is set for a comment that documents no declaration (one in a
	// function body, say): only its bracketed text is checked.
	inner bool
}

func newWorld(t *testing.T, root string) *world {
	w := &world{t: t, root: root, fset: token.NewFileSet(), listed: map[string]listedPackage{}, loaded: map[string]*pkgInfo{}}
	w.modulePackages = w.goList("./...")
	w.goList("-deps", "./...")
	return w
}

// goList runs go list in the module and records the packages it lists;
// it returns their import paths.
func (w *world) goList(args ...string) []string {
	w.t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}"}, args...)...)
	cmd.Dir = w.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || f[1] == "" {
			continue
		}
		w.listed[f[0]] = listedPackage{dir: f[1], files: strings.Fields(f[2])}
		paths = append(paths, f[0])
	}
	return paths
}

// pkg loads the package of an import path, or returns nil when there is
// none.
func (w *world) pkg(path string) *pkgInfo {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p, ok := w.loaded[path]; ok {
		return p
	}
	lp, ok := w.listed[path]
	if !ok {
		w.mu.Unlock()
		w.goList(path)
		w.mu.Lock()
		lp, ok = w.listed[path]
	}
	if !ok || len(lp.files) == 0 {
		w.loaded[path] = nil
		return nil
	}
	var files []*ast.File
	for _, name := range lp.files {
		f, err := parser.ParseFile(w.fset, filepath.Join(lp.dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			w.t.Fatal(err)
		}
		files = append(files, f)
	}
	d, err := doc.NewFromFiles(w.fset, files, path, doc.PreserveAST)
	if err != nil {
		w.t.Fatal(err)
	}
	p := &pkgInfo{path: path, doc: d}
	if strings.HasPrefix(path, "github.com/agentleague/league") {
		for _, f := range files {
			docs := docComments(f)
			isDoc := map[*ast.CommentGroup]bool{}
			for _, dc := range docs {
				isDoc[dc.group] = true
			}
			for _, g := range f.Comments {
				if !isDoc[g] {
					docs = append(docs, docComment{group: g, inner: true})
				}
			}
			p.comments = append(p.comments, docs...)
		}
	}
	w.loaded[path] = p
	return p
}

// docComments lists a file's doc comments: the package comment, each
// declaration's, and each struct field's and interface method's.
func docComments(f *ast.File) []docComment {
	var out []docComment
	add := func(g *ast.CommentGroup, self string) {
		if g != nil {
			out = append(out, docComment{group: g, self: self})
		}
	}
	add(f.Doc, "")
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			add(d.Doc, d.Name.Name)
		case *ast.GenDecl:
			self := ""
			if len(d.Specs) == 1 {
				switch s := d.Specs[0].(type) {
				case *ast.TypeSpec:
					self = s.Name.Name
				case *ast.ValueSpec:
					self = s.Names[0].Name
				}
			}
			add(d.Doc, self)
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					add(s.Doc, s.Name.Name)
					ast.Inspect(s.Type, func(n ast.Node) bool {
						if fl, ok := n.(*ast.Field); ok {
							self := ""
							if len(fl.Names) > 0 {
								self = fl.Names[0].Name
							}
							add(fl.Doc, self)
							add(fl.Comment, self)
						}
						return true
					})
				case *ast.ValueSpec:
					add(s.Doc, s.Names[0].Name)
				}
			}
		}
	}
	return out
}

var (
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	bracketed  = regexp.MustCompile(`\[(\*?[A-Za-z_][A-Za-z0-9_]*(?:[./][A-Za-z_][A-Za-z0-9_-]*)*)\]`)
	qualified  = regexp.MustCompile(`\*?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){1,2}`)
	identPath  = regexp.MustCompile(`^\*?(?:[a-z0-9_.-]+(?:/[a-z0-9_.-]+)+\.)?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2}$`)
	quoted     = regexp.MustCompile(`"[^"\n]*"`)
	urlPattern = regexp.MustCompile(`[a-z]+://\S+`)
)

// check returns what is wrong with the links of one doc comment.
func (w *world) check(pi *pkgInfo, dc docComment) []string {
	// go/doc's own parser: package names are those the package imports.
	parser := pi.parser()
	d := parser.Parse(dc.group.Text())
	var problems []string
	linked := map[string]bool{}
	var plain []string
	walkText(d.Content, func(t comment.Text) {
		switch t := t.(type) {
		case comment.Plain:
			plain = append(plain, string(t))
		case comment.Italic:
			plain = append(plain, string(t))
		case *comment.DocLink:
			linked[linkKey(t)] = true
			if !w.exists(pi, t) {
				problems = append(problems, "doc link ["+linkText(t)+"] names nothing that exists")
			}
		}
	})
	for _, s := range plain {
		for _, loc := range bracketed.FindAllStringSubmatchIndex(s, -1) {
			before, after := s[:loc[0]], s[loc[1]:]
			if !linkBoundary(before, true) || !linkBoundary(after, false) || strings.HasSuffix(before, `"`) || strings.HasPrefix(after, `"`) {
				continue
			}
			problems = append(problems, "["+s[loc[2]:loc[3]]+"] is no doc link: nothing in scope has that name")
		}
		if dc.inner {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(s, -1) {
			inner := strings.TrimSuffix(strings.TrimSpace(m[1]), "()")
			if !identPath.MatchString(inner) {
				continue
			}
			if l := w.resolve(pi, parser, inner); l != nil {
				problems = append(problems, "`"+m[1]+"` could be the doc link ["+strings.TrimSuffix(inner, "()")+"]")
			}
		}
		rest := codeSpan.ReplaceAllString(s, " ")
		rest = quoted.ReplaceAllString(rest, " ")
		rest = urlPattern.ReplaceAllString(rest, " ")
		rest = bracketed.ReplaceAllString(rest, " ")
		for _, loc := range qualified.FindAllStringIndex(rest, -1) {
			before, after := rest[:loc[0]], rest[loc[1]:]
			if strings.HasSuffix(before, "/") || strings.HasSuffix(before, ".") || strings.HasSuffix(before, "-") ||
				strings.HasPrefix(after, "/") || strings.HasPrefix(after, "-") || (strings.HasPrefix(after, ".") && len(after) > 1 && after[1] != ' ' && after[1] != '\n') {
				continue // a path, a file name or a longer chain
			}
			name := rest[loc[0]:loc[1]]
			l := w.resolve(pi, parser, name)
			if l == nil || linked[linkKey(l)] || linkKey(l) == dc.self {
				continue
			}
			linked[linkKey(l)] = true // reported once per comment
			problems = append(problems, name+" in plain text could be the doc link ["+name+"]")
		}
	}
	return problems
}

// resolve returns the doc link that "[name]" would be in pi, or nil when it
// would be none or would name nothing.
func (w *world) resolve(pi *pkgInfo, p *comment.Parser, name string) *comment.DocLink {
	d := p.Parse("[" + name + "]")
	var link *comment.DocLink
	walkText(d.Content, func(t comment.Text) {
		if l, ok := t.(*comment.DocLink); ok && link == nil {
			link = l
		}
	})
	if link == nil || !w.exists(pi, link) {
		return nil
	}
	return link
}

// exists reports whether a doc link of pi names a package, or a symbol of
// its package, that exists.
func (w *world) exists(pi *pkgInfo, l *comment.DocLink) bool {
	target := pi
	if l.ImportPath != "" {
		target = w.pkg(l.ImportPath)
	}
	if target == nil {
		return false
	}
	if l.Name == "" {
		return true
	}
	return target.parser().LookupSym(l.Recv, l.Name)
}

func linkKey(l *comment.DocLink) string {
	k := l.Name
	if l.Recv != "" {
		k = l.Recv + "." + k
	}
	if l.ImportPath != "" {
		k = l.ImportPath + "." + k
	}
	return k
}

func linkText(l *comment.DocLink) string {
	var b strings.Builder
	for _, t := range l.Text {
		if p, ok := t.(comment.Plain); ok {
			b.WriteString(string(p))
		}
	}
	return b.String()
}

// linkBoundary reports whether text beside a bracket lets go/doc read the
// brackets as a doc link: nothing, a space or a punctuation mark.
func linkBoundary(s string, before bool) bool {
	if s == "" {
		return true
	}
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s)
	} else {
		r, _ = utf8.DecodeRuneInString(s)
	}
	return r == ' ' || r == '\t' || r == '\n' || unicode.IsPunct(r)
}

// walkText calls f for every piece of text of the blocks, code blocks
// excepted.
func walkText(blocks []comment.Block, f func(comment.Text)) {
	var texts func([]comment.Text)
	texts = func(ts []comment.Text) {
		for _, t := range ts {
			f(t)
			switch t := t.(type) {
			case *comment.Link:
				texts(t.Text)
			}
		}
	}
	for _, b := range blocks {
		switch b := b.(type) {
		case *comment.Paragraph:
			texts(b.Text)
		case *comment.Heading:
			texts(b.Text)
		case *comment.List:
			for _, item := range b.Items {
				walkText(item.Content, f)
			}
		}
	}
}
