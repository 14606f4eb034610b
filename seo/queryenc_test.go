package seo

import (
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
)

// TestEncodeQuery checks the query of a reference in a legacy-encoded
// page as browsers encode it (https://url.spec.whatwg.org/#query-state):
// in the page's encoding, percent-encoded, the path and fragment left to
// UTF-8. The bytes are those Python's codecs give for the same characters.
func TestEncodeQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, charset, ref, want string
		// url is the reference resolved against https://example.com/dir/p,
		// when set.
		url string
	}{
		{"utf-8 document", "", "/s?q=café", "/s?q=café", "https://example.com/s?q=caf%C3%A9"},
		{"windows-1252", "windows-1252", "/s?q=café", "/s?q=caf%E9", "https://example.com/s?q=caf%E9"},
		{"iso-8859-1 is windows-1252", "iso-8859-1", "?q=€", "?q=%80", "https://example.com/dir/p?q=%80"},
		{"a character the encoding lacks", "windows-1252", "?q=Ω", "?q=%26%23937%3B", "https://example.com/dir/p?q=%26%23937%3B"},
		{"path and fragment stay UTF-8", "windows-1252", "/café?q=é#é", "/café?q=%E9#é", "https://example.com/caf%C3%A9?q=%E9#%C3%A9"},
		{"already percent-encoded", "windows-1252", "/s?q=caf%C3%A9", "/s?q=caf%C3%A9", "https://example.com/s?q=caf%C3%A9"},
		{"question mark in the fragment", "windows-1252", "/p#a?é", "/p#a?é", ""},
		{"absolute http", "windows-1252", "HTTP://example.org/?é", "HTTP://example.org/?%E9", "http://example.org/?%E9"},
		{"other schemes keep UTF-8", "windows-1252", "mailto:a@example.com?subject=é", "mailto:a@example.com?subject=é", ""},
		{"shift_jis trail byte in ASCII", "shift_jis", "?q=日本", "?q=%93%FA%96{", "https://example.com/dir/p?q=%93%FA%96{"},
		{"shift_jis backslash trail byte", "shift_jis", "?q=ソ", `?q=%83\`, `https://example.com/dir/p?q=%83\`},
		{"euc-kr", "euc-kr", "?q=한&r=1", "?q=%C7%D1&r=1", "https://example.com/dir/p?q=%C7%D1&r=1"},
		{"gbk", "gbk", "?q=中文", "?q=%D6%D0%CE%C4", "https://example.com/dir/p?q=%D6%D0%CE%C4"},
		{"iso-2022-jp escapes once per run", "iso-2022-jp", "?q=日", "?q=%1B$BF|%1B(B", ""},
		{"a run with a character the encoding lacks", "windows-1252", "?q=éΩé", "?q=%E9%26%23937%3B%E9", ""},
	}
	pageURL, err := ParseHref("https://example.com/dir/p")
	if err != nil {
		t.Fatal(err)
	}
	base, err := NewBaseURL(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var enc encoding.Encoding
			if tc.charset != "" {
				if enc, err = htmlindex.Get(tc.charset); err != nil {
					t.Fatal(err)
				}
			}
			got := EncodeQuery(tc.ref, enc)
			if got != tc.want {
				t.Fatalf("EncodeQuery(%q, %s) = %q; want %q", tc.ref, tc.charset, got, tc.want)
			}
			if tc.url == "" {
				return
			}
			u, err := base.Resolve(got)
			if err != nil || u.String() != tc.url {
				t.Errorf("resolved: %v, %v; want %s", u, err, tc.url)
			}
		})
	}
}
