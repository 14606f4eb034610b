package analyzer

import (
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/seokit/seokit/seo"
)

// Check is a page check: a plain function over the parsed page that reports
// findings. Built-in checks are registered by area; Options.Checks adds more
// and Options.Disable turns any off by ID or area.
type Check struct {
	// Area groups the check ("title", "links", or a name of your own).
	Area string
	// Depth is the least depth that runs the check; zero means Basic.
	Depth Depth
	// IDs declares the catalogue entries the check may report, with their
	// default severity. A check whose IDs are all disabled does not run.
	IDs []seo.CheckInfo
	// AllDocuments runs the check on non-HTML responses too (images, PDFs);
	// by default only HTML documents are checked.
	AllDocuments bool
	// Run inspects the page and reports through r. It must not modify p
	// except p.Report's page-data fields belonging to its area.
	Run func(p *Page, r *Reporter)
}

// probe is a page check that needs fetches of its own (robots.txt, the
// http:// form of an https URL, a TLS version probe). Probes run in Analyze,
// concurrently with link and mobile checks; AnalyzeHTML and AnalyzeResponse
// skip them (robots checks then use Options.Robots when set).
type probe struct {
	Area  string
	Depth Depth
	IDs   []seo.CheckInfo
	Run   func(ctx context.Context, p *Page, env *fetchEnv, r *Reporter)
}

// fetchEnv gives probes, link checks and mobile checks what they fetch with.
type fetchEnv struct {
	Fetcher Fetcher
	// Robots answers robots.txt questions; nil when none is available.
	Robots    RobotsPolicy
	UserAgent string
}

// extractor fills the page data of one area into p.Report before the checks
// run. Extractors read the page, never the report, so their order is free.
type extractor func(p *Page)

var (
	builtinChecks     []Check
	builtinProbes     []probe
	builtinExtractors []extractor
	catalog           = map[string]seo.CheckInfo{}
	// catalogAreas holds the area of every catalogue ID.
	catalogAreas = map[string]bool{}
)

// register adds built-in checks; called from init functions of the area files.
func register(checks ...Check) {
	for _, c := range checks {
		declare(c.IDs...)
	}
	builtinChecks = append(builtinChecks, checks...)
}

// registerProbe adds built-in probes.
func registerProbe(probes ...probe) {
	for _, p := range probes {
		declare(p.IDs...)
	}
	builtinProbes = append(builtinProbes, probes...)
}

// registerExtractor adds a page-data extractor.
func registerExtractor(e ...extractor) { builtinExtractors = append(builtinExtractors, e...) }

// declare adds catalogue entries reported outside Check.Run (link and mobile
// phases). Declaring an ID twice is a programming error.
func declare(infos ...seo.CheckInfo) {
	for _, in := range infos {
		if _, dup := catalog[in.ID]; dup {
			panic("analyzer: check ID declared twice: " + in.ID)
		}
		catalog[in.ID] = in
		catalogAreas[seo.AreaOf(in.ID)] = true
	}
}

