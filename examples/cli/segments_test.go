package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/crawler/crawlertest"
)

// TestCrawlSegmentsByExtract groups pages by an extractor's value with
// -segment NAME=extract:EXTRACTOR=REGEX, and refuses a segment naming no
// -extract.
func TestCrawlSegmentsByExtract(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 3, Categories: 1, NoSitemap: true})
	defer site.Close()
	var out, errOut bytes.Buffer
	args := []string{"crawl", "-allow-private", "-skip-external-links", "-quiet",
		"-extract", "links=regex:href=\"(/a/[0-9]+)\"", "-segment", "withlinks=extract:links=^/a/", site.URL}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "SEGMENTS") || !strings.Contains(out.String(), "withlinks") {
		t.Errorf("output lacks the segment:\n%s", out.String())
	}
	var f segmentFlags
	if err := f.Set("s=extract:links=^/a/"); err != nil || f.segs[0].Extract != "links" || f.segs[0].Value != "^/a/" {
		t.Errorf("Set: %v, %+v", err, f.segs)
	}
	if err := f.Set("t=extract:links"); err != nil || f.segs[1].Extract != "links" || f.segs[1].Value != "" {
		t.Errorf("Set: %v, %+v", err, f.segs)
	}
	errOut.Reset()
	err := run(context.Background(), []string{"crawl", "-allow-private", "-segment", "x=extract:price", site.URL}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error()+errOut.String(), "segments[0].extract") {
		t.Errorf("segment naming no extractor: %v\n%s", err, errOut.String())
	}
}

// TestCrawlSegmentsByTemplate lists the templates and groups pages by
// -segment NAME=template-of:URL and NAME=template:FINGERPRINT.
func TestCrawlSegmentsByTemplate(t *testing.T) {
	t.Parallel()
	site := crawlertest.NewSite(crawlertest.SiteOptions{Articles: 3, Categories: 1, NoSitemap: true})
	defer site.Close()
	var out, errOut bytes.Buffer
	args := []string{"crawl", "-allow-private", "-skip-external-links", "-quiet", "-json",
		"-segment", "articles=template-of:" + site.URL + "/a/0", site.URL}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	var rep crawler.SiteReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Segments) != 2 || rep.Segments[0].Pages != 3 || rep.Segments[0].Template == "" {
		t.Fatalf("segments %+v", rep.Segments)
	}
	tpl := rep.Segments[0].Template
	out.Reset()
	args = []string{"crawl", "-allow-private", "-skip-external-links", "-quiet", "-segment", "articles=template:" + tpl, site.URL}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("crawl: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "TEMPLATES") || !regexp.MustCompile(`articles +3 pages`).MatchString(out.String()) ||
		!strings.Contains(out.String(), tpl+"      3 pages") {
		t.Errorf("output lacks the templates or the segment:\n%s", out.String())
	}
	var f segmentFlags
	if err := f.Set("x=template:ABC"); err == nil || !strings.Contains(err.Error(), "segments[0].template") {
		t.Errorf("bad fingerprint: %v", err)
	}
}
