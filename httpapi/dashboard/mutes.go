package dashboard

import (
	"context"
	"net/http"
	"slices"

	"github.com/seokit/seokit/analyzer"
	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/httpapi/store"
)

// Mutes reads and replaces the check IDs and areas an account mutes for a
// domain; later analyses of the domain leave their findings out and count
// them as muted. The API server (httpapi.Server) implements it.
type Mutes interface {
	// Mutes returns the domain's list, never nil.
	Mutes(ctx context.Context, accountID, domain string) ([]string, error)
	// SetMutes validates and stores the domain's list and returns it.
	// An unknown ID is an *seo.InputError.
	SetMutes(ctx context.Context, accountID, domain string, ids []string) ([]string, error)
}

// muteView is the mute part of an analysis page: the IDs muted for the
// domain, the report's finding IDs that can be muted, and what the report
// itself left out as muted.
type muteView struct {
	Domain string
	Muted  []string
	// Mutable lists the report's finding IDs not muted yet.
	Mutable []string
	// InReport counts the findings this report muted.
	InReport []analyzer.MutedFinding
}

// mutes returns the Mutes of the dashboard (Options.Mutes); nil hides the
// controls.
func (d *Dashboard) mutes() Mutes { return d.opts.Mutes }

// muteView builds the mute controls of an analysis of domain; nil when
// mutes are not available or the list cannot be read (logged).
func (d *Dashboard) muteView(ctx context.Context, accountID, domain string, rep *crawler.SiteReport) *muteView {
	m := d.mutes()
	if m == nil || domain == "" {
		return nil
	}
	ids, err := m.Mutes(ctx, accountID, domain)
	if err != nil {
		d.log.Error("dashboard: mutes", "domain", domain, "err", err)
		return nil
	}
	v := &muteView{Domain: domain, Muted: ids}
	if rep != nil {
		v.InReport = rep.Muted
		for _, g := range rep.Findings {
			if !slices.Contains(ids, g.ID) && !slices.Contains(v.Mutable, g.ID) {
				v.Mutable = append(v.Mutable, g.ID)
			}
		}
	}
	return v
}

// setMute serves POST /dashboard/analyses/{id}/mutes: the form's "mute"
// or "unmute" field names one check ID or area to add to or remove from
// the list of the analysis's domain.
func (d *Dashboard) setMute(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	m := d.mutes()
	if m == nil {
		d.errorPage(w, r, a, http.StatusServiceUnavailable, "Muting checks is not available on this server.")
		return
	}
	j, _, ok := d.ownJob(w, r, a)
	if !ok {
		return
	}
	domain := j.Domain
	ids, err := m.Mutes(r.Context(), a.ID, domain)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	if id := r.PostFormValue("mute"); id != "" && !slices.Contains(ids, id) {
		ids = append(ids, id)
	}
	if id := r.PostFormValue("unmute"); id != "" {
		ids = slices.DeleteFunc(ids, func(x string) bool { return x == id })
	}
	if _, err := m.SetMutes(r.Context(), a.ID, domain, ids); err != nil {
		if _, msg, ok := fieldError(err); ok {
			d.errorPage(w, r, a, http.StatusBadRequest, msg)
			return
		}
		d.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/analyses/"+j.ID+"#mutes", http.StatusSeeOther)
}