// Catalog returns every check ID the analyzer can report, sorted by ID.
func Catalog() []seo.CheckInfo {
	out := make([]seo.CheckInfo, 0, len(catalog))
	for _, c := range catalog {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Reporter collects the findings of one page: one finding per ID, whose
// Count counts every occurrence reported and whose Evidence and Examples
// keep the evidence of the first 1+Options.MaxExamples (the rest are
// counted, not kept). It is safe for concurrent use.
type Reporter struct {
	mu       sync.Mutex
	cfg      *config
	url      string
	extra    map[string]seo.CheckInfo
	findings []seo.Finding
	at       map[string]int // index of each ID's finding in findings
	total    int            // occurrences reported
	kept     int            // occurrences whose evidence is kept
	urls     int            // evidence URLs reported
	urlsCut  int            // evidence URLs over MaxEvidenceURLs
	muted    map[string]*MutedFinding
}

// findingsHint sizes a reporter's findings at its first: a page of the
// corpus (SEOKIT_CORPUS) has 17 to 35 distinct findings, 20 at the
// median, and an article of the crawl benchmarks' site 12 or 13: from
// one, the list grew five times before Findings copies it.
const findingsHint = 16

func newReporter(cfg *config, pageURL string) *Reporter {
	r := &Reporter{cfg: cfg, url: pageURL, at: map[string]int{}}
	for _, c := range cfg.Checks {
		for _, in := range c.IDs {
			if r.extra == nil {
				r.extra = map[string]seo.CheckInfo{}
			}
			r.extra[in.ID] = in
		}
	}
	return r
}

// Enabled reports whether id is reported at all, so a check can skip work.
func (r *Reporter) Enabled(id string) bool { return !r.cfg.isDisabled(id) }

// info returns the catalogue entry of id (a custom check's, or a warning
// of page scope for an undeclared ID).
func (r *Reporter) info(id string) seo.CheckInfo {
	if in, ok := catalog[id]; ok {
		return in
	}
	if in, ok := r.extra[id]; ok {
		return in
	}
	return seo.CheckInfo{ID: id, Severity: seo.Warning, Scope: seo.ScopePage}
}

// full reports whether id already keeps the evidence of its 1+MaxExamples
// occurrences, so that a further one is only counted. Call with r.mu held.
func (r *Reporter) full(id string) bool {
	k, ok := r.at[id]
	return ok && len(r.findings[k].Examples) >= r.cfg.MaxExamples
}

// addLazy reports like Add, building the evidence only when it is kept:
// checks that repeat per element use it so that a page of a million bad
// elements costs no evidence beyond the cap.
func (r *Reporter) addLazy(id, message string, ev func() seo.Evidence) {
	if r.cfg.isDisabled(id) {
		return
	}
	if r.cfg.isMuted(id) {
		r.Add(id, message, seo.Evidence{})
		return
	}
	r.mu.Lock()
	if r.full(id) {
		r.findings[r.at[id]].Count++
		r.total++
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	r.Add(id, message, ev())
}

// Add reports an occurrence of id on the page. The first occurrence of an
// ID makes its finding, with message and evidence; later ones add to its
// Count and, up to Options.MaxExamples, to its Examples. The severity is
// the catalogue's unless Options.Severity overrides it; disabled IDs are
// dropped, muted ones only counted (Report.Muted).
func (r *Reporter) Add(id, message string, ev seo.Evidence) {
	if r.cfg.isDisabled(id) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.isMuted(id) {
		if r.muted == nil {
			r.muted = map[string]*MutedFinding{}
		}
		m := r.muted[id]
		if m == nil {
			sev := r.info(id).Severity
			if s, ok := r.cfg.Severity[id]; ok {
				sev = s
			}
			m = &MutedFinding{ID: id, Severity: sev}
			r.muted[id] = m
		}
		m.Count++
		return
	}
	r.total++
	k, ok := r.at[id]
	if ok && r.full(id) {
		r.findings[k].Count++
		return
	}
	r.kept++
	ev.Value = seo.Clip(ev.Value)
	r.urls += len(ev.URLs)
	if len(ev.URLs) > r.cfg.MaxEvidenceURLs {
		r.urlsCut += len(ev.URLs) - r.cfg.MaxEvidenceURLs
		ev.URLs = slices.Clone(ev.URLs[:r.cfg.MaxEvidenceURLs])
	}
	if ok {
		f := &r.findings[k]
		f.Count++
		if f.Examples == nil {
			// A second occurrence: most repeat past the cap, so the
			// examples are sized once for it (Findings clips them).
			f.Examples = make([]seo.Evidence, 0, r.cfg.MaxExamples)
		}
		f.Examples = append(f.Examples, ev)
		return
	}
	sev := r.info(id).Severity
	if s, ok := r.cfg.Severity[id]; ok {
		sev = s
	}
	if r.findings == nil {
		r.findings = make([]seo.Finding, 0, findingsHint)
	}
	r.at[id] = len(r.findings)
	r.findings = append(r.findings, seo.Finding{ID: id, Severity: sev, Message: message, Evidence: ev, URL: r.url, Count: 1})
}

// noteTruncation records in t the occurrences whose evidence was not kept
// ("findings") and the evidence URLs left out.
func (r *Reporter) noteTruncation(t *seo.Truncated) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t.Note("findings", r.total, r.kept)
	t.Note("findings.evidence.urls", r.urls, r.urls-r.urlsCut)
}

// Findings returns the findings so far, one per ID, with their priority
// (seo.Priority of the severity and seo.PageReach of the count), sorted by
// priority, highest first, then by ID.
func (r *Reporter) Findings() []seo.Finding {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.findings)
	for i := range out {
		f := &out[i]
		f.Examples = slices.Clip(f.Examples)
		f.Priority = seo.Priority(f.Severity, seo.PageReach(f.Count), r.info(f.ID).Minor)
	}
	seo.SortByPriority(out)
	return out
}

// Muted returns the muted findings counted so far by ID, most severe
// first, then by ID; nil when none.
func (r *Reporter) Muted() []MutedFinding {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.muted) == 0 {
		return nil
	}
	out := make([]MutedFinding, 0, len(r.muted))
	for _, m := range r.muted {
		out = append(out, *m)
	}
	SortMuted(out)
	return out
}

// runs reports whether a check with these properties runs in this analysis.
func (c *config) runs(depth Depth, ids []seo.CheckInfo) bool {
	if !c.Depth.Includes(orBasic(depth)) {
		return false
	}
	if len(ids) == 0 {
		return true
	}
	for _, in := range ids {
		if !c.isDisabled(in.ID) {
			return true
		}
	}
	return false
}

func orBasic(d Depth) Depth {
	if d == "" {
		return Basic
	}
	return d
}
