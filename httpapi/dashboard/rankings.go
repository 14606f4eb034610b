package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/rankings"
	"github.com/seokit/seokit/seo"
)

// rankingDays is the span of the ranking history charts.
const rankingDays = 90

// maxRankingSeries caps the keywords charted on one page.
const maxRankingSeries = 50

type rankingsView struct {
	Enabled bool
	Domain  string
	Domains []string // domains of the account's analyses, as suggestions
	Charts  []*rankingChart
	Days    int
	More    int
}

type rankingChart struct {
	Keyword string
	Locale  string
	Device  string
	Chart   *lineChart
	Source  string
	Rows    []seriesEntry
}

func (d *Dashboard) rankingsPage(w http.ResponseWriter, r *http.Request, s *session, a *store.Account) {
	rv := &rankingsView{Enabled: d.opts.Rankings != nil, Days: rankingDays}
	v := d.base("Rankings", "rankings", s, a)
	v.P = rv
	jobs, err := d.st.Jobs(r.Context(), a.ID, 50)
	if err != nil {
		d.unavailable(w, r, err)
		return
	}
	for i := range jobs {
		row := newJobRow(&jobs[i])
		if row.Domain != "" && !strings.Contains(strings.Join(rv.Domains, "\n")+"\n", row.Domain+"\n") {
			rv.Domains = append(rv.Domains, row.Domain)
		}
	}
	raw := strings.TrimSpace(r.URL.Query().Get("domain"))
	if raw == "" || !rv.Enabled {
		d.render(w, r, http.StatusOK, "rankings", v)
		return
	}
	u, err := seo.ParseDomain(raw)
	if err != nil || strings.Contains(raw, "://") {
		rv.Domain = raw
		msg := "domain must be a domain name such as example.com"
		if _, m, ok := fieldError(err); ok {
			msg = m
		}
		v.Error, v.Fields = msg, map[string]string{"domain": msg}
		d.render(w, r, http.StatusBadRequest, "rankings", v)
		return
	}
	rv.Domain = u.Hostname()
	to := day(d.now())
	from := to.AddDate(0, 0, -(rankingDays - 1))
	obs, err := d.opts.Rankings.History(r.Context(), rankings.Filter{Domain: rv.Domain, From: from, To: to})
	if err != nil {
		if _, msg, ok := fieldError(err); ok {
			v.Error = msg
			d.render(w, r, http.StatusBadRequest, "rankings", v)
			return
		}
		d.unavailable(w, r, err)
		return
	}
	var dates []string
	for i := range rankingDays {
		dates = append(dates, from.AddDate(0, 0, i).Format("01-02"))
	}
	// History is ordered by keyword, locale, device and date.
	type key struct{ kw, loc, dev string }
	var cur *rankingChart
	var curKey key
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
		k := key{o.Keyword, o.Locale.String(), string(o.Device)}
		if !started || k != curKey {
			started = true
			flush()
			if len(rv.Charts) >= maxRankingSeries {
				rv.More++
				cur = nil
				curKey = k
				continue
			}
			cur, curKey = &rankingChart{Keyword: o.Keyword, Locale: k.loc, Device: k.dev, Source: o.Source}, k
			vals = make([]*float64, rankingDays)
		}
		if cur == nil {
			continue
		}
		i := int(day(o.Date).Sub(from).Hours() / 24)
		if i < 0 || i >= rankingDays {
			continue
		}
		pos := "not ranked in the top " + strconv.Itoa(o.Depth)
		if o.Position != nil {
			p := *o.Position
			vals[i] = &p
			pos = strconv.FormatFloat(p, 'f', -1, 64)
			if o.Average {
				pos += " (average)"
			}
		}
		cur.Rows = append(cur.Rows, seriesEntry{Date: day(o.Date).Format("2006-01-02"), Position: pos, URL: o.URL})
	}
	flush()
	d.render(w, r, http.StatusOK, "rankings", v)
}
