package analyzer

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

func TestTemplateFingerprint(t *testing.T) {
	t.Parallel()
	tpl := map[string]string{}
	for _, name := range []string{"product-1", "product-2", "category", "article"} {
		rep := analyzeFixture(t, "template/"+name+".html", "https://shop.example.com/"+name, nil, nil)
		if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(rep.Template) {
			t.Fatalf("%s: template %q, want 12 hex digits", name, rep.Template)
		}
		tpl[name] = rep.Template
	}
	if tpl["product-1"] != tpl["product-2"] {
		t.Errorf("the two product pages differ: %s and %s", tpl["product-1"], tpl["product-2"])
	}
	for _, other := range []string{"category", "article"} {
		if tpl[other] == tpl["product-1"] {
			t.Errorf("%s shares the product template %s", other, tpl[other])
		}
	}
	if tpl["category"] == tpl["article"] {
		t.Errorf("category and article share template %s", tpl["article"])
	}
}

func TestTemplateFingerprintRule(t *testing.T) {
	t.Parallel()
	const base = `<!doctype html><title>t</title><body class="page"><header class="top"><nav id="menu"></nav></header><main>%s</main></body>`
	of := func(main string) string {
		return analyzeString(t, strings.Replace(base, "%s", main, 1), "", nil, &Options{Depth: Basic}).Template
	}
	ref := of(`<div class="card card-1"><p>a</p></div><div class="card card-2"><p>b</p></div>`)
	tests := []struct {
		name, main string
		same       bool
	}{
		{"other text and numbers", `<div class="card card-7"><p>other words</p></div><div class="card card-9"><p>x</p></div>`, true},
		{"one card of a run", `<div class="card card-3"><p>c</p></div>`, true},
		{"ten cards", strings.Repeat(`<div class="card card-1"><p>a</p></div>`, 10), true},
		{"unclassed content", `<div class="card card-1"><p>a</p><ul><li>x</li></ul><table><tr><td>1</td></tr></table><h2>h</h2></div>`, true},
		{"scripts and svg", `<script>x()</script><div class="card card-1"><svg><g class="icon"></g></svg></div>`, true},
		{"other attributes", `<div class="card card-1" data-id="77" style="color:red"><p>a</p></div>`, true},
		{"list items", `<ul class="cards"><li class="x">1</li></ul>`, false},
		{"another class", `<div class="tile"><p>a</p></div>`, false},
		{"an extra block", `<div class="card card-1"></div><aside></aside>`, false},
		{"a classed child", `<div class="card"><span class="price">1</span></div>`, false},
	}
	for _, tt := range tests {
		if got := of(tt.main); (got == ref) != tt.same {
			t.Errorf("%s: template %s, reference %s, same = %v, want %v", tt.name, got, ref, got == ref, tt.same)
		}
	}
	if got := TemplateFingerprint(nil); got != "" {
		t.Errorf("TemplateFingerprint(nil) = %q", got)
	}
	deep := strings.Repeat(`<div class="d">`, 400)
	if got := of(deep); got == "" {
		t.Error("a deep document has no template")
	}
	img := analyzeString(t, "GIF89a", "", http.Header{"Content-Type": {"image/gif"}}, nil)
	if img.Template != "" {
		t.Errorf("an image has template %q", img.Template)
	}
}

// BenchmarkTemplateFingerprint measures the template fingerprint of every
// corpus page against html.Parse of the same page, in the same run: the
// share of a parse the fingerprint adds to an analysis.
func BenchmarkTemplateFingerprint(b *testing.B) {
	_, pages := corpusPages(b)
	var parseTime, tplTime time.Duration
	distinct := map[string]bool{}
	b.ResetTimer()
	for range b.N {
		for _, p := range pages {
			start := time.Now()
			doc, err := html.Parse(bytes.NewReader(p))
			if err != nil {
				b.Fatal(err)
			}
			parseTime += time.Since(start)
			body := findBody(doc)
			start = time.Now()
			distinct[TemplateFingerprint(body)] = true
			tplTime += time.Since(start)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(tplTime)/float64(parseTime)*100, "%-of-parse")
	b.ReportMetric(float64(tplTime.Nanoseconds())/float64(len(pages)*b.N), "ns/page")
	b.ReportMetric(0, "ns/op")
	b.Logf("%d pages, %d templates: fingerprint %.1f µs per page, %.2f%% of html.Parse",
		len(pages), len(distinct), float64(tplTime.Microseconds())/float64(len(pages)*b.N), float64(tplTime)/float64(parseTime)*100)
}

// findBody returns the <body> element of a parsed document.
func findBody(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.Data == "body" {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if b := findBody(c); b != nil {
			return b
		}
	}
	return nil
}
