package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/optimizer"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/render"
	"github.com/seokit/seokit/seo"
)

// The page analysis types are the service's (package service).
type (
	// PageOptions are the options of a page analysis request.
	PageOptions = service.PageOptions
	// PageRequest is the body of POST /v1/analyze/page and POST /v1/analyze.
	PageRequest = service.PageRequest
)

func (s *Server) analyzePagePost(w http.ResponseWriter, r *http.Request) {
	var req PageRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	s.analyzePage(w, r, req)
}

// analyzePageGet serves GET
// /v1/analyze?url=&depth=&checkLinks=&analyzeMobile=&skipExternalLinks=&mute=&render=&screenshot=&a11y=.
func (s *Server) analyzePageGet(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := PageRequest{URL: q.Get("url"), Options: PageOptions{Depth: q.Get("depth"), Render: q.Get("render"), Screenshot: q.Get("screenshot")}}
	for _, id := range strings.Split(q.Get("mute"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			req.Options.Mute = append(req.Options.Mute, id)
		}
	}
	var err error
	if req.Options.CheckLinks, err = queryBool(r, "checkLinks"); err != nil {
		s.fail(w, r, err)
		return
	}
	if req.Options.AnalyzeMobile, err = queryBool(r, "analyzeMobile"); err != nil {
		s.fail(w, r, err)
		return
	}
	if req.Options.SkipExternalLinks, err = queryBool(r, "skipExternalLinks"); err != nil {
		s.fail(w, r, err)
		return
	}
	if req.Options.A11y, err = queryBool(r, "a11y"); err != nil {
		s.fail(w, r, err)
		return
	}
	s.analyzePage(w, r, req)
}

