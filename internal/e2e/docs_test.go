package e2e

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/agentleague/league/leaguesdk"
)

// TestMarkdownLinksResolve checks that every relative link of the pages at
// the repository's root (README, CHANGELOG, CONTRIBUTING, SECURITY) and of
// docs/ names a file that exists and, for a link into a markdown file with
// a #fragment, a heading of that file.
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
	top, err := filepath.Glob(filepath.Join(root, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(append(pages, more...), top...)

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

// TestPagesNameTestsThatExist checks that every test, benchmark and fuzz
// target SECURITY.md and CONTRIBUTING.md name (`TestX`, `BenchmarkX`,
// `FuzzX`) is a function of a test file of the repository: a promise
// points at the test that holds it.
func TestPagesNameTestsThatExist(t *testing.T) {
	root := moduleRoot(t)
	funcs := map[string]bool{}
	decl := regexp.MustCompile(`^func ((?:Test|Benchmark|Fuzz)[A-Za-z0-9_]*)\(`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if m := decl.FindStringSubmatch(sc.Text()); m != nil {
				funcs[m[1]] = true
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)`")
	for _, page := range []string{"SECURITY.md", "CONTRIBUTING.md"} {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			n++
			if !funcs[m[1]] {
				t.Errorf("%s names %s, which no test file defines", page, m[1])
			}
		}
		if page == "SECURITY.md" && n == 0 {
			t.Errorf("%s names no test", page)
		}
	}
}

// TestChangelogIsAtTheModuleVersion checks that CHANGELOG.md opens with its
// Unreleased section and that its latest version is leaguesdk.Version: the
// version a release commit sets is the one its CHANGELOG describes.
func TestChangelogIsAtTheModuleVersion(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`(?m)^## \[([^\]]+)\]`)
	hs := heading.FindAllStringSubmatch(string(b), -1)
	if len(hs) < 2 || hs[0][1] != "Unreleased" {
		t.Fatalf("CHANGELOG.md's sections are %v, want Unreleased and then the versions", hs)
	}
	if hs[1][1] != leaguesdk.Version {
		t.Errorf("CHANGELOG.md's latest version is %s, leaguesdk.Version is %s", hs[1][1], leaguesdk.Version)
	}
}
