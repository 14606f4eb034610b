package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// rankingDays is the span of the ranking history charts.
const rankingDays = 90

// maxRankingSeries caps the keywords charted on one page.
const maxRankingSeries = 50

// maxTrackKeywords caps the keywords of one "Track keywords" form.
const maxTrackKeywords = 100

type rankingsView struct {
	Enabled bool
	Live    bool // the rankings service checks new keywords at once
	// HasSource: a SERP provider checks positions; without one they come
	// only from imported data and the page says so.
	HasSource bool
	Domain    string
	Sites     []siteRow // the account's tracked domains
	Entries   []entryRow
	Charts    []*rankingChart
	Days      int
	More      int
	Form      trackForm
	// Tracked is how many keywords the account tracks, TrackLimit how
	// many its plan allows (0: unknown, not shown).
	Tracked, TrackLimit int
	// limitErr is why TrackLimit is unknown: the track form then refuses.
	limitErr error
}

type siteRow struct {
	Domain   string
	Keywords int
}

// entryRow is a tracked keyword with its latest state, derived by
// rankings.NewRanking as in the API and the command line.
type entryRow struct {
	Keyword, Locale, Device string
	Status                  string // rankings.Status, for the CSS class
	StatusText              string // the state in words, as Ranking.Label words it
	Latest                  string // rankings.Ranking.Label, with the day
	Detail                  string // the reason or the provider's error
}

type trackForm struct {
	Domain, Keywords, Locale, Device string
}

type rankingChart struct {
	Keyword string
	Locale  string
	Device  string
	Chart   *lineChart
	Source  string
	Rows    []seriesEntry
}

// sites groups the account's watched entries by domain.
func sites(ws []rankings.Tracked) []siteRow {
	var out []siteRow
	for _, t := range ws {
		if n := len(out); n > 0 && out[n-1].Domain == t.Domain {
			out[n-1].Keywords++
			continue
		}
		out = append(out, siteRow{Domain: t.Domain, Keywords: 1})
	}
	return out
}

func (d *Dashboard) rankingsView(r *http.Request, a *store.Account) (*rankingsView, []rankings.Tracked, error) {
	rv := &rankingsView{Enabled: d.opts.Tracking != nil, Days: rankingDays,
		Form: trackForm{Locale: "en-US", Device: string(rankings.Desktop)}}
	if !rv.Enabled {
		return rv, nil, nil
	}
	_, rv.HasSource = d.opts.Tracking.Source()
	rv.Live = rv.HasSource
	ws, err := d.watch.Watched(r.Context(), a.ID, "")
	if err != nil {
		return nil, nil, err
	}
	rv.Sites = sites(ws)
	rv.Tracked = len(ws)
	if n, err := d.trackedLimit(r.Context(), a); err == nil {
		rv.TrackLimit = min(n, MaxWatched)
	} else {
		rv.limitErr = err
		d.log.Warn("dashboard: tracked keywords limit", "account", a.ID, "err", err)
	}
	return rv, ws, nil
}

