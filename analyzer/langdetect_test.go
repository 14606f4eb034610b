package analyzer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLangDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
		confident        bool
	}{
		{"english", "lang_en.txt", "en", true},
		{"german", "lang_de.txt", "de", true},
		{"spanish", "lang_es.txt", "es", true},
		{"french", "lang_fr.txt", "fr", true},
		{"italian", "lang_it.txt", "it", true},
		{"dutch", "lang_nl.txt", "nl", true},
		{"portuguese", "lang_pt.txt", "pt", true},
		{"polish", "lang_pl.txt", "pl", true},
		{"swedish", "lang_sv.txt", "sv", true},
		{"danish", "lang_da.txt", "da", true},
		{"norwegian", "lang_no.txt", "no", true},
		{"finnish", "lang_fi.txt", "fi", true},
		{"czech", "lang_cs.txt", "cs", true},
		{"turkish", "lang_tr.txt", "tr", true},
		{"russian", "lang_ru.txt", "ru", true},
		{"greek by script", "lang_el.txt", "el", true},
		{"japanese by kana", "lang_ja.txt", "ja", true},
		{"chinese by han", "lang_zh.txt", "zh", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "content", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, conf := detectLanguage(string(b))
			if got != tc.want || conf != tc.confident {
				t.Errorf("detectLanguage = %q, %v; want %q, %v", got, conf, tc.want, tc.confident)
			}
		})
	}
}

func TestLangDetectUnsure(t *testing.T) {
	t.Parallel()
	ro, err := os.ReadFile(filepath.Join("testdata", "content", "lang_ro.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, text string }{
		{"empty", ""},
		{"too few words", "the cat and the dog"},
		{"unsupported language", string(ro)},
		{"numbers only", strings.Repeat("123 456 ", 100)},
		{"product names", strings.Repeat("Acme Turbo X200 Pro Max Ultra ", 30)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, conf := detectLanguage(tc.text); conf {
				t.Errorf("detectLanguage = %q, confident; want not confident", got)
			}
		})
	}
}

// BenchmarkLangDetect times detectLanguage on German text as written and
// on English text as a main text is (words and single spaces), each long
// enough that the word limit ends the reading.
func BenchmarkLangDetect(b *testing.B) {
	for _, tc := range []struct{ name, file string }{{"de", "lang_de.txt"}, {"en-main-text", "lang_en.txt"}} {
		b.Run(tc.name, func(b *testing.B) {
			text, err := os.ReadFile(filepath.Join("testdata", "content", tc.file))
			if err != nil {
				b.Fatal(err)
			}
			s := string(text)
			if tc.name == "en-main-text" {
				s = strings.Join(strings.Fields(s), " ")
			}
			s = strings.Repeat(s+" ", 40)
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				detectLanguage(s)
			}
		})
	}
}
