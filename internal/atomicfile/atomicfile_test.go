package atomicfile_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/agentleague/league/internal/atomicfile"
)

type doc struct {
	Name    string   `json:"name"`
	Version int      `json:"version"`
	Items   []string `json:"items"`
}

// names returns the entries of dir, failing the test on error.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// assertOnly fails when dir holds anything but the names in want, such as
// a leftover temporary file.
func assertOnly(t *testing.T, dir string, want ...string) {
	t.Helper()
	got := names(t, dir)
	if len(got) != len(want) {
		t.Fatalf("directory holds %v, want exactly %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("directory holds %v, want exactly %v", got, want)
		}
	}
}

func TestWriteJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		rel  string
		in   doc
	}{
		{"flat", "standings.json", doc{Name: "league", Version: 1, Items: []string{"P01", "P02"}}},
		{"creates parents", "data/leagues/league_2025_even_odd/rounds.json", doc{Name: "rounds", Version: 7}},
		{"empty value", "empty.json", doc{}},
		{"unicode", "u.json", doc{Name: "zoë ✓", Items: []string{""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.rel)
			if err := atomicfile.WriteJSON(path, tt.in); err != nil {
				t.Fatalf("WriteJSON: %v", err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(string(raw), "}\n") || !strings.Contains(string(raw), "\n  \"name\"") {
				t.Errorf("file is not indented JSON with a trailing newline:\n%s", raw)
			}
			var out doc
			if err := atomicfile.ReadJSON(path, &out); err != nil {
				t.Fatalf("ReadJSON: %v", err)
			}
			if fmt.Sprint(out) != fmt.Sprint(tt.in) {
				t.Errorf("read %+v, wrote %+v", out, tt.in)
			}
			assertOnly(t, filepath.Dir(path), filepath.Base(path))
		})
	}
}

func TestWriteFilePermissions(t *testing.T) {
	tests := []struct {
		name string
		perm os.FileMode
	}{
		{"private", 0o600},
		{"shared", 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.bin")
			if err := atomicfile.WriteFile(path, []byte("x"), tt.perm); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tt.perm {
				t.Errorf("mode %v, want %v", got, tt.perm)
			}
		})
	}
}

func TestWriteFileOverwriteReplacesContentAndLeavesNoTemp(t *testing.T) {
	tests := []struct {
		name   string
		first  string
		second string
	}{
		{"longer to shorter", strings.Repeat("old ", 1000), "new"},
		{"shorter to longer", "old", strings.Repeat("new ", 1000)},
		{"to empty", "old", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			if err := atomicfile.WriteFile(path, []byte(tt.first), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := atomicfile.WriteFile(path, []byte(tt.second), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.second {
				t.Errorf("content %q, want %q", got, tt.second)
			}
			assertOnly(t, dir, "state.json")
		})
	}
}

func TestFailureLeavesOldFileAndNoTemp(t *testing.T) {
	const old = "{\n  \"version\": 1\n}\n"
	tests := []struct {
		name  string
		write func(dir string) error
		// check is the file whose previous content must survive.
		check string
	}{
		{
			name: "target is a directory",
			write: func(dir string) error {
				return atomicfile.WriteFile(filepath.Join(dir, "sub"), []byte("x"), 0o644)
			},
			check: filepath.Join("sub", "keep"),
		},
		{
			name: "value cannot be encoded",
			write: func(dir string) error {
				return atomicfile.WriteJSON(filepath.Join(dir, "state.json"), map[string]any{"c": make(chan int)})
			},
			check: "state.json",
		},
		{
			name: "parent is a file",
			write: func(dir string) error {
				return atomicfile.WriteJSON(filepath.Join(dir, "state.json", "child.json"), doc{})
			},
			check: "state.json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tt.check)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			before := names(t, dir)
			if err := tt.write(dir); err == nil {
				t.Fatal("write succeeded, want an error")
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != old {
				t.Errorf("old file changed to %q", got)
			}
			after := names(t, dir)
			if fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("directory changed from %v to %v", before, after)
			}
		})
	}
}