// rankingsPage shows the account's tracked domains and, for ?domain=, the
// position history of the keywords the account tracks there. Only the
// account's own watchlist is shown: a domain another account tracks is
// "not tracked" here until this account adds keywords for it.
func (d *Dashboard) rankingsPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	v := d.base("Rankings", "rankings", s, a)
	rv, ws, err := d.rankingsView(r, a)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	v.P = rv
	switch r.URL.Query().Get("done") {
	case "tracked":
		v.Notice = "The keywords were added to your tracked keywords."
	case "untracked":
		v.Notice = "The keyword is no longer tracked for this account. Its history is kept."
	}
	raw := strings.TrimSpace(r.URL.Query().Get("domain"))
	if raw == "" || !rv.Enabled {
		d.render(w, r, http.StatusOK, "rankings", v)
		return
	}
	tg, err := rankings.ParseTarget(raw)
	if err != nil {
		rv.Domain = raw
		_, msg, _ := fieldError(err)
		v.Error, v.Fields = msg, map[string]string{"domain": msg}
		d.render(w, r, http.StatusBadRequest, "rankings", v)
		return
	}
	rv.Domain = tg.String()
	rv.Form.Domain = rv.Domain
	var mine []rankings.Tracked
	for _, t := range ws {
		if t.Domain == rv.Domain {
			mine = append(mine, t)
		}
	}
	if len(mine) == 0 {
		v.Error = "You track no keywords for " + rv.Domain + ". Add some below to see their positions."
		d.render(w, r, http.StatusNotFound, "rankings", v)
		return
	}
	watched := map[watchKey]bool{}
	anyLocale := map[watchKey]string{}
	kws := make([]string, 0, len(mine))
	for _, t := range mine {
		if k := keyOf(t); !watched[k] {
			watched[k] = true
			k.locale = ""
			if _, ok := anyLocale[k]; !ok {
				anyLocale[k] = t.Locale.String()
			}
			if n := len(kws); n == 0 || kws[n-1] != t.Keyword {
				kws = append(kws, t.Keyword)
			}
		}
	}
	to := day(d.now())
	from := to.AddDate(0, 0, -(rankingDays - 1))
	h, err := d.opts.Tracking.History(r.Context(), a.ID, service.HistoryRequest{Domain: rv.Domain, Keywords: kws, From: from, To: to})
	if err != nil {
		if _, msg, ok := fieldError(err); ok {
			v.Error = msg
			d.render(w, r, http.StatusBadRequest, "rankings", v)
			return
		}
		d.unavailable(w, r, err)
		return
	}
	// keyFor maps an observation to the account's watch key: imported
	// data without a locale counts for every locale the account tracks
	// the keyword in.
	keyFor := func(domain, keyword string, loc seo.Locale, dev rankings.Device) watchKey {
		k := watchKey{domain, keyword, loc.String(), string(dev)}
		if loc == (seo.Locale{}) {
			if l, ok := anyLocale[watchKey{domain, keyword, "", string(dev)}]; ok {
				k.locale = l
			}
		}
		return k
	}
	obs := h.Observations
	entries := latestStates(rv, h, watched, keyFor)
	var dates []string
	for i := range rankingDays {
		dates = append(dates, from.AddDate(0, 0, i).Format("01-02"))
	}
	// History is ordered by keyword, locale, device and date.
	var cur *rankingChart
	var curKey watchKey
	started := false
	var vals []*float64
	flush := func() {
		if cur == nil {
			return
		}
		cur.Chart = newLineChart(cur.Keyword, dates, []string{cur.Keyword}, [][]*float64{vals})
		rv.Charts = append(rv.Charts, cur)
	}
	for _, o := range obs {
		k := keyFor(o.Domain, o.Keyword, o.Locale, o.Device)
		if !watched[k] {
			continue // another locale or device of a keyword this account tracks
		}
		if !started || k != curKey {
			started = true
			flush()
			if len(rv.Charts) >= maxRankingSeries {
				rv.More++
				cur = nil
				curKey = k
				continue
			}
			cur, curKey = &rankingChart{Keyword: o.Keyword, Locale: k.locale, Device: k.device, Source: o.Source}, k
			vals = make([]*float64, rankingDays)
		}
		pos := rankings.RankingOf(o).Label()
		if cur == nil {
			continue
		}
		i := int(day(o.Date).Sub(from).Hours() / 24)
		if i < 0 || i >= rankingDays {
			continue
		}
		if o.Position != nil {
			p := *o.Position
			vals[i] = &p
		}
		cur.Rows = append(cur.Rows, seriesEntry{Date: day(o.Date).Format("2006-01-02"), Position: pos, URL: o.URL})
	}
	flush()
	for _, t := range mine {
		e := entries[keyOf(t)]
		if e.Status == "" {
			e = stateRow(rankings.NewRanking(t.Keyword, nil, nil, rv.HasSource))
		}
		e.Keyword, e.Locale, e.Device = t.Keyword, t.Locale.String(), string(t.Device)
		rv.Entries = append(rv.Entries, e)
	}
	d.render(w, r, http.StatusOK, "rankings", v)
}

