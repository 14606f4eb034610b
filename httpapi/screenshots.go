package httpapi

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
)

// jobScreenshots is the crawler.ScreenshotSink of one site analysis: it
// stores at most max screenshots of the job in the store, counted there
// (store.Screenshots.PutScreenshotWithin), so the cap holds across a
// restart that resumes the crawl and across the instances that crawl it
// together.
type jobScreenshots struct {
	st  store.Screenshots
	job string
	max int64
}

// PutScreenshot stores the screenshot of pageURL, or refuses it with
// crawler.ErrScreenshotsFull past the job's cap.
func (j *jobScreenshots) PutScreenshot(ctx context.Context, pageURL string, png []byte) error {
	err := j.st.PutScreenshotWithin(ctx, j.job, pageURL, png, int(min(j.max, math.MaxInt32)))
	if errors.Is(err, store.ErrLimitReached) {
		return crawler.ErrScreenshotsFull
	}
	return err
}

// screenshotSink returns the sink that keeps the viewport screenshots of
// job jobID, at most the request's renderPages; nil when the analysis
// takes none, the server has no renderer or its store keeps no
// screenshots.
func (s *Server) screenshotSink(jobID string, req SiteRequest) crawler.ScreenshotSink {
	st, ok := s.st.(store.Screenshots)
	if !ok || s.opts.Renderer == nil {
		return nil
	}
	rc, err := parseRender(req.Options.Render, req.Options.Screenshot, true)
	if err != nil || !rc.on() || rc.shot != render.Viewport || req.Options.RenderPages <= 0 {
		return nil
	}
	return &jobScreenshots{st: st, job: jobID, max: int64(req.Options.RenderPages)}
}

// siteScreenshot serves GET /v1/analyze/site/{id}/screenshot?url=: the
// PNG of a page of the job, 404 when it has none.
func (s *Server) siteScreenshot(w http.ResponseWriter, r *http.Request) {
	png, err := s.Analyses().Screenshot(r.Context(), principal(r.Context()).AccountID, r.PathValue("id"), r.URL.Query().Get("url"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writePNG(w, png)
}

// writePNG writes a stored screenshot: image/png, cacheable by the
// client only (the job's screenshots do not change once stored).
func writePNG(w http.ResponseWriter, png []byte) {
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Content-Length", strconv.Itoa(len(png)))
	h.Set("Cache-Control", "private, max-age=3600")
	w.WriteHeader(http.StatusOK)
	w.Write(png)
}
