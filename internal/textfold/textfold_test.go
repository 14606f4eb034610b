package textfold

import (
	"testing"

	"github.com/blevesearch/snowballstem"
)

func TestDiacritics(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain ascii", "plain ascii"},
		{"café", "cafe"},
		{"Straße", "Strasse"},
		{"naïve São Paulo", "naive Sao Paulo"},
		{"ёлка", "елка"},
		{"йогурт", "иогурт"},
		{"привет", "привет"},
		{"ﬁne", "ﬁne"}, // compatibility ligatures are kept (NFD, not NFKD)
		{"e\u0301", "e"},
	}
	for _, tc := range cases {
		if got := Diacritics(tc.in); got != tc.want {
			t.Errorf("Diacritics(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStemmer(t *testing.T) {
	cases := []struct{ lang, word, want string }{
		{"en", "running", "run"},
		{"de", "häuser", "haus"},
		{"ru", "книги", "книг"},
		{"xx", "running", ""},
	}
	for _, tc := range cases {
		st := Stemmer(tc.lang)
		if st == nil {
			if tc.want != "" {
				t.Errorf("Stemmer(%q) = nil", tc.lang)
			}
			continue
		}
		env := snowballstem.NewEnv(tc.word)
		st(env)
		if got := env.Current(); got != tc.want {
			t.Errorf("%s stem of %q = %q, want %q", tc.lang, tc.word, got, tc.want)
		}
	}
}