// latestStates derives the state of each watched keyword from its latest
// observation and failed check (at any date) with rankings.NewRanking.
func latestStates(rv *rankingsView, h *service.RankingHistory, watched map[watchKey]bool,
	keyFor func(domain, keyword string, loc seo.Locale, dev rankings.Device) watchKey) map[watchKey]entryRow {
	latest := h.Latest
	obs := map[watchKey]*rankings.Observation{}
	for i := range latest {
		o := &latest[i]
		k := keyFor(o.Domain, o.Keyword, o.Locale, o.Device)
		if cur := obs[k]; watched[k] && (cur == nil || o.CheckedAt.After(cur.CheckedAt)) {
			obs[k] = o
		}
	}
	fails := map[watchKey]*rankings.Failure{}
	for i := range h.Failures {
		fl := &h.Failures[i]
		k := keyFor(fl.Domain, fl.Keyword, fl.Locale, fl.Device)
		if cur := fails[k]; watched[k] && (cur == nil || fl.At.After(cur.At)) {
			fails[k] = fl
		}
	}
	out := make(map[watchKey]entryRow, len(obs)+len(fails))
	for k := range watched {
		if obs[k] == nil && fails[k] == nil {
			continue
		}
		out[k] = stateRow(rankings.NewRanking(k.keyword, obs[k], fails[k], rv.HasSource))
	}
	return out
}

// stateRow shows a ranking's state: its label with the day it was
// checked, and the reason or error.
func stateRow(rk rankings.Ranking) entryRow {
	e := entryRow{Status: string(rk.Status), StatusText: statusText(rk.Status), Latest: rk.Label(), Detail: rk.Reason}
	switch {
	case rk.Status == rankings.StatusFailed:
		e.Latest += " on " + rk.FailedAt.UTC().Format("2006-01-02")
		e.Detail = rk.Error
		if !rk.CheckedAt.IsZero() {
			e.Detail += " (last successful check " + rk.CheckedAt.UTC().Format("2006-01-02") + ")"
		}
	case !rk.CheckedAt.IsZero():
		e.Latest += " on " + rk.CheckedAt.UTC().Format("2006-01-02")
	}
	return e
}

// statusText words a ranking status for people, as rankings.Ranking.Label
// does: "ranked", "not ranked", "unchecked", "check failed".
func statusText(s rankings.Status) string {
	if s == rankings.StatusRanked {
		return "ranked" // Label gives the position, shown beside
	}
	return rankings.Ranking{Status: s}.Label()
}

