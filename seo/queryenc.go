package seo

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
)

// EncodeQuery returns ref with the non-ASCII characters of its query
// percent-encoded in the document encoding enc, as browsers encode the
// query of a URL written in a page of a legacy encoding (windows-1252,
// Shift_JIS, GBK ...): the URL Standard's query state percent-encodes it
// "after encoding" in the document's encoding for http(s) URLs, while the
// path and fragment are always UTF-8
// (https://url.spec.whatwg.org/#query-state,
// https://url.spec.whatwg.org/#string-percent-encode-after-encoding,
// https://html.spec.whatwg.org/multipage/urls-and-fetching.html#encoding-parsing-a-url).
// A character enc cannot encode becomes "%26%23" + its decimal code point
// + "%3B", as the Standard writes it. The result, resolved as a UTF-8
// reference (ASCII passes through the resolver's query encoding
// unchanged), is the URL the browser requests. enc must fail on the
// characters it cannot encode, as the encodings of
// golang.org/x/text/encoding/htmlindex do (not those of
// golang.org/x/net/html/charset, which write them as character
// references).
//
// ref is returned as it is when enc is nil (a UTF-8 document), when its
// query is ASCII (almost always: a query written percent-encoded keeps its
// escapes) or when it names a scheme other than http or https, whose
// queries the Standard keeps in UTF-8.
func EncodeQuery(ref string, enc encoding.Encoding) string {
	if enc == nil {
		return ref
	}
	q := strings.IndexByte(ref, '?')
	if q < 0 {
		return ref
	}
	end := len(ref)
	if h := strings.IndexByte(ref, '#'); h >= 0 {
		if h < q {
			return ref // the '?' is in the fragment
		}
		end = h
	}
	query := ref[q+1 : end]
	if isASCIIString(query) {
		return ref
	}
	if scheme, _, ok := splitScheme(strings.TrimLeftFunc(ref, isC0OrSpace)); ok && scheme != "http" && scheme != "https" {
		return ref
	}
	var b strings.Builder
	b.Grow(len(ref) + 2*len(query))
	b.WriteString(ref[:q+1])
	for i := 0; i < len(query); {
		if query[i] < utf8.RuneSelf {
			b.WriteByte(query[i])
			i++
			continue
		}
		// A run of non-ASCII characters is encoded at once: a stateful
		// encoding (ISO-2022-JP) writes its escapes once for the run.
		j := i
		for j < len(query) && query[j] >= utf8.RuneSelf {
			j++
		}
		appendEncoded(&b, query[i:j], enc)
		i = j
	}
	b.WriteString(ref[end:])
	return b.String()
}

// appendEncoded writes run (non-ASCII UTF-8) encoded in enc and
// percent-encoded; a run enc cannot encode whole is encoded character by
// character, those it cannot encode as numeric character references.
func appendEncoded(b *strings.Builder, run string, enc encoding.Encoding) {
	if out, err := enc.NewEncoder().String(run); err == nil {
		appendQueryBytes(b, out)
		return
	}
	for _, r := range run {
		out, err := enc.NewEncoder().String(string(r))
		if err != nil {
			b.WriteString("%26%23")
			b.WriteString(strconv.Itoa(int(r)))
			b.WriteString("%3B")
			continue
		}
		appendQueryBytes(b, out)
	}
}

// appendQueryBytes percent-encodes the bytes of an encoded query that the
// special-query percent-encode set holds (C0 controls, space, '"', '#',
// '<', '>', '\” and every byte over 0x7e); the other ASCII bytes a
// multibyte encoding writes stay as they are, as the Standard keeps them.
func appendQueryBytes(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c > '~' || c == '"' || c == '#' || c == '<' || c == '>' || c == '\'':
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
}

// isASCIIString reports whether s has no byte over 0x7f.
func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
