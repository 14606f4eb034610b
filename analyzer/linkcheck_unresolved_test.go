package analyzer

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seokit/seokit/seo"
)

// dnsResolver resolves names ending in .invalid to a DNS "no such host"
// error and every other name to loopback.
type dnsResolver struct{}

func (dnsResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if strings.HasSuffix(host, ".invalid") {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}}, nil
}

// TestImageOnUnresolvableHost: an image on another host whose name does
// not resolve is not checked (ImageInfo.NotChecked), not broken; an image
// that answers 404 is broken.
func TestImageOnUnresolvableHost(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	page := "http://site.test:" + port + "/"
	gone := "http://cdn.gone.invalid:" + port + "/logo.png"
	missing := "http://site.test:" + port + "/missing.png"
	doc := fmt.Sprintf(`<!doctype html><html lang=en><head><title>Images of a test page</title></head>
<body><h1>Images</h1><img src=%q alt="logo"><img src=%q alt="missing"></body></html>`, gone, missing)
	f := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: dnsResolver{}})
	rep, err := AnalyzeHTML(context.Background(), page, http.Header{"Content-Type": {"text/html"}}, []byte(doc),
		&Options{Depth: Standard, CheckLinks: true, Fetcher: f, Disable: []string{"links"}})
	if err != nil {
		t.Fatal(err)
	}
	var broken []string
	for _, fd := range rep.Findings {
		if fd.ID == "images.broken" {
			broken = append(broken, fd.Evidence.Value)
			for _, ex := range fd.Examples {
				broken = append(broken, ex.Value)
			}
		}
	}
	if len(broken) != 1 || broken[0] != missing {
		t.Errorf("images.broken on %v, want only %s", broken, missing)
	}
	byURL := map[string]ImageInfo{}
	for _, im := range rep.Images.List {
		byURL[im.Src] = im
	}
	if im := byURL[gone]; im.NotChecked != NotCheckedHostUnresolvable || im.Status != 0 {
		t.Errorf("image on an unresolvable host: %+v", im)
	}
	if im := byURL[missing]; im.NotChecked != "" || im.Status != 404 {
		t.Errorf("missing image: %+v", im)
	}
	if rep.Images.Unchecked != 1 {
		t.Errorf("images unchecked %d, want 1", rep.Images.Unchecked)
	}
}

// TestLinkOnUnresolvableHost: an <a> to another host whose name does not
// resolve is not checked (LinkInfo.NotChecked, counted in
// Links.Unchecked), not links.broken_external, and a script there is not
// resources.broken_script; a link to a resolving host that answers 404
// is broken.
func TestLinkOnUnresolvableHost(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	page := "http://site.test:" + port + "/"
	gone := "http://shop.gone.invalid:" + port + "/offer"
	missing := "http://other.test:" + port + "/missing"
	script := "http://cdn.gone.invalid:" + port + "/app.js"
	doc := fmt.Sprintf(`<!doctype html><html lang=en><head><title>Links of a test page</title><script src=%q></script></head>
<body><h1>Links</h1><a href=%q>gone</a> <a href=%q>missing</a></body></html>`, script, gone, missing)
	f := seo.NewFetcher(&seo.FetcherOptions{AllowPrivate: true, Resolver: dnsResolver{}})
	rep, err := AnalyzeHTML(context.Background(), page, http.Header{"Content-Type": {"text/html"}}, []byte(doc),
		&Options{Depth: Standard, CheckLinks: true, Fetcher: f})
	if err != nil {
		t.Fatal(err)
	}
	var broken []string
	for _, fd := range rep.Findings {
		switch fd.ID {
		case "links.broken_external", "resources.broken_script":
			broken = append(broken, fd.ID+" "+fd.Evidence.Value)
			for _, ex := range fd.Examples {
				broken = append(broken, fd.ID+" "+ex.Value)
			}
		}
	}
	if want := "links.broken_external " + missing; len(broken) != 1 || broken[0] != want {
		t.Errorf("broken %v, want only %s", broken, want)
	}
	byURL := map[string]LinkInfo{}
	for _, l := range rep.Links.List {
		byURL[l.URL] = l
	}
	if l := byURL[gone]; l.NotChecked != NotCheckedHostUnresolvable || l.Status != 0 {
		t.Errorf("link to an unresolvable host: %+v", l)
	}
	if l := byURL[missing]; l.NotChecked != "" || l.Status != 404 {
		t.Errorf("missing link: %+v", l)
	}
	if rep.Links.Unchecked != 1 {
		t.Errorf("links unchecked %d, want 1", rep.Links.Unchecked)
	}
}
