package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/internal/golden"
	"github.com/seokit/seokit/rankings"
)

// The golden test makes a fixed, ordered sequence of API calls and compares
// each call's method, path, status and normalised response body with
// testdata/golden/exchanges.json. Normalising replaces what varies from run
// to run: IDs, request IDs, times, durations, the loopback addresses of the
// test servers and secrets. Run with SEOKIT_UPDATE_GOLDEN=1 to rewrite the
// file after an intended change of behaviour.

// goldenExchange is one recorded call.
type goldenExchange struct {
	Name   string `json:"name"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	Body   any    `json:"body"`
}

// goldenLinkSite serves a page linking to a missing page, a redirect and a
// fine page, for page analyses with link checks and the mobile view.
func goldenLinkSite(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!doctype html><html lang="en"><head><title>Oak furniture made by hand in our workshop</title>
<meta name="description" content="Oak tables, chairs and shelves made by hand in our workshop and delivered across the country.">
<meta name="viewport" content="width=device-width"></head>
<body><h1>Oak furniture</h1><p>Tables, chairs and shelves.</p>
<a href="/missing">Missing</a> <a href="/moved">Moved</a> <a href="/fine">Fine</a> <a href="/fine">Fine again</a>
<img src="/big.png"></body></html>`)
		case "/moved":
			http.Redirect(w, r, "/fine", http.StatusMovedPermanently)
		case "/fine":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!doctype html><html lang="en"><head><title>Fine</title></head><body><h1>Fine</h1></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// fixedSource is a SERP provider that always answers the same results.
type fixedSource struct{}

func (fixedSource) Name() string { return "fixed" }

func (fixedSource) Search(_ context.Context, q rankings.Query) (*rankings.SERP, error) {
	return &rankings.SERP{Query: q, Depth: 100, Source: "fixed", CheckedAt: time.Now(), Results: []rankings.Result{
		{Position: 1, URL: "https://competitor.example/oak", Title: "Oak"},
		{Position: 2, URL: "https://example.com/tables", Title: "Oak tables"},
	}}, nil
}

// goldenRecorder makes calls and keeps their normalised exchanges.
type goldenRecorder struct {
	t     *testing.T
	hosts map[string]string // loopback origin -> placeholder host
	ex    []goldenExchange
}

func (g *goldenRecorder) host(rawURL, name string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		g.t.Fatal(err)
	}
	g.hosts[u.Host] = name
}

// record sends r with a and keeps the exchange.
func (g *goldenRecorder) record(name string, a *testAPI, r *http.Request) *http.Response {
	g.t.Helper()
	resp := a.do(r)
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	path := r.URL.RequestURI()
	if len(path) > 300 {
		path = path[:300] + "..."
	}
	g.ex = append(g.ex, goldenExchange{Name: name, Method: r.Method, Path: g.text(path), Status: resp.StatusCode, Body: g.body(b)})
	return resp
}

// call is record of a.req(...).
func (g *goldenRecorder) call(name string, a *testAPI, method, path, key, body string) *http.Response {
	g.t.Helper()
	return g.record(name, a, a.req(method, path, key, body))
}

var (
	goldenJobID = regexp.MustCompile(`job_[A-Za-z0-9_-]+`)
	golden404   = regexp.MustCompile(`seokit-404-check-[0-9a-f]+`)
	goldenToday = regexp.MustCompile(time.Now().UTC().Format(time.DateOnly) + `|` + time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly))
)

// goldenVolatile are the JSON members whose values change from run to
// run; a non-null value is replaced by a placeholder.
var goldenVolatile = map[string]bool{
	"requestId": true, "generatedAt": true, "createdAt": true, "startedAt": true, "finishedAt": true, "updatedAt": true,
	"analyzedAt": true, "fetchedAt": true, "checkedAt": true, "failedAt": true, "durationNs": true,
	"elapsedNs": true, "pagesPerSecond": true, "responseMs": true, "timings": true,
	"callbackSecret": true, "access_token": true,
}

// text replaces loopback addresses, job IDs, random probe paths and
// today's date.
func (g *goldenRecorder) text(s string) string {
	for h, name := range g.hosts {
		s = strings.ReplaceAll(s, h, name)
		s = strings.ReplaceAll(s, url.QueryEscape(h), url.QueryEscape(name))
	}
	s = goldenJobID.ReplaceAllString(s, "job_ID")
	s = golden404.ReplaceAllString(s, "seokit-404-check-RANDOM")
	return goldenToday.ReplaceAllString(s, "<today>")
}

// body returns a JSON body normalised, else a summary of the text.
func (g *goldenRecorder) body(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(g.text(string(b))))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("<%d bytes of text>", len(b))
	}
	return golden.Mask(v, goldenVolatile)
}

