package indexstatus

import (
	"cmp"
	"slices"

	"github.com/seokit/seokit/crawler"
)

// MaxStrata caps the strata a Sample reports; pages of further
// (template, segment) pairs share one stratum named OtherStratum.
const MaxStrata = 200

// OtherStratum names the template of the stratum that gathers the pages
// past MaxStrata.
const OtherStratum = "(other)"

// Stratum is one (template, segment) pair of a crawl and how much of it a
// Sample takes.
type Stratum struct {
	// Template is the page template fingerprint ("" for none); Segment the
	// crawl segment ("" for none).
	Template string `json:"template"`
	Segment  string `json:"segment"`
	// Pages counts the eligible pages of the stratum; Sampled those
	// chosen.
	Pages   int `json:"pages"`
	Sampled int `json:"sampled"`
	// TopLinkScore is the highest internal PageRank (LinkScore) of its
	// pages.
	TopLinkScore float64 `json:"topLinkScore"`
}

// Sample is the URLs of a crawl chosen for inspection.
type Sample struct {
	// Eligible counts the crawl's pages that can be inspected: HTML pages
	// answering 2xx.
	Eligible int `json:"eligible"`
	// Budget is the most URLs the sample could take.
	Budget int `json:"budget"`
	// Strata is the sample's composition, the most pages first.
	Strata []Stratum `json:"strata"`
	// Pages are the chosen pages, highest LinkScore first.
	Pages []*crawler.PageSummary `json:"-"`
}

// eligible reports whether p can be inspected usefully: an HTML page that
// answered 2xx (a redirect or an error is inspected at its target).
func eligible(p *crawler.PageSummary) bool {
	return p.IsHTML && p.Status >= 200 && p.Status <= 299 && p.Error == ""
}

// byRank orders pages by LinkScore, highest first, then URL.
func byRank(a, b *crawler.PageSummary) int {
	if c := cmp.Compare(b.LinkScore, a.LinkScore); c != 0 {
		return c
	}
	return cmp.Compare(a.URL, b.URL)
}

// Choose picks at most budget pages of pages for inspection, stratified by
// template and segment: every stratum gets one page while the budget lasts
// (strata with the best-linked page first), then the rest of the budget is
// shared in proportion to the strata's sizes (largest remainders first).
// Within a stratum, the pages with the highest internal PageRank
// (LinkScore) are taken. The result is deterministic for the same pages.
func Choose(pages []crawler.PageSummary, budget int) *Sample {
	type stratum struct {
		Stratum
		pages []*crawler.PageSummary
	}
	s := &Sample{Budget: max(budget, 0)}
	index := map[[2]string]*stratum{}
	var strata []*stratum
	for i := range pages {
		p := &pages[i]
		if !eligible(p) {
			continue
		}
		s.Eligible++
		k := [2]string{p.Template, p.Segment}
		st := index[k]
		if st == nil {
			if len(strata) >= MaxStrata {
				k = [2]string{OtherStratum, ""}
				st = index[k]
			}
			if st == nil {
				st = &stratum{Stratum: Stratum{Template: k[0], Segment: k[1]}}
				index[k] = st
				strata = append(strata, st)
			}
		}
		st.pages = append(st.pages, p)
		st.Pages++
		st.TopLinkScore = max(st.TopLinkScore, p.LinkScore)
	}
	for _, st := range strata {
		slices.SortFunc(st.pages, byRank)
	}
	// Every stratum its best page first, best-linked strata first.
	slices.SortFunc(strata, func(a, b *stratum) int {
		if c := cmp.Compare(b.TopLinkScore, a.TopLinkScore); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Pages, a.Pages); c != 0 {
			return c
		}
		return cmp.Compare(a.Template+"\x00"+a.Segment, b.Template+"\x00"+b.Segment)
	})
	left := min(s.Budget, s.Eligible)
	for _, st := range strata {
		if left == 0 {
			break
		}
		st.Sampled, left = 1, left-1
	}
	// The rest in proportion to the pages not yet taken.
	if left > 0 {
		rest, total := left, 0
		for _, st := range strata {
			total += st.Pages - st.Sampled
		}
		type share struct {
			st  *stratum
			rem int
		}
		shares := make([]share, 0, len(strata))
		for _, st := range strata {
			n := st.Pages - st.Sampled
			q := rest * n / total
			st.Sampled += q
			left -= q
			shares = append(shares, share{st, rest * n % total})
		}
		slices.SortStableFunc(shares, func(a, b share) int { return cmp.Compare(b.rem, a.rem) })
		for i := 0; left > 0; i = (i + 1) % len(shares) {
			if st := shares[i].st; st.Sampled < st.Pages {
				st.Sampled++
				left--
			}
		}
	}
	for _, st := range strata {
		s.Pages = append(s.Pages, st.pages[:st.Sampled]...)
	}
	slices.SortFunc(s.Pages, byRank)
	slices.SortStableFunc(strata, func(a, b *stratum) int { return cmp.Compare(b.Pages, a.Pages) })
	for _, st := range strata {
		s.Strata = append(s.Strata, st.Stratum)
	}
	return s
}
