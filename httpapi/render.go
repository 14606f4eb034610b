package httpapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync/atomic"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/render"
)

// RenderQuotaUnits is what an analysis that renders counts against the
// account's daily quota: a page analysis with options.render "auto" or
// "always" counts RenderQuotaUnits requests instead of one, and so does a
// site analysis that renders (its rendered pages are capped by the plan,
// plans.Limits.RenderPages). A browser page costs about that many raw
// analyses in CPU and memory.
const RenderQuotaUnits = 5

// renderMemory is what one rendering reserves from the memory budget on
// top of its page analysis: the rendered DOM and its parse, the
// screenshots and the driver's buffers on seokit's side. The browser's own
// memory is bounded by the renderer's pool, and each rendering reserves
// its share of it too (AdmissionOptions.BrowserMemory).
const renderMemory = 48 << 20

// renderChoice is the validated rendering options of a request.
type renderChoice struct {
	mode render.Mode
	shot render.Shot
	site bool
	a11y bool // the accessibility audit of the rendered pages
}

// withA11y adds options.a11y to c: the audit runs on rendered pages, so it
// needs options.render "auto" or "always".
func (c renderChoice) withA11y(on bool) (renderChoice, error) {
	if on && !c.on() {
		return renderChoice{}, invalid("options.a11y", `options.a11y needs options.render "auto" or "always" (the audit runs on the rendered page)`)
	}
	c.a11y = on
	return c, nil
}

// on reports whether the analysis may render.
func (c renderChoice) on() bool { return c.mode == render.Auto || c.mode == render.Always }

// parseRender validates options.render ("none" when empty) and
// options.screenshot ("viewport" when empty and rendering, "none"
// otherwise). Site analyses store viewport screenshots only.
func parseRender(mode, shot string, site bool) (renderChoice, error) {
	m, err := render.ParseMode(mode)
	if err != nil {
		return renderChoice{}, invalid("options.render", `options.render must be "none", "auto" or "always"`)
	}
	c := renderChoice{mode: m, shot: render.NoShot, site: site}
	switch render.Shot(shot) {
	case "":
		if c.on() {
			c.shot = render.Viewport
		}
	case render.NoShot:
	case render.Viewport, render.FullPage:
		if !c.on() {
			return renderChoice{}, invalid("options.screenshot", `options.screenshot needs options.render "auto" or "always"`)
		}
		if site && render.Shot(shot) == render.FullPage {
			return renderChoice{}, invalid("options.screenshot", `site analyses take "none" or "viewport" screenshots`)
		}
		c.shot = render.Shot(shot)
	default:
		return renderChoice{}, invalid("options.screenshot", `options.screenshot must be "none", "viewport" or "full"`)
	}
	return c, nil
}

// renderingUnavailable is the 503 of a rendering request on a server
// without a browser.
func renderingUnavailable() *Error {
	return apiError(http.StatusServiceUnavailable, CodeRenderingUnavailable,
		"rendering is unavailable on this server (no browser could be started); "+
			`raw analysis works: send options.render "none" or leave it out`)
}

// checkRender refuses a rendering page analysis on a server without a
// renderer. Its extra quota units are counted once it is admitted (a
// refused request costs what any refused request costs): by the page
// service for one that always renders, by pageRenderer for one in "auto"
// mode whose page needs rendering.
func (s *Server) checkRender(c renderChoice) error {
	if c.on() && s.opts.Renderer == nil {
		return renderingUnavailable()
	}
	return nil
}

// takeRenderUnits counts the RenderQuotaUnits-1 extra requests of a
// rendering, whose request paid the first, against the account's daily
// quota (charge): units the day has not left are refused before any is
// counted. A refusal is a *service.LimitError.
func (s *Server) takeRenderUnits(ctx context.Context, accountID string) error {
	return s.charge(service.WithPaid(ctx, 1), accountID, RenderQuotaUnits)
}