func TestGoldenExchanges(t *testing.T) {
	g := &goldenRecorder{t: t, hosts: map[string]string{}}
	opts := dataOptions(t)
	opts.AllowPrivate = true
	opts.Limits = map[store.Plan]int{store.Free: 10_000}
	// One crawl worker: the site report lists pages and examples in one
	// crawl order.
	opts.CrawlerOptions = &crawler.Options{Concurrency: 1}
	a := newTestAPI(t, opts)
	page, links, site := pageSite(t), goldenLinkSite(t), crawlSite(t, 5, 0)
	g.host(a.ts.URL, "api.test")
	g.host(page.URL, "page.test")
	g.host(links.URL, "links.test")
	g.host(site.URL, "site.test")

	// Page analyses.
	g.call("page analysis", a, "POST", "/v1/analyze/page", a.key, fmt.Sprintf(`{"url":%q}`, page.URL+"/"))
	g.call("page analysis, complete", a, "POST", "/v1/analyze", a.key, fmt.Sprintf(`{"url":%q,"options":{"depth":"complete"}}`, page.URL+"/"))
	g.call("page analysis by GET", a, "GET", "/v1/analyze?depth=basic&url="+url.QueryEscape(page.URL+"/"), a.key, "")
	g.call("page analysis with links", a, "POST", "/v1/analyze/page", a.key, fmt.Sprintf(`{"url":%q,"options":{"checkLinks":true}}`, links.URL+"/"))
	g.call("page analysis, mobile", a, "POST", "/v1/analyze/page", a.key, fmt.Sprintf(`{"url":%q,"options":{"analyzeMobile":true,"mute":["social"]}}`, links.URL+"/"))
	g.call("page analysis of a 404", a, "POST", "/v1/analyze/page", a.key, fmt.Sprintf(`{"url":%q}`, links.URL+"/missing"))

	// Site analysis: submit, wait, result and list.
	resp := g.call("site analysis submitted", a, "POST", "/v1/analyze/site", a.key, fmt.Sprintf(`{"domain":%q,"options":{"maxPages":20}}`, hostOf(t, site.URL)))
	var created Job
	readJSON(t, resp, &created)
	if created.ID == "" {
		t.Fatalf("no job created: %+v", created)
	}
	waitJob(t, a, a.key, created.ID, func(j Job) bool { return j.Status == "succeeded" || j.Status == "failed" })
	g.call("site analysis result", a, "GET", "/v1/analyze/site/"+created.ID, a.key, "")
	g.call("site analyses listed", a, "GET", "/v1/analyze/site", a.key, "")
	g.call("finished site analysis cannot be cancelled", a, "DELETE", "/v1/analyze/site/"+created.ID, a.key, "")
	g.call("unknown site analysis", a, "GET", "/v1/analyze/site/job_doesnotexist", a.key, "")
	g.call("site analysis without a domain", a, "POST", "/v1/analyze/site", a.key, `{"options":{"maxPages":20}}`)
	g.call("site analysis with a bad option", a, "POST", "/v1/analyze/site", a.key, `{"domain":"example.com","options":{"maxPages":-1}}`)

	// Content optimisation in three languages.
	g.call("optimize en", a, "POST", "/v1/optimize/content", a.key,
		`{"content":"Oak tables last for generations. Our oak tables are made by hand from solid oak, oiled and waxed. Every oak table is signed by its maker.","keywords":["oak tables"],"locale":"en-US","title":"Oak tables made by hand"}`)
	g.call("optimize de", a, "POST", "/v1/optimize/content", a.key,
		`{"content":"Eichentische halten ein Leben lang. Unsere Eichentische werden von Hand aus massiver Eiche gefertigt und geölt. Jeder Eichentisch ist ein Einzelstück.","keywords":["Eichentische"],"locale":"de-DE","title":"Eichentische aus Meisterhand"}`)
	g.call("optimize ja", a, "POST", "/v1/optimize/content", a.key,
		`{"content":"オークのテーブルは一生使えます。私たちのオークのテーブルは無垢材から手作りされています。すべてのテーブルに職人の署名があります。","keywords":["オーク テーブル"],"locale":"ja-JP","title":"手作りのオークのテーブル"}`)
	g.call("optimize with a bad locale", a, "POST", "/v1/optimize/content", a.key, `{"content":"x","keywords":["x"],"locale":"english"}`)

	// Keywords, rankings and reports.
	g.call("keyword suggestions", a, "GET", "/v1/keywords/suggest?query=oak+tables&locale=en-US&limit=10", a.key, "")
	g.call("keyword suggestions without a query", a, "GET", "/v1/keywords/suggest?locale=en-US", a.key, "")
	g.call("rankings without a source", a, "GET", "/v1/rankings?domain=example.com&keywords[]=oak+tables&keywords[]=oak+chairs&keywords[]=never+seen", a.key, "")
	g.call("rankings with a bad device", a, "GET", "/v1/rankings?domain=example.com&keywords[]=oak&device=tablet", a.key, "")
	g.call("report", a, "GET", "/v1/reports?domain=example.com&start=2026-11-01&end=2026-11-02", a.key, "")
	g.call("report of a domain never checked", a, "GET", "/v1/reports?domain=nothing-checked.example&start=2026-11-01&end=2026-11-02", a.key, "")
	g.call("report with start after end", a, "GET", "/v1/reports?domain=example.com&start=2026-11-05&end=2026-11-02", a.key, "")

	// Mutes.
	g.call("mutes, empty", a, "GET", "/v1/mutes/example.com", a.key, "")
	g.call("mutes set", a, "PUT", "/v1/mutes/www.Example.com", a.key, `{"ids":["social","security.csp_missing","social","site.orphan"]}`)
	g.call("mutes read back", a, "GET", "/v1/mutes/example.com", a.key, "")
	g.call("mutes with an unknown ID", a, "PUT", "/v1/mutes/example.com", a.key, `{"ids":["social","bogus.id"]}`)

	// Error paths.
	g.call("no credential", a, "POST", "/v1/optimize/content", "", `{"content":"Oak.","keywords":["oak"],"locale":"en-US"}`)
	g.call("malformed key", a, "POST", "/v1/optimize/content", "seo_live_nope", `{"content":"Oak.","keywords":["oak"],"locale":"en-US"}`)
	g.call("unknown path", a, "GET", "/v1/nothing", a.key, "")
	g.call("wrong method", a, "GET", "/v1/analyze/page", a.key, "")
	g.call("unknown field", a, "POST", "/v1/analyze/page", a.key, `{"url":"https://example.com/","plan":"pro"}`)
	g.call("wrong nested type", a, "POST", "/v1/analyze/page", a.key, `{"url":"https://example.com/","options":{"checkLinks":"yes"}}`)
	g.call("not JSON", a, "POST", "/v1/analyze/page", a.key, `{"url":`)
	g.call("body over the limit", a, "POST", "/v1/analyze/page", a.key, `{"url":"https://example.com/`+strings.Repeat("a", 2<<20)+`"}`)
	r := a.req("POST", "/v1/analyze/page", a.key, `{"url":"https://example.com/"}`)
	r.Header.Set("Content-Type", "text/plain")
	g.record("wrong content type", a, r)

	// A fake SERP source, and a failing one.
	src := dataOptions(t)
	src.Tracker = rankings.NewTracker(fixedSource{}, src.Tracker.Store(), nil)
	b := newTestAPI(t, src)
	g.host(b.ts.URL, "api-serp.test")
	g.call("rankings from a SERP source", b, "GET", "/v1/rankings?domain=example.com&keywords[]=oak+tables&keywords[]=oak+chairs", b.key, "")
	fail := dataOptions(t)
	fail.Tracker = rankings.NewTracker(failingSource{}, fail.Tracker.Store(), nil)
	c := newTestAPI(t, fail)
	g.host(c.ts.URL, "api-failing.test")
	g.call("rankings from a failing SERP source", c, "GET", "/v1/rankings?domain=example.com&keywords[]=oak+tables", c.key, "")

	// Daily limit and services not configured.
	d := newTestAPI(t, &Options{Limits: map[store.Plan]int{store.Free: 1}})
	g.host(d.ts.URL, "api-limited.test")
	g.call("within the daily limit", d, "GET", "/v1/analyze/site", d.key, "")
	g.call("over the daily limit", d, "GET", "/v1/analyze/site", d.key, "")
	e := newTestAPI(t, nil)
	g.host(e.ts.URL, "api-bare.test")
	g.call("keywords not configured", e, "GET", "/v1/keywords/suggest?query=oak", e.key, "")

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g.ex); err != nil {
		t.Fatal(err)
	}
	compareGoldenFile(t, "exchanges.json", buf.String())
}

// compareGoldenFile compares got with testdata/golden/name, or records it
// when SEOKIT_UPDATE_GOLDEN=1; a difference names the exchange it is in.
func compareGoldenFile(t *testing.T, name, got string) {
	t.Helper()
	golden.Compare(t, filepath.Join("testdata", "golden", name), got, func(w []string, i int) string {
		for k := min(i, len(w)-1); k >= 0; k-- {
			if n, ok := strings.CutPrefix(strings.TrimSpace(w[k]), `"name": `); ok {
				return strings.TrimSuffix(n, ",")
			}
		}
		return ""
	})
}
