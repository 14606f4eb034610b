package robotstxt_test

import (
	"fmt"

	"github.com/seokit/seokit/seo/robotstxt"
)

func Example() {
	r := robotstxt.Parse([]byte(`User-agent: *
Disallow: /search
Allow: /search/about
Crawl-delay: 2

User-agent: GPTBot
Disallow: /

Sitemap: https://www.example.com/sitemap.xml
`))
	fmt.Println(r.Allowed("seokit/1.0", "/search?q=shoes"))
	fmt.Println(r.Allowed("seokit/1.0", "/search/about"))
	fmt.Println(r.Allowed("GPTBot", "/blog/"))
	d, _ := r.CrawlDelay("seokit")
	fmt.Println(d)
	fmt.Println(r.BlockedAICrawlers())
	fmt.Println(r.Sitemaps())
	// Output:
	// false
	// true
	// false
	// 2s
	// [GPTBot]
	// [https://www.example.com/sitemap.xml]
}

func ExampleRobots_Decide() {
	r := robotstxt.Parse([]byte("User-agent: *\nDisallow: /private\n\nUser-agent: GPTBot\nDisallow: /\n"))
	fmt.Printf("%+v\n", r.Decide("GPTBot", "/blog/"))
	fmt.Printf("%+v\n", r.Decide("OAI-SearchBot", "/private/x"))
	fmt.Printf("%+v\n", r.Decide("OAI-SearchBot", "/blog/"))
	// Output:
	// {Allowed:false Group:gptbot Line:5 Rule:Disallow: /}
	// {Allowed:false Group:* Line:2 Rule:Disallow: /private}
	// {Allowed:true Group:* Line:0 Rule:no matching rule: allowed}
}

func ExampleFromStatus() {
	fmt.Println(robotstxt.FromStatus(404, nil).Allowed("seokit", "/any"))
	fmt.Println(robotstxt.FromStatus(503, nil).Allowed("seokit", "/any"))
	// Output:
	// true
	// false
}