func TestWriteFileErrorNamesPath(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := atomicfile.WriteFile(target, []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), target) {
		t.Fatalf("error %v does not name %s", err, target)
	}
	var linkErr *os.LinkError
	if !errors.As(err, &linkErr) {
		t.Errorf("error %v does not wrap the rename error", err)
	}
}

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"name": `), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		path         string
		wantNotExist bool
		wantSyntax   bool
	}{
		{"missing file", filepath.Join(dir, "missing.json"), true, false},
		{"missing directory", filepath.Join(dir, "nope", "missing.json"), true, false},
		{"truncated document", bad, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out doc
			err := atomicfile.ReadJSON(tt.path, &out)
			if err == nil {
				t.Fatal("ReadJSON succeeded, want an error")
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.wantNotExist {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, got, tt.wantNotExist)
			}
			var syn *json.SyntaxError
			if got := errors.As(err, &syn); got != tt.wantSyntax {
				t.Errorf("errors.As(%v, *json.SyntaxError) = %v, want %v", err, got, tt.wantSyntax)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %v does not name %s", err, tt.path)
			}
		})
	}
}

func TestConcurrentWritersLeaveOneCompleteDocument(t *testing.T) {
	tests := []struct {
		name    string
		writers int
		size    int // items per document, to make torn writes likely if they could happen
	}{
		{"small documents", 20, 1},
		{"large documents", 20, 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "standings.json")
			docs := make([]doc, tt.writers)
			for i := range docs {
				docs[i] = doc{Name: fmt.Sprintf("writer-%02d", i), Version: i}
				for j := 0; j < tt.size; j++ {
					docs[i].Items = append(docs[i].Items, strings.Repeat(string(rune('a'+i%26)), i+1))
				}
			}
			valid := func(d doc) bool {
				return d.Version >= 0 && d.Version < tt.writers && fmt.Sprint(d) == fmt.Sprint(docs[d.Version])
			}

			stop := make(chan struct{})
			readerDone := make(chan error, 1)
			go func() {
				// A reader running alongside the writers sees no file yet or a
				// whole document, never a partial one.
				for {
					select {
					case <-stop:
						readerDone <- nil
						return
					default:
					}
					var d doc
					err := atomicfile.ReadJSON(path, &d)
					if errors.Is(err, fs.ErrNotExist) {
						continue
					}
					if err != nil {
						readerDone <- err
						return
					}
					if !valid(d) {
						readerDone <- fmt.Errorf("reader saw a mixed document: %s v%d", d.Name, d.Version)
						return
					}
				}
			}()

			var wg sync.WaitGroup
			errs := make(chan error, tt.writers)
			for i := range docs {
				wg.Add(1)
				go func(d doc) {
					defer wg.Done()
					errs <- atomicfile.WriteJSON(path, d)
				}(docs[i])
			}
			wg.Wait()
			close(stop)
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("WriteJSON: %v", err)
				}
			}
			if err := <-readerDone; err != nil {
				t.Errorf("concurrent reader: %v", err)
			}

			var final doc
			if err := atomicfile.ReadJSON(path, &final); err != nil {
				t.Fatalf("final file does not parse: %v", err)
			}
			if !valid(final) {
				t.Errorf("final file is not one of the written documents: %s v%d", final.Name, final.Version)
			}
			assertOnly(t, dir, "standings.json")
		})
	}
}

// Sync of many files (synced by file system where the system can) and of
// a few (file by file) both pass over files removed since they were
// written.
func TestSyncManyAndFewFiles(t *testing.T) {
	for _, n := range []int{3, 40} {
		dir := t.TempDir()
		var paths []string
		for i := range n {
			p := filepath.Join(dir, fmt.Sprintf("f%d.json", i))
			if err := atomicfile.Replace(p, []byte(`{}`), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		paths = append(paths, filepath.Join(dir, "removed.json"), filepath.Join(t.TempDir(), "gone", "x.json"))
		if err := atomicfile.Sync(paths...); err != nil {
			t.Errorf("Sync of %d files: %v", n, err)
		}
	}
}

// Stream writes what its function writes; a function that fails leaves
// the previous file as it was and no temporary file behind.
func TestStreamWritesOrLeavesThePreviousFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rounds.json")
	for _, durable := range []bool{true, false} {
		want := strings.Repeat("0123456789", 20000) // past the write buffer
		if err := atomicfile.Stream(path, 0o644, durable, func(w io.Writer) error {
			for i := 0; i < len(want); i += 1000 {
				if _, err := io.WriteString(w, want[i:i+1000]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Fatalf("durable %v: read %d bytes (%v), want %d", durable, len(got), err, len(want))
		}
	}
	boom := errors.New("boom")
	if err := atomicfile.Stream(path, 0o644, true, func(w io.Writer) error {
		_, _ = io.WriteString(w, "partial")
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Stream = %v, want the function's error", err)
	}
	if got, _ := os.ReadFile(path); len(got) != 200000 {
		t.Fatalf("the failed stream changed the file: %d bytes", len(got))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d entries in the directory, want the file alone", len(entries))
	}
}

// Rewrite leaves the newest content at the path each time, with the mode
// asked for, creates its directory when missing, and on Linux creates no
// file after the first rewrite: the sibling trades places with the file
// and is emptied, keeping no copy of the previous content.
func TestRewrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "history.json")
	for i := range 4 {
		want := fmt.Sprintf(`{"version":%d}`, i)
		if err := atomicfile.Rewrite(path, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("rewrite %d: file holds %q (%v), want %q", i, got, err, want)
		}
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("rewrite %d: mode %v (%v), want 0600", i, st.Mode().Perm(), err)
		}
		if i >= 1 && runtime.GOOS == "linux" {
			prev, err := os.ReadFile(filepath.Join(dir, ".history.json.next"))
			if err != nil || len(prev) != 0 {
				t.Fatalf("rewrite %d: the sibling holds %q (%v), want it kept and empty", i, prev, err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); n != "history.json" && n != ".history.json.next" {
			t.Errorf("left behind: %s", n)
		}
	}
}

// RewriteStream rewrites as Rewrite does, from what fill writes (more
// than its buffer holds), and a fill that fails leaves the file as it was.
func TestRewriteStreamWritesOrLeavesTheFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	path := filepath.Join(dir, "history.json")
	big := strings.Repeat("0123456789", 20_000) // 200 KB, past the buffer
	for i := range 3 {
		want := fmt.Sprintf("%d:%s", i, big)
		if err := atomicfile.RewriteStream(path, 0o600, func(w io.Writer) error {
			_, err := io.WriteString(w, want)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Fatalf("rewrite %d: file holds %d bytes (%v), want %d", i, len(got), err, len(want))
		}
	}
	failed := errors.New("fill failed")
	err := atomicfile.RewriteStream(path, 0o600, func(w io.Writer) error {
		_, _ = io.WriteString(w, "partial")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("got %v, want the fill's error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "2:"+big {
		t.Fatalf("a failed rewrite changed the file: %.20q", got)
	}
}