// splitKeywords splits the form's keywords: one per line, blank lines
// skipped.
func splitKeywords(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// parseTrack validates the "Track keywords" form.
func parseTrack(f trackForm, now func() rankings.Tracked) ([]rankings.Tracked, error) {
	tg, err := rankings.ParseTarget(f.Domain)
	if err != nil {
		return nil, err
	}
	kws := splitKeywords(f.Keywords)
	switch {
	case len(kws) == 0:
		return nil, &seo.InputError{Field: "keywords", Reason: "is empty: give at least one keyword, one per line"}
	case len(kws) > maxTrackKeywords:
		return nil, &seo.InputError{Field: "keywords", Value: strconv.Itoa(len(kws)) + " keywords", Reason: "has more than " + strconv.Itoa(maxTrackKeywords) + " lines"}
	}
	loc, err := seo.ParseLocale(f.Locale)
	if err != nil {
		return nil, err
	}
	dev, err := rankings.NormalizeDevice("device", rankings.Device(f.Device))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []rankings.Tracked
	for i, k := range kws {
		k, err := rankings.NormalizeKeyword("keywords["+strconv.Itoa(i)+"]", k)
		if err != nil {
			return nil, err
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		t := now()
		t.Domain, t.Keyword, t.Locale, t.Device = tg.String(), k, loc, dev
		out = append(out, t)
	}
	return out, nil
}

// trackKeywords serves the "Track keywords" form: the keywords are
// tracked through the rankings service (re-checked daily, and at once with
// a SERP source) and join the account's watchlist.
func (d *Dashboard) trackKeywords(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	v := d.base("Rankings", "rankings", s, a)
	rv, ws, err := d.rankingsView(r, a)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	v.P = rv
	if !rv.Enabled {
		d.errorPage(w, r, nil, http.StatusNotFound, "Ranking history is not available on this server.")
		return
	}
	rv.Form = trackForm{Domain: r.PostFormValue("domain"), Keywords: r.PostFormValue("keywords"),
		Locale: r.PostFormValue("locale"), Device: r.PostFormValue("device")}
	fail := func(err error) {
		field, msg, ok := fieldError(err)
		if !ok {
			d.unavailable(w, r, err)
			return
		}
		if strings.HasPrefix(field, "keywords") {
			field = "keywords"
		}
		v.Error, v.Fields = msg, map[string]string{field: msg}
		d.render(w, r, http.StatusBadRequest, "rankings", v)
	}
	now := d.now()
	entries, err := parseTrack(rv.Form, func() rankings.Tracked { return rankings.Tracked{AddedAt: now} })
	if err != nil {
		fail(err)
		return
	}
	if rv.limitErr != nil {
		// The page shows no limit; adding fails closed.
		d.unavailable(w, r, rv.limitErr)
		return
	}
	have := map[watchKey]bool{}
	for _, t := range ws {
		have[keyOf(t)] = true
	}
	added := map[watchKey]bool{}
	for _, t := range entries {
		if !have[keyOf(t)] {
			added[keyOf(t)] = true
		}
	}
	// Refused before anything is charged or searched; Watch checks the
	// limit again, atomically, against concurrent forms.
	if err := overLimit(rv.TrackLimit, len(ws), len(added)); err != nil {
		fail(err)
		return
	}
	// Tracked keywords are checked through the paid search providers:
	// the rankings service charges the action to the account's daily
	// limit as it does GET /v1/rankings, then tracks and checks them.
	ctx := r.Context()
	kws := make([]string, len(entries))
	for i, t := range entries {
		kws[i] = t.Keyword
	}
	if _, err := d.opts.Tracking.Track(ctx, a.ID, service.TrackRequest{Domain: entries[0].Domain, Keywords: kws,
		Locale: entries[0].Locale.String(), Device: string(entries[0].Device)}); err != nil {
		if _, _, ok := fieldError(err); ok {
			fail(err)
			return
		}
		var rf Refusal
		if errors.As(err, &rf) && rf.StatusCode() < 500 {
			d.errorPage(w, r, a, rf.StatusCode(), "Refused: "+rf.PublicMessage()+".")
			return
		}
		d.unavailable(w, r, err)
		return
	}
	if err := d.watch.Watch(ctx, a.ID, entries, rv.TrackLimit); err != nil {
		fail(err)
		return
	}
	dest := Prefix + "/rankings?domain=" + url.QueryEscape(entries[0].Domain) + "&done=tracked"
	http.Redirect(w, r, dest, http.StatusSeeOther)
}

// untrackKeyword removes one keyword from the account's watchlist; when
// no account tracks it any more, the rankings service stops re-checking
// it (its history is kept).
func (d *Dashboard) untrackKeyword(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	if d.opts.Tracking == nil {
		d.errorPage(w, r, nil, http.StatusNotFound, "Ranking history is not available on this server.")
		return
	}
	entries, err := parseTrack(trackForm{Domain: r.PostFormValue("domain"), Keywords: r.PostFormValue("keyword"),
		Locale: r.PostFormValue("locale"), Device: r.PostFormValue("device")}, func() rankings.Tracked { return rankings.Tracked{} })
	if err != nil || len(entries) != 1 {
		msg := "The form names no single tracked keyword."
		if _, m, ok := fieldError(err); ok {
			msg = m
		}
		d.errorPage(w, r, nil, http.StatusBadRequest, msg)
		return
	}
	t := entries[0]
	ctx := r.Context()
	if err := d.watch.Unwatch(ctx, a.ID, t); err != nil {
		d.unavailable(w, r, err)
		return
	}
	still, err := d.watch.Watching(ctx, t)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	if !still {
		req := service.TrackRequest{Domain: t.Domain, Keywords: []string{t.Keyword}, Locale: t.Locale.String(), Device: string(t.Device)}
		if err := d.opts.Tracking.Untrack(ctx, a.ID, req); err != nil {
			d.log.Warn("dashboard: untrack", "domain", t.Domain, "err", err)
		}
	}
	http.Redirect(w, r, Prefix+"/rankings?domain="+url.QueryEscape(t.Domain)+"&done=untracked", http.StatusSeeOther)
}
