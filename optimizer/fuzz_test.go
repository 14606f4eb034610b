package optimizer

import (
	"context"
	"testing"
)

// FuzzOptimize: any content, format and keyphrase gives a report or an
// input error, never a panic, and every span lies inside the content.
func FuzzOptimize(f *testing.F) {
	f.Add("# T\n\nHello world. Dr. Who.\n\n- a\n- b", "", "hello world", "en-US")
	f.Add("<p>Caf&eacute; &amp; th&#233;</p><img alt='x'><a href=x>y</a>", "html", `"café"`, "fr-FR")
	f.Add("| a | b |\n|---|---|\n| c | d |\n\n> q\n\n```\nx\n```", "markdown", "a", "de-DE")
	f.Add("Дом построен. Кофе горячий.", "text", "кофе", "ru-RU")
	f.Add("\xff\xfe<<<&&&;;;", "", "x", "xx-YY")
	f.Fuzz(func(t *testing.T, content, format, kw, locale string) {
		r, err := Optimize(context.Background(), Request{Content: content, Format: format, Keywords: []string{kw}, Locale: locale, Title: kw, Description: content, Slug: kw})
		if err != nil {
			return
		}
		for _, fd := range r.Findings {
			for _, s := range fd.Spans {
				if s.Start < 0 || s.End > len(content) || s.Start > s.End {
					t.Fatalf("%s span %+v outside %d bytes", fd.ID, s, len(content))
				}
			}
		}
		for _, k := range r.Keyphrases {
			for _, s := range k.Spans {
				if s.Start < 0 || s.End > len(content) || s.Start > s.End {
					t.Fatalf("keyphrase span %+v outside %d bytes", s, len(content))
				}
			}
		}
	})
}
