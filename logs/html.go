package logs

import (
	"bytes"
	"html/template"
	"io"
	"slices"

	"github.com/seokit/seokit/internal/svgchart"
)

// maxChartBots caps the bots drawn in the hits-per-day chart (the most
// hits first); the table lists them all.
const maxChartBots = 8

// chartColors are the colours of the chart lines, cycled.
var chartColors = []string{"#3949ab", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#5d4037"}

// htmlChart is a chart of the report, or why there is none.
type htmlChart struct {
	Title  string
	SVG    template.HTML
	Empty  string
	Legend []legendItem
}

// legendItem names a line of a chart with its colour.
type legendItem struct{ Name, Color string }

// joinSection is one list of the crawl join.
type joinSection struct {
	Title, ID string
	List      URLList
}

type htmlView struct {
	R      *Report
	Charts []htmlChart
	Join   []joinSection
}

// dayIndex returns the report's days in order and each date's position.
func (r *Report) dayIndex() ([]string, map[string]int) {
	dates := make([]string, len(r.Days))
	at := make(map[string]int, len(r.Days))
	for i, d := range r.Days {
		dates[i], at[d.Date] = d.Date, i
	}
	return dates, at
}

func lineChart(title string, dates []string, names []string, values [][]*float64) htmlChart {
	if len(dates) == 0 {
		return htmlChart{Title: title, Empty: "No dated requests."}
	}
	var yMax float64
	for _, vs := range values {
		for _, v := range vs {
			if v != nil && *v > yMax {
				yMax = *v
			}
		}
	}
	l := &svgchart.Line{Title: title, Width: 760, Height: 240, Left: 56, Right: 40, Top: 16, Bottom: 30,
		X: dates, YMin: 0, YMax: max(yMax, 1)}
	for i, vs := range values {
		l.Series = append(l.Series, svgchart.Series{Name: names[i], Class: "s" + string(rune('0'+i%8)), Color: chartColors[i%len(chartColors)], Points: svgchart.Values(vs)})
	}
	svg, err := l.SVG()
	if err != nil {
		return htmlChart{Title: title, Empty: "The chart could not be drawn: " + err.Error()}
	}
	c := htmlChart{Title: title, SVG: svg}
	for i, n := range names {
		c.Legend = append(c.Legend, legendItem{n, chartColors[i%len(chartColors)]})
	}
	return c
}

// charts are the report's charts: hits per day of the bots with the most
// hits (spoofed hits left out), and the status mix of all requests per
// day.
func (r *Report) charts() []htmlChart {
	dates, at := r.dayIndex()
	bots := slices.Clone(r.Bots)
	if len(bots) > maxChartBots {
		bots = bots[:maxChartBots]
	}
	var names []string
	var values [][]*float64
	for _, b := range bots {
		vs := make([]*float64, len(dates))
		for _, d := range b.Days {
			if i, ok := at[d.Date]; ok {
				v := float64(d.Hits)
				vs[i] = &v
			}
		}
		for i := range vs {
			if vs[i] == nil {
				z := 0.0 // a day of the log without this bot's hits: none
				vs[i] = &z
			}
		}
		names, values = append(names, b.Bot.Token), append(values, vs)
	}
	hits := lineChart("Bot hits per day", dates, names, values)
	if len(bots) == 0 {
		hits.SVG, hits.Empty = "", "No bot hits."
	}
	mix := make([][]*float64, 4)
	for k := range mix {
		mix[k] = make([]*float64, len(dates))
	}
	for i, d := range r.Days {
		for k, n := range []int64{d.Status.S2xx, d.Status.S3xx, d.Status.S4xx, d.Status.S5xx} {
			v := float64(n)
			mix[k][i] = &v
		}
	}
	status := lineChart("Responses per day by status class", dates, []string{"2xx", "3xx", "4xx", "5xx"}, mix)
	return []htmlChart{hits, status}
}

func (r *Report) htmlView() htmlView {
	v := htmlView{R: r, Charts: r.charts()}
	if j := r.Join; j != nil {
		v.Join = []joinSection{
			{"Orphan URLs: fetched by bots, not found by the crawl", "orphans", j.Orphans},
			{"Indexable URLs no search bot fetched", "never-fetched", j.NeverFetched},
			{"Search-bot hits on non-indexable URLs", "non-indexable", j.NonIndexable},
			{"Search-bot hits on redirecting URLs", "redirecting", j.Redirecting},
			{"Search-bot hits on 4xx URLs", "client-errors", j.ClientErrors},
			{"Search-bot hits on 5xx URLs", "server-errors", j.ServerErrors},
			{"Search-bot hits on URLs with parameters", "parameters", j.Parameters},
		}
	}
	return v
}

var htmlFuncs = template.FuncMap{
	"bytes": bytesText,
	"ms":    msText,
	"est":   estText,
	"class": func(c Class) string {
		if c == ClassNone {
			return "none"
		}
		return string(c)
	},
}

var (
	bodyTemplate = template.Must(template.New("body").Funcs(htmlFuncs).Parse(bodyHTML))
	pageTemplate = template.Must(template.Must(bodyTemplate.Clone()).New("page").Parse(pageHTML))
)

// HTMLBody returns the report as an HTML fragment (sections, tables and
// inline SVG charts, no script or style), for a page with a stylesheet of
// its own such as the dashboard. All text from the log is escaped.
func (r *Report) HTMLBody() (template.HTML, error) {
	var b bytes.Buffer
	if err := bodyTemplate.Execute(&b, r.htmlView()); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil // #nosec: written by html/template, every value escaped
}

// WriteHTML writes the report as one self-contained HTML page: inline
// CSS and SVG charts (bot hits per day, the status mix per day), the
// bots with their verdicts, the URLs and directories bots fetch most, the
// crawl join's lists and the findings. It loads nothing from the network
// and runs no script; all text from the log is escaped.
func (r *Report) WriteHTML(w io.Writer) error {
	return pageTemplate.Execute(w, r.htmlView())
}

const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Access log report</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:980px;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem;width:100%}th,td{border-bottom:1px solid #ddd;padding:.25rem .5rem;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}h2{margin-top:2rem}.muted{color:#666}
svg .axis line,svg .grid line{stroke:#ccc}svg text{font-size:11px;fill:#555}
</style></head><body>
<h1>Access log report</h1>
{{template "body" .}}
</body></html>
`

const bodyHTML = `{{$r := .R}}<section class="logs-summary">
<p>{{$r.Lines}} lines, {{$r.Requests}} requests, {{$r.Malformed}} malformed{{if not $r.First.IsZero}}, {{$r.First.Format "2006-01-02 15:04"}} to {{$r.Last.Format "2006-01-02 15:04"}} UTC{{end}}.
Status: {{$r.Status}}{{if $r.Reason}} ({{$r.Reason}}){{end}}.</p>
<table class="logs-totals"><tr><th>Bot hits</th><th class="n">Verified</th><th class="n">Spoofed</th><th class="n">Unverifiable</th><th class="n">robots.txt fetches</th><th class="n">Bytes</th></tr>
<tr><td class="n">{{$r.Totals.BotHits}}</td><td class="n">{{$r.Totals.VerifiedHits}}</td><td class="n">{{$r.Totals.SpoofedHits}}</td><td class="n">{{$r.Totals.UnverifiableHits}}</td><td class="n">{{$r.Totals.RobotsFetches}}</td><td class="n">{{bytes $r.Totals.Bytes}}</td></tr></table>
{{if not $r.Verification.Enabled}}<p class="muted">Verification was off: every bot hit is unverifiable.</p>{{end}}
</section>
{{range .Charts}}<section class="logs-chart"><h2>{{.Title}}</h2>{{if .SVG}}{{.SVG}}
<p class="legend">{{range .Legend}}<span class="legend-item"><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="{{.Color}}"></rect></svg> {{.Name}}</span> {{end}}</p>{{else}}<p class="muted">{{.Empty}}</p>{{end}}</section>
{{end}}<section class="logs-classes"><h2>Classes</h2>
<table><tr><th>Class</th><th class="n">Hits</th><th class="n">Distinct URLs</th><th class="n">2xx</th><th class="n">3xx</th><th class="n">4xx</th><th class="n">5xx</th><th class="n">Mean response</th></tr>
{{range $r.Classes}}<tr><td>{{class .Class}}</td><td class="n">{{.Hits}}</td><td class="n">{{est .DistinctURLs}}</td><td class="n">{{.Status.S2xx}}</td><td class="n">{{.Status.S3xx}}</td><td class="n">{{.Status.S4xx}}</td><td class="n">{{.Status.S5xx}}</td><td class="n">{{ms .MeanResponseMS}}</td></tr>
{{end}}</table></section>
<section class="logs-bots"><h2>Bots</h2>
{{if $r.Bots}}<table><tr><th>Bot</th><th>Class</th><th class="n">Hits</th><th class="n">Verified</th><th class="n">Spoofed</th><th class="n">Unverifiable</th><th class="n">Distinct URLs</th><th class="n">5xx</th><th>Last seen</th></tr>
{{range $r.Bots}}<tr><td>{{.Bot.Token}}</td><td>{{class .Class}}</td><td class="n">{{.Hits}}</td><td class="n">{{.Verified}}</td><td class="n">{{.Spoofed}}</td><td class="n">{{.Unverifiable}}</td><td class="n">{{est .DistinctURLs}}</td><td class="n">{{.Status.S5xx}}</td><td>{{if not .LastSeen.IsZero}}{{.LastSeen.Format "2006-01-02 15:04"}}{{end}}</td></tr>
{{end}}</table>{{else}}<p class="muted">No bot of the registry in the log.</p>{{end}}</section>
<section class="logs-urls"><h2>URLs bots fetch most</h2>
{{if $r.URLs}}<table><tr><th>URL</th><th class="n">Hits</th><th class="n">Last status</th></tr>
{{range $r.URLs}}<tr><td>{{.URL}}</td><td class="n">{{.Hits}}</td><td class="n">{{.LastStatus}}</td></tr>
{{end}}</table>{{else}}<p class="muted">No bot hits.</p>{{end}}
{{if $r.OtherURLs.Hits}}<p class="muted">Other URLs: {{$r.OtherURLs.Hits}} hits on {{est $r.OtherURLs.URLs}} URLs beyond the ones tracked.</p>{{end}}</section>
<section class="logs-join"><h2>Joined with the crawl</h2>
{{with $r.Join}}<p>{{.CrawlPages}} crawled pages; join {{.Status}}{{if .Reason}} ({{.Reason}}){{end}}.</p>
{{range $.Join}}<h3 id="join-{{.ID}}">{{.Title}}: {{.List.URLs}} URLs, {{.List.Hits}} hits</h3>
{{if .List.Sample}}<table class="join-{{.ID}}"><tr><th>URL</th><th class="n">Hits</th><th class="n">Log status</th><th class="n">Crawl status</th></tr>
{{range .List.Sample}}<tr><td>{{.URL}}</td><td class="n">{{.Hits}}</td><td class="n">{{if .LogStatus}}{{.LogStatus}}{{end}}</td><td class="n">{{if .CrawlStatus}}{{.CrawlStatus}}{{end}}</td></tr>
{{end}}</table>{{end}}{{end}}
<h3 id="join-disallowed">robots.txt says, the bot did</h3>
{{if .Disallowed}}<table class="join-disallowed"><tr><th>Bot</th><th class="n">URLs</th><th class="n">Hits</th><th>URLs fetched (most hits first)</th></tr>
{{range .Disallowed}}<tr><td>{{.Token}}</td><td class="n">{{.URLs}}</td><td class="n">{{.Hits}}</td><td>{{range $i, $u := .Sample}}{{if $i}}, {{end}}{{$u.URL}} ({{$u.Hits}}){{end}}</td></tr>
{{end}}</table>{{else}}<p class="muted">{{if .DisallowedReason}}{{.DisallowedReason}}{{else}}No bot fetched a URL robots.txt disallows it.{{end}}</p>{{end}}
{{else}}<p class="muted">No crawl was joined.</p>{{end}}</section>
<section class="logs-findings"><h2>Findings</h2>
{{if $r.Findings}}<ul>{{range $r.Findings}}<li><strong>{{.ID}}</strong>: {{.Message}}</li>
{{end}}</ul>{{else}}<p class="muted">None.</p>{{end}}</section>
`
