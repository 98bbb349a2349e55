// Package sse reads the server-sent-event streams that players built on an
// MCP SDK answer a JSON-RPC request with.
//
// Shared by leaguesdk's Client and player/playertest.
package sse

import (
	"bufio"
	"bytes"
)

// Data returns the data of the first event of a server-sent-event stream
// that carries any (its data: lines joined by newlines). Events without
// data, such as the priming events of MCP servers, are skipped.
func Data(raw []byte) []byte {
	var data [][]byte
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64<<10), len(raw)+1)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if len(bytes.TrimSpace(bytes.Join(data, nil))) > 0 {
				break
			}
			data = data[:0]
			continue
		}
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			// Copied: the scanner reuses its buffer.
			data = append(data, bytes.Clone(bytes.TrimPrefix(rest, []byte(" "))))
		}
	}
	return bytes.Join(data, []byte("\n"))
}