func (s *Server) analyzePage(w http.ResponseWriter, r *http.Request, req PageRequest) {
	rep, err := s.Pages().Analyze(r.Context(), principal(r.Context()).AccountID, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// Pages returns the page analysis service: POST /v1/analyze/page and the
// MCP server's analyze_page call it.
func (s *Server) Pages() service.Pages { return pageService{s} }

// pageService implements service.Pages.
type pageService struct{ s *Server }

func (p pageService) Analyze(ctx context.Context, accountID string, req PageRequest) (*analyzer.Report, error) {
	s := p.s
	u, err := seo.ParseURL(req.URL)
	if err != nil {
		return nil, err
	}
	depth, err := analyzer.ParseDepth(req.Options.Depth)
	if err != nil {
		return nil, err
	}
	if err := validateMutes("options.mute", req.Options.Mute); err != nil {
		return nil, err
	}
	if err := validateExtraction(req.Options.Extract, req.Options.Search); err != nil {
		return nil, err
	}
	rc, err := parseRender(req.Options.Render, req.Options.Screenshot, false)
	if err == nil {
		rc, err = rc.withA11y(req.Options.A11y)
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkRender(rc); err != nil {
		return nil, err
	}
	mutes, err := s.analysisMutes(ctx, accountID, u.Host, req.Options.Mute)
	if err != nil {
		return nil, err
	}
	var o analyzer.Options
	if s.opts.AnalyzerOptions != nil {
		o = *s.opts.AnalyzerOptions
	}
	o.Depth, o.CheckLinks, o.AnalyzeMobile = depth, req.Options.CheckLinks, req.Options.AnalyzeMobile
	// The link checks get at most half of PageTimeout, so that a page of
	// targets that never answer is answered with those checked in time
	// and the rest not checked (time_budget) rather than with a 503. The
	// other half is for what runs before them: robots.txt and the page's
	// fetch (seo.DefaultFetchTimeout, 10 s each) and its rendering
	// (render.DefaultTimeout, 20 s), 40 s of the default 80 s.
	if lb := s.opts.PageTimeout / 2; o.LinkCheckBudget <= 0 || o.LinkCheckBudget > lb {
		o.LinkCheckBudget = lb
	}
	o.AllowPrivate = s.opts.AllowPrivate
	if o.Fetcher == nil {
		o.Fetcher = s.fetcher
	}
	o.Mute = unionIDs(o.Mute, pageMutes(mutes))
	if req.Options.UserAgent != "" {
		if o.UserAgent, _, err = seo.ResolveUserAgent(req.Options.UserAgent); err != nil {
			return nil, prefixField(err)
		}
	}
	o.Extract, o.Search = req.Options.Extract, req.Options.Search
	if req.Options.SkipExternalLinks {
		o.Disable = unionIDs(o.Disable, []string{"links.broken_external", "links.redirect_external"})
	}
	// Admitted with a small reservation; the analyzer reserves by the
	// body's size once it is fetched. One that always renders takes a slot
	// of the rendering class instead, with the rendering's memory; one in
	// "auto" mode takes it only if the page needs rendering.
	kind, mem := KindPage, int64(pageBaseMemory)
	switch rc.mode {
	case render.Always:
		kind, mem = KindRender, pageBaseMemory+s.adm.renderBytes()
		setRender(&o, rc, s.opts.Renderer)
	case render.Auto:
		setRender(&o, rc, pageRenderer{s: s, account: accountID})
	}
	release, err := s.adm.acquireSlot(ctx, kind, accountID, mem, false)
	if err != nil {
		return nil, err
	}
	defer release()
	if rc.mode == render.Always {
		// Counted once admitted: a refused rendering costs one request,
		// as any refused request does.
		if err := s.takeRenderUnits(ctx, accountID); err != nil {
			return nil, err
		}
	}
	o.Memory = s.adm.mem
	actx, cancel := context.WithTimeout(ctx, s.opts.PageTimeout)
	defer cancel()
	rep, err := analyzer.Analyze(actx, u.String(), &o)
	// A report made as the deadline passed is not one to answer with:
	// its fetches cut short read as failures of the site.
	if ctx.Err() == nil && actx.Err() != nil {
		return nil, apiError(http.StatusServiceUnavailable, CodeUnavailable, "the page analysis took longer than "+s.opts.PageTimeout.String()+
			", the most this server runs one (it waited on slow answers: the page, its rendering, mobile fetch or link checks); retry later")
	}
	return rep, err
}

func (s *Server) optimize(w http.ResponseWriter, r *http.Request) {
	// Decoding the body is itself memory: reserve it by the declared
	// length, or the cap, before reading it. The body is received before
	// the optimisation takes a slot, so that a client that sends it slowly
	// holds its own account's count and the body's memory, not one of the
	// server's few optimisation slots; the slot and the optimizer's own
	// memory are taken once the body is in.
	n := s.opts.OptimizeMaxBodyBytes
	if r.ContentLength >= 0 && r.ContentLength < n {
		n = r.ContentLength
	}
	ctx := r.Context()
	accountID := principal(ctx).AccountID
	if accountID != "" {
		drop, err := s.adm.takeAccount(ctx, KindOptimize, accountID)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		defer drop()
	}
	freeBody, err := s.adm.mem.Reserve(ctx, optimizeBodyMemory(n))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer freeBody()
	var req optimizer.Request
	if err := decodeJSON(w, r, s.opts.OptimizeMaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	release, err := s.adm.acquireSlot(ctx, KindOptimize, "", optimizer.EstimateMemory(int(n)), false)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	rep, err := s.Content().Optimize(context.WithValue(ctx, admittedKey{}, true), accountID, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// admittedKey marks a context whose work already holds its admission slot
// (the optimize handler admits before decoding the body).
type admittedKey struct{}

// Content returns the content optimisation service: POST
// /v1/optimize/content and the MCP server's optimize_content call it.
func (s *Server) Content() service.Content { return contentService{s} }

// contentService implements service.Content.
type contentService struct{ s *Server }

func (c contentService) Optimize(ctx context.Context, accountID string, req optimizer.Request) (*optimizer.Report, error) {
	if admitted, _ := ctx.Value(admittedKey{}).(bool); !admitted {
		n := int64(len(req.Content) + len(req.Title) + len(req.Description))
		release, err := c.s.adm.acquireSlot(ctx, KindOptimize, accountID, optimizeMemory(n), false)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	return optimizer.Optimize(ctx, req)
}

// suggest serves GET /v1/keywords/suggest through the Keywords service.
func (s *Server) suggest(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := service.SuggestRequest{Query: q.Get("query"), Locale: q.Get("locale"), Site: q.Get("site")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			n = -1 // refused by the service, which words the range
		}
		req.Limit = n
	}
	// SuggestJSON writes a repeated answer from the suggester's memory
	// without copying or encoding it again: the hot path of this route.
	buf := jsonBufs.Get().(*[]byte)
	defer putJSONBuf(buf)
	b, err := s.Keywords().SuggestJSON(r.Context(), principal(r.Context()).AccountID, (*buf)[:0], req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	*buf = append(b, '\n')
	writeJSONBytes(w, http.StatusOK, *buf)
}

// jsonBufs recycles the buffers of encoded answers; buffers that grew past
// maxPooledJSON are dropped so a rare large answer does not stay pinned.
var jsonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooledJSON = 256 << 10

func putJSONBuf(b *[]byte) {
	if cap(*b) <= maxPooledJSON {
		jsonBufs.Put(b)
	}
}

// writeJSONBytes writes an encoded JSON body, which ends in a newline as
// writeJSON's do, with status.
func writeJSONBytes(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// rankings serves GET /v1/rankings: the latest state of each keyword,
// checked live when the Tracker has a SERP source (a provider failure is
// an entry with status failed, not an error), and whether a source is
// configured at all (sourceStatus). It is a read: the keywords are not
// added to tracking (POST /v1/rankings/track does that).
func (s *Server) rankings(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	accountID := principal(r.Context()).AccountID
	body, err := s.Rankings().Check(r.Context(), accountID, service.RankingsRequest{
		Domain: q.Get("domain"), ProjectID: q.Get("projectId"),
		Keywords: append(q["keywords[]"], q["keywords"]...),
		Locale:   q.Get("locale"), Device: q.Get("device"),
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// TrackRequest is the body of POST /v1/rankings/track.
type TrackRequest struct {
	Domain   string   `json:"domain"`
	Keywords []string `json:"keywords"`
	Locale   string   `json:"locale,omitempty"`
	Device   string   `json:"device,omitempty"`
}

// TrackResponse answers POST /v1/rankings/track: the keywords now tracked
// and the latest state of each, as GET /v1/rankings gives it.
type TrackResponse struct {
	Domain   string             `json:"domain"`
	Locale   string             `json:"locale"`
	Device   string             `json:"device"`
	Tracked  int                `json:"tracked"`
	Rankings []rankings.Ranking `json:"rankings"`
}

// trackRankings serves POST /v1/rankings/track: the keywords are tracked
// (checked daily) for the account. Options.OnRankings runs first and may
// refuse them, e.g. past the account's cap of tracked keywords, which is
// then a 400 naming keywords, never a silent drop.
func (s *Server) trackRankings(w http.ResponseWriter, r *http.Request) {
	var req TrackRequest
	if err := decodeJSON(w, r, s.opts.MaxBodyBytes, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	treq := service.TrackRequest{Domain: req.Domain, Keywords: req.Keywords, Locale: req.Locale, Device: req.Device}
	domain, kws, opts, err := trackArgs(treq)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	accountID := principal(r.Context()).AccountID
	if s.opts.OnRankings != nil {
		now := s.now().UTC()
		tracked := make([]rankings.Tracked, 0, len(kws))
		for _, k := range kws {
			tracked = append(tracked, rankings.Tracked{Domain: domain, Keyword: k, Locale: opts.Locale, Device: opts.Device, AddedAt: now})
		}
		if err := s.opts.OnRankings(r.Context(), accountID, tracked); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	res, err := s.Rankings().Track(r.Context(), accountID, treq)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if res == nil {
		res = []rankings.Ranking{}
	}
	writeJSON(w, http.StatusOK, TrackResponse{Domain: domain, Locale: opts.Locale.String(), Device: string(opts.Device), Tracked: len(res), Rankings: res})
}

// reports serves GET /v1/reports through the Reports service.
func (s *Server) reports(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rep, err := s.Reports().Build(r.Context(), principal(r.Context()).AccountID, service.ReportRequest{
		Domain: q.Get("domain"), Start: q.Get("start"), End: q.Get("end"),
		Locale: q.Get("locale"), Device: q.Get("device"),
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
