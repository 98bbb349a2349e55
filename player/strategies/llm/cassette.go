package llm

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/agentleague/league/player"
)

// Cassette records a model's answers and plays them back: the first run
// against a model asks it and records each answer, keyed by what it was
// asked (the request's method, path and body: the model, the prompts,
// the settings); a later run asked the same gets the recorded answer
// without a request. An arena run on the same seed asks the same
// questions, so its rerun makes no model call, costs nothing and gives
// the same report.
//
// The cassette is a file of JSON lines, one recorded answer each,
// appended and synced as each answer comes: a run stopped half-way keeps
// what it recorded, and a line cut short by a crash is ignored when the
// file is read again. Only successful answers (HTTP 200) are recorded;
// the API key and other headers never are.
type Cassette struct {
	path string
	next http.RoundTripper

	mu      sync.Mutex
	answers map[string]recorded
	file    *os.File

	asked, played atomic.Int64
}

// recorded is one recorded answer, a line of the file.
type recorded struct {
	Key         string `json:"key"`
	ContentType string `json:"content_type,omitempty"`
	Body        string `json:"body"`
}

// OpenCassette opens the cassette at path, reading what it recorded, and
// creates it when it is missing. next carries the requests not recorded
// yet (default [http.DefaultTransport]).
func OpenCassette(path string, next http.RoundTripper) (*Cassette, error) {
	if next == nil {
		next = http.DefaultTransport
	}
	c := &Cassette{path: path, next: next, answers: map[string]recorded{}}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("llm: cassette: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r recorded
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Key != "" {
			c.answers[r.Key] = r
		}
	}
	// A last line cut short (no newline) is dropped: the next append
	// starts a line of its own.
	if len(b) > 0 && b[len(b)-1] != '\n' {
		if err := os.Truncate(path, int64(bytes.LastIndexByte(b, '\n')+1)); err != nil {
			return nil, fmt.Errorf("llm: cassette: %w", err)
		}
	}
	if c.file, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		return nil, fmt.Errorf("llm: cassette: %w", err)
	}
	return c, nil
}

// Close closes the cassette's file.
func (c *Cassette) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return nil
	}
	err := c.file.Close()
	c.file = nil
	return err
}

// Client returns an HTTP client whose requests go through the cassette,
// for [Options].HTTPClient.
func (c *Cassette) Client() *http.Client { return &http.Client{Transport: c} }

// Asked counts the requests that went to the model.
func (c *Cassette) Asked() int64 { return c.asked.Load() }

// Played counts the requests the cassette answered from its recording.
func (c *Cassette) Played() int64 { return c.played.Load() }

// key is what identifies a request: its method, path, query and body.
func key(r *http.Request, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s?%s\n", r.Method, r.URL.Path, r.URL.RawQuery)
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// RoundTrip implements [http.RoundTripper]: the recorded answer of the
// request, or the model's, recorded.
func (c *Cassette) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		_ = r.Body.Close()
	}
	k := key(r, body)
	c.mu.Lock()
	rec, ok := c.answers[k]
	c.mu.Unlock()
	if ok {
		c.played.Add(1)
		h := http.Header{}
		if rec.ContentType != "" {
			h.Set("Content-Type", rec.ContentType)
		}
		h.Set("Content-Length", strconv.Itoa(len(rec.Body)))
		return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: h, Body: io.NopCloser(bytes.NewReader([]byte(rec.Body))), ContentLength: int64(len(rec.Body)), Request: r}, nil
	}
	out := r.Clone(r.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	c.asked.Add(1)
	resp, err := c.next.RoundTrip(out)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	answer, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	rec = recorded{Key: k, ContentType: resp.Header.Get("Content-Type"), Body: string(answer)}
	if err := c.record(rec); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	resp.ContentLength = int64(len(answer))
	return resp, nil
}

// record appends rec to the file, synced, and keeps it.
func (c *Cassette) record(rec recorded) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return errors.New("llm: cassette closed")
	}
	if _, err := c.file.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("llm: cassette: %w", err)
	}
	if err := c.file.Sync(); err != nil {
		return fmt.Errorf("llm: cassette: %w", err)
	}
	c.answers[rec.Key] = rec
	return nil
}

// WithClient sets the HTTP client of a model strategy of this package
// (a *[Chat] or *[Gemini]) that has none, before its first call, and
// returns it; other strategies are returned as they are. With a
// [Cassette]'s Client, the strategy's answers are recorded and played
// back.
func WithClient(s player.Strategy, client *http.Client) player.Strategy {
	switch m := s.(type) {
	case *Chat:
		if m.HTTPClient == nil {
			m.HTTPClient = client
		}
	case *Gemini:
		if m.HTTPClient == nil {
			m.HTTPClient = client
		}
	}
	return s
}
