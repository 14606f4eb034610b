package analyzer

import "testing"

var socialIDs = []string{"social.og_title_missing", "social.og_description_missing", "social.og_image_missing",
	"social.og_image_relative", "social.og_url_relative", "social.og_url_mismatch", "social.twitter_card_missing"}

func TestSocialFixtures(t *testing.T) {
	t.Parallel()
	rep := analyzeFixture(t, "social/good.html", "", nil, nil)
	assertIDs(t, rep, nil, socialIDs)
	if rep.OpenGraph["og:image"] != "https://example.com/card.png" || rep.Twitter["twitter:card"] != "summary_large_image" || len(rep.OpenGraph) != 4 {
		t.Errorf("OpenGraph = %v, Twitter = %v", rep.OpenGraph, rep.Twitter)
	}

	rep = analyzeFixture(t, "social/bad.html", "", nil, nil)
	assertIDs(t, rep, []string{"social.og_title_missing", "social.og_description_missing", "social.og_image_relative",
		"social.og_url_mismatch", "social.twitter_card_missing"}, []string{"social.og_image_missing"})
	if f := finding(rep, "social.og_url_mismatch"); f == nil || f.Evidence.Value != "https://example.com/other" || f.Evidence.URLs[0] != "https://example.com/page" {
		t.Errorf("og_url_mismatch evidence = %+v", f)
	}

	// A relative og:url that resolves to the canonical URL still is no
	// http(s) URL as Open Graph defines one.
	rep = analyzeFixture(t, "social/og_url_relative.html", "", nil, nil)
	assertIDs(t, rep, []string{"social.og_url_relative"}, []string{"social.og_title_missing", "social.og_description_missing",
		"social.og_image_missing", "social.og_image_relative", "social.og_url_mismatch", "social.twitter_card_missing"})
	if f := finding(rep, "social.og_url_relative"); f == nil || f.Evidence.Value != "/page" {
		t.Errorf("og_url_relative evidence = %+v", f)
	}

	// og:image:url is og:image: an image, relative here.
	rep = analyzeString(t, `<html><head><title>t</title><meta property="og:image:url" content="/card.png"></head><body></body></html>`, "", nil, nil)
	assertIDs(t, rep, []string{"social.og_image_relative"}, []string{"social.og_image_missing"})
	if f := finding(rep, "social.og_image_relative"); f == nil || f.Evidence.Element != `<meta property="og:image:url">` {
		t.Errorf("og_image_relative evidence = %+v", f)
	}

	rep = analyzeString(t, `<html><head><title>t</title></head><body></body></html>`, "", nil, nil)
	assertIDs(t, rep, []string{"social.og_image_missing", "social.og_title_missing", "social.twitter_card_missing"}, []string{"social.og_url_mismatch"})
}

func TestSocialOGURLWithoutCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ogURL        string
		mismatch, relative bool
	}{
		{"same as page", "https://example.com/page", false, false},
		{"relative same", "/page", false, true},
		{"scheme-relative same", "//example.com/page", false, true},
		{"fragment ignored", "https://example.com/page#x", false, false},
		{"other", "https://example.com/", true, false},
		{"not http", "ftp://example.com/page", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := `<html><head><title>t</title><meta property="og:url" content="` + tc.ogURL + `"></head><body></body></html>`
			rep := analyzeString(t, doc, "", nil, nil)
			if got := finding(rep, "social.og_url_mismatch") != nil; got != tc.mismatch {
				t.Errorf("og_url_mismatch = %v, want %v", got, tc.mismatch)
			}
			if got := finding(rep, "social.og_url_relative") != nil; got != tc.relative {
				t.Errorf("og_url_relative = %v, want %v", got, tc.relative)
			}
		})
	}
}