// pageRenderer is the renderer of a page analysis in "auto" mode: it was
// admitted and counted as a raw analysis, and a page that needs rendering
// takes a slot of the rendering class, waiting for it as long as any
// request waits for admission, then counts the extra quota units, when
// the analyzer asks for the rendering. A rendering that is not admitted
// in time, or whose quota is refused, is declined (render.ErrDeclined):
// the raw page is reported, not rendered, with the reason, and the
// analysis does not hold its page analysis slot while the renderings of
// others run.
type pageRenderer struct {
	s       *Server
	account string
}

// Render waits for a rendering slot, counts the rendering and renders.
func (p pageRenderer) Render(ctx context.Context, req *render.Request) (*render.Result, error) {
	release, err := p.s.adm.acquireSlot(ctx, KindRender, p.account, p.s.adm.renderBytes(), false)
	if err != nil {
		return nil, declineRefusal(err)
	}
	defer release()
	if err := p.s.takeRenderUnits(ctx, p.account); err != nil {
		return nil, declineRefusal(err)
	}
	return p.s.opts.Renderer.Render(ctx, req)
}

// declineRefusal turns an admission or quota refusal into a declined
// rendering with the refusal's message; other errors are returned as
// they are.
func declineRefusal(err error) error {
	var limit *service.LimitError
	var busy *service.BusyError
	var large *service.TooLargeError
	switch {
	case errors.As(err, &limit):
		return fmt.Errorf("%w: %s", render.ErrDeclined, limit.Message)
	case errors.As(err, &busy):
		return fmt.Errorf("%w: %s", render.ErrDeclined, busy.Message)
	case errors.As(err, &large):
		return fmt.Errorf("%w: %s", render.ErrDeclined, large.PublicMessage())
	}
	return err
}

// renderCapacity is implemented by renderers that know how many pages
// they render at once (render/chromium's pool); AdmissionOptions.MaxRenders
// defaults to it.
type renderCapacity interface{ Capacity() int }

// renderMemoryLimit is implemented by renderers that bound the memory of
// their browsers (render/chromium's pool); AdmissionOptions.BrowserMemory
// defaults to it.
type renderMemoryLimit interface{ MemoryLimit() int64 }

// jobRenderer is the renderer of one site analysis: each rendering waits
// for a slot of the rendering class and its memory, and the analysis
// renders at most max pages. The pages rendered are counted in the store
// with the job (store.Jobs.TakeRender), so the cap holds across a restart
// that resumes the crawl and across the instances that crawl it together;
// without a job ID (no stored job) they are counted here.
type jobRenderer struct {
	r   render.Renderer
	adm *admission
	max int64
	st  store.Jobs
	job string
	n   atomic.Int64
	// full is set once the store refused a page: the cap is reached for
	// the rest of the run.
	full atomic.Bool
}

// Render renders req once admitted, or declines it past the cap.
func (j *jobRenderer) Render(ctx context.Context, req *render.Request) (*render.Result, error) {
	capped := fmt.Errorf("%w: the plan renders at most %d pages per site analysis", render.ErrDeclined, j.max)
	switch {
	case j.st == nil || j.job == "":
		if j.n.Add(1) > j.max {
			return nil, capped
		}
	case j.full.Load():
		return nil, capped
	default:
		ok, err := j.st.TakeRender(ctx, j.job, req.URL, int(min(j.max, math.MaxInt32)))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// Not counted, not rendered: the cap must hold.
			return nil, fmt.Errorf("%w: the count of rendered pages could not be stored", render.ErrDeclined)
		}
		if !ok {
			j.full.Store(true)
			return nil, capped
		}
	}
	release, err := j.adm.acquireSlot(ctx, KindRender, "", j.adm.renderBytes(), true)
	if err != nil {
		return nil, err
	}
	defer release()
	return j.r.Render(ctx, req)
}

// setRender sets the rendering options of an analysis from c.
func setRender(o *analyzer.Options, c renderChoice, r render.Renderer) {
	o.Render, o.Renderer = c.mode, r
	o.RenderRequest.Screenshot = c.shot
	o.A11y = c.a11y
}
