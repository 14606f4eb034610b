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

// Reporter collects the findings of one page, at most
// Options.MaxFindingsPerID per ID (the rest are counted, not kept). It is
// safe for concurrent use.
type Reporter struct {
	mu       sync.Mutex
	cfg      *config
	url      string
	extra    map[string]seo.CheckInfo
	findings []seo.Finding
	perID    map[string]int // findings reported per ID, kept or not
	dropped  int            // findings over MaxFindingsPerID
	urls     int            // evidence URLs reported
	urlsCut  int            // evidence URLs over MaxEvidenceURLs
	muted    map[string]*MutedFinding
}

func newReporter(cfg *config, pageURL string) *Reporter {
	r := &Reporter{cfg: cfg, url: pageURL, perID: map[string]int{}}
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

// full reports whether id already has its MaxFindingsPerID findings. It is
// false for disabled IDs.
func (r *Reporter) full(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.perID[id] >= r.cfg.MaxFindingsPerID && !r.cfg.isDisabled(id)
}

// addLazy reports like Add, building the evidence only when the finding
// is kept: checks that repeat per element use it so that a page of a
// million bad elements costs no evidence beyond the cap.
func (r *Reporter) addLazy(id, message string, ev func() seo.Evidence) {
	if r.cfg.isMuted(id) {
		r.Add(id, message, seo.Evidence{})
		return
	}
	if r.full(id) {
		r.mu.Lock()
		r.perID[id]++
		r.dropped++
		r.mu.Unlock()
		return
	}
	r.Add(id, message, ev())
}

// Add reports a finding of id on the page. The severity is the catalogue's
// unless Options.Severity overrides it; disabled IDs are dropped, muted
// ones counted (Report.Muted).
func (r *Reporter) Add(id, message string, ev seo.Evidence) {
	if r.cfg.isDisabled(id) {
		return
	}
	sev := seo.Warning
	if in, ok := catalog[id]; ok {
		sev = in.Severity
	} else if in, ok := r.extra[id]; ok {
		sev = in.Severity
	}
	if s, ok := r.cfg.Severity[id]; ok {
		sev = s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.isMuted(id) {
		if r.muted == nil {
			r.muted = map[string]*MutedFinding{}
		}
		m := r.muted[id]
		if m == nil {
			m = &MutedFinding{ID: id, Severity: sev}
			r.muted[id] = m
		}
		m.Count++
		return
	}
	r.perID[id]++
	if r.perID[id] > r.cfg.MaxFindingsPerID {
		r.dropped++
		return
	}
	ev.Value = seo.Clip(ev.Value)
	r.urls += len(ev.URLs)
	if len(ev.URLs) > r.cfg.MaxEvidenceURLs {
		r.urlsCut += len(ev.URLs) - r.cfg.MaxEvidenceURLs
		ev.URLs = slices.Clone(ev.URLs[:r.cfg.MaxEvidenceURLs])
	}
	r.findings = append(r.findings, seo.Finding{ID: id, Severity: sev, Message: message, Evidence: ev, URL: r.url})
}

// noteTruncation records in t the findings and evidence URLs left out.
func (r *Reporter) noteTruncation(t *seo.Truncated) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t.Note("findings", len(r.findings)+r.dropped, len(r.findings))
	t.Note("findings.evidence.urls", r.urls, r.urls-r.urlsCut)
}

// Findings returns the findings so far, most severe first, then by ID, in
// the order reported within an ID.
func (r *Reporter) Findings() []seo.Finding {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]seo.Finding(nil), r.findings...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity != out[j].Severity {
			return out[i].Severity > out[j].Severity
		}
		return out[i].ID < out[j].ID
	})
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
