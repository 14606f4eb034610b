package seo_test

import (
	"errors"
	"fmt"

	"github.com/seokit/seokit/seo"
)

func ExamplePageScore() {
	score := seo.PageScore([]seo.Finding{
		{ID: "title.missing", Severity: seo.Error},
		{ID: "images.alt_missing", Severity: seo.Warning},
		{ID: "images.alt_missing", Severity: seo.Warning}, // a repeated ID costs once
		{ID: "url.underscore", Severity: seo.Notice},
	})
	fmt.Println(score.Value, score.Counts.Errors, score.Counts.Warnings, score.Counts.Notices)
	// Output: 85 1 1 1
}

func ExampleParseLocale() {
	l, err := seo.ParseLocale("pt_br")
	fmt.Println(l, err)
	_, err = seo.ParseLocale("portuguese")
	fmt.Println(errors.Is(err, seo.ErrInvalidInput))
	fmt.Println(err)
	// Output:
	// pt-BR <nil>
	// true
	// seo: invalid locale: must have the form xx-XX, a two-letter language and a two-letter region, such as en-US (got "portuguese")
}

func ExampleHostInScope() {
	fmt.Println(seo.HostInScope("blog.example.co.uk", "example.co.uk", true))
	fmt.Println(seo.HostInScope("notexample.co.uk", "example.co.uk", true))
	// Output:
	// true
	// false
}

func ExampleGroupFindings() {
	fs := seo.GroupFindings([]seo.Finding{
		{ID: "images.alt_missing", Severity: seo.Warning, Evidence: seo.Evidence{Value: "/a.png"}},
		{ID: "images.alt_missing", Severity: seo.Warning, Evidence: seo.Evidence{Value: "/b.png"}},
		{ID: "images.alt_missing", Severity: seo.Warning, Evidence: seo.Evidence{Value: "/c.png"}},
		{ID: "social.og_image_missing", Severity: seo.Notice},
	}, 1)
	for i := range fs {
		fs[i].Priority = seo.Priority(fs[i].Severity, seo.PageReach(fs[i].Count), fs[i].ID == "social.og_image_missing")
	}
	seo.SortByPriority(fs)
	for _, f := range fs {
		fmt.Println(f.ID, f.Count, len(f.Examples), f.Priority)
	}
	// Output:
	// images.alt_missing 3 1 59
	// social.og_image_missing 1 0 0
}

func ExampleParseHost() {
	host, err := seo.ParseHost(" Shop.Example.com:8443 ", &seo.DomainOptions{AllowPort: true})
	fmt.Println(host, err)
	_, err = seo.ParseHost("shop.example.com:8443", nil)
	fmt.Println(err)
	// Output:
	// shop.example.com:8443 <nil>
	// seo: invalid domain: must not have a port (got "shop.example.com:8443")
}
