package agentkit

import (
	"bytes"
	"os"
	"sync"
)

// maxPendingLog bounds what a PendingLog holds before its file opens.
const maxPendingLog = 1 << 20

// PendingLog is the log file of an agent whose id is known only once the
// manager has registered it. Lines written before Open are held in memory
// (up to 1 MiB; later ones are dropped) and written first when the file
// opens. It is safe for concurrent use; the zero value is ready.
type PendingLog struct {
	mu      sync.Mutex
	pending bytes.Buffer
	f       *os.File
}

// Write holds b until the file is open, then appends to the file.
func (p *PendingLog) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		if p.pending.Len()+len(b) <= maxPendingLog {
			p.pending.Write(b)
		}
		return len(b), nil
	}
	return p.f.Write(b)
}

// Open opens the agent's log, dataRoot/logs/agents/<agentID>.log.jsonl (see
// OpenAgentLog), and writes the lines held so far to it. Opening a log that
// is open already does nothing.
func (p *PendingLog) Open(dataRoot, agentID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f != nil {
		return nil
	}
	f, err := OpenAgentLog(dataRoot, agentID)
	if err != nil {
		return err
	}
	_, err = f.Write(p.pending.Bytes())
	p.pending = bytes.Buffer{}
	p.f = f
	return err
}

// Close closes the file, if it was opened.
func (p *PendingLog) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return nil
	}
	err := p.f.Close()
	p.f = nil
	return err
}
