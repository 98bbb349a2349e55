package e2e

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/player"
)

// newcomerMain is the program a newcomer writes: a module of its own that
// depends on this one and uses only its public API. Its strategy is a type
// of its own that also learns from results.
const newcomerMain = `package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// mirror plays the parity its opponent chose least, and counts what it learns.
type mirror struct {
	mu      sync.Mutex
	learned int
}

func (m *mirror) ChooseParity(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
	if c.History.Against(c.OpponentID).OpponentMostly() == leaguesdk.Odd {
		return leaguesdk.Even, nil
	}
	return leaguesdk.Odd, nil
}

func (m *mirror) Learn(ctx context.Context, r player.MatchRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.learned++
	fmt.Printf("learned %s %s\n", r.MatchID, r.Result)
}

func main() {
	league := flag.String("league", "http://127.0.0.1:8000/mcp", "the league manager's endpoint")
	addr := flag.String("addr", "127.0.0.1:8101", "listen address (port 0: any free port)")
	data := flag.String("data", "./league-data", "data root")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	a, err := player.New(player.Config{Name: "Newcomer", League: *league, Listener: ln, DataRoot: *data, Strategy: &mirror{}})
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		<-a.Registered()
		fmt.Printf("registered as %s\n", a.ID())
	}()
	if err := a.Run(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("stopped")
}
`

// goBlock returns the first Go code block after the line heading in the
// markdown file at path.
func goBlock(t *testing.T, path, heading string) []byte {
	t.Helper()
	return []byte(codeBlock(t, path, heading, "go") + "\n")
}

// shBlock returns the lines of the first shell block after the line
// heading in the markdown file at path.
func shBlock(t *testing.T, path, heading string) []string {
	t.Helper()
	return strings.Split(codeBlock(t, path, heading, "sh"), "\n")
}

// codeBlock returns the first code block in lang after the line heading in
// the markdown file at path, without its last newline.
func codeBlock(t *testing.T, path, heading, lang string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no %q section", path, heading)
	}
	text = text[i:]
	start := strings.Index(text, "```"+lang+"\n")
	if start < 0 {
		t.Fatalf("%s: no %s block after %q", path, lang, heading)
	}
	text = text[start+len("```"+lang+"\n"):]
	end := strings.Index(text, "\n```")
	if end < 0 {
		t.Fatalf("%s: unterminated %s block after %q", path, lang, heading)
	}
	return text[:end]
}

// TestSmallestPlayersImportOnlyPlayer checks that the README's player and
// the guide's need no package of this module but player: what a strategy
// returns is reachable from it.
func TestSmallestPlayersImportOnlyPlayer(t *testing.T) {
	root := moduleRoot(t)
	for _, doc := range []struct{ path, heading string }{
		{filepath.Join(root, "README.md"), "## A player in twenty lines"},
		{filepath.Join(root, "docs", "writing-a-player.md"), "## The smallest player"},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), doc.path, goBlock(t, doc.path, doc.heading), parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", doc.path, err)
		}
		var ours []string
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/agentleague/league") {
				ours = append(ours, p)
			}
		}
		if len(ours) != 1 || ours[0] != "github.com/agentleague/league/player" {
			t.Errorf("%s (%s) imports %v of this module, want only the player package", doc.path, doc.heading, ours)
		}
	}
}

// TestReadmePlayerIsTwentyLines: the README's "A player in twenty lines"
// holds at most twenty lines of code (blank lines, the package clause and
// the imports aside), and stops cleanly on Ctrl-C: its Run's context is
// one that signal.NotifyContext makes.
func TestReadmePlayerIsTwentyLines(t *testing.T) {
	src := string(goBlock(t, filepath.Join(moduleRoot(t), "README.md"), "## A player in twenty lines"))
	n, imports := 0, false
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "import (":
			imports = true
		case imports:
			imports = trimmed != ")"
		case trimmed != "" && !strings.HasPrefix(trimmed, "package ") && !strings.HasPrefix(trimmed, "import "):
			n++
		}
	}
	if n > 20 {
		t.Errorf("the README's player in twenty lines has %d lines of code", n)
	}
	if !strings.Contains(src, "signal.NotifyContext(") || strings.Contains(src, "Run(context.Background())") {
		t.Errorf("the README's player does not run with a context that Ctrl-C ends:\n%s", src)
	}
}

// moduleRoot is the folder holding this module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside a module")
	}
	return filepath.Dir(gomod)
}

