package compare

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/seokit/seokit/crawler/internal/barchart"
	"github.com/seokit/seokit/internal/htmltable"
	"github.com/seokit/seokit/seo"
)

// maxTextChanges caps the changed pages and findings the text and
// Markdown outputs list; the JSON and HTML outputs hold the diff's own
// capped lists.
const maxTextChanges = 50

// WriteText writes the diff for a terminal: the score and totals, the
// findings that are new or fixed, added and removed URLs and the changed
// pages, each list at most 50 lines with the number left out.
func (d *Diff) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "Crawl comparison: %s\n", d.New.Domain)
	fmt.Fprintf(b, "  old: %s, %d pages, score %s\n", htmltable.When(d.Old.StartedAt), d.Old.Pages, d.Old.ScoreText())
	fmt.Fprintf(b, "  new: %s, %d pages, score %s (%s)\n", htmltable.When(d.New.StartedAt), d.New.Pages, d.New.ScoreText(), d.ScoreChange())
	b.WriteString("\nTotals (old → new):\n")
	for _, t := range d.Totals {
		fmt.Fprintf(b, "  %-10s %6d → %-6d %s\n", t.Name, t.Old, t.New, delta(t.New-t.Old))
	}
	nw, fixed := d.findingsBy(FindingNew), d.findingsBy(FindingFixed)
	worse := d.worsened()
	fmt.Fprintf(b, "\nNew findings (%d):\n", len(nw))
	writeFindingLines(b, nw, func(f FindingChange) string { return fmt.Sprintf("%d pages", f.NewPages) })
	fmt.Fprintf(b, "\nFindings on more pages (%d):\n", len(worse))
	writeFindingLines(b, worse, func(f FindingChange) string {
		return fmt.Sprintf("%d → %d pages, new on %d", f.OldPages, f.NewPages, f.NewOn.Count)
	})
	fmt.Fprintf(b, "\nFixed findings (%d):\n", len(fixed))
	writeFindingLines(b, fixed, func(f FindingChange) string { return fmt.Sprintf("was on %d pages", f.OldPages) })
	gone := d.findingsBy(FindingGone)
	fmt.Fprintf(b, "\nGone with their pages, not fixed (%d):\n", len(gone))
	writeFindingLines(b, gone, func(f FindingChange) string {
		return fmt.Sprintf("was on %d pages, now failing or not crawled", f.GoneOn.Count)
	})
	writeSample(b, "Added URLs", d.Added)
	writeSample(b, "Removed URLs", d.Removed)
	fmt.Fprintf(b, "\nChanged pages (%d):\n", d.ChangedPages)
	for i, p := range d.Changed {
		if i == maxTextChanges {
			fmt.Fprintf(b, "  … %d more\n", d.ChangedPages-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", p.URL)
		for _, c := range p.Changes {
			fmt.Fprintf(b, "    %-12s %s → %s\n", c.Field, quoteValue(c.Field, c.Old), quoteValue(c.Field, c.New))
		}
	}
	if len(d.Changed) < d.ChangedPages && len(d.Changed) < maxTextChanges {
		fmt.Fprintf(b, "  … %d more (report cap)\n", d.ChangedPages-len(d.Changed))
	}
	if d.Robots != nil {
		fmt.Fprintf(b, "\nrobots.txt changed (%s): status %d → %d, %d → %d bytes\n",
			strings.Join(d.Robots.Fields, ", "), d.Robots.Old.Status, d.Robots.New.Status, d.Robots.Old.Bytes, d.Robots.New.Bytes)
	}
	if s := d.Sitemaps; s != nil {
		fmt.Fprintf(b, "\nSitemaps changed: %d added, %d removed, %d changed\n", len(s.Added), len(s.Removed), len(s.Changed))
		for _, c := range s.Changed {
			fmt.Fprintf(b, "  %s: status %d → %d, %d → %d URLs\n", c.URL, c.OldStatus, c.NewStatus, c.OldURLs, c.NewURLs)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// findingsBy returns the finding changes of one status.
func (d *Diff) findingsBy(status string) []FindingChange {
	var out []FindingChange
	for _, f := range d.Findings {
		if f.Status == status {
			out = append(out, f)
		}
	}
	return out
}

// worsened returns the persisting findings that are on more pages than
// before.
func (d *Diff) worsened() []FindingChange {
	var out []FindingChange
	for _, f := range d.Findings {
		if f.Status == FindingPersisting && f.NewPages > f.OldPages {
			out = append(out, f)
		}
	}
	return out
}

func writeFindingLines(b *strings.Builder, fs []FindingChange, detail func(FindingChange) string) {
	for i, f := range fs {
		if i == maxTextChanges {
			fmt.Fprintf(b, "  … %d more\n", len(fs)-i)
			return
		}
		fmt.Fprintf(b, "  %-7s %s (%s)", f.Severity, f.ID, detail(f))
		switch {
		case f.Status == FindingGone && len(f.GoneOn.URLs) > 0:
			fmt.Fprintf(b, " e.g. %s", f.GoneOn.URLs[0])
		case len(f.NewOn.URLs) > 0 && f.Status != FindingFixed && f.Status != FindingGone:
			fmt.Fprintf(b, " e.g. %s", f.NewOn.URLs[0])
		}
		b.WriteByte('\n')
	}
}

func writeSample(b *strings.Builder, title string, s URLSample) {
	fmt.Fprintf(b, "\n%s (%d):\n", title, s.Count)
	for _, u := range s.URLs {
		fmt.Fprintf(b, "  %s\n", u)
	}
	if s.Omitted > 0 {
		fmt.Fprintf(b, "  … %d more\n", s.Omitted)
	}
}

func delta(n int) string {
	if n == 0 {
		return ""
	}
	return "(" + fmt.Sprintf("%+d", n) + ")"
}

// quoteValue writes a changed field's value for a terminal: text fields
// (title, description, H1, canonical) quoted and clipped, numbers and flags
// as they are ("score 80 → 70"), an empty value as "(none)".
func quoteValue(field, s string) string {
	switch {
	case s == "":
		return "(none)"
	case field == FieldTitle, field == FieldDescription, field == FieldH1, field == FieldCanonical:
		return strconv.Quote(seo.ClipTo(s, 120))
	}
	return seo.ClipTo(s, 120)
}

// WriteMarkdown writes the diff as GitHub-flavoured Markdown, for a
// pull-request comment: a summary table, new and fixed findings, and the
// first changed pages, with crawled text escaped.
func (d *Diff) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "## seokit crawl comparison: %s\n\n", mdEscape(d.New.Domain))
	b.WriteString("| | Old | New | Change |\n|---|---:|---:|---:|\n")
	fmt.Fprintf(b, "| Site score | %s | %s | %s |\n", mdEscape(d.Old.ScoreText()), mdEscape(d.New.ScoreText()), d.ScoreChange())
	for _, t := range d.Totals {
		fmt.Fprintf(b, "| %s | %d | %d | %s |\n", t.Name, t.Old, t.New, signed(t.New-t.Old))
	}
	section := func(title string, fs []FindingChange, pages func(FindingChange) string) {
		fmt.Fprintf(b, "\n### %s (%d)\n\n", title, len(fs))
		if len(fs) == 0 {
			b.WriteString("None.\n")
			return
		}
		b.WriteString("| Severity | Check | Pages | Example |\n|---|---|---:|---|\n")
		for i, f := range fs {
			if i == maxTextChanges {
				fmt.Fprintf(b, "\n… %d more.\n", len(fs)-i)
				return
			}
			ex := ""
			switch {
			case f.Status == FindingGone && len(f.GoneOn.URLs) > 0:
				ex = mdEscape(f.GoneOn.URLs[0])
			case len(f.NewOn.URLs) > 0 && f.Status != FindingFixed:
				ex = mdEscape(f.NewOn.URLs[0])
			case len(f.FixedOn.URLs) > 0:
				ex = mdEscape(f.FixedOn.URLs[0])
			}
			fmt.Fprintf(b, "| %s | `%s` | %s | %s |\n", f.Severity, f.ID, pages(f), ex)
		}
	}
	section("New findings", d.findingsBy(FindingNew), func(f FindingChange) string { return strconv.Itoa(f.NewPages) })
	section("Findings on more pages", d.worsened(), func(f FindingChange) string {
		return fmt.Sprintf("%d → %d", f.OldPages, f.NewPages)
	})
	section("Fixed findings", d.findingsBy(FindingFixed), func(f FindingChange) string { return strconv.Itoa(f.OldPages) })
	section("Gone with their pages, not fixed", d.findingsBy(FindingGone), func(f FindingChange) string { return strconv.Itoa(f.GoneOn.Count) })
	fmt.Fprintf(b, "\n### URLs\n\n%d added, %d removed, %d changed.\n", d.Added.Count, d.Removed.Count, d.ChangedPages)
	for _, l := range []struct {
		title string
		s     URLSample
	}{{"Added", d.Added}, {"Removed", d.Removed}} {
		if l.s.Count == 0 {
			continue
		}
		fmt.Fprintf(b, "\n<details><summary>%s (%d)</summary>\n\n", l.title, l.s.Count)
		for _, u := range l.s.URLs {
			fmt.Fprintf(b, "- %s\n", mdEscape(u))
		}
		if l.s.Omitted > 0 {
			fmt.Fprintf(b, "- … %d more\n", l.s.Omitted)
		}
		b.WriteString("\n</details>\n")
	}
	if len(d.Changed) > 0 {
		b.WriteString("\n| Page | Field | Old | New |\n|---|---|---|---|\n")
		rows := 0
		for _, p := range d.Changed {
			for _, c := range p.Changes {
				if rows == maxTextChanges {
					break
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdEscape(p.URL), c.Field, mdEscape(seo.ClipTo(c.Old, 80)), mdEscape(seo.ClipTo(c.New, 80)))
				rows++
			}
		}
		if d.ChangedPages > 0 && rows == maxTextChanges {
			b.WriteString("\nThe first 50 changes are shown; the JSON or HTML diff lists all.\n")
		}
	}
	if d.Robots != nil {
		fmt.Fprintf(b, "\n**robots.txt changed** (%s).\n", strings.Join(d.Robots.Fields, ", "))
	}
	if s := d.Sitemaps; s != nil {
		fmt.Fprintf(b, "\n**Sitemaps changed**: %d added, %d removed, %d changed.\n", len(s.Added), len(s.Removed), len(s.Changed))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ScoreText is the side's site score as reports show it: the number, or
// "none" with the reason when the crawl has no score.
func (s DiffSide) ScoreText() string {
	if s.Score != nil {
		return strconv.Itoa(*s.Score)
	}
	if s.ScoreReason != "" {
		return "none (" + strings.ReplaceAll(s.ScoreReason, "_", " ") + ")"
	}
	return "none"
}

// ScoreChange is the change of the site score signed ("+3", "0", "-2"),
// or "n/a" when either crawl has no score.
func (d *Diff) ScoreChange() string {
	if d.Score == nil {
		return "n/a"
	}
	return signed(*d.Score)
}

func signed(n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%+d", n)
}

// mdEscape makes crawled text inert in a Markdown table cell.
var mdEscape = strings.NewReplacer(
	"|", `\|`, "\\", `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "\n", " ", "\r", " ",
).Replace

//go:embed compare.html.tmpl
var compareHTML string

var compareTemplate = template.Must(template.New("compare").Funcs(template.FuncMap{
	"when":   htmltable.When,
	"signed": signed,
}).Parse(compareHTML))

type compareView struct {
	D                         *Diff
	Policy                    string
	Charts                    []barchart.Chart
	Findings, Changed         template.HTML
	Data                      template.JS
	Script                    template.JS
	CSS                       template.CSS
	NewCount, FixedCount, Wor int
}

var (
	diffFindingColumns = []htmltable.Column{
		{Key: "severity", Label: "Severity", Kind: htmltable.Severity},
		{Key: "id", Label: "Check", Kind: htmltable.Code},
		{Key: "status", Label: "Status", Kind: htmltable.Code},
		{Key: "oldPages", Label: "Pages before", Kind: htmltable.Num},
		{Key: "newPages", Label: "Pages now", Kind: htmltable.Num},
		{Key: "newOn", Label: "New on", Kind: htmltable.Num},
		{Key: "fixedOn", Label: "Fixed on", Kind: htmltable.Num},
		{Key: "goneOn", Label: "Gone with the page", Kind: htmltable.Num},
		{Key: "examples", Label: "Examples", Kind: htmltable.URLs},
	}
	diffChangeColumns = []htmltable.Column{
		{Key: "url", Label: "Page", Kind: htmltable.URL},
		{Key: "field", Label: "Field", Kind: htmltable.Code},
		{Key: "old", Label: "Before", Kind: htmltable.Text},
		{Key: "new", Label: "Now", Kind: htmltable.Text},
	}
)

// HTMLPolicy is the Content-Security-Policy of the diff's HTML page, which
// the page also declares in a <meta> element: its own inline script and
// styles only. A server that serves the page adds the directives a <meta>
// policy cannot carry (sandbox allow-scripts, frame-ancestors).
var HTMLPolicy = htmltable.ReportPolicy

// WriteHTML writes the diff as one self-contained HTML page (inline CSS,
// SVG charts and script, no external resource): before/after charts of the
// totals, a sortable, filterable table of finding changes and one of the
// page changes.
func (d *Diff) WriteHTML(w io.Writer) error {
	v := compareView{D: d, Policy: HTMLPolicy, Script: template.JS(htmltable.JS), CSS: template.CSS(htmltable.CSS)}
	v.NewCount, v.FixedCount, v.Wor = len(d.findingsBy(FindingNew)), len(d.findingsBy(FindingFixed)), len(d.worsened())
	ft := &htmltable.Table{Name: "findings", Label: "Finding changes", Columns: diffFindingColumns, Search: true,
		SevKey: "severity", IDKey: "id", Empty: "No findings in either crawl."}
	for _, f := range d.Findings {
		ex := f.NewOn.URLs
		switch f.Status {
		case FindingFixed:
			ex = f.FixedOn.URLs
		case FindingGone:
			ex = f.GoneOn.URLs
		}
		ft.Rows = append(ft.Rows, htmltable.Row{"severity": f.Severity.String(), "id": f.ID, "status": f.Status,
			"oldPages": f.OldPages, "newPages": f.NewPages, "newOn": f.NewOn.Count, "fixedOn": f.FixedOn.Count, "goneOn": f.GoneOn.Count, "examples": ex})
	}
	ct := &htmltable.Table{Name: "changed", Label: "Page changes", Columns: diffChangeColumns, Search: true,
		Empty: "No page of both crawls changed."}
	for _, p := range d.Changed {
		for _, c := range p.Changes {
			ct.Rows = append(ct.Rows, htmltable.Row{"url": p.URL, "field": c.Field, "old": c.Old, "new": c.New})
		}
	}
	var err error
	if v.Findings, err = ft.HTML(); err != nil {
		return fmt.Errorf("crawler: write html diff: %w", err)
	}
	if v.Changed, err = ct.HTML(); err != nil {
		return fmt.Errorf("crawler: write html diff: %w", err)
	}
	if v.Data, err = htmltable.Data(ft, ct); err != nil {
		return fmt.Errorf("crawler: write html diff: %w", err)
	}
	for _, t := range d.Totals {
		v.Charts = append(v.Charts, barchart.New(t.Name, []string{"before", "now"}, []int{t.Old, t.New}, []string{barchart.ColorNone, barchart.ColorBar}))
	}
	v.Charts = append(v.Charts, barchart.New("URLs", []string{"added", "removed", "changed"},
		[]int{d.Added.Count, d.Removed.Count, d.ChangedPages}, []string{barchart.ColorOK, barchart.ColorServer, barchart.ColorRedirect}))
	if err := compareTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("crawler: write html diff: %w", err)
	}
	return nil
}
