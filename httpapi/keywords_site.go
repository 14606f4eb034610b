// Keyword ideas from the account's own site: the noun phrases of the pages
// of its newest succeeded analysis of a domain, added to the suggester's
// ideas (GET /v1/keywords/suggest?site=).

package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/seokit/seokit/httpapi/mcpserver"
	"github.com/seokit/seokit/httpapi/service"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// siteJobsScanned is how many of the account's newest analyses are looked
// through for one of the site.
const siteJobsScanned = 50

// suggestWithSite answers q with the suggester's ideas merged with the
// noun phrases of the pages of the account's newest succeeded analysis
// of site (keywords.SitePhrases over their titles, descriptions and H1s):
// those carry source "site" and the pages they are on. An account without
// such an analysis gets an *seo.InputError for "site".
func (x research) suggestWithSite(ctx context.Context, accountID string, dst []byte, q string, loc seo.Locale, req service.SuggestRequest) ([]byte, error) {
	sp, done, err := x.sitePhrases(ctx, accountID, req.Site, loc)
	if err != nil {
		return nil, err
	}
	defer done()
	opts := &keywords.SuggestOptions{Limit: req.Limit}
	base, err := x.s.opts.Suggester.Suggest(ctx, q, loc, opts)
	if err != nil {
		return nil, err
	}
	merged, err := keywords.NewSuggester([]keywords.Source{answeredSource{base}, sp},
		&keywords.SuggesterOptions{MemoryCacheBytes: -1}).Suggest(ctx, q, loc, opts)
	if err != nil {
		return nil, err
	}
	merged.Sources = append(append([]string{}, base.Sources...), keywords.SiteSourceName)
	merged.Failed = append(append([]string(nil), base.Failed...), merged.Failed...)
	merged.CachedAt, merged.AgeSeconds = base.CachedAt, base.AgeSeconds
	return merged.AppendJSON(dst)
}

// sitePhrases reads the pages of the account's newest succeeded analysis
// of site into a SitePhrases in loc's language, and returns the func that
// ends the read's admission, called once the phrases are no longer used.
// The read is admitted as a report read (KindReport), as the decodes of
// whole reports are: one at a time per account (a second is 429 at once)
// and mcpserver.ReportDecodeFactor times the stored size reserved from the
// memory budget, a bound of what decoding the pages' texts alone takes
// (the JSON read whole into the decoder's buffer and the texts kept).
// Without it one account's requests could read any number of its largest
// reports at once, outside the budget every account's work shares.
func (x research) sitePhrases(ctx context.Context, accountID, site string, loc seo.Locale) (*keywords.SitePhrases, func(), error) {
	domain := strings.ToLower(strings.TrimSpace(site))
	domain = strings.TrimPrefix(strings.TrimPrefix(domain, "https://"), "http://")
	domain = strings.TrimSuffix(domain, "/")
	an := x.s.Analyses()
	jobs, err := an.List(ctx, accountID, siteJobsScanned)
	if err != nil {
		return nil, nil, err
	}
	for _, j := range jobs {
		if j.Status != string(store.JobSucceeded) || !strings.EqualFold(j.Domain, domain) {
			continue
		}
		_, res, err := an.Get(ctx, accountID, j.ID)
		if err != nil {
			return nil, nil, err
		}
		if res == nil {
			continue
		}
		done, err := x.s.adm.acquireSlot(ctx, KindReport, accountID, int64(res.Size())*mcpserver.ReportDecodeFactor, false)
		if err != nil {
			return nil, nil, err
		}
		sp, err := readSitePhrases(ctx, res, j.ID, loc)
		if err != nil {
			done()
			return nil, nil, err
		}
		return sp, done, nil
	}
	return nil, nil, &seo.InputError{Field: "site", Value: site,
		Reason: "has no succeeded site analysis among this account's newest " + fmt.Sprint(siteJobsScanned) + ": run POST /v1/analyze/site first"}
}

// readSitePhrases reads the pages' texts of the stored report res of
// analysis id into a SitePhrases in loc's language.
func readSitePhrases(ctx context.Context, res service.Result, id string, loc seo.Locale) (*keywords.SitePhrases, error) {
	rc, err := res.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// Only the pages' texts are decoded; the rest of the report is
	// skipped.
	var rep struct {
		Pages []struct {
			URL, Title, Description, H1 string
		} `json:"pages"`
	}
	if err := json.NewDecoder(io.LimitReader(rc, int64(res.Size()))).Decode(&rep); err != nil {
		return nil, fmt.Errorf("keywords: report of analysis %s: %w", id, err)
	}
	sp := keywords.NewSitePhrases(&keywords.SitePhrasesOptions{Language: loc.Language})
	for _, p := range rep.Pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sp.Add(keywords.SitePage{URL: p.URL, Texts: []string{p.Title, p.Description, p.H1}})
	}
	return sp, nil
}

// answeredSource is a Suggester's answer as a Source, to merge it with
// another source.
type answeredSource struct{ res *keywords.Suggestions }

func (a answeredSource) Name() string { return strings.Join(a.res.Sources, ",") }

func (a answeredSource) Suggest(ctx context.Context, seed string, loc seo.Locale, limit int) ([]keywords.Keyword, error) {
	return a.res.Suggestions[:min(limit, len(a.res.Suggestions))], ctx.Err()
}

func (a answeredSource) Volumes(ctx context.Context, kws []string, loc seo.Locale) ([]keywords.Keyword, error) {
	return nil, ctx.Err()
}
