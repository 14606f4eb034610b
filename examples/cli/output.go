package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// Text from fetched pages, provider answers and imported files goes to a
// terminal: a page title holding ESC [ 2J would clear the screen, an OSC 8
// sequence would plant a hidden hyperlink, U+202E would reverse what
// follows. Every such value is printed through clean, and JSON through
// writeJSON.

// clean returns s safe to print on a terminal: C0 controls (newline, carriage
// return and tab included), DEL, C1 controls, bidirectional controls
// (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), the line and
// paragraph separators U+2028 and U+2029, and bytes that are not UTF-8 are
// written as Go escapes (\x1b, \n, \u202e, ...). Other text is unchanged.
func clean(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafeRune(r, size):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether the rune r, encoded in size bytes, must be
// escaped by clean.
func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1: // not UTF-8
		return true
	case r < 0x20, r >= 0x7f && r <= 0x9f: // C0, DEL, C1
		return true
	case r == '\u2028', r == '\u2029':
		return true
	}
	return r > 0x9f && unicode.Is(unicode.Bidi_Control, r)
}

// writeJSON writes v as indented JSON. encoding/json escapes C0 controls
// and U+2028/U+2029 but writes DEL, C1 controls and bidirectional controls
// as they are; writeJSON escapes those too (\u009b, \u202e), which leaves
// the JSON equal in meaning.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := buf.String()
	var b *strings.Builder
	last := 0
	for i, r := range out {
		// The JSON is valid UTF-8 and its structure is ASCII, so these
		// runes are inside strings, where a \u escape means the same rune.
		if r < 0x7f || !unsafeRune(r, utf8.RuneLen(r)) {
			continue
		}
		if b == nil {
			b = &strings.Builder{}
			b.Grow(len(out) + 64)
		}
		b.WriteString(out[last:i])
		fmt.Fprintf(b, `\u%04x`, r)
		last = i + utf8.RuneLen(r)
	}
	if b != nil {
		b.WriteString(out[last:])
		out = b.String()
	}
	_, err := io.WriteString(w, out)
	return err
}

// printMore writes the line that ends a list cut at its cap, such as
// "  ... and 180 more (200 in all)", indented by indent. It writes nothing
// when t omits nothing.
func printMore(w io.Writer, indent string, t seo.Truncation) {
	if t.Omitted <= 0 {
		return
	}
	fmt.Fprintf(w, "%s... and %d more (%d in all)\n", indent, t.Omitted, t.Total)
}

// truncatedSummary returns one line naming the lists of a report that were
// cut at their caps, such as "lists cut at their caps: findings 20 of 200,
// links 500 of 3000", or "" when the report is complete.
func truncatedSummary(t seo.Truncated) string {
	cuts := t.Cuts()
	if len(cuts) == 0 {
		return ""
	}
	parts := make([]string, len(cuts))
	for i, c := range cuts {
		parts[i] = fmt.Sprintf("%s %d of %d", clean(c.Name), c.Shown, c.Total)
	}
	return "lists cut at their caps: " + strings.Join(parts, ", ")
}

// ellipsis shortens s to at most limit runes by cutting its middle, as in
// "https://ads.example/click?id=…&dest=page", so that both the host and the
// end of a long URL stay visible. A limit of 0 or less returns s whole.
func ellipsis(s string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	head := (limit - 1) / 2
	tail := limit - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
