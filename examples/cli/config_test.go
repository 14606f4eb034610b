package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seokit/seokit/crawler"
)

// TestCrawlConfigFile crawls the login site with the access and scope of a
// configuration file, a flag overriding its exclude list.
func TestCrawlConfigFile(t *testing.T) {
	t.Parallel()
	site, served := loginSite(t)
	file := filepath.Join(t.TempDir(), "staging.json")
	os.WriteFile(file, []byte(`{
  "exclude": ["/b$"],
  "headers": {"X-Staging": "1"},
  "cookies": {"s": "1"},
  "basicAuth": {"username": "ann", "password": "pw"},
  "extract": [{"name": "h1", "type": "css", "expr": "h1"}],
  "segments": [{"name": "letters", "url": "/[a-c]$"}]
}`), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"file", nil, []string{"/", "/a", "/c"}},
		{"flag overrides", []string{"-exclude", "/c$"}, []string{"/", "/a", "/b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			served()
			var out, errOut bytes.Buffer
			args := append(append([]string{"crawl", "-allow-private", "-skip-external-links", "-quiet", "-json", "-config", file}, tc.args...), site.URL)
			if err := run(context.Background(), args, &out, &errOut); err != nil {
				t.Fatalf("crawl: %v\n%s", err, errOut.String())
			}
			var rep struct {
				Pages []struct {
					URL     string `json:"url"`
					Status  int    `json:"status"`
					Segment string `json:"segment"`
				} `json:"pages"`
				Segments []struct {
					Name  string `json:"name"`
					Pages int    `json:"pages"`
				} `json:"segments"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range rep.Pages {
				if p.Status != 200 {
					t.Errorf("%s: status %d", p.URL, p.Status)
				}
				got = append(got, strings.TrimPrefix(p.URL, site.URL))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("pages %q, want %q", got, tc.want)
			}
			if !strings.Contains(out.String(), `"letters"`) {
				t.Error("the configuration's segment is not in the report")
			}
		})
	}
}

func TestCrawlConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown field", `{"exclude":["/b"],"extract":[{"name":"a","type":"css","expr":"h1","selectr":"x"}]}`, "extract[0].selectr: unknown field"},
		{"wrong type", `{"maxPages":"10"}`, "maxPages: must be of JSON type integer"},
		{"bad regex", `{"include":["ok","("]}`, "include[1]:"},
		{"bad extractor", `{"extract":[{"name":"a","type":"css","expr":"[["}]}`, "extract[0].expr:"},
		{"not JSON", `{"exclude":`, "config: not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			os.WriteFile(file, []byte(tc.doc), 0o600)
			var out, errOut bytes.Buffer
			err := run(context.Background(), []string{"crawl", "-quiet", "-config", file, "127.0.0.1:1"}, &out, &errOut)
			var ee *exitError
			if err == nil || !errors.As(err, &ee) || ee.code != 2 {
				t.Fatalf("error %v, want exit code 2", err)
			}
			if !strings.Contains(err.Error(), "-config "+file+": "+tc.want) {
				t.Errorf("error %q does not name %q", err, tc.want)
			}
		})
	}
}

// TestCrawlPrintConfig saves the flags of a command line as a
// configuration that reads back to the same settings, credentials
// redacted; -print-schema prints crawler.ConfigSchema.
func TestCrawlPrintConfig(t *testing.T) {
	t.Setenv("SEOKIT_BASIC_AUTH", "ann:pw")
	var out, errOut bytes.Buffer
	args := []string{"crawl", "-print-config", "-max-pages", "50", "-subdomains", "-exclude", "/cart", "-include", "/p/",
		"-extract", "price=css:.price", "-extract", "sku=xpath://span[@class='sku']", "-search", "oos=contains:Out of stock",
		"-segment", "products=url:/p/", "-user-agent", "bingbot", "-header", "Authorization: Bearer x", "-mute", "social"}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if strings.Contains(out.String(), "pw") || strings.Contains(out.String(), "Bearer") {
		t.Errorf("credentials printed:\n%s", out.String())
	}
	c, err := crawler.DecodeConfig(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatalf("printed configuration does not read back: %v\n%s", err, out.String())
	}
	if c.MaxPages != 50 || !c.IncludeSubdomains || len(c.Exclude) != 1 || len(c.Include) != 1 || len(c.Extract) != 2 ||
		len(c.Search) != 1 || len(c.Segments) != 1 || c.UserAgent != "bingbot" || c.BasicAuth == nil || len(c.Mute) != 1 {
		t.Errorf("printed configuration %s", out.String())
	}

	// The printed file is a -config file; flags still override it.
	file := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(file, out.Bytes(), 0o600)
	out.Reset()
	if err := run(context.Background(), []string{"crawl", "-print-config", "-config", file, "-max-pages", "7"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	c2, err := crawler.DecodeConfig(bytes.NewReader(out.Bytes()))
	if err != nil || c2.MaxPages != 7 || len(c2.Extract) != 2 || c2.Extract[1].Expr != "//span[@class='sku']" {
		t.Errorf("%v %s", err, out.String())
	}

	out.Reset()
	if err := run(context.Background(), []string{"crawl", "-print-schema"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), crawler.ConfigSchema()) {
		t.Error("-print-schema does not print crawler.ConfigSchema()")
	}
}

// TestCrawlTargetFlags: -no-crawl-canonicals, -no-crawl-hreflang and
// -skip-resource-checks each set their own crawler.Config field, and set
// to false they override a -config file that turns them on.
func TestCrawlTargetFlags(t *testing.T) {
	get := func(c *crawler.Config) [3]bool {
		return [3]bool{c.NoCrawlCanonicals, c.NoCrawlHreflang, c.SkipResourceChecks}
	}
	printed := func(args ...string) *crawler.Config {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(context.Background(), append([]string{"crawl", "-print-config"}, args...), &out, &errOut); err != nil {
			t.Fatalf("%v\n%s", err, errOut.String())
		}
		c, err := crawler.DecodeConfig(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return c
	}
	if got := get(printed()); got != [3]bool{} {
		t.Errorf("no flag: %v, want all off", got)
	}
	flags := []string{"-no-crawl-canonicals", "-no-crawl-hreflang", "-skip-resource-checks"}
	for i, f := range flags {
		var want [3]bool
		want[i] = true
		if got := get(printed(f)); got != want {
			t.Errorf("%s: %v, want %v", f, got, want)
		}
	}
	file := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(file, []byte(`{"noCrawlCanonicals":true,"noCrawlHreflang":true,"skipResourceChecks":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := get(printed("-config", file)); got != [3]bool{true, true, true} {
		t.Errorf("-config: %v, want all on", got)
	}
	for i, f := range flags {
		want := [3]bool{true, true, true}
		want[i] = false
		if got := get(printed("-config", file, f+"=false")); got != want {
			t.Errorf("-config with %s=false: %v, want %v", f, got, want)
		}
	}
}
