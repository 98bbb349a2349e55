// Command viewer shows the leagues of a data root in the browser,
// read-only, once their manager has stopped (or while it runs): each
// league's course with its standings after any round, each player's
// matches and points, each match's choices, number, rule and messages.
// With -html it writes one league as a single HTML file instead, which
// opens from disk with the network off.
//
//	go run ./examples/viewer -data ./league-data                  # http://127.0.0.1:8090/
//	go run ./examples/viewer -data ./league-data -port 0          # a free port, printed
//	go run ./examples/viewer -data ./league-data -html league.html              # the last league
//	go run ./examples/viewer -data ./league-data -league <id> -html league.html
//
// Flags:
//
//	-data    the data root (./league-data), as the manager and the referees wrote it
//	-port    the port to listen on, on 127.0.0.1 (8090; 0 for a free one)
//	-addr    the address to listen on instead of 127.0.0.1:<port>
//	-html    write the league's offline file here and exit
//	-league  the league of -html (the one saved last when empty)
//
// The match pages show the referee's transcript of each match when the
// referees shared the data root with the manager (as examples/fourplayer
// runs them); otherwise they show what the manager recorded.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentleague/league/manager"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "viewer:", err)
		os.Exit(1)
	}
}

// run runs the command; listening, when not nil, is told the viewer's URL
// once it listens.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, listening func(url string)) error {
	fs := flag.NewFlagSet("viewer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "league-data", "the data root")
	port := fs.Int("port", 8090, "the port to listen on, on 127.0.0.1 (0: a free one)")
	addr := fs.String("addr", "", "the address to listen on instead of 127.0.0.1:<port>")
	out := fs.String("html", "", "write the league's offline file here and exit")
	leagueID := fs.String("league", "", "the league of -html (the one saved last when empty)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	v, err := manager.NewViewer(manager.ViewerConfig{DataRoot: *data})
	if err != nil {
		return err
	}
	if *out != "" {
		id := *leagueID
		if id == "" {
			ls, err := manager.Leagues(*data)
			if err != nil {
				return err
			}
			if len(ls) == 0 {
				return fmt.Errorf("no league under %s", *data)
			}
			id = ls[len(ls)-1].ID
		}
		if err := writeFile(*out, func(w io.Writer) error { return v.WriteHTML(ctx, w, id) }); err != nil {
			return err
		}
		info, err := os.Stat(*out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "League %s written to %s (%d bytes); it opens with no network.\n", id, *out, info.Size())
		return nil
	}
	if *addr == "" {
		*addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: v.Handler(), ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(stdout, "Leagues of %s at %s (Ctrl-C stops)\n", *data, url)
	if listening != nil {
		listening(url)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	<-errc
	return nil
}

// writeFile writes path whole or not at all: into a temporary file beside
// it, renamed over it once written and synced.
func writeFile(path string, fill func(w io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // once renamed, there is nothing left to remove
	bw := bufio.NewWriterSize(f, 1<<20)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
