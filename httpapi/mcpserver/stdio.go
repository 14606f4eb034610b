package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxStdioLine is the longest message line Stdio reads: the SDK's own
// bound for a stdio message (mcp.DefaultMaxLineLength).
const MaxStdioLine = mcp.DefaultMaxLineLength

// JSON-RPC 2.0 error codes for a line that is not a message (JSON-RPC 2.0
// specification, section 5.1).
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// Stdio returns the transport of an MCP server over a stdio pair, as
// `cli mcp` serves: newline-delimited JSON-RPC messages read from r and
// written to w, as mcp.IOTransport carries them, with one difference. The
// SDK decodes its input as one JSON stream, which cannot go on past a
// byte that is not JSON: a single malformed line would end the session.
// Here each line is checked first, and a line that is not a JSON-RPC
// message (not JSON: -32700 parse error; JSON that decodes to no request,
// notification or response, or an empty batch: -32600 invalid request;
// longer than MaxStdioLine: -32600, read to its end without being kept)
// is answered with that error, with the line's id when it has a valid
// one and else null, as JSON-RPC 2.0 prescribes, and skipped. Blank lines are skipped.
// Writes of the SDK and of these answers are serialised, one message a
// line.
func Stdio(r io.Reader, w io.Writer) mcp.Transport {
	out := &lockedWriter{w: w}
	return &mcp.IOTransport{
		Reader: io.NopCloser(&lineFilter{br: bufio.NewReader(r), out: out, max: MaxStdioLine}),
		Writer: out,
	}
}

// lockedWriter serialises whole-message writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close does not close w: the transport's end is not the process's.
func (l *lockedWriter) Close() error { return nil }

// lineFilter yields the lines of br that are JSON-RPC messages, each with
// its newline, and answers the others on out.
type lineFilter struct {
	br      *bufio.Reader
	out     io.Writer
	max     int
	line    []byte // the line being read
	pending []byte // what is left of the message being returned
	n       int    // lines read
	err     error  // br's error, returned once pending is empty
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, over, err := f.readLine()
		f.err = err
		if over {
			f.refuse(rpcInvalidRequest, fmt.Sprintf("line %d: Invalid Request: longer than %d bytes", f.n, f.max), nil)
			continue
		}
		msg := bytes.TrimSpace(line)
		if len(msg) == 0 {
			continue
		}
		if code, why := checkMessage(msg); code != 0 {
			f.refuse(code, fmt.Sprintf("line %d: %s", f.n, why), lineID(msg))
			continue
		}
		f.pending = append(msg, '\n')
	}
	n := copy(p, f.pending)
	if f.pending = f.pending[n:]; len(f.pending) == 0 && cap(f.line) > 64<<10 {
		f.line = nil // a long line's buffer is not kept
	}
	return n, nil
}

// readLine reads the next line, without its newline, into f.line; over
// says it was longer than f.max and only read past. err is br's error
// after the line (io.EOF after a last line with no newline).
func (f *lineFilter) readLine() (line []byte, over bool, err error) {
	f.n++
	f.line = f.line[:0]
	for {
		chunk, err := f.br.ReadSlice('\n')
		if !over {
			if len(f.line)+len(chunk) > f.max+1 { // +1: the newline
				over, f.line = true, f.line[:0]
			} else {
				f.line = append(f.line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over {
			return nil, true, err
		}
		return bytes.TrimSuffix(f.line, []byte{'\n'}), false, err
	}
}

// checkMessage returns 0 when msg is a JSON-RPC message or a non-empty
// batch of them, else the JSON-RPC error code and what is wrong.
func checkMessage(msg []byte) (code int, why string) {
	if !json.Valid(msg) {
		var v any
		err := json.Unmarshal(msg, &v) // for its message
		return rpcParseError, "Parse error: not JSON: " + clip(err.Error())
	}
	if msg[0] != '[' {
		if _, err := jsonrpc.DecodeMessage(msg); err != nil {
			return rpcInvalidRequest, "Invalid Request: " + clip(err.Error())
		}
		return 0, ""
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(msg, &batch); err != nil || len(batch) == 0 {
		return rpcInvalidRequest, "Invalid Request: an empty batch"
	}
	for i, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return rpcInvalidRequest, fmt.Sprintf("Invalid Request: batch element %d: %s", i, clip(err.Error()))
		}
	}
	return 0, ""
}

// lineID returns the id of a JSON object that is not a valid message, if
// it has one JSON-RPC allows (a string or a number), else nil.
func lineID(msg []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return nil
	}
	switch m.ID.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// refuse writes a JSON-RPC error answer for the message with id (nil:
// null, when it cannot be known).
func (f *lineFilter) refuse(code int, message string, id any) {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	f.out.Write(append(b, '\n'))
}