// TestNewcomerModulePlaysALeague writes a player as a separate module in a
// temporary folder (with a replace directive to this checkout), builds it
// with the go command, and plays it in a full league against this module's
// manager, referee and three players.
func TestNewcomerModulePlaysALeague(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program; skipped in -short mode")
	}
	if runtime.GOOS == "windows" {
		t.Skip("stops the program with an interrupt signal")
	}
	root := moduleRoot(t)
	dir := t.TempDir()
	files := map[string][]byte{
		"main.go": []byte(newcomerMain),
		// The README's player and the guide's must build as they are.
		"readme/main.go": goBlock(t, filepath.Join(root, "README.md"), "## A player in twenty lines"),
		"guide/main.go":  goBlock(t, filepath.Join(root, "docs", "writing-a-player.md"), "## The smallest player"),
	}
	// The module is made by the README's commands for a module before the
	// first release, the clone being this checkout.
	makeModule(t, dir, shBlock(t, filepath.Join(root, "README.md"), "## Before the first release"), files)
	bin := filepath.Join(dir, "newcomer")
	goCmd(t, dir, "vet", "./...")
	goCmd(t, dir, "build", "-o", bin, ".")

	l := newLeague(t, 4)
	l.addReferees(1)
	var ours []*player.Agent
	for i := range 3 {
		ours = append(ours, l.addPlayer(fmt.Sprintf("House Player %d", i+1), player.Random(nil)))
	}

	cmd := exec.Command(bin, "-league", l.url(), "-addr", "127.0.0.1:0", "-data", t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})

	l.await(l.mgr.Done(), "the league to complete")

	// The newcomer played every other player once.
	var newcomerID string
	for _, row := range l.mgr.Standings() {
		if row.DisplayName == "Newcomer" {
			newcomerID = row.PlayerID
			if row.Played != 3 {
				t.Errorf("the newcomer played %d matches, want 3: %+v", row.Played, row)
			}
		}
	}
	if newcomerID == "" {
		t.Fatalf("the newcomer is not in the standings: %+v", l.mgr.Standings())
	}
	for _, a := range ours {
		if got := a.History().Against(newcomerID).Len(); got != 1 {
			t.Errorf("%s played the newcomer %d times, want 1", a.ID(), got)
		}
	}
	if champ := l.mgr.Champion(); champ == nil {
		t.Error("no champion")
	}

	// Interrupted, it stops cleanly, having said what it did.
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var out []string
	timeout := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case line, ok := <-lines:
			if ok {
				out = append(out, line)
			}
			done = !ok
		case <-timeout:
			t.Fatalf("the newcomer did not stop; it printed:\n%s\n%s", strings.Join(out, "\n"), stderr.String())
		}
	}
	if err := <-exited; err != nil {
		t.Fatalf("the newcomer exited with %v; it printed:\n%s\n%s", err, strings.Join(out, "\n"), stderr.String())
	}
	all := strings.Join(out, "\n")
	for _, want := range []string{"listening on 127.0.0.1:", "registered as " + newcomerID, "stopped"} {
		if !strings.Contains(all, want) {
			t.Errorf("the newcomer's output lacks %q:\n%s", want, all)
		}
	}
	if got := strings.Count(all, "learned R"); got != 3 {
		t.Errorf("the newcomer's strategy learned %d results, want 3:\n%s", got, all)
	}
}

// TestGuideModuleBeforeTheFirstRelease runs the commands of the guide's
// "Before the first release" in a folder of its own, with the guide's
// smallest player as its main.go: the module they make builds.
func TestGuideModuleBeforeTheFirstRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program; skipped in -short mode")
	}
	root := moduleRoot(t)
	guide := filepath.Join(root, "docs", "writing-a-player.md")
	dir := t.TempDir()
	makeModule(t, dir, shBlock(t, guide, "## Before the first release"),
		map[string][]byte{"main.go": goBlock(t, guide, "## The smallest player")})
	goCmd(t, dir, "vet", "./...")
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "github.com/agentleague/league v0.0.0-00010101000000-000000000000") {
		t.Errorf("go.mod after the guide's commands:\n%s", b)
	}
}

// makeModule follows the commands of a document in dir as a newcomer
// would, this checkout standing for the clone (../league): the clone, the
// folder and go run are the test's own, the go mod commands run as
// written, and files (with this module's go.sum, so that neither the
// network nor the checksum database is needed) are written before go mod
// tidy. A command it does not know fails the test, so that the document
// says nothing the test does not do.
func makeModule(t *testing.T, dir string, commands []string, files map[string][]byte) {
	t.Helper()
	root := moduleRoot(t)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = sum
	tidied := false
	for _, line := range commands {
		words := strings.Fields(line)
		switch {
		case len(words) == 0 || words[0] == "#",
			words[0] == "git" && len(words) > 1 && words[1] == "clone",
			slices.Equal(words, strings.Fields("mkdir myplayer && cd myplayer")),
			slices.Equal(words, []string{"go", "run", "."}):
		case len(words) > 2 && words[0] == "go" && words[1] == "mod":
			if words[2] == "tidy" {
				writeFiles(t, dir, files)
				tidied = true
			}
			for i, w := range words {
				words[i] = strings.ReplaceAll(w, "=../league", "="+root)
			}
			goCmd(t, dir, words[1:]...)
		case slices.Equal(words, []string{"go", "build", "./..."}):
			goCmd(t, dir, words[1:]...)
		default:
			t.Fatalf("the document's command %q is not one the test knows", line)
		}
	}
	if !tidied {
		t.Fatal("the document's commands do not run go mod tidy")
	}
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goCmd runs the go command in dir, offline, and fails the test if it fails.
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS="+os.Getenv("GOFLAGS")+" -mod=mod", "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in the newcomer's module: %v\n%s", strings.Join(args, " "), err, out)
	}
}
