package player_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/player"
)

// The agents' HTTP server with callers that do not play by the rules, over
// raw TCP to a running player: what net/http promises is what they get.

// hostAddr returns the host:port of a running agent.
func hostAddr(t *testing.T, a *player.Agent) string {
	t.Helper()
	u := a.Endpoint()
	u = strings.TrimPrefix(u, "http://")
	return strings.TrimSuffix(u, "/mcp")
}

const pingBody = `{"jsonrpc":"2.0","id":7,"method":"ping"}`

func pingRequest(host string) string {
	return "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(pingBody)) + "\r\n\r\n" + pingBody
}

// A request declaring a body over the limit is answered 413 as soon as
// its head is read, before any of the body is sent, and the connection is
// then closed rather than left waiting for a body nobody reads.
func TestDeclaredBodyOverTheLimitIsAnswered413AtOnce(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	host := hostAddr(t, a)
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nContent-Length: 2097152\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a head declaring 2 MiB, with no body sent: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
	if !resp.Close {
		t.Errorf("answer without Connection: close (headers %v)", resp.Header)
	}
}

// A caller that sends its request and then half-closes its side of the
// connection (shutdown(SHUT_WR)) still gets its answer, every time.
func TestHalfCloseAfterTheBodyStillGetsTheAnswer(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	host := hostAddr(t, a)
	for i := range 20 {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, pingRequest(host)); err != nil {
			t.Fatal(err)
		}
		if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			conn.Close()
			t.Fatalf("try %d: no answer after a half-close: %v", i+1, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		conn.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"id":7`)) || !bytes.Contains(body, []byte(`"result"`)) {
			t.Fatalf("try %d: status %d, body %q, %v", i+1, resp.StatusCode, body, err)
		}
	}
}

// A body trickling in a byte at a time is cut off once BodyTimeout has
// passed, while other callers are served all along.
func TestTricklingBodyIsCutOffWhileOthersAreServed(t *testing.T) {
	const bodyTimeout = 400 * time.Millisecond
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL, BodyTimeout: bodyTimeout})
	host := hostAddr(t, a)

	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		// The server's end of the connection: an answer, then EOF, or a
		// reset. Either way the read returns once the server is done.
		_ = conn.SetReadDeadline(time.Now().Add(20 * bodyTimeout))
		_, _ = io.Copy(io.Discard, conn)
		closed <- time.Since(start)
	}()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() { // the trickle: a byte every 20 ms, for as long as it can
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range 1000 {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	})
	served := 0
	var took time.Duration
wait:
	for {
		select {
		case took = <-closed:
			break wait
		default:
		}
		resp, err := http.Post("http://"+host+"/mcp", "application/json", strings.NewReader(pingBody))
		if err != nil {
			t.Fatalf("another caller while the body trickles in: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("another caller while the body trickles in: status %d", resp.StatusCode)
		}
		served++
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if took < bodyTimeout || took > 10*bodyTimeout {
		t.Errorf("trickling connection ended after %v, want about BodyTimeout (%v)", took, bodyTimeout)
	}
	if served == 0 {
		t.Error("no other caller was served while the body trickled in")
	}
}
