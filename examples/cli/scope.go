package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/seokit/seokit/crawler"
	"github.com/seokit/seokit/seo"
)

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// scopeFlags are the crawl's scope, list and access flags.
type scopeFlags struct {
	include, exclude, keep, headers, cookies repeated
	folderDepth                              int
	list, listSitemap, basicAuth, userAgent  string
}

// addScopeFlags registers the scope, list and access flags on fs.
func addScopeFlags(fs *flag.FlagSet) *scopeFlags {
	f := &scopeFlags{}
	fs.Var(&f.include, "include", "crawl only URLs matching this regular expression (repeatable)")
	fs.Var(&f.exclude, "exclude", "never request URLs matching this regular expression (repeatable)")
	fs.Var(&f.keep, "keep-param", "keep only this query parameter, dropping the others (repeatable)")
	fs.IntVar(&f.folderDepth, "max-folder-depth", 0, "skip URLs with more path segments than this (0: no limit)")
	fs.StringVar(&f.list, "list", "", "list mode: crawl exactly the URLs of this file (one per line, # comments), following no links")
	fs.StringVar(&f.listSitemap, "list-sitemap", "", "list mode: crawl exactly the URLs of this sitemap (an index is followed)")
	addAccessFlags(fs, f)
	return f
}

// addAccessFlags registers the access flags on fs.
func addAccessFlags(fs *flag.FlagSet, f *scopeFlags) {
	fs.Var(&f.headers, "header", `send this request header to the site's own hosts, "Name: value" (repeatable)`)
	fs.Var(&f.cookies, "cookie", `send this cookie to the site's own hosts, "name=value" (repeatable)`)
	fs.StringVar(&f.basicAuth, "basic-auth", "", "HTTP basic auth as user:password for the site's own hosts (or env SEOKIT_BASIC_AUTH, which keeps it out of shell history)")
	fs.StringVar(&f.userAgent, "user-agent", "", "user agent: googlebot-smartphone, googlebot-desktop, bingbot or seokit (presets that also pick the robots.txt group), or a string")
}

// apply sets the scope, list and access flags given on the command line
// (set reports whether a flag was) on the configuration c, replacing its
// values, and the sitemap of -list-sitemap on opts; list-file lines that
// are not absolute http(s) URLs are reported on stderr and skipped. The
// basic auth of env SEOKIT_BASIC_AUTH applies when neither -basic-auth nor
// c gives one. It returns the start URL of a list crawl (its first URL).
func (f *scopeFlags) apply(c *crawler.Config, opts *crawler.Options, set func(string) bool, stderr io.Writer) (start string, err error) {
	if set("include") {
		c.Include = f.include
	}
	if set("exclude") {
		c.Exclude = f.exclude
	}
	if set("keep-param") {
		c.KeepParams = f.keep
	}
	if set("max-folder-depth") {
		c.MaxFolderDepth = f.folderDepth
	}
	if f.list != "" {
		if c.URLs, err = readURLList(f.list, stderr); err != nil {
			return "", err
		}
		if len(c.URLs) == 0 {
			return "", fmt.Errorf("-list %s: no URL", f.list)
		}
	}
	if len(c.URLs) > 0 {
		start = c.URLs[0]
	}
	if f.listSitemap != "" {
		opts.ListSitemap = f.listSitemap
		if start == "" {
			start = f.listSitemap
		}
	}
	if err := f.applyAccess(c); err != nil {
		return "", err
	}
	return start, nil
}

// applyAccess sets the access flags given on c.
func (f *scopeFlags) applyAccess(c *crawler.Config) error {
	if len(f.headers) > 0 {
		c.Headers = map[string]string{}
	}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf(`-header must be "Name: value", not %q`, seo.Clip(name))
		}
		c.Headers[http.CanonicalHeaderKey(strings.TrimSpace(name))] = strings.TrimSpace(value)
	}
	if len(f.cookies) > 0 {
		c.Cookies = map[string]string{}
	}
	for _, ck := range f.cookies {
		name, value, ok := strings.Cut(ck, "=")
		if !ok || name == "" {
			return errors.New(`-cookie must be "name=value"`)
		}
		c.Cookies[strings.TrimSpace(name)] = value
	}
	ba := f.basicAuth
	if ba == "" && c.BasicAuth == nil {
		ba = os.Getenv("SEOKIT_BASIC_AUTH")
	}
	if ba != "" {
		user, pass, ok := strings.Cut(ba, ":")
		if !ok || user == "" {
			return errors.New("-basic-auth (or SEOKIT_BASIC_AUTH) must be user:password")
		}
		c.BasicAuth = &crawler.BasicAuth{Username: user, Password: pass}
	}
	if f.userAgent != "" {
		if _, _, err := seo.ResolveUserAgent(f.userAgent); err != nil {
			return err
		}
		c.UserAgent = f.userAgent
	}
	return nil
}

// readURLList reads a list file: one URL per line, blank lines and lines
// starting with "#" ignored. A line that is not an absolute http(s) URL
// is reported on stderr as FILE:LINE and skipped.
func readURLList(name string, stderr io.Writer) ([]string, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var urls []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		u, err := url.Parse(line)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			fmt.Fprintf(stderr, "%s:%d: skipped, not an absolute http(s) URL: %q\n", name, n, seo.Clip(line))
			continue
		}
		if len(urls) >= crawler.MaxListURLs {
			return nil, fmt.Errorf("%s: more than %d URLs", name, crawler.MaxListURLs)
		}
		urls = append(urls, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return urls, nil
}
