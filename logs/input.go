package logs

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Input is one log to read: a name for the report and errors, and how to
// open it. Gzip is detected by its magic bytes, so a .gz file and standard
// input piped from zcat both work.
type Input struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// File returns the log file at path as an Input ("-" is standard input).
func File(path string) Input {
	if path == "-" {
		return Reader("stdin", os.Stdin)
	}
	return Input{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// Reader returns r as an Input read once.
func Reader(name string, r io.Reader) Input {
	return Input{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}
}

// countingReader counts the bytes read from the underlying input (before
// decompression), for progress.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// openLines returns a buffered reader of the decompressed input.
func openLines(rc io.Reader, counter *int64) (*bufio.Reader, io.Closer, error) {
	br := bufio.NewReaderSize(countingReader{rc, counter}, 64<<10)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("logs: gzip: %w", err)
		}
		return bufio.NewReaderSize(zr, 64<<10), zr, nil
	}
	return br, io.NopCloser(nil), nil
}

// errLineTooLong reports a line longer than the cap; the reader skipped
// the rest of it.
var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its end, at most max bytes; a
// longer line is skipped to its end (never buffered whole, ctx checked
// every 64 MiB) and reported with errLineTooLong. It returns io.EOF after
// the last line.
func readLine(ctx context.Context, br *bufio.Reader, max int, scratch *[]byte) (string, error) {
	*scratch = (*scratch)[:0]
	for {
		frag, err := br.ReadSlice('\n')
		if len(*scratch)+len(frag) > max+1 { // +1: the newline
			for n := 0; err == bufio.ErrBufferFull; n++ {
				if n%1024 == 1023 && ctx.Err() != nil {
					return "", ctx.Err()
				}
				_, err = br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return "", err
			}
			return "", errLineTooLong
		}
		*scratch = append(*scratch, frag...)
		switch err {
		case nil:
			return string(bytes.TrimRight(*scratch, "\r\n")), nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(*scratch) == 0 {
				return "", io.EOF
			}
			return string(bytes.TrimRight(*scratch, "\r\n")), nil
		default:
			return "", err
		}
	}
}

// Sniff guesses the format of a log from its first lines: JSON lines,
// W3C extended, vhost combined, combined or common. It returns FormatAuto
// when no format parses most of them.
func Sniff(lines []string) (Format, string) {
	var nonEmpty []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			nonEmpty = append(nonEmpty, l)
		}
	}
	if len(nonEmpty) == 0 {
		return FormatAuto, ""
	}
	first := strings.TrimSpace(nonEmpty[0])
	switch {
	case strings.HasPrefix(first, "{"):
		return FormatJSON, ""
	case strings.HasPrefix(first, "#Software:") || strings.HasPrefix(first, "#Version:") || strings.HasPrefix(first, "#Fields:"):
		return FormatW3C, ""
	}
	best, bestFmt, bestN := FormatAuto, "", 0
	for _, c := range []struct {
		f   Format
		str string
	}{{FormatCombined, CombinedFormat}, {FormatCombined, VhostCombinedFormat}, {FormatCommon, CommonFormat}} {
		p, _ := NewNginxParser(c.str)
		var e Entry
		n := 0
		for _, l := range nonEmpty {
			if ok, err := p.Parse(l, &e); ok && err == nil {
				n++
			}
		}
		if n > bestN {
			best, bestFmt, bestN = c.f, c.str, n
		}
	}
	if bestN*2 < len(nonEmpty) {
		return FormatAuto, ""
	}
	return best, bestFmt
}
